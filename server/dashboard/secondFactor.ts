import { Secret, TOTP } from 'otpauth';
import type { Queryable } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';

/**
 * The dashboard's second factor: time-based one-time passwords (TOTP, RFC 6238: HMAC-SHA1, 6 digits, 30-second steps,
 * through the `otpauth` library), the kind every authenticator app reads from an otpauth:// URI. The secret is sealed
 * in the vault like card data and providers' tokens (a key rotation re-seals it, a reset erases it); each account
 * keeps the last time step a code was accepted for, and a code of that step or an earlier one is refused: a code
 * works once. A code of the step before or after the clock's is accepted too (a phone's clock a little off).
 */

export const TOTP_PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps either side of now whose code is accepted. */
const WINDOW = 1;
/** 160 bits, as RFC 4226 recommends for HMAC-SHA1. */
const SECRET_BYTES = 20;
const ISSUER = 'Payment gateway';

/** The accounts that have a second factor, each a table with the same three columns. */
export type SecondFactorAccount = { readonly kind: 'operator'; readonly id: string } | { readonly kind: 'user'; readonly id: string };

const tableOf = (account: SecondFactorAccount): string => (account.kind === 'operator' ? 'operators' : 'merchant_users');

/** A new random secret, in base32 (the text an authenticator app takes when typed). */
export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32;

const totpOf = (secret: string, label = 'account'): TOTP =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: DIGITS, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secret) });

/** The otpauth:// URI an authenticator app reads (as a QR code, or pasted): the issuer, the account name, the secret. */
export const totpUri = (secret: string, accountName: string): string => totpOf(secret, accountName).toString();

/** The code of `secret` at `at` (what an authenticator app shows then; tests make codes with it). */
export const totpCode = (secret: string, at: Date): string => totpOf(secret).generate({ timestamp: at.getTime() });

/** The time step `code` is the code of, within the window around `at`; undefined when it is none of them. */
export function stepOfCode(secret: string, code: string, at: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret).validate({ token: code, timestamp: at.getTime(), window: WINDOW });
  return delta === null ? undefined : Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** Seals a secret in the vault; the vault item's id. */
export const sealSecret = (db: Queryable, vault: CardVault, secret: string, now: Date): Promise<string> => keepSealed(db, vault.seal(secret), now);

/** Opens a sealed secret; undefined when it is gone (erased) or cannot be opened. */
export async function openSecret(db: Queryable, vault: CardVault, id: string): Promise<string | undefined> {
  const sealed = await findSealed(db, id);
  if (!sealed) return undefined;
  try {
    return vault.open<string>(sealed);
  } catch {
    return undefined;
  }
}

/** The account's enrolled secret's vault id, or undefined (not enrolled). */
export async function enrolledSecretId(db: Queryable, account: SecondFactorAccount): Promise<string | undefined> {
  const found = await db.query<{ totp_secret_id: string | null }>(`SELECT totp_secret_id FROM ${tableOf(account)} WHERE id = $1`, [account.id]);
  return found.rows[0]?.totp_secret_id ?? undefined;
}

/**
 * Takes the step of an accepted code for the account, once: true when no code of this step or a later one was
 * accepted before (the step is then the account's last), false for a replay. One statement: two requests with the
 * same code cannot both win.
 */
export async function takeStep(db: Queryable, account: SecondFactorAccount, step: number): Promise<boolean> {
  const taken = await db.query(`UPDATE ${tableOf(account)} SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)`, [account.id, step]);
  return taken.rowCount > 0;
}

/** Makes the sealed secret the account's (enrolment), the step of its first code taken. */
export async function enrol(db: Queryable, account: SecondFactorAccount, secretId: string, step: number, now: Date): Promise<void> {
  await db.query(`UPDATE ${tableOf(account)} SET totp_secret_id = $2, totp_enrolled_at = $3, totp_last_step = $4 WHERE id = $1`, [account.id, secretId, now, step]);
}

/**
 * Forgets the account's second factor (an operator's reset: a lost phone): the secret erased from the vault; the next
 * sign-in enrols a new one. Whether there was one.
 */
export async function resetSecondFactor(db: Queryable, account: SecondFactorAccount, now: Date): Promise<boolean> {
  const reset = await db.query<{ totp_secret_id: string }>(
    `WITH old AS (SELECT id, totp_secret_id FROM ${tableOf(account)} WHERE id = $1 AND totp_secret_id IS NOT NULL)
     UPDATE ${tableOf(account)} t SET totp_secret_id = NULL, totp_enrolled_at = NULL, totp_last_step = NULL
       FROM old WHERE t.id = old.id RETURNING old.totp_secret_id`,
    [account.id],
  );
  const secretId = reset.rows[0]?.totp_secret_id;
  if (secretId) await eraseSealed(db, secretId, now);
  return secretId !== undefined;
}

/** Forgets a challenge; a secret it was enrolling that no account took is erased. */
export async function dropChallenge(db: Queryable, idHash: string, now: Date): Promise<void> {
  const dropped = await db.query<{ enrol_secret_id: string | null }>('DELETE FROM dashboard_sign_in_challenges WHERE id_hash = $1 RETURNING enrol_secret_id', [idHash]);
  const secretId = dropped.rows[0]?.enrol_secret_id;
  if (secretId) {
    const taken = await db.query('SELECT 1 FROM operators WHERE totp_secret_id = $1 UNION ALL SELECT 1 FROM merchant_users WHERE totp_secret_id = $1', [secretId]);
    if (taken.rows.length === 0) await eraseSealed(db, secretId, now);
  }
}

/** Deletes challenges that expired (and the secrets they were enrolling): the sessions' pruning job. */
export async function pruneChallenges(db: Queryable, now: Date): Promise<number> {
  const expired = await db.query<{ id_hash: string }>('SELECT id_hash FROM dashboard_sign_in_challenges WHERE expires_at <= $1', [now]);
  for (const row of expired.rows) await dropChallenge(db, row.id_hash, now);
  return expired.rows.length;
}
