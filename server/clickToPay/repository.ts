import type { Queryable } from '../store/index.ts';

/** SQL of click_to_pay_sessions (migrations/0031_click_to_pay.sql, 0033_click_to_pay_networks.sql). */

export interface ClickToPaySession {
  readonly id: string;
  readonly checkoutId: string;
  /** The simulated SRC system's profile; null for a session with the networks' SRC systems. */
  readonly profileKey: string | null;
  readonly otpFailures: number;
  readonly validatedAt: Date | null;
  readonly lockedAt: Date | null;
  readonly cardId: string | null;
  /** The vault item holding a network's opened payload, once the session has one. */
  readonly payloadId: string | null;
  readonly expiresAt: Date;
}

interface SessionRow {
  id: string;
  checkout_id: string;
  profile_key: string | null;
  otp_failures: number;
  validated_at: Date | string | null;
  locked_at: Date | string | null;
  card_id: string | null;
  payload_id: string | null;
  expires_at: Date | string;
}

const dateOf = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

function sessionOf(row: SessionRow): ClickToPaySession {
  return {
    id: row.id,
    checkoutId: row.checkout_id,
    profileKey: row.profile_key,
    otpFailures: row.otp_failures,
    validatedAt: row.validated_at === null ? null : dateOf(row.validated_at),
    lockedAt: row.locked_at === null ? null : dateOf(row.locked_at),
    cardId: row.card_id,
    payloadId: row.payload_id,
    expiresAt: dateOf(row.expires_at),
  };
}

export async function insertSession(db: Queryable, session: { id: string; checkoutId: string; profileKey: string | null; createdAt: Date; expiresAt: Date }): Promise<void> {
  await db.query('INSERT INTO click_to_pay_sessions (id, checkout_id, profile_key, created_at, expires_at) VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz)', [
    session.id,
    session.checkoutId,
    session.profileKey,
    session.createdAt.toISOString(),
    session.expiresAt.toISOString(),
  ]);
}

/** The checkout's session by id, locked for the change the caller makes. */
export async function lockSession(db: Queryable, id: string, checkoutId: string): Promise<ClickToPaySession | undefined> {
  const found = await db.query<SessionRow>(
    'SELECT id, checkout_id, profile_key, otp_failures, validated_at, locked_at, card_id, payload_id, expires_at FROM click_to_pay_sessions WHERE id = $1 AND checkout_id = $2 FOR UPDATE',
    [id, checkoutId],
  );
  const row = found.rows[0];
  return row && sessionOf(row);
}

export async function recordOtpFailure(db: Queryable, id: string, lockedAt: Date | null): Promise<void> {
  await db.query('UPDATE click_to_pay_sessions SET otp_failures = otp_failures + 1, locked_at = $2::timestamptz WHERE id = $1', [id, lockedAt?.toISOString() ?? null]);
}

export async function markValidated(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE click_to_pay_sessions SET validated_at = $2::timestamptz WHERE id = $1', [id, now.toISOString()]);
}

/** The shopper's choice of card, under a new correlation id (a choice made again replaces the one before). */
export async function recordChoice(db: Queryable, id: string, choice: { cardId: string; correlationId: string; expiresAt: Date }): Promise<void> {
  await db.query('UPDATE click_to_pay_sessions SET card_id = $2, correlation_id = $3, correlation_expires_at = $4::timestamptz WHERE id = $1', [
    id,
    choice.cardId,
    choice.correlationId,
    choice.expiresAt.toISOString(),
  ]);
}

/** A network's payload for the session, sealed (payloadId), under a new correlation id. */
export async function recordNetworkChoice(
  db: Queryable,
  id: string,
  choice: { network: string; srcCorrelationId: string; payloadId: string; correlationId: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    'UPDATE click_to_pay_sessions SET network = $2, src_correlation_id = $3, payload_id = $4, correlation_id = $5, correlation_expires_at = $6::timestamptz WHERE id = $1',
    [id, choice.network, choice.srcCorrelationId, choice.payloadId, choice.correlationId, choice.expiresAt.toISOString()],
  );
}

/**
 * Spends a correlation id: only once, only for its checkout, only before it expires. One statement, so two submits
 * racing with the same id cannot both have it (and the checkout's row lock, held by the submit, orders them anyway).
 * A network's payload is the caller's to erase from the vault (in the same transaction).
 */
export async function redeemCorrelation(
  db: Queryable,
  correlationId: string,
  checkoutId: string,
  now: Date,
): Promise<{ profileKey: string | null; cardId: string | null; payloadId: string | null } | undefined> {
  const redeemed = await db.query<{ profile_key: string | null; card_id: string | null; payload_id: string | null }>(
    `UPDATE click_to_pay_sessions SET redeemed_at = $3::timestamptz
      WHERE correlation_id = $1 AND checkout_id = $2 AND redeemed_at IS NULL AND correlation_expires_at > $3::timestamptz
      RETURNING profile_key, card_id, payload_id`,
    [correlationId, checkoutId, now.toISOString()],
  );
  const row = redeemed.rows[0];
  return row && { profileKey: row.profile_key, cardId: row.card_id, payloadId: row.payload_id };
}
