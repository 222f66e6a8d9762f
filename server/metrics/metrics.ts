import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { RESULTS, resultClassOf } from '../domain/resultCodes.ts';
// Webhook deliveries are jobs of this kind: their failures have a counter of their own.
import { WEBHOOK_DELIVERY_JOB } from '../events/outbox.ts';

/**
 * Prometheus metrics (issue 24), with prom-client, in a registry of the gateway's own (never the global one: tests
 * start several gateways in one process). Labels are bounded sets only: route templates (`/v1/payments/:id`, never a
 * path with its id), methods, status classes, result classes (COMPAT §8), payment types and brands (the catalogue's),
 * job kinds. No card data, id, token or entity is ever a label.
 */

export interface RequestObservation {
  /** The route template that answered (`/v1/payments/:id`), or `unmatched`. */
  readonly route: string;
  readonly method: string;
  readonly status: number;
  readonly resultCode: string | undefined;
  readonly seconds: number;
}

export interface RecordedPayment {
  readonly paymentType: string;
  readonly paymentBrand: string | null;
  readonly resultCode: string;
}

export type JobOutcomeKind = 'done' | 'retry' | 'failed';

/** The queue of one job kind at a scrape: jobs due and not finished, and how long the oldest has waited. */
export interface JobQueue {
  readonly kind: string;
  readonly depth: number;
  readonly oldestAgeSeconds: number;
}

/** How a call to an acquirer ended (payments/acquirerCalls.ts). */
export type AcquirerCallOutcome = 'answer' | 'unreachable' | 'unknown' | 'refused';

/** The attempts awaiting one acquirer's final word at a scrape: how many, and how long the oldest has waited. */
export interface AwaitingAttempts {
  readonly acquirer: string;
  readonly count: number;
  readonly oldestAgeSeconds: number;
}

export interface Metrics {
  readonly registry: Registry;
  requestAnswered(request: RequestObservation): void;
  paymentsRecorded(payments: readonly RecordedPayment[]): void;
  jobFinished(kind: string, outcome: JobOutcomeKind): void;
  acquirerCalled(acquirer: string, outcome: AcquirerCallOutcome): void;
  /** Where the job queues are read at each scrape (the gateway's store). */
  readJobQueuesWith(read: () => Promise<readonly JobQueue[]>): void;
  /** Where the attempts awaiting their acquirer are read at each scrape. */
  readAwaitingAttemptsWith(read: () => Promise<readonly AwaitingAttempts[]>): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ readonly text: string; readonly contentType: string }>;
}

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The label for a result code: its class, `none` for an answer without one. */
const classOf = (code: string | undefined) => (code === undefined ? 'none' : resultClassOf(code));

/**
 * Gauges of what the store holds (the whole store, not this instance), one series per label value, all read in one
 * query per scrape: the first gauge's collect starts it, the others share it. Returns where the query is set.
 */
function storeGauges<T>(
  registry: Registry,
  label: string,
  labelOf: (entry: T) => string,
  gauges: readonly { readonly name: string; readonly help: string; readonly value: (entry: T) => number }[],
): (read: () => Promise<readonly T[]>) => void {
  let read: (() => Promise<readonly T[]>) | undefined;
  let current: Promise<readonly T[]> | undefined;
  const ofThisScrape = () => (current ??= (read?.() ?? Promise.resolve([])).finally(() => setImmediate(() => (current = undefined))));
  for (const gauge of gauges) {
    new Gauge({
      name: gauge.name,
      help: gauge.help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        this.reset();
        for (const entry of await ofThisScrape()) this.set({ [label]: labelOf(entry) }, gauge.value(entry));
      },
    });
  }
  return (reader) => {
    read = reader;
  };
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const requests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by route template, method, status class and result class',
    labelNames: ['route', 'method', 'status', 'result_class'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const throttled = new Counter({
    name: 'gateway_http_throttled_requests_total',
    help: 'Requests refused by a request limit (800.120.100), by route template',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const payments = new Counter({
    name: 'gateway_payments_total',
    help: 'Payments recorded by this instance, by payment type, brand and result class',
    labelNames: ['payment_type', 'brand', 'result_class'] as const,
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'gateway_jobs_total',
    help: 'Background jobs run by this instance, by kind and outcome (done, retry, failed: given up)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const webhookFailures = new Counter({
    name: 'gateway_webhook_delivery_failures_total',
    help: 'Webhook delivery attempts that failed (to be retried, or given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const acquirerCalls = new Counter({
    name: 'gateway_acquirer_calls_total',
    help: 'Calls to acquirers by this instance, by acquirer and how they ended: answer, unreachable (never sent), unknown (sent, no answer read: asked, never sent again), refused',
    labelNames: ['acquirer', 'outcome'] as const,
    registers: [registry],
  });
  const readAwaitingAttemptsWith = storeGauges<AwaitingAttempts>(registry, 'acquirer', (entry) => entry.acquirer, [
    {
      name: 'gateway_acquirer_attempts_awaiting',
      help: 'Payments awaiting their acquirer’s final word (pending there, or their answer lost), by acquirer (the whole store)',
      value: (entry) => entry.count,
    },
    { name: 'gateway_acquirer_attempts_awaiting_oldest_age_seconds', help: 'How long the oldest payment awaiting each acquirer’s final word has waited', value: (entry) => entry.oldestAgeSeconds },
  ]);
  const readJobQueuesWith = storeGauges<JobQueue>(registry, 'kind', (queue) => queue.kind, [
    { name: 'gateway_job_queue_depth', help: 'Jobs due and not finished, by kind (the whole store: every instance shares the queue)', value: (queue) => queue.depth },
    { name: 'gateway_job_queue_oldest_age_seconds', help: 'How long the oldest due job of each kind has waited', value: (queue) => queue.oldestAgeSeconds },
  ]);

  return {
    registry,
    requestAnswered({ route, method, status, resultCode, seconds }) {
      requests.inc({ route, method, status: `${Math.floor(status / 100)}xx`, result_class: classOf(resultCode) });
      durations.observe({ route, method }, seconds);
      // COMPAT §17: a request over a limit is answered 400 800.120.100, never 429.
      if (resultCode === RESULTS.throttled.code) throttled.inc({ route });
    },
    paymentsRecorded(recorded) {
      for (const payment of recorded) {
        payments.inc({ payment_type: payment.paymentType, brand: payment.paymentBrand ?? 'none', result_class: classOf(payment.resultCode) });
      }
    },
    jobFinished(kind, outcome) {
      jobs.inc({ kind, outcome });
      if (kind === WEBHOOK_DELIVERY_JOB && outcome !== 'done') webhookFailures.inc({ outcome });
    },
    acquirerCalled(acquirer, outcome) {
      acquirerCalls.inc({ acquirer, outcome });
    },
    readJobQueuesWith,
    readAwaitingAttemptsWith,
    async scrape() {
      return { text: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
