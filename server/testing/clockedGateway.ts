import { hangingAcquirer } from './hangingAcquirer.ts';
import { loadConfig } from '../config.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';

/**
 * A gateway process for tests of schedules across processes (schedules/instances.test.ts): configured from the
 * environment like `server/main.ts`, but with a clock the test controls, so a test never waits for a fire time. Only
 * this entry reads the variables below; the gateway itself is the production one (its clock is GatewayOptions.now).
 *
 * - GATEWAY_TEST_CLOCK_OFFSET_MS: the clock runs this far ahead of the real one (negative: behind). Default 0.
 * - GATEWAY_TEST_CLOCK_AT_SIGNAL: an ISO time; on SIGUSR2 the clock jumps to it (and runs on from there), and the
 *   process prints `clock at <ISO time>`. Several processes signalled together jump past the same fire times together.
 * - GATEWAY_TEST_CLOCK_PARITY: 0 or 1: every reading of the clock is an even (0) or odd (1) millisecond, so a time
 *   this instance wrote (an execution's taken_at, started_at) tells which of two instances wrote it.
 * - GATEWAY_TEST_HANG=1: the acquirers hang as testing/hangingAcquirer.ts says: an authorization whose card holder is
 *   `HANG` never reaches the acquirer, one whose holder is `HANG AFTER ANSWER` reaches it (the acquirer decides and
 *   keeps its answer) and the answer never comes back; either prints `acquirer called for <attempt id>`.
 * - JOB_POLL_MS: how often the job workers and the scheduler look for due work (GatewayOptions.jobPollMs). Default 1 s.
 *
 * It prints `instance <store instance id>` before the `Gateway listening on <url>` line (the id the gateway writes in
 * acquirer_attempts.instance_id), logs at LOG_LEVEL to stderr, and on SIGTERM closes the gateway and exits 0.
 */

const env = process.env;
const parity = env.GATEWAY_TEST_CLOCK_PARITY === undefined || env.GATEWAY_TEST_CLOCK_PARITY === '' ? undefined : Number(env.GATEWAY_TEST_CLOCK_PARITY);
let offsetMs = Number(env.GATEWAY_TEST_CLOCK_OFFSET_MS ?? 0) || 0;

function now(): Date {
  let time = Date.now() + offsetMs;
  // Rounded down to the instance's parity: readings never go backwards.
  if (parity !== undefined && (((time % 2) + 2) % 2) !== parity) time -= 1;
  return new Date(time);
}

const jobPollMs = env.JOB_POLL_MS ? Number(env.JOB_POLL_MS) : undefined;
let gateway: RunningGateway | undefined;
gateway = await startGateway(loadConfig(), {
  now,
  logSink: (line) => process.stderr.write(`${line}\n`),
  ...(jobPollMs !== undefined ? { jobPollMs } : {}),
  ...(env.GATEWAY_TEST_HANG === '1' ? { wrapAcquirer: hangingAcquirer } : {}),
  onFatal: () => {
    void (gateway?.close() ?? Promise.resolve()).finally(() => process.exit(1));
  },
});

const jumpTo = env.GATEWAY_TEST_CLOCK_AT_SIGNAL;
if (jumpTo) {
  const target = Date.parse(jumpTo);
  if (Number.isNaN(target)) throw new Error(`GATEWAY_TEST_CLOCK_AT_SIGNAL is not a time: ${jumpTo}`);
  process.on('SIGUSR2', () => {
    offsetMs = target - Date.now();
    process.stderr.write(`clock at ${now().toISOString()}\n`);
  });
}
process.on('SIGTERM', () => {
  void (gateway?.close() ?? Promise.resolve()).then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
process.stderr.write(`instance ${gateway.store.instanceId}\nGateway listening on ${gateway.url}\n`);
