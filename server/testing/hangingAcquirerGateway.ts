import { loadConfig } from '../config.ts';
import { startGateway } from '../gateway.ts';
import { hangingAcquirer } from './hangingAcquirer.ts';

/**
 * A gateway process for crash tests: configured from the environment like `server/main.ts`, with the simulated
 * acquirers wrapped by hangingAcquirer (card holders `HANG` and `HANG AFTER ANSWER`).
 */

const gateway = await startGateway(loadConfig(), { wrapAcquirer: hangingAcquirer });
process.stderr.write(`Gateway listening on ${gateway.url}\n`);
