import { SettingsRefusedError } from '../domain/errors.ts';
import type { ParameterError } from '../domain/errors.ts';
import type { Queryable } from '../store/index.ts';

/**
 * An entity's settlement settings (migration 0023): the currency its acquirers pay out in, and the test records the
 * simulated acquirer adds to each of the entity's batches — records naming no payment (NOT_MATCHED) and
 * transactions listed again by the merchant's reference only (MULTIPLE_MATCHES when that reference fits several
 * payments). Read by the daily run; changed by the operator (admin API: adminRoutes.ts; command line: cli/settlement.ts).
 */

export interface SettlementSettings {
  /** null: each transaction settles in its own currency. */
  readonly settlementCurrency: string | null;
  readonly unmatchedRecords: number;
  readonly duplicateRecords: number;
}

export const DEFAULT_SETTLEMENT_SETTINGS: SettlementSettings = { settlementCurrency: null, unmatchedRecords: 0, duplicateRecords: 0 };

/** Test records per batch at most (each kind). */
export const MAX_TEST_RECORDS = 100;

/** Settlement settings refused (every problem, by field). */
export class SettlementSettingsError extends SettingsRefusedError {}

/** What the operator sends: each field may be left out (it is then the default). */
export interface SettlementSettingsInput {
  readonly currency?: unknown;
  readonly unmatchedRecords?: unknown;
  readonly duplicateRecords?: unknown;
}

function count(name: string, value: unknown, problems: ParameterError[]): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TEST_RECORDS) return value;
  problems.push({ name, value: typeof value === 'string' || typeof value === 'number' ? String(value) : '', message: `must be an integer from 0 to ${MAX_TEST_RECORDS}` });
  return 0;
}

/** The settings the input asks for, or every problem at once. */
export function checkSettlementSettings(input: SettlementSettingsInput): SettlementSettings {
  const problems: ParameterError[] = [];
  let settlementCurrency: string | null = null;
  if (input.currency !== undefined && input.currency !== null) {
    if (typeof input.currency === 'string' && /^[A-Z]{3}$/.test(input.currency)) settlementCurrency = input.currency;
    else problems.push({ name: 'currency', value: typeof input.currency === 'string' ? input.currency : '', message: 'must be a currency code of three capital letters, or null' });
  }
  const settings = {
    settlementCurrency,
    unmatchedRecords: count('unmatchedRecords', input.unmatchedRecords, problems),
    duplicateRecords: count('duplicateRecords', input.duplicateRecords, problems),
  };
  if (problems.length > 0) throw new SettlementSettingsError(problems);
  return settings;
}

interface SettingsRow {
  settlement_currency: string | null;
  unmatched_records: number;
  duplicate_records: number;
}

const settingsOf = (row: SettingsRow): SettlementSettings => ({
  settlementCurrency: row.settlement_currency,
  unmatchedRecords: Number(row.unmatched_records),
  duplicateRecords: Number(row.duplicate_records),
});

/** The entity's settings (the defaults when it has none of its own). */
export async function findSettlementSettings(db: Queryable, entityId: string): Promise<SettlementSettings> {
  const found = await db.query<SettingsRow>('SELECT settlement_currency, unmatched_records, duplicate_records FROM settlement_settings WHERE entity_id = $1', [entityId]);
  const row = found.rows[0];
  return row ? settingsOf(row) : DEFAULT_SETTLEMENT_SETTINGS;
}

/** Whether the entity exists, and its settings (the defaults when it has none of its own). */
export async function showSettlementSettings(db: Queryable, entityId: string): Promise<SettlementSettings | undefined> {
  const found = await db.query<Partial<SettingsRow> & { known: boolean }>(
    `SELECT true AS known, s.settlement_currency, s.unmatched_records, s.duplicate_records
       FROM entities e LEFT JOIN settlement_settings s ON s.entity_id = e.id
      WHERE e.id = $1`,
    [entityId],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  return row.unmatched_records === null || row.unmatched_records === undefined ? DEFAULT_SETTLEMENT_SETTINGS : settingsOf(row as SettingsRow);
}

/** Replaces the entity's settings; false when there is no such entity (nothing written). */
export async function saveSettlementSettings(db: Queryable, entityId: string, settings: SettlementSettings, now: Date): Promise<boolean> {
  const saved = await db.query(
    `INSERT INTO settlement_settings (entity_id, settlement_currency, unmatched_records, duplicate_records, updated_at)
     SELECT id, $2, $3, $4, $5::timestamptz FROM entities WHERE id = $1
     ON CONFLICT (entity_id) DO UPDATE SET settlement_currency = EXCLUDED.settlement_currency, unmatched_records = EXCLUDED.unmatched_records,
       duplicate_records = EXCLUDED.duplicate_records, updated_at = EXCLUDED.updated_at`,
    [entityId, settings.settlementCurrency, settings.unmatchedRecords, settings.duplicateRecords, now.toISOString()],
  );
  return saved.rowCount > 0;
}

/** Puts the entity back on the defaults; false when there is no such entity. */
export async function removeSettlementSettings(db: Queryable, entityId: string): Promise<boolean> {
  const found = await db.query(
    `WITH removed AS (DELETE FROM settlement_settings WHERE entity_id = $1 RETURNING 1)
     SELECT 1 FROM entities WHERE id = $1`,
    [entityId],
  );
  return found.rows.length > 0;
}
