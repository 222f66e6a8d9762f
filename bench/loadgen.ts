/**
 * The load generator: a child process (forked by http-load.ts) so that autocannon's own CPU use does not
 * share the gateway's event loop. It runs one warm-up and one measured autocannon run and replies with
 * the summary; latencies come from autocannon's per-request 'response' timings (sub-millisecond).
 */
import autocannon from 'autocannon';
import type { LoadMeasuring, LoadReply, LoadSpec, Outcome } from './load-protocol.ts';
import { summarize } from './stats.ts';

/** What the answers to a mix of requests were: counted per request, checked against what each must contain. */
interface AnswerTally {
  readonly byRequest: number[];
  mismatches: number;
  firstMismatch?: string;
}

function requestsOf(spec: LoadSpec, tally: AnswerTally): autocannon.Request[] | undefined {
  return spec.requests?.map((request, index) => ({
    body: request.body,
    onResponse: (_status: number, body: string) => {
      tally.byRequest[index] = (tally.byRequest[index] ?? 0) + 1;
      const wrong =
        (request.answerIncludes !== undefined && !body.includes(request.answerIncludes)) ||
        (request.answerExcludes !== undefined && body.includes(request.answerExcludes));
      if (!wrong) return;
      tally.mismatches += 1;
      tally.firstMismatch ??= body.slice(0, 500);
    },
  }));
}

/** With `paths`: the index of the next unused one, over both runs. */
let nextPath = 0;

/** With `paths`: one request whose path is the next unused one of the list. */
function pathRequests(paths: readonly string[] | undefined): autocannon.Request[] | undefined {
  if (paths === undefined || paths.length === 0) return undefined;
  return [{ setupRequest: (request) => ({ ...request, path: paths[Math.min(nextPath++, paths.length - 1)] as string }) }];
}

function run(spec: LoadSpec, seconds: number, latencies: number[] | undefined, tally: AnswerTally): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const requests = requestsOf(spec, tally) ?? pathRequests(spec.paths);
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        ...(spec.body !== undefined ? { body: spec.body } : {}),
        ...(requests ? { requests } : {}),
        connections: spec.connections,
        duration: seconds,
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

function outcomeOf(result: autocannon.Result, tally: AnswerTally, mix: boolean): Outcome {
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  return {
    responses: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    ...(mix
      ? { answersByRequest: tally.byRequest, answerMismatches: tally.mismatches, ...(tally.firstMismatch !== undefined ? { firstMismatch: tally.firstMismatch } : {}) }
      : {}),
  };
}

const newTally = (): AnswerTally => ({ byRequest: [], mismatches: 0 });

async function measure(spec: LoadSpec): Promise<LoadReply> {
  const mix = spec.requests !== undefined;
  const warmupTally = newTally();
  const warmup = outcomeOf(await run(spec, spec.warmupSeconds, undefined, warmupTally), warmupTally, mix);
  const measuring: LoadMeasuring = { measuring: true };
  process.send?.(measuring);
  const latencies: number[] = [];
  const tally = newTally();
  const result = await run(spec, spec.durationSeconds, latencies, tally);
  const outcome = outcomeOf(result, tally, mix);
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
