import { createSimulatedAcquirer } from '../acquirers/simulator.ts';
import type { Acquirer } from '../acquirers/types.ts';
import { loadConfig } from '../config.ts';
import { startGateway } from '../gateway.ts';

/**
 * A gateway process for crash tests: configured from the environment like `server/main.ts`, with the simulated
 * acquirer, except that an authorization for the card holder `HANG` never comes back. It says on stderr when such
 * a call reached the acquirer, so the test can kill the process exactly while a payment is being made.
 */

const simulator = createSimulatedAcquirer();
const acquirer: Acquirer = {
  ...simulator,
  async authorize(request) {
    if (request.card.holder !== 'HANG') return simulator.authorize(request);
    process.stderr.write(`acquirer called for ${request.paymentId}\n`);
    return new Promise(() => undefined);
  },
};

const gateway = await startGateway(loadConfig(), { acquirer });
process.stderr.write(`Gateway listening on ${gateway.url}\n`);
