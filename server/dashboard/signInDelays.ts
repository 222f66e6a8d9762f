import { throttledAnswer, type GatewayError } from '../domain/errors.ts';
import type { Queryable } from '../store/index.ts';

/**
 * Sign-in attempts per account name (issue 34 §4), beside the per-address limit: FREE_ATTEMPTS attempts without a
 * full sign-in are free; after the nth one past them the next attempt waits 2^n seconds, at most MAX_DELAY_MS. An
 * attempt is counted when it is admitted, before its password is hashed or its code checked, in one statement: an
 * attempt during the delay is refused without any work (the right password too), and many sent at once cannot all
 * slip in. A right password gives its attempt back when a code is to follow; a full sign-in (the password and, where
 * asked, the second factor) forgets the account's count, and so does
 * a day without attempts: no lockout lasts longer than the cap, so an attacker cannot lock a person out for good.
 * An unknown name is counted exactly like a known one (nothing tells them apart). Codes of the second factor count
 * against the same name, so a right password does not buy more guesses of the code.
 */

export const FREE_ATTEMPTS = 5;
export const MAX_DELAY_MS = 15 * 60_000;
/** A count idle this long starts again from nothing. */
const FORGET_AFTER_MS = 24 * 60 * 60_000;

/** How long the next attempt waits after `attempts` attempts without a full sign-in. */
export function delayAfter(attempts: number): number {
  if (attempts < FREE_ATTEMPTS) return 0;
  return Math.min(2 ** (attempts - FREE_ATTEMPTS + 1) * 1000, MAX_DELAY_MS);
}

/** The key an account's attempts are counted under: its kind and name as typed, case folded. */
export const accountKey = (kind: 'operator' | 'user', name: string): string => `${kind}:${name.trim().toLowerCase()}`;

/** The account's count with this attempt: one more, or one when its last attempt is a day old. */
const NEW_COUNT = 'CASE WHEN d.updated_at < $3 THEN 1 ELSE d.attempts + 1 END';

/**
 * Counts an attempt for the account, or refuses it: the throttling answer (400 800.120.100, Retry-After), as the
 * per-address limit answers, when its delay has not passed.
 */
export async function admitAttempt(db: Queryable, account: string, now: Date): Promise<void> {
  const admitted = await db.query<{ attempts: number }>(
    `INSERT INTO dashboard_sign_in_delays AS d (account, attempts, next_at, updated_at) VALUES ($1, 1, $2, $2)
     ON CONFLICT (account) DO UPDATE
        SET attempts = ${NEW_COUNT},
            next_at = $2::timestamptz + make_interval(secs => CASE WHEN ${NEW_COUNT} < $4 THEN 0 ELSE least(power(2, ${NEW_COUNT} - $4 + 1), $5) END),
            updated_at = $2
      WHERE d.next_at <= $2 OR d.updated_at < $3
      RETURNING d.attempts`,
    [account, now, new Date(now.getTime() - FORGET_AFTER_MS), FREE_ATTEMPTS, MAX_DELAY_MS / 1000],
  );
  if (admitted.rows.length > 0) return;
  const found = await db.query<{ next_at: Date }>('SELECT next_at FROM dashboard_sign_in_delays WHERE account = $1', [account]);
  const until = found.rows[0]?.next_at;
  throw refusal(until ? new Date(until) : new Date(now.getTime() + 1000), now);
}

const refusal = (until: Date, now: Date): GatewayError => throttledAnswer(until, now, 'Too many sign-in attempts for this account: wait before the next');

/**
 * A right password, the second factor still to come: the attempt it was counted as is given back (and the delay it
 * set lifted), so the code can follow at once; the codes are counted as they come.
 */
export async function refundAttempt(db: Queryable, account: string, now: Date): Promise<void> {
  await db.query('UPDATE dashboard_sign_in_delays SET attempts = greatest(attempts - 1, 0), next_at = least(next_at, $2) WHERE account = $1', [account, now]);
}

/** A full sign-in: the account's count is forgotten. */
export async function forgetAttempts(db: Queryable, account: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sign_in_delays WHERE account = $1', [account]);
}

/** Deletes the counts of accounts without an attempt for a day (the sessions' pruning job). */
export async function pruneSignInDelays(db: Queryable, now: Date): Promise<number> {
  const deleted = await db.query('DELETE FROM dashboard_sign_in_delays WHERE updated_at < $1', [new Date(now.getTime() - FORGET_AFTER_MS)]);
  return deleted.rowCount;
}
