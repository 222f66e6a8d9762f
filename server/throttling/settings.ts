import { SettingsRefusedError } from '../domain/errors.ts';
import { removeEntitySettings } from '../merchants/repository.ts';
import { checkRiskRules, type RiskRules } from '../domain/riskRules.ts';
import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';
import { checkLimitOverrides, type EntityLimits, type LimitName } from './limits.ts';

/**
 * A merchant entity's throttling settings (COMPAT §17): its own request limits (apart from the gateway's THROTTLE_*
 * defaults) and its risk velocity rules. Stored in throttling_settings (0016), read by requests through a short
 * cache, changed by the operator (admin API: routes.ts; command line: cli/throttling.ts).
 */

export interface ThrottlingSettings {
  readonly entityId: string;
  /** Only the limits set for the entity; the others are the gateway's defaults. */
  readonly limits: Readonly<Partial<Record<LimitName, number>>>;
  readonly risk: RiskRules;
  readonly updatedAt: Date;
}

/** What the operator sends: either part may be left out (it is then empty: the defaults, no risk rules). */
export interface ThrottlingInput {
  readonly limits?: unknown;
  readonly risk?: unknown;
}

/** Limits and risk rules refused (named by the admin API's fields), or an unknown entity. */
export class ThrottlingConfigError extends SettingsRefusedError {}

interface SettingsRow {
  entity_id: string;
  limits: Record<string, number> | string;
  risk: Record<string, unknown> | string;
  updated_at: Date | string;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function settingsOf(row: SettingsRow): ThrottlingSettings {
  return {
    entityId: row.entity_id,
    limits: json(row.limits) as Partial<Record<LimitName, number>>,
    risk: json(row.risk) as RiskRules,
    updatedAt: new Date(row.updated_at),
  };
}

/** The entity's settings; undefined when it has none (the defaults, no risk rules). */
export async function findThrottling(db: Queryable, entityId: string): Promise<ThrottlingSettings | undefined> {
  const found = await db.query<SettingsRow>('SELECT entity_id, limits, risk, updated_at FROM throttling_settings WHERE entity_id = $1', [entityId], {
    preparedAs: 'find-throttling',
  });
  const row = found.rows[0];
  return row ? settingsOf(row) : undefined;
}

/** For the operator: whether the entity exists, and its settings if it has any. */
export async function showThrottling(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly settings: ThrottlingSettings | undefined }> {
  const found = await db.query<Partial<SettingsRow>>(
    `SELECT s.entity_id, s.limits, s.risk, s.updated_at
       FROM entities e LEFT JOIN throttling_settings s ON s.entity_id = e.id
      WHERE e.id = $1`,
    [entityId],
  );
  const row = found.rows[0];
  if (!row) return { entityExists: false, settings: undefined };
  return { entityExists: true, settings: row.entity_id ? settingsOf(row as SettingsRow) : undefined };
}

/** Checks both parts, every problem at once. */
export function checkThrottlingInput(input: ThrottlingInput): { readonly limits: Partial<Record<LimitName, number>>; readonly risk: RiskRules } {
  const limits = checkLimitOverrides(input.limits ?? {});
  const risk = checkRiskRules(input.risk ?? {});
  const problems = [...('problems' in limits ? limits.problems : []), ...('problems' in risk ? risk.problems : [])];
  if (problems.length > 0) throw new ThrottlingConfigError(problems);
  return { limits: 'limits' in limits ? limits.limits : {}, risk: 'rules' in risk ? risk.rules : {} };
}

/**
 * Checks the settings and replaces the entity's with them, in one statement (nothing is written unless every
 * setting is right and the entity exists). Throws ThrottlingConfigError.
 */
export async function saveThrottling(db: Queryable, entityId: string, input: ThrottlingInput, now: Date): Promise<ThrottlingSettings> {
  const { limits, risk } = checkThrottlingInput(input);
  const saved = await db.query<SettingsRow>(
    `INSERT INTO throttling_settings (entity_id, limits, risk, updated_at)
     SELECT id, $2::jsonb, $3::jsonb, $4::timestamptz FROM entities WHERE id = $1
     ON CONFLICT (entity_id) DO UPDATE SET limits = excluded.limits, risk = excluded.risk, updated_at = excluded.updated_at
     RETURNING entity_id, limits, risk, updated_at`,
    [entityId, JSON.stringify(limits), JSON.stringify(risk), now.toISOString()],
  );
  const row = saved.rows[0];
  if (!row) throw new ThrottlingConfigError([], true);
  return settingsOf(row);
}

/** Back to the defaults, without risk rules (the settings go); entityExists false when the entity does not exist. */
export function removeThrottling(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly removed: boolean }> {
  return removeEntitySettings(db, 'throttling_settings', entityId);
}

/** The limits in force for an entity: its own where set, the defaults elsewhere. */
export function effectiveLimits(defaults: EntityLimits, settings: ThrottlingSettings | undefined): EntityLimits {
  return settings ? { ...defaults, ...settings.limits } : defaults;
}

/**
 * What requests read the settings through: an entity's settings (or their absence) are remembered for
 * THROTTLING_CACHE_MS, so a request costs no statement for them but one per entity and that time. A change made
 * through this process's admin API applies at once here (`forget`); on other instances, and after a command-line
 * change, within THROTTLING_CACHE_MS.
 */
export interface ThrottlingLookup {
  /** `within`: the transaction the caller holds open, where a read goes (PGlite has one connection). */
  get(entityId: string, within?: Queryable): Promise<ThrottlingSettings | undefined>;
  forget(entityId: string): void;
}

export const THROTTLING_CACHE_MS = 10_000;

export function cachedThrottling(db: Queryable, now: () => Date, ttlMs: number = THROTTLING_CACHE_MS): ThrottlingLookup {
  const cache = createReadCache<ThrottlingSettings | undefined>(ttlMs, now);
  return {
    get(entityId, within) {
      const cached = cache.peek(entityId);
      if (cached) return Promise.resolve(cached.value);
      // Inside the caller's transaction the read goes there: PGlite has one connection, which that transaction holds.
      if (within) return findThrottling(within, entityId);
      return cache.get(entityId, (key) => findThrottling(db, key));
    },
    forget: (entityId) => cache.forget(entityId),
  };
}
