import type { Context, MiddlewareHandler } from 'hono';
import type { GatewayError } from '../domain/errors.ts';
import { ENTITY_ID, isCheckoutId, LEGACY_USER_ID, RESOURCE_ID } from '../domain/ids.ts';
import type { AppEnv } from './context.ts';

/**
 * Ids in request paths, checked for their shape before anything looks them up: one table of the kinds of id a path
 * carries, and one middleware (pathId) every route with a path parameter puts after its authentication and before
 * its handler. An id of the wrong shape (a NUL, invalid UTF-8, a card number, 40 kB of text) never reaches the store,
 * an idempotency key's scope or a log line: the route answers what it answers for an id it does not know. The route
 * table test (routesProperty.test.ts) fails for a route whose path parameter has no check.
 */

const PATH_ID_SHAPES = {
  /** 32 lowercase hex (COMPAT §1), as registrations and schedules. */
  payment: RESOURCE_ID,
  registration: RESOURCE_ID,
  schedule: RESOURCE_ID,
  /** A pending payment's redirect page. */
  redirect: RESOURCE_ID,
  /** 32 uppercase hex, a dot and a cluster suffix (domain/ids.ts). */
  checkout: { test: isCheckoutId },
  /** What the query API looks up (COMPAT §14): a transaction's id, or a checkout's (its payment). */
  transaction: { test: (id: string) => RESOURCE_ID.test(id) || isCheckoutId(id) },
  entity: ENTITY_ID,
  webhook: RESOURCE_ID,
  delivery: RESOURCE_ID,
  /** A legacy credentials pair's userId (COMPAT §1). */
  legacyUser: LEGACY_USER_ID,
  /** The widget build's content hash (widget/build.ts). */
  widgetVersion: /^[0-9a-f]{16}$/,
  /** A settlement day, yyyy-MM-dd (a reconciliation file's, reconciliation/routes.ts). */
  settlementDate: /^\d{4}-\d{2}-\d{2}$/,
  /** A settlement report's aggregation (a settlement batch, reports/routes.ts). */
  aggregation: RESOURCE_ID,
  /** A merchant user of the dashboard (dashboard/users.ts). */
  merchantUser: RESOURCE_ID,
  /** An access token's id (the admin API's /admin/v1/tokens/{id}). */
  accessToken: RESOURCE_ID,
  /** An acquirer's name (ACQUIRERS): a connector's provider's endpoints, and its credentials (issue 33). */
  acquirer: /^[a-z][a-z0-9-]{0,31}$/,
  /** An acquirer attempt (a shopper's return from a connector's provider names it). */
  attempt: RESOURCE_ID,
  /** A documentation page's file name (home.ts: docs/*.md). */
  docPage: /^[a-z][a-z0-9-]{0,63}\.md$/,
  /** A card's first 6 to 8 digits, the BIN list's key (widget/routes.ts): never more, so never a card number. */
  bin: /^[0-9]{6,8}$/,
} satisfies Record<string, { test(id: string): boolean }>;

export type PathIdKind = keyof typeof PATH_ID_SHAPES;

/** What the route answers for an id it does not know: thrown (a GatewayError, answered as JSON by app.ts) or sent (a page). */
export type UnknownIdAnswer = (c: Context<AppEnv>, id: string) => GatewayError | Response;

export function isPathId(kind: PathIdKind, id: string): boolean {
  return PATH_ID_SHAPES[kind].test(id);
}

export interface PathIdCheck {
  readonly parameter: string;
  readonly kind: PathIdKind;
}

/** The checks pathId made, by the middleware function: what the route table test looks for in each route. */
const CHECKS = new WeakMap<object, PathIdCheck>();

/** What `handler` checks, when it is a pathId check. */
export function pathIdCheckOf(handler: unknown): PathIdCheck | undefined {
  return typeof handler === 'function' ? CHECKS.get(handler) : undefined;
}

/** Checks the path parameter `parameter` (default `id`) against its kind's shape; any other id gets `unknown`. */
export function pathId(kind: PathIdKind, unknown: UnknownIdAnswer, parameter = 'id'): MiddlewareHandler<AppEnv> {
  const check: MiddlewareHandler<AppEnv> = async (c, next) => {
    const id = c.req.param(parameter);
    // A route that names another parameter is a programming error, not the caller's: answered 500 and logged.
    if (id === undefined) throw new Error(`no path parameter ${parameter} in the route of ${c.req.method} ${c.req.path}`);
    if (!isPathId(kind, id)) {
      const answer = unknown(c, id);
      if (answer instanceof Response) return answer;
      throw answer;
    }
    await next();
  };
  CHECKS.set(check, { parameter, kind });
  return check;
}
