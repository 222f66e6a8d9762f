import type { Context, MiddlewareHandler } from 'hono';
import { GatewayError } from '../domain/errors.ts';
import { shownText } from '../domain/sensitive.ts';
import type { AppEnv } from '../http/context.ts';
import { findSpec } from '../params/validate.ts';
import type { Logger } from '../logger.ts';
import type { Queryable } from '../store/index.ts';

/**
 * What a merchant's integration is seen doing that its stored payments cannot tell afterwards (issue 36 point 7): the
 * requests' credentials and parameters, the 3-D Secure refusals, the widget's options. Counted in memory per entity,
 * kind and detail, and written to integration_observations a few seconds later in one statement (a request pays no
 * write for it), and before anything reads them (the report flushes first) or the gateway closes. Another instance's
 * counts reach the store with its own next flush.
 */

export type ObservationKind =
  /** The legacy authentication.userId/password pair instead of a bearer token (COMPAT §1). */
  | 'legacyCredentials'
  /** A parameter the spec does not know: the gateway ignored it (`detail`: its name). */
  | 'ignoredParameter'
  /** A parameter the spec deprecates (notificationUrl, recurringMigration.*). */
  | 'deprecatedParameter'
  /** testMode sent (`detail`: EXTERNAL or INTERNAL): a live provider refuses it, or takes it as a test. */
  | 'testMode'
  /** A 3-D Secure payment refused for want of the browser's data 3-D Secure 2 needs (doc 2 §2.9). */
  | 'threeDSecureWithoutBrowserData'
  /** An option the merchant's page set in wpwlOptions (`detail`: its name), as the widget reported it. */
  | 'widgetOption';

export interface Observation {
  readonly entityId: string;
  readonly kind: ObservationKind;
  readonly detail?: string;
  /** What it came with: the payment (or other resource) the request answered, the request, or the checkout. */
  readonly example?: string;
}

export interface ObservationRecorder {
  record(observation: Observation): void;
  /** Writes what was counted so far. */
  flush(): Promise<void>;
  /** Flushes, and stops the timer. */
  close(): Promise<void>;
}

interface Counted {
  readonly entityId: string;
  readonly kind: ObservationKind;
  readonly detail: string;
  count: number;
  readonly firstSeen: Date;
  lastSeen: Date;
  example: string | null;
}

/** How long counts wait in memory before they are written. */
const FLUSH_EVERY_MS = 5_000;
/** Distinct counts held before a write is forced (a flood of made-up parameter names stays bounded). */
const MAX_PENDING = 2_000;
/** A detail is a name: cut to this. */
const MAX_DETAIL = 64;

export function createObservationRecorder(store: Queryable, now: () => Date, logger: Logger): ObservationRecorder {
  let pending = new Map<string, Counted>();
  let writing: Promise<void> = Promise.resolve();

  async function write(batch: readonly Counted[]): Promise<void> {
    if (batch.length === 0) return;
    const rows = batch.map((counted) => ({
      entity_id: counted.entityId,
      kind: counted.kind,
      detail: counted.detail,
      count: counted.count,
      first_seen: counted.firstSeen.toISOString(),
      last_seen: counted.lastSeen.toISOString(),
      example: counted.example,
    }));
    await store.query(
      `INSERT INTO integration_observations (entity_id, kind, detail, count, first_seen, last_seen, example)
       SELECT r.entity_id, r.kind, r.detail, r.count, r.first_seen, r.last_seen, r.example
         FROM jsonb_to_recordset($1::jsonb) AS r(entity_id char(32), kind text, detail text, count bigint, first_seen timestamptz, last_seen timestamptz, example text)
        WHERE EXISTS (SELECT 1 FROM entities e WHERE e.id = r.entity_id)
       ON CONFLICT (entity_id, kind, detail) DO UPDATE
         SET count = integration_observations.count + EXCLUDED.count,
             last_seen = greatest(integration_observations.last_seen, EXCLUDED.last_seen),
             example = coalesce(EXCLUDED.example, integration_observations.example)`,
      [JSON.stringify(rows)],
    );
  }

  function flush(): Promise<void> {
    const batch = [...pending.values()];
    pending = new Map();
    // One write at a time, in order: a flush waits for the one before it.
    writing = writing.then(() =>
      write(batch).catch((error: unknown) => {
        // A report shows a little less; nothing a payment needs is lost.
        logger.warn('integration observations could not be written', { error, observations: batch.length });
      }),
    );
    return writing;
  }

  const timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
  timer.unref();

  return {
    record(observation) {
      const detail = (observation.detail ?? '').slice(0, MAX_DETAIL);
      const key = `${observation.entityId}\u0000${observation.kind}\u0000${detail}`;
      const at = now();
      const counted = pending.get(key);
      if (counted) {
        counted.count += 1;
        counted.lastSeen = at;
        counted.example = observation.example ?? counted.example;
        return;
      }
      pending.set(key, { entityId: observation.entityId, kind: observation.kind, detail, count: 1, firstSeen: at, lastSeen: at, example: observation.example ?? null });
      if (pending.size >= MAX_PENDING) void flush();
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

/** Parameters the gateway reads that the spec's catalogue does not list: not "ignored". */
const READ_BESIDES_CATALOGUE: ReadonlySet<string> = new Set(['entityId', 'authentication.entityId']);
/** Parameters the spec deprecates (doc 1 §8, doc 3 §2.8 and §2.10), as the report names them. */
const DEPRECATED = [
  { pattern: /^notificationUrl$/, shown: 'notificationUrl' },
  { pattern: /^recurringMigration\./, shown: 'recurringMigration.*' },
];
/** A parameter error that says 3-D Secure needed the browser's data (payments/flows/pending.ts requireRedirectData). */
const isBrowserDataMissing = (name: string) => name.startsWith('customer.browser.');

/**
 * After a merchant's API request (authenticated: its entity known), what it showed of the integration: its
 * credentials, the parameters the gateway ignored, deprecated ones, testMode, and a 3-D Secure refusal for want of
 * the browser's data. Nothing of a parameter's value is kept, only names and the spec's own values.
 */
export function observeRequests(recorder: ObservationRecorder): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const entityId = c.get('entityId');
    // Only what a merchant's server sent (authenticated as the merchant), not a shopper's submit.
    if (entityId && c.get('credentials') !== undefined) observeRequest(recorder, c, entityId);
  };
}

function observeRequest(recorder: ObservationRecorder, c: Context<AppEnv>, entityId: string): void {
  // The payment (or other resource) the request made or read, else the request's own id.
  const example = c.get('resourceId') ?? c.get('requestId');
  const seen = (kind: ObservationKind, detail?: string) => recorder.record({ entityId, kind, ...(detail !== undefined ? { detail } : {}), example });
  if (c.get('credentials') === 'legacy') seen('legacyCredentials');
  const params = c.get('params');
  if (params) {
    for (const name of params.keys()) {
      const deprecated = DEPRECATED.find((known) => known.pattern.test(name));
      if (deprecated) seen('deprecatedParameter', deprecated.shown);
      // A name is the merchant's text: shown as such text is (a card number typed into it masked, cut).
      else if (!READ_BESIDES_CATALOGUE.has(name) && findSpec(name) === undefined) seen('ignoredParameter', shownText(name, MAX_DETAIL));
    }
    const testMode = params.get('testMode');
    if (testMode === 'EXTERNAL' || testMode === 'INTERNAL') seen('testMode', testMode);
  }
  const error = c.error;
  if (error instanceof GatewayError && error.parameterErrors?.some((problem) => isBrowserDataMissing(problem.name))) seen('threeDSecureWithoutBrowserData');
}
