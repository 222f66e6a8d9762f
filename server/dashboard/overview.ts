import { formatAmount } from '../domain/money.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { findPaymentsById } from '../payments/store/payments.ts';
import { shortIdOf } from '../payments/view.ts';
import type { Queryable } from '../store/index.ts';

/**
 * What a back office's first page tells its finance and support teams, read from the payments of the entities a
 * session sees: the volume of today and of the last 30 days by currency, how many payments were approved, the
 * declines by their reason, the asynchronous payments still pending, and the chargebacks not reversed.
 */

const DAY_MS = 86_400_000;
/** Payments a shopper starts (their approval rate), and what moves money to the merchant (the volume). */
const INITIAL_TYPES = ['PA', 'DB', 'CD'];
const MONEY_IN_TYPES = ['DB', 'CP'];
/** The reasons shown (most frequent first). */
const DECLINE_REASONS = 10;

export interface Volume {
  readonly currency: string;
  readonly amount: string;
  readonly count: number;
}

export interface PeriodFigures {
  readonly from: string;
  /** Approved debits and captures, by currency (refunds not taken off: the refunds figure says what went back). */
  readonly volume: readonly Volume[];
  readonly refunds: readonly Volume[];
  /** Of the payments shoppers started (PA, DB, CD) and that are final: approved ÷ (approved + declined), or null. */
  readonly approvalRate: number | null;
  readonly approved: number;
  readonly declined: number;
  readonly declinesByReason: readonly { readonly code: string; readonly description: string; readonly count: number }[];
}

export interface Overview {
  readonly today: PeriodFigures;
  readonly last30Days: PeriodFigures;
  readonly pending: { readonly count: number; readonly oldestAt: string | null };
  readonly openChargebacks: { readonly count: number; readonly byCurrency: readonly Volume[] };
}

/** `entity_id = ANY(...)` when a scope is given (a merchant's), nothing for an operator's view of every entity. */
function scoped(entityIds: readonly string[] | undefined, values: unknown[]): string {
  if (!entityIds) return 'true';
  values.push(entityIds);
  return `entity_id = ANY($${values.length}::char(32)[])`;
}

async function periodFigures(db: Queryable, entityIds: readonly string[] | undefined, from: Date): Promise<PeriodFigures> {
  const values: unknown[] = [from];
  const scope = scoped(entityIds, values);
  const sums = await db.query<{ payment_type: string; status: string; currency: string; total: string; count: string }>(
    `SELECT payment_type, status, currency, sum(amount_minor)::text AS total, count(*)::text AS count
       FROM payments WHERE created_at >= $1 AND ${scope}
      GROUP BY payment_type, status, currency`,
    values,
  );
  const reasons = await db.query<{ result_code: string; result_description: string; count: string }>(
    `SELECT result_code, min(result_description) AS result_description, count(*)::text AS count
       FROM payments WHERE created_at >= $1 AND ${scope} AND status = 'declined' AND payment_type = ANY('{PA,DB,CD}'::text[])
      GROUP BY result_code ORDER BY count(*) DESC, result_code LIMIT ${DECLINE_REASONS}`,
    values,
  );
  const byCurrency = (types: readonly string[]): Volume[] => {
    const totals = new Map<string, { minor: number; count: number }>();
    for (const row of sums.rows) {
      if (row.status !== 'approved' || !types.includes(row.payment_type)) continue;
      const sum = totals.get(row.currency) ?? { minor: 0, count: 0 };
      totals.set(row.currency, { minor: sum.minor + Number(row.total), count: sum.count + Number(row.count) });
    }
    return [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, sum]) => ({ currency, amount: formatAmount(sum.minor), count: sum.count }));
  };
  const counted = (status: string) =>
    sums.rows.filter((row) => row.status === status && INITIAL_TYPES.includes(row.payment_type)).reduce((sum, row) => sum + Number(row.count), 0);
  const approved = counted('approved');
  const declined = counted('declined');
  return {
    from: from.toISOString(),
    volume: byCurrency(MONEY_IN_TYPES),
    refunds: byCurrency(['RF']),
    approvalRate: approved + declined === 0 ? null : approved / (approved + declined),
    approved,
    declined,
    declinesByReason: reasons.rows.map((row) => ({ code: row.result_code, description: row.result_description, count: Number(row.count) })),
  };
}

export async function overviewOf(db: Queryable, entityIds: readonly string[] | undefined, now: Date): Promise<Overview> {
  const midnight = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const values: unknown[] = [];
  const scope = scoped(entityIds, values);
  const [today, last30Days, pending, chargebacks] = await Promise.all([
    periodFigures(db, entityIds, midnight),
    periodFigures(db, entityIds, new Date(midnight.getTime() - 29 * DAY_MS)),
    db.query<{ count: string; oldest: Date | null }>(`SELECT count(*)::text AS count, min(created_at) AS oldest FROM payments WHERE status = 'pending' AND ${scope}`, values),
    db.query<{ currency: string; total: string; count: string }>(
      `SELECT currency, sum(amount_minor)::text AS total, count(*)::text AS count FROM payments c
        WHERE payment_type = 'CB' AND status = 'approved' AND ${scope}
          AND NOT EXISTS (SELECT 1 FROM payments r WHERE r.parent_id = c.id AND r.payment_type = 'CR' AND r.status = 'approved')
        GROUP BY currency ORDER BY currency`,
      values,
    ),
  ]);
  const oldest = pending.rows[0]?.oldest;
  return {
    today,
    last30Days,
    pending: { count: Number(pending.rows[0]?.count ?? 0), oldestAt: oldest ? new Date(oldest).toISOString() : null },
    openChargebacks: {
      count: chargebacks.rows.reduce((sum, row) => sum + Number(row.count), 0),
      byCurrency: chargebacks.rows.map((row) => ({ currency: row.currency, amount: formatAmount(Number(row.total)), count: Number(row.count) })),
    },
  };
}

/** A chargeback as the chargebacks list shows it: the payment it charged back, its reason, whether it was reversed. */
export interface ChargebackRow {
  readonly id: string;
  readonly shortId: string;
  readonly entityId: string;
  readonly createdAt: string;
  readonly amount: string;
  readonly currency: string;
  readonly reason: { readonly code: string; readonly description: string };
  readonly payment: { readonly id: string; readonly shortId: string; readonly merchantTransactionId?: string; readonly paymentBrand?: string };
  readonly reversed: boolean;
}

/** The chargebacks among these payments (the list's rows of type CB), with the payments they charged back. */
export async function chargebackRows(db: Queryable, chargebacks: readonly PaymentRecord[]): Promise<ChargebackRow[]> {
  const ids = chargebacks.map((chargeback) => chargeback.id);
  const [charged, reversals] = await Promise.all([
    findPaymentsById(db, chargebacks.flatMap((chargeback) => (chargeback.parentId ? [chargeback.parentId] : []))),
    ids.length === 0
      ? { rows: [] }
      : db.query<{ parent_id: string }>(`SELECT DISTINCT parent_id FROM payments WHERE parent_id = ANY($1::char(32)[]) AND payment_type = 'CR' AND status = 'approved'`, [ids]),
  ]);
  const byId = new Map(charged.map((payment) => [payment.id, payment]));
  const reversed = new Set(reversals.rows.map((row) => row.parent_id));
  return chargebacks.map((chargeback) => {
    const payment = chargeback.parentId ? byId.get(chargeback.parentId) : undefined;
    return {
      id: chargeback.id,
      shortId: shortIdOf(chargeback.id),
      entityId: chargeback.entityId,
      createdAt: chargeback.createdAt.toISOString(),
      amount: formatAmount(chargeback.amountMinor),
      currency: chargeback.currency,
      reason: { code: chargeback.resultCode, description: chargeback.resultDescription },
      payment: {
        id: chargeback.parentId ?? '',
        shortId: chargeback.parentId ? shortIdOf(chargeback.parentId) : '',
        ...(payment?.merchantTransactionId ? { merchantTransactionId: payment.merchantTransactionId } : {}),
        ...(payment?.paymentBrand ? { paymentBrand: payment.paymentBrand } : {}),
      },
      reversed: reversed.has(chargeback.id),
    };
  });
}
