import { createHash, randomBytes } from 'node:crypto';
import type { JobHandler } from '../jobs/registry.ts';
import type { Queryable } from '../store/index.ts';
import { pruneChallenges } from './secondFactor.ts';
import { pruneSignInDelays } from './signInDelays.ts';
import type { Role } from './users.ts';

/**
 * Signed-in dashboard sessions. The cookie holds 32 random bytes; the store keeps only their SHA-256, so a copy of the
 * database opens no session. A session ends when signed out, after IDLE_TIMEOUT_MS without a request, after
 * ABSOLUTE_TIMEOUT_MS in all, when its operator or merchant user is removed, given a new password, another role or
 * a reset second factor.
 */

export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 60 * 60_000;
/** A request refreshes last_seen_at at most this often (one write per minute per session, not per request). */
const TOUCH_EVERY_MS = 60_000;

export const SESSION_COOKIE = 'gw_dashboard';

/** Who is signed in: an operator (every entity) or a merchant user (their merchant's entity), with their role. */
export type Principal =
  | { readonly kind: 'operator'; readonly operatorId: string; readonly name: string }
  | {
      readonly kind: 'merchant';
      readonly userId: string;
      /** The user's e-mail address. */
      readonly name: string;
      readonly role: Role;
      /** The merchant's (the entity's) name. */
      readonly merchantName: string;
      readonly entityIds: ReadonlySet<string>;
    };

export interface Session {
  readonly idHash: string;
  readonly principal: Principal;
  readonly csrfToken: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
}

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/** The session id to put in the cookie, and its CSRF token. */
export async function openSession(
  db: Queryable,
  signedIn: { readonly operatorId: string } | { readonly userId: string },
  now: Date,
): Promise<{ readonly cookieValue: string; readonly csrfToken: string }> {
  const cookieValue = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const [operatorId, userId] = 'operatorId' in signedIn ? [signedIn.operatorId, null] : [null, signedIn.userId];
  await db.query(
    `INSERT INTO dashboard_sessions (id_hash, operator_id, user_id, csrf_token, created_at, last_seen_at) VALUES ($1, $2, $3, $4, $5, $5)`,
    [sha256(cookieValue), operatorId, userId, csrfToken, now],
  );
  return { cookieValue, csrfToken };
}

interface SessionRow {
  id_hash: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  operator_id: string | null;
  operator_name: string | null;
  user_id: string | null;
  user_email: string | null;
  user_role: Role | null;
  entity_id: string | null;
  entity_name: string | null;
}

/**
 * The live session the cookie value names (refreshing its idle timer), or undefined: unknown, ended, idle or too old,
 * its operator or user removed. A user's role is read at each request: a change applies at once.
 */
export async function liveSession(db: Queryable, cookieValue: string, now: Date): Promise<Session | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(cookieValue)) return undefined;
  const idHash = sha256(cookieValue);
  const found = await db.query<SessionRow>(
    `SELECT s.id_hash, s.csrf_token, s.created_at, s.last_seen_at, o.id AS operator_id, o.name AS operator_name,
            u.id AS user_id, u.email AS user_email, u.role AS user_role, e.id AS entity_id, e.name AS entity_name
       FROM dashboard_sessions s
       LEFT JOIN operators o ON o.id = s.operator_id AND o.removed_at IS NULL
       LEFT JOIN merchant_users u ON u.id = s.user_id AND u.removed_at IS NULL
       LEFT JOIN entities e ON e.id = u.entity_id
      WHERE s.id_hash = $1 AND s.ended_at IS NULL`,
    [idHash],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const createdAt = new Date(row.created_at);
  const lastSeenAt = new Date(row.last_seen_at);
  const expired = now.getTime() - lastSeenAt.getTime() >= IDLE_TIMEOUT_MS || now.getTime() - createdAt.getTime() >= ABSOLUTE_TIMEOUT_MS;
  const principal: Principal | undefined =
    row.operator_id !== null && row.operator_name !== null
      ? { kind: 'operator', operatorId: row.operator_id, name: row.operator_name }
      : row.user_id !== null && row.user_email !== null && row.user_role !== null && row.entity_id !== null
        ? { kind: 'merchant', userId: row.user_id, name: row.user_email, role: row.user_role, merchantName: row.entity_name ?? '', entityIds: new Set([row.entity_id]) }
        : undefined;
  if (expired || !principal) {
    await endSession(db, cookieValue, now);
    return undefined;
  }
  if (now.getTime() - lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.query('UPDATE dashboard_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, now]);
  }
  return { idHash, principal, csrfToken: row.csrf_token, createdAt, lastSeenAt: now };
}

/** When the session ends at the latest if it stays in use (its absolute timeout) or, idle, sooner. */
export function sessionExpiry(session: Pick<Session, 'createdAt' | 'lastSeenAt'>): Date {
  return new Date(Math.min(session.createdAt.getTime() + ABSOLUTE_TIMEOUT_MS, session.lastSeenAt.getTime() + IDLE_TIMEOUT_MS));
}

export async function endSession(db: Queryable, cookieValue: string, now: Date): Promise<void> {
  await db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE id_hash = $1 AND ended_at IS NULL', [sha256(cookieValue), now]);
}

/** Deletes sessions that ended or expired more than a day ago (the housekeeping job). */
export async function pruneSessions(db: Queryable, now: Date): Promise<number> {
  const deleted = await db.query('DELETE FROM dashboard_sessions WHERE created_at < $1', [new Date(now.getTime() - ABSOLUTE_TIMEOUT_MS - 86_400_000)]);
  return deleted.rowCount;
}

export const PRUNE_SESSIONS_JOB = 'dashboard.sessions.prune';

/** Forgets dashboard sessions a day after they could last have been used. */
export function dashboardJobHandlers(): JobHandler[] {
  return [
    {
      kind: PRUNE_SESSIONS_JOB,
      everyMs: 60 * 60_000,
      maxAttempts: 3,
      retryDelayMs: () => 5 * 60_000,
      run: async (_job, context) => {
        context.logger.info('dashboard sessions pruned', {
          pruned: await pruneSessions(context.store, context.now()),
          signInCounts: await pruneSignInDelays(context.store, context.now()),
          challenges: await pruneChallenges(context.store, context.now()),
        });
      },
    },
  ];
}
