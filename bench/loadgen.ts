/**
 * The load generator: a child process (forked by http-load.ts) so that autocannon's own CPU use does not
 * share the gateway's event loop. It runs one warm-up and one measured autocannon run and replies with
 * the summary; latencies come from autocannon's per-request 'response' timings (sub-millisecond).
 */
import autocannon from 'autocannon';
import type { LoadReply, LoadSpec, Outcome } from './load-protocol.ts';
import { summarize } from './stats.ts';

function run(spec: LoadSpec, seconds: number, latencies: number[] | undefined): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        connections: spec.connections,
        duration: seconds,
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

function outcomeOf(result: autocannon.Result): Outcome {
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  return {
    responses: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
  };
}

async function measure(spec: LoadSpec): Promise<LoadReply> {
  const warmup = outcomeOf(await run(spec, spec.warmupSeconds, undefined));
  const latencies: number[] = [];
  const result = await run(spec, spec.durationSeconds, latencies);
  const outcome = outcomeOf(result);
  return { ok: true, result: { warmup, measured: { ...outcome, ...summarize(latencies, outcome.responses, result.duration) } } };
}

// The parent going away (crash, Ctrl-C) must not leave a load generator hammering a port.
let replied = false;
process.on('disconnect', () => process.exit(replied ? 0 : 1));

process.once('message', (spec: LoadSpec) => {
  measure(spec)
    .catch((error: unknown): LoadReply => ({ ok: false, error: error instanceof Error ? error.stack ?? error.message : String(error) }))
    .then((reply) => {
      replied = true;
      process.send?.(reply, () => process.disconnect());
    });
});
