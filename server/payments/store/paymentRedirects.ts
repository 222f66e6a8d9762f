import type { AuthenticationIds } from '../../acquirers/threeDSecure.ts';
import type { Queryable } from '../../store/index.ts';

/**
 * SQL for payment_redirects: what a pending payment waits for before it can become final — the shopper on a page (the
 * 3-D Secure challenge, a provider's page) or money the shopper pays later (a cash voucher, whose page shows the
 * voucher; a prepayment, which has no page) — and what the payment will need then. An outcome is decided once (the
 * shopper's answer, the provider's word, or the deadline); the redirect is finished when the payment is final, which
 * for a success waits for the acquirer's answer.
 */

export type RedirectKind = 'threeDSecure' | 'provider' | 'cashVoucher' | 'prepayment';
export type RedirectOutcome = 'success' | 'failure' | 'cancel' | 'timeout';

export interface RedirectRecord {
  readonly id: string;
  readonly paymentId: string;
  readonly entityId: string;
  readonly kind: RedirectKind;
  readonly merchantName: string;
  readonly returnUrl: string;
  readonly authentication: AuthenticationIds | null;
  /** The card the authorization after a challenge needs, sealed in the vault; null once the redirect ended. */
  readonly sealedCardId: string | null;
  /** createRegistration=true: the held card becomes a registration if the payment is approved. */
  readonly createRegistration: boolean;
  /** PA.CP: the payment is captured in full once approved. */
  readonly captureAtOnce: boolean;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  /** When the shopper left a provider's page with the payment pending (the provider confirms later). */
  readonly leftPendingAt: Date | null;
  /** The shopper's answer or the timeout, once decided (a success then waits for the acquirer's answer). */
  readonly outcome: RedirectOutcome | null;
  /** When the payment became final. */
  readonly finishedAt: Date | null;
  /**
   * A server-to-server payment's (no checkout): the page the shopper finishes on goes to the return URL itself, in
   * whatever window or frame it is in, as the platform sends a shopper to shopperResultUrl. A checkout's tells the
   * widget around it instead.
   */
  readonly returnInPlace: boolean;
}

export type NewRedirect = Omit<RedirectRecord, 'entityId' | 'outcome' | 'finishedAt' | 'leftPendingAt' | 'returnInPlace'>;

interface RedirectRow {
  id: string;
  payment_id: string;
  entity_id: string;
  kind: RedirectKind;
  merchant_name: string;
  return_url: string;
  authentication: AuthenticationIds | null;
  sealed_card_id: string | null;
  create_registration: boolean;
  capture_at_once: boolean;
  created_at: Date;
  expires_at: Date;
  left_pending_at: Date | null;
  outcome: RedirectOutcome | null;
  finished_at: Date | null;
  return_in_place: boolean;
}

function toRecord(row: RedirectRow): RedirectRecord {
  return {
    id: row.id,
    paymentId: row.payment_id,
    entityId: row.entity_id,
    kind: row.kind,
    merchantName: row.merchant_name,
    returnUrl: row.return_url,
    authentication: row.authentication,
    sealedCardId: row.sealed_card_id,
    createRegistration: row.create_registration,
    captureAtOnce: row.capture_at_once,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    leftPendingAt: row.left_pending_at,
    outcome: row.outcome,
    finishedAt: row.finished_at,
    returnInPlace: row.return_in_place,
  };
}

export async function insertRedirect(db: Queryable, redirect: NewRedirect): Promise<void> {
  await db.query(
    `INSERT INTO payment_redirects (id, payment_id, kind, merchant_name, return_url, authentication, sealed_card_id,
       create_registration, capture_at_once, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10::timestamptz, $11::timestamptz)`,
    [
      redirect.id,
      redirect.paymentId,
      redirect.kind,
      redirect.merchantName,
      redirect.returnUrl,
      redirect.authentication === null ? null : JSON.stringify(redirect.authentication),
      redirect.sealedCardId,
      redirect.createRegistration,
      redirect.captureAtOnce,
      redirect.createdAt.toISOString(),
      redirect.expiresAt.toISOString(),
    ],
  );
}

/**
 * The redirect (by its id, or `byPayment` by its payment's), with its payment's entity; `forUpdate` locks it until the
 * transaction ends.
 */
export async function findRedirect(db: Queryable, id: string, options: { forUpdate?: boolean; byPayment?: boolean } = {}): Promise<RedirectRecord | undefined> {
  const found = await db.query<RedirectRow>(
    `SELECT r.id, r.payment_id, p.entity_id, r.kind, r.merchant_name, r.return_url, r.authentication, r.sealed_card_id,
            r.create_registration, r.capture_at_once, r.created_at, r.expires_at, r.left_pending_at, r.outcome, r.finished_at,
            p.checkout_id IS NULL AS return_in_place
       FROM payment_redirects r JOIN payments p ON p.id = r.payment_id
      WHERE r.${options.byPayment ? 'payment_id' : 'id'} = $1${options.forUpdate ? ' FOR UPDATE OF r' : ''}`,
    [id],
  );
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/**
 * The shopper left a provider's page with the payment pending: the provider now has until `expiresAt` to confirm it
 * (only an undecided redirect, once).
 */
export async function leaveRedirectPending(db: Queryable, id: string, at: Date, expiresAt: Date): Promise<boolean> {
  const updated = await db.query(
    `UPDATE payment_redirects SET left_pending_at = $2::timestamptz, expires_at = $3::timestamptz
      WHERE id = $1 AND outcome IS NULL AND left_pending_at IS NULL`,
    [id, at.toISOString(), expiresAt.toISOString()],
  );
  return updated.rowCount > 0;
}

/** Decides the redirect's outcome (once: only an undecided redirect changes). */
export async function decideRedirect(db: Queryable, id: string, outcome: RedirectOutcome): Promise<void> {
  await db.query('UPDATE payment_redirects SET outcome = $2 WHERE id = $1 AND outcome IS NULL', [id, outcome]);
}

/** Records that the payment is final, and drops the link to its card (the caller erases it or hands it on). */
export async function finishRedirect(db: Queryable, id: string, outcome: RedirectOutcome, now: Date): Promise<void> {
  await db.query(
    `UPDATE payment_redirects SET outcome = coalesce(outcome, $2), finished_at = $3::timestamptz, sealed_card_id = NULL
      WHERE id = $1 AND finished_at IS NULL`,
    [id, outcome, now.toISOString()],
  );
}
