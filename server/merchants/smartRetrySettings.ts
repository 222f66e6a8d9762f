import { SettingsRefusedError } from '../domain/errors.ts';
import { removeEntitySettings } from './repository.ts';
import {
  checkSmartRetryInput,
  DEFAULT_SOFT_DECLINE_CODES,
  type AcquirerNames,
  type SmartRetryInput,
  type SmartRetrySettings,
} from '../domain/smartRetryRules.ts';
import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';

/**
 * A merchant entity's smart retry settings (COMPAT §15): stored, read by payments (through a short cache), and
 * changed by the operator (admin API: smartRetryRoutes.ts; command line: cli/smartRetry.ts). The rules are in
 * domain/smartRetryRules.ts.
 */

/** Smart retry settings refused (named by the admin API's fields), or an unknown entity. */
export class SmartRetryConfigError extends SettingsRefusedError {}

interface SettingsRow {
  entity_id: string;
  enabled: boolean;
  codes: string[] | null;
  standalone: boolean;
  card_on_file: boolean;
  fallback_acquirer: string;
  updated_at: Date | string;
}

const COLUMNS = 'entity_id, enabled, codes, standalone, card_on_file, fallback_acquirer, updated_at';

function settingsOf(row: SettingsRow): SmartRetrySettings {
  return {
    entityId: row.entity_id,
    enabled: row.enabled,
    codes: row.codes ?? DEFAULT_SOFT_DECLINE_CODES,
    customCodes: row.codes !== null,
    standalone: row.standalone,
    cardOnFile: row.card_on_file,
    fallbackAcquirer: row.fallback_acquirer,
    updatedAt: new Date(row.updated_at),
  };
}

/** The entity's settings; undefined when it has none (smart retry is off). */
export async function findSmartRetry(db: Queryable, entityId: string): Promise<SmartRetrySettings | undefined> {
  const found = await db.query<SettingsRow>(`SELECT ${COLUMNS} FROM smart_retry_settings WHERE entity_id = $1`, [entityId], {
    preparedAs: 'find-smart-retry',
  });
  const row = found.rows[0];
  return row ? settingsOf(row) : undefined;
}

/** For the operator: whether the entity exists, and its settings if it has any. */
export async function showSmartRetry(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly settings: SmartRetrySettings | undefined }> {
  const found = await db.query<Partial<SettingsRow>>(
    `SELECT s.entity_id, s.enabled, s.codes, s.standalone, s.card_on_file, s.fallback_acquirer, s.updated_at
       FROM entities e LEFT JOIN smart_retry_settings s ON s.entity_id = e.id
      WHERE e.id = $1`,
    [entityId],
  );
  const row = found.rows[0];
  if (!row) return { entityExists: false, settings: undefined };
  return { entityExists: true, settings: row.entity_id ? settingsOf(row as SettingsRow) : undefined };
}

/**
 * Checks the settings and replaces the entity's with them, in one statement (nothing is written unless every
 * setting is right and the entity exists). Throws SmartRetryConfigError.
 */
export async function saveSmartRetry(db: Queryable, names: AcquirerNames, entityId: string, input: SmartRetryInput, now: Date): Promise<SmartRetrySettings> {
  const checked = checkSmartRetryInput(input, names);
  if ('problems' in checked) throw new SmartRetryConfigError(checked.problems);
  const { settings } = checked;
  const saved = await db.query<SettingsRow>(
    `INSERT INTO smart_retry_settings (${COLUMNS})
     SELECT id, $2, $3::text[], $4, $5, $6, $7::timestamptz FROM entities WHERE id = $1
     ON CONFLICT (entity_id) DO UPDATE
       SET enabled = excluded.enabled, codes = excluded.codes, standalone = excluded.standalone,
           card_on_file = excluded.card_on_file, fallback_acquirer = excluded.fallback_acquirer, updated_at = excluded.updated_at
     RETURNING ${COLUMNS}`,
    [entityId, settings.enabled, settings.customCodes ? settings.codes : null, settings.standalone, settings.cardOnFile, settings.fallbackAcquirer, now.toISOString()],
  );
  const row = saved.rows[0];
  if (!row) throw new SmartRetryConfigError([], true);
  return settingsOf(row);
}

/** Switches smart retry off for the entity (its settings go); false when the entity does not exist. */
export function removeSmartRetry(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly removed: boolean }> {
  return removeEntitySettings(db, 'smart_retry_settings', entityId);
}

/**
 * What a payment reads the settings through. Only a rejection that smart retry could take reads them
 * (domain/smartRetryRules.ts mayBeRetried), and it reads them from here: an entity's settings (or their absence) are
 * remembered for SMART_RETRY_CACHE_MS, so the rejections of an entity without smart retry cost no statement but one
 * per that time. A change made through this process's admin API applies at once here (`forget`), on other
 * instances (and after a command-line change) within SMART_RETRY_CACHE_MS.
 */
export interface SmartRetryLookup {
  get(entityId: string): Promise<SmartRetrySettings | undefined>;
  forget(entityId: string): void;
}

export const SMART_RETRY_CACHE_MS = 10_000;

export function cachedSmartRetry(db: Queryable, now: () => Date, ttlMs: number = SMART_RETRY_CACHE_MS): SmartRetryLookup {
  const cache = createReadCache<SmartRetrySettings | undefined>(ttlMs, now);
  return {
    get: (entityId) => cache.get(entityId, (key) => findSmartRetry(db, key)),
    forget: (entityId) => cache.forget(entityId),
  };
}
