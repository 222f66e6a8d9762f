import type { Acquirer, ProviderSettlementBatch, ProviderSettlementRecord } from '../acquirers/types.ts';
import type { JobHandler } from '../jobs/registry.ts';
import { RESOURCE_ID } from '../domain/ids.ts';
import { recordProviderChargeback } from '../payments/providerWord.ts';
import type { PaymentServices } from '../payments/services.ts';
import type { Logger } from '../logger.ts';
import { shortIdOf } from '../payments/view.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { AcquirerRecord } from './acquirerFeed.ts';
import { matchRecords } from './matching.ts';
import { writeSettledBatch, type SettledBatch } from './settlementRun.ts';
import type { RecordType } from './settlementRecords.ts';

/**
 * What really settled (issue 33): the settlement reports of the providers behind the gateway's connectors, imported as
 * the gateway's own settlement batches — so the settlement reports, the reconciliation file and the dashboard carry the
 * provider's amounts, fees and FX rates, not a simulation. For every entity with credentials at a connector, each of
 * the provider's batches (aggregations) of a day becomes one batch of the entity's, its records naming the gateway's
 * payments (found by the provider's reference, or by the attempt id the provider knows as merchantTransactionId) and
 * matched as every acquirer's list is (matching.ts). Once: a batch the entity has already (the same clearing institute,
 * day, currency) is not written again, so the import can run as often as the provider's reports may still be coming.
 */

export interface ProviderSettlementDeps {
  readonly store: Store;
  /** Where a chargeback the report lists, and the gateway has not heard of, is recorded. */
  readonly payments: PaymentServices;
  /** The connectors whose providers report settlements (acquirers with `settlementsOf`). */
  readonly acquirers: readonly Acquirer[];
  /** A test gateway's batches are test batches (the reports show a gateway's own environment's). */
  readonly test: boolean;
  readonly now: () => Date;
  readonly logger: Logger;
}

/** The gateway's payment a provider's record names: by its own reference, or by our attempt id. */
interface KnownPayment {
  readonly id: string;
  readonly merchantTransactionId: string | null;
}

async function paymentsNamed(db: Queryable, entityId: string, acquirer: string, records: readonly ProviderSettlementRecord[]): Promise<{ byReference: Map<string, KnownPayment>; byAttempt: Map<string, KnownPayment> }> {
  const references = [...new Set(records.flatMap((record) => [record.providerPaymentId, record.providerChargebackId]).filter((id): id is string => id !== null))];
  const attempts = [...new Set(records.map((record) => record.merchantTransactionId).filter((id): id is string => id !== null && RESOURCE_ID.test(id)))];
  const byReference = new Map<string, KnownPayment>();
  const byAttempt = new Map<string, KnownPayment>();
  if (references.length > 0) {
    const found = await db.query<{ id: string; acquirer_reference: string; merchant_transaction_id: string | null }>(
      'SELECT id, acquirer_reference, merchant_transaction_id FROM payments WHERE entity_id = $1 AND acquirer = $2 AND acquirer_reference = ANY($3::text[])',
      [entityId, acquirer, references],
    );
    for (const row of found.rows) byReference.set(row.acquirer_reference, { id: row.id, merchantTransactionId: row.merchant_transaction_id });
  }
  if (attempts.length > 0) {
    const found = await db.query<{ attempt_id: string; id: string; merchant_transaction_id: string | null }>(
      `SELECT a.id AS attempt_id, p.id, p.merchant_transaction_id FROM acquirer_attempts a JOIN payments p ON p.id = a.payment_id
        WHERE a.entity_id = $1 AND a.acquirer = $2 AND a.id = ANY($3::char(32)[])`,
      [entityId, acquirer, attempts],
    );
    for (const row of found.rows) byAttempt.set(row.attempt_id, { id: row.id, merchantTransactionId: row.merchant_transaction_id });
  }
  return { byReference, byAttempt };
}

/** The provider's record as the gateway's acquirer record: its payment and chargeback the gateway's, its references the merchant's. */
function recordOf(record: ProviderSettlementRecord, named: Awaited<ReturnType<typeof paymentsNamed>>): AcquirerRecord {
  const { recordType, providerPaymentId, providerChargebackId, merchantTransactionId, connectorTxIds, ...asReported } = record;
  const payment =
    (providerPaymentId !== null ? named.byReference.get(providerPaymentId) : undefined) ?? (merchantTransactionId !== null ? named.byAttempt.get(merchantTransactionId) : undefined);
  const chargeback = providerChargebackId !== null ? named.byReference.get(providerChargebackId) : undefined;
  return {
    // The amounts, fees, dates, account and reason as the provider reports them.
    ...asReported,
    recordType: recordType as RecordType,
    paymentId: payment?.id ?? null,
    shortId: payment ? shortIdOf(payment.id) : null,
    // The provider's own payment id first: what the gateway knows its payment by there.
    connectorTxIds: [providerPaymentId, connectorTxIds[0], connectorTxIds[1]],
    merchantTransactionId: payment ? payment.merchantTransactionId : null,
    chargebackId: chargeback?.id ?? null,
  };
}

/** Writes one provider batch as the entity's (once), with the marks of the operations it settles; undefined when it was there. */
async function importBatch(tx: Queryable, deps: ProviderSettlementDeps, entityId: string, acquirer: string, date: string, batch: ProviderSettlementBatch): Promise<SettledBatch | undefined> {
  const named = await paymentsNamed(tx, entityId, acquirer, batch.records);
  const records = await matchRecords(tx, entityId, batch.records.map((record) => recordOf(record, named)));
  const head = {
    entityId,
    // The provider's clearing institute, behind the acquirer that reported it.
    clearingInstitute: batch.clearingInstitute === '' ? acquirer : `${acquirer}/${batch.clearingInstitute}`,
    settlementDate: date,
    settlementCurrency: batch.settlementCurrency,
    test: deps.test,
    createdAt: deps.now(),
  };
  return writeSettledBatch(tx, head, records, [...new Set(records.flatMap((record) => record.matchedPaymentIds))]);
}

/**
 * The chargebacks a provider's report lists: each one the gateway has not recorded yet (its notification never came)
 * is recorded as the provider states it, on the payment it charged back, before the batch is matched.
 */
async function recordListedChargebacks(deps: ProviderSettlementDeps, acquirer: string, batch: ProviderSettlementBatch): Promise<void> {
  for (const record of batch.records) {
    if (record.recordType !== 'CHARGEBACK' || record.providerPaymentId === null || record.providerChargebackId === null) continue;
    await recordProviderChargeback(deps.payments, acquirer, {
      paymentType: 'CB',
      referencedReference: record.providerPaymentId,
      amountMinor: record.amountMinor,
      currency: record.currency,
      answer: { code: record.reasonCode ?? '000.100.200', description: record.reasonDesc ?? '', details: {}, reference: record.providerChargebackId },
    });
  }
}

/** Imports what every connector's provider reports it settled on `date` (yyyy-MM-dd) for the entities with credentials there. */
export async function importProviderSettlements(deps: ProviderSettlementDeps, date: string): Promise<SettledBatch[]> {
  const written: SettledBatch[] = [];
  for (const acquirer of deps.acquirers) {
    if (!acquirer.settlementsOf) continue;
    const entities = await deps.store.query<{ entity_id: string }>('SELECT entity_id FROM acquirer_credentials WHERE acquirer = $1 ORDER BY entity_id', [acquirer.name]);
    for (const { entity_id: entityId } of entities.rows) {
      let batches: readonly ProviderSettlementBatch[];
      try {
        batches = await acquirer.settlementsOf(entityId, date);
      } catch (error) {
        // One provider's or entity's trouble does not hold back the others: the next run asks again.
        deps.logger.warn('a provider’s settlement report could not be imported now', { acquirer: acquirer.name, entityId, date, error });
        continue;
      }
      for (const batch of batches) {
        await recordListedChargebacks(deps, acquirer.name, batch);
        const imported = await deps.store.transaction((tx) => importBatch(tx, deps, entityId, acquirer.name, date, batch));
        if (imported) written.push(imported);
      }
    }
  }
  return written;
}

export const PROVIDER_SETTLEMENTS_JOB = 'settlement.providerReports';
/** How often the providers' reports are looked at. */
export const PROVIDER_SETTLEMENTS_EVERY_MS = 15 * 60_000;
/** The days (before today, UTC) whose reports are looked for: a provider may publish a day's a while after it ends. */
export const PROVIDER_SETTLEMENT_DAYS = 3;

/** The past days the import looks at, oldest first. */
export function providerSettlementDays(now: Date): string[] {
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  return Array.from({ length: PROVIDER_SETTLEMENT_DAYS }, (_, index) => new Date(today - (PROVIDER_SETTLEMENT_DAYS - index) * 86_400_000).toISOString().slice(0, 10));
}

export function providerSettlementJobHandlers(deps: Omit<ProviderSettlementDeps, 'store' | 'now' | 'logger'>): JobHandler[] {
  return [
    {
      kind: PROVIDER_SETTLEMENTS_JOB,
      everyMs: PROVIDER_SETTLEMENTS_EVERY_MS,
      maxAttempts: 3,
      retryDelayMs: () => 60_000,
      run: async (_job, context) => {
        const runDeps = { ...deps, store: context.store, now: context.now, logger: context.logger };
        for (const date of providerSettlementDays(context.now())) {
          const batches = await importProviderSettlements(runDeps, date);
          if (batches.length > 0) context.logger.info('providers’ settlements imported', { date, batches: batches.length });
        }
      },
    },
  ];
}
