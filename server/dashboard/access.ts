import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { GatewayError, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppEnv } from '../http/context.ts';
import { listEntities, type Entity } from '../merchants/repository.ts';
import type { Queryable } from '../store/index.ts';
import { liveSession, SESSION_COOKIE, type Principal, type Session } from './sessions.ts';
import type { Role } from './users.ts';

/**
 * Who may do what in the dashboard, decided on the server for every request: a live session (sessions.ts) from the
 * HttpOnly cookie, its CSRF token on every request that changes something, the entities its principal may see — an
 * operator every entity, a merchant user their merchant's — and what its role may change (requireRole). Another
 * entity's payment is as unknown to a merchant as one nobody made.
 */

/** The session of each request past requireSession (keyed by the request, so it goes with it). */
const sessions = new WeakMap<Request, Session>();

/** The request's session; only routes behind requireSession ask. */
export function sessionOf(c: Context<AppEnv>): Session {
  const session = sessions.get(c.req.raw);
  if (!session) throw signInRequired();
  return session;
}

export const signInRequired = (): GatewayError => new GatewayError(withReason(RESULTS.invalidAuthentication, 'sign in to the dashboard'), 401);

/** The Set-Cookie value that opens (value, maxAge in seconds) or clears (no value) the session cookie. */
export function sessionCookie(value: string | undefined, secure: boolean): string {
  const attributes = ['Path=/dashboard', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  return value === undefined
    ? [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ')
    : [`${SESSION_COOKIE}=${value}`, ...attributes].join('; ');
}

/**
 * A request from a page of another site is refused: its Origin (sent on every cross-origin request and on every
 * POST) must name this gateway, and Sec-Fetch-Site, where the browser sends it, must not say cross-site.
 */
export function sameOriginProblem(c: Context<AppEnv>, publicUrl: string): string | undefined {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a ${site} request`;
  const origin = c.req.header('origin');
  if (origin === undefined) return undefined;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return 'an Origin that is no address';
  }
  const own = [new URL(publicUrl).host, c.req.header('host')];
  return own.includes(host) ? undefined : 'a request from another origin';
}

const sameText = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The live session (else 401), and for a request that changes something its CSRF token and origin (else 403). */
export function requireSession(deps: { readonly store: Queryable; readonly now: () => Date; readonly publicUrl: string }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    const session = cookie ? await liveSession(deps.store, cookie, deps.now()) : undefined;
    if (!session) throw signInRequired();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const token = c.req.header('x-csrf-token');
      if (!token || !sameText(token, session.csrfToken)) throw new GatewayError(withReason(RESULTS.invalidAuthentication, 'missing or wrong X-CSRF-Token'), 403);
      const problem = sameOriginProblem(c, deps.publicUrl);
      if (problem) throw new GatewayError(withReason(RESULTS.invalidAuthentication, `${problem} is refused`), 403);
    }
    sessions.set(c.req.raw, session);
    await next();
  };
}

/** The entities the principal may see, by id; undefined for an operator (every entity). */
export const entityScope = (principal: Principal): readonly string[] | undefined => (principal.kind === 'operator' ? undefined : [...principal.entityIds]);

export const mayActFor = (principal: Principal, entityId: string): boolean => principal.kind === 'operator' || principal.entityIds.has(entityId);

/** The entities the principal sees, with their names. */
export async function entitiesOf(db: Queryable, principal: Principal): Promise<Entity[]> {
  const all = await listEntities(db);
  return principal.kind === 'operator' ? all : all.filter((entity) => principal.entityIds.has(entity.id));
}

/** 403 unless the principal may act for the entity (an entity id the caller chose, in a filter or a body). */
export function requireEntity(principal: Principal, entityId: string): void {
  if (!mayActFor(principal, entityId)) throw new GatewayError(withReason(RESULTS.invalidAuthentication, 'not an entity of this session'), 403);
}

/**
 * What each change in the dashboard needs, in one order: a merchant user's role, then the operator above them all.
 *   viewer    reads only
 *   refunds   captures, refunds, reverses payments; cancels schedules
 *   admin     the entity's users, webhooks and deliveries, re-sending its reconciliation files
 *   operator  the platform's settings of an entity (smart retry, brands, FTP, routing, credentials), second-factor resets
 * Every route that changes something calls requireRole first (server/dashboard/roles.test.ts holds them to it).
 */
export type Need = Exclude<Role, 'viewer'> | 'operator';
const RANK: Readonly<Record<Role | 'operator', number>> = { viewer: 0, refunds: 1, admin: 2, operator: 3 };

/** Whether the principal may do what needs `need`. */
export const mayDo = (principal: Principal, need: Need): boolean => RANK[principal.kind === 'operator' ? 'operator' : principal.role] >= RANK[need];

/** 403 unless the principal's role may do what needs `need`. */
export function requireRole(principal: Principal, need: Need): void {
  if (mayDo(principal, need)) return;
  throw new GatewayError(withReason(RESULTS.invalidAuthentication, need === 'operator' ? 'only an operator changes this' : `this needs the role ${need}`), 403);
}

/** 403 for a merchant: what only an operator changes (the platform's settings of an entity). */
export const requireOperator = (principal: Principal): void => requireRole(principal, 'operator');

/** How an action's author is recorded and shown: `operator olivia`, or `user ada@example.com (Shop Ltd)`. */
export const actorOf = (principal: Principal): string =>
  principal.kind === 'operator' ? `operator ${principal.name}` : `user ${principal.name} (${principal.merchantName})`;
