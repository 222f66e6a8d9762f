/**
 * One gateway instance of bench H as a process of its own (forked by schedules.ts), so that each instance has its
 * own event loop and heap: fire drift and memory are then this instance's, not a figure shared with the bench or the
 * other instance. It starts the gateway from its environment as server/main.ts does (DATABASE_URL, CARD_DATA_KEY,
 * PORT, HOST, LOG_LEVEL: the bench passes only those), with the real clock and the default polls, logging into a sink
 * that drops the lines (as the other sections do), and answers the bench's questions over IPC:
 *
 *   { stats: true }  its memory after a full garbage collection (the bench forks it with --expose-gc), the event
 *                    loop's delay since the last question, and what it sent PostgreSQL (see below);
 *   { stop: true }   closes the gateway, answers, exits.
 *
 * What it sent PostgreSQL is counted by wrapping node-postgres' Client#query (every statement, BEGIN and COMMIT
 * included): statements by shape with the time each waited for its answer, the fire times its scheduler took (the rows of each due-schedules claim) and, per
 * taking transaction, when its COMMIT was answered, which is when that batch's payment jobs became visible to the
 * workers (the execution rows' taken_at is stamped when the batch starts). The wrapper costs a map update per
 * statement.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../server/config.ts';
import { startGateway, type RunningGateway } from '../server/gateway.ts';

/** The first words of lockDueSchedules' statement (schedules/repository.ts). */
const TAKE_STATEMENT = /^SELECT id, expression, end_at, next_fire_at FROM schedules\b/;

let statements = 0;
/** Statements by shape (their first words): how many, and the time from sending each to its answer. */
const shapes = new Map<string, { count: number; ms: number }>();
/** Per connection, the rows its open transaction claimed with TAKE_STATEMENT. */
const taking = new WeakMap<object, number>();
/** Each taking transaction's COMMIT: when it was answered (epoch ms) and how many fire times it took. */
const commits: { at: number; rows: number }[] = [];

function shapeOf(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 90);
}

type Callback = (error: Error | null, result?: { rowCount?: number | null }) => void;
type Result = { rowCount?: number | null } | undefined;
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: object, ...args: unknown[]) {
  const first = args[0] as string | { text?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? '');
  const shape = shapeOf(text);
  const sent = performance.now();
  statements += 1;
  const counted = shapes.get(shape) ?? { count: 0, ms: 0 };
  counted.count += 1;
  shapes.set(shape, counted);
  let seen: ((result: Result) => void) | undefined;
  if (TAKE_STATEMENT.test(shape)) {
    seen = (result) => taking.set(this, (taking.get(this) ?? 0) + (result?.rowCount ?? 0));
  } else if (shape === 'COMMIT' || shape === 'ROLLBACK') {
    const rows = taking.get(this);
    taking.delete(this);
    if (rows !== undefined && rows > 0 && shape === 'COMMIT') seen = () => commits.push({ at: Date.now(), rows });
  }
  const answered = (result: Result) => {
    counted.ms += performance.now() - sent;
    seen?.(result);
  };
  const last = args[args.length - 1];
  if (typeof last === 'function') {
    const callback = last as Callback;
    args[args.length - 1] = (error: Error | null, result?: Result) => {
      if (!error) answered(result);
      callback(error, result);
    };
    return clientQuery.apply(this, args);
  }
  const pending = clientQuery.apply(this, args) as Promise<Result>;
  return pending.then((result) => {
    answered(result);
    return result;
  });
} as typeof pg.Client.prototype.query;

export interface InstanceStats {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  /** Event-loop delay since the previous stats question, ms. */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  readonly statements: number;
  readonly shapes: Record<string, { count: number; ms: number }>;
  readonly commits: readonly { at: number; rows: number }[];
}

export type InstanceMessage = { started: { url: string } } | { failed: string } | { stats: InstanceStats } | { stopped: true };

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

function send(message: InstanceMessage, then?: () => void): void {
  if (process.send) process.send(message, undefined, {}, () => then?.());
  else then?.();
}

function stats(): InstanceStats {
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  const result: InstanceStats = {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    loopDelayMaxMs: loop.max / 1e6,
    statements,
    shapes: Object.fromEntries([...shapes].map(([shape, counted]) => [shape, { ...counted }])),
    commits: [...commits],
  };
  loop.reset();
  return result;
}

let gateway: RunningGateway | undefined;
let closing: Promise<void> | undefined;

/** Closes the gateway once, however many ways are asked to (the bench, a signal, the bench going away). */
function close(): Promise<void> {
  closing ??= (gateway?.close() ?? Promise.resolve()).catch(() => undefined);
  return closing;
}

process.on('message', (message: { stats?: true; stop?: true }) => {
  if (message.stats) send({ stats: stats() });
  else if (message.stop) void close().then(() => send({ stopped: true }, () => process.exit(0)));
});
// Ctrl-C reaches the whole process group: stop as server/main.ts does. The bench went away (killed, crashed): stop
// too, rather than run on against its schema.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void close().then(() => process.exit(0)));
process.on('disconnect', () => void close().then(() => process.exit(0)));

try {
  const config = { ...loadConfig(), demoMerchant: undefined };
  gateway = await startGateway(config, {
    logSink: () => undefined,
    onFatal: () => void close().then(() => process.exit(1)),
  });
  send({ started: { url: gateway.url } });
} catch (error) {
  send({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () => process.exit(1));
}
