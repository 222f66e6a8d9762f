import type { Acquirer } from '../acquirers/types.ts';
import { loadConfig } from '../config.ts';
import { startGateway } from '../gateway.ts';

/**
 * A gateway process for crash tests: configured from the environment like `server/main.ts`, with the simulated
 * acquirers, except that an authorization whose card holder is `HANG` never reaches the acquirer and never comes
 * back, and one whose holder is `HANG AFTER ANSWER` reaches it (the acquirer decides and keeps its answer) but the
 * answer never comes back. It says on stderr when such a call was made, so the test can kill the process exactly
 * while a payment is being made.
 */

function hanging(acquirer: Acquirer): Acquirer {
  return {
    ...acquirer,
    async authorize(request) {
      const card = request.card;
      if (!card || (card.holder !== 'HANG' && card.holder !== 'HANG AFTER ANSWER')) return acquirer.authorize(request);
      if (card.holder === 'HANG AFTER ANSWER') await acquirer.authorize({ ...request, card: { ...card, holder: 'Jane Jones' } });
      process.stderr.write(`acquirer called for ${request.attemptId}\n`);
      return new Promise(() => undefined);
    },
  };
}

const gateway = await startGateway(loadConfig(), { wrapAcquirer: hanging });
process.stderr.write(`Gateway listening on ${gateway.url}\n`);
