import type { AcquirerRecord } from './acquirerFeed.ts';
import type { Queryable } from '../store/index.ts';
import type { MatchingStatus, NewSettlementRecord } from './settlementRecords.ts';

/**
 * Settlement matching (COMPAT §14, spec doc 3 §2.17 MatchingStatus): which of the entity's payments each record of an
 * acquirer's list stands for. A record naming a payment of the gateway (UniqueID) is that payment: MATCHED, or
 * NOT_MATCHED when the entity has no such payment. A record without one is looked for by the merchant's reference,
 * amount and currency among the entity's approved transactions of its kind (a debit: DB or CP; a credit: CD; a refund:
 * RF): none NOT_MATCHED, one MATCHED, several MULTIPLE_MATCHES (every candidate listed). A chargeback record's
 * ChargebackId is kept when the entity has that chargeback. Both lookups are index reads (by id; by entity and
 * merchantTransactionId), two statements per list whatever its length.
 */

const KINDS_OF: Readonly<Record<string, readonly string[]>> = {
  DEBIT: ['DB', 'CP'],
  CREDIT: ['CD'],
  REFUND: ['RF'],
};

interface Candidate {
  readonly id: string;
  readonly merchant_transaction_id: string;
  readonly amount_minor: string | number;
  readonly currency: string;
  readonly payment_type: string;
}

export async function matchRecords(db: Queryable, entityId: string, records: readonly AcquirerRecord[]): Promise<NewSettlementRecord[]> {
  const named = [...new Set(records.flatMap((record) => [record.paymentId, record.chargebackId]).filter((id): id is string => id !== null))];
  const known = new Set(
    named.length === 0
      ? []
      : (await db.query<{ id: string }>('SELECT id FROM payments WHERE entity_id = $1 AND id = ANY($2::char(32)[])', [entityId, named])).rows.map((row) => row.id),
  );
  const references = [...new Set(records.filter((record) => record.paymentId === null).map((record) => record.merchantTransactionId).filter((reference): reference is string => reference !== null))];
  const candidates =
    references.length === 0
      ? []
      : (
          await db.query<Candidate>(
            `SELECT id, merchant_transaction_id, amount_minor, currency, payment_type FROM payments
              WHERE entity_id = $1 AND merchant_transaction_id = ANY($2::text[]) AND status = 'approved'
                AND payment_type IN ('DB', 'CP', 'CD', 'RF')
              ORDER BY created_at, id`,
            [entityId, references],
          )
        ).rows;

  return records.map((record) => {
    let matched: string[];
    if (record.paymentId !== null) matched = known.has(record.paymentId) ? [record.paymentId] : [];
    else {
      const kinds = KINDS_OF[record.transactionType] ?? [];
      matched = candidates
        .filter((candidate) => candidate.merchant_transaction_id === record.merchantTransactionId && Number(candidate.amount_minor) === record.amountMinor && candidate.currency === record.currency && kinds.includes(candidate.payment_type))
        .map((candidate) => candidate.id);
    }
    const matchingStatus: MatchingStatus = matched.length === 0 ? 'NOT_MATCHED' : matched.length === 1 ? 'MATCHED' : 'MULTIPLE_MATCHES';
    return { ...record, matchingStatus, matchedPaymentIds: matched, chargebackId: record.chargebackId !== null && known.has(record.chargebackId) ? record.chargebackId : null };
  });
}
