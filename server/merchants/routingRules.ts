import { SettingsRefusedError } from '../domain/errors.ts';
import { checkRoutingRules, type RoutingRule } from '../domain/routingRules.ts';
import type { Queryable } from '../store/index.ts';
import { createReadCache } from '../store/readCache.ts';
import { removeEntitySettings } from './repository.ts';

/**
 * A merchant entity's routing rules (issue 33): stored, read by payments (through a short cache), and changed by the
 * operator (admin API: routingRoutes.ts; command line: cli/routing.ts; the dashboard's settings). The rules
 * themselves: domain/routingRules.ts. An entity without rules pays through the default acquirer.
 */

export class RoutingRulesRefusedError extends SettingsRefusedError {}

export interface RoutingSettings {
  readonly entityId: string;
  readonly rules: readonly RoutingRule[];
  readonly updatedAt: Date;
}

interface RulesRow {
  entity_id: string;
  rules: RoutingRule[];
  updated_at: Date | string;
}

const settingsOf = (row: RulesRow): RoutingSettings => ({ entityId: row.entity_id, rules: row.rules, updatedAt: new Date(row.updated_at) });

export async function findRoutingRules(db: Queryable, entityId: string): Promise<RoutingSettings | undefined> {
  const found = await db.query<RulesRow>('SELECT entity_id, rules, updated_at FROM routing_rules WHERE entity_id = $1', [entityId], { preparedAs: 'find-routing-rules' });
  const row = found.rows[0];
  return row ? settingsOf(row) : undefined;
}

/** For the operator: whether the entity exists, and its rules if it has any. */
export async function showRoutingRules(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly settings: RoutingSettings | undefined }> {
  const found = await db.query<Partial<RulesRow>>(
    'SELECT r.entity_id, r.rules, r.updated_at FROM entities e LEFT JOIN routing_rules r ON r.entity_id = e.id WHERE e.id = $1',
    [entityId],
  );
  const row = found.rows[0];
  if (!row) return { entityExists: false, settings: undefined };
  return { entityExists: true, settings: row.entity_id ? settingsOf(row as RulesRow) : undefined };
}

/**
 * Checks the rules (JSON as the operator sent them) and replaces the entity's with them in one statement: nothing is
 * written unless every rule is right and the entity exists. Throws RoutingRulesRefusedError.
 */
export async function saveRoutingRules(db: Queryable, acquirers: readonly string[], entityId: string, input: unknown, now: Date): Promise<RoutingSettings> {
  const checked = checkRoutingRules(input, acquirers);
  if ('problems' in checked) throw new RoutingRulesRefusedError(checked.problems);
  const saved = await db.query<RulesRow>(
    `INSERT INTO routing_rules (entity_id, rules, updated_at) SELECT id, $2::jsonb, $3::timestamptz FROM entities WHERE id = $1
     ON CONFLICT (entity_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at
     RETURNING entity_id, rules, updated_at`,
    [entityId, JSON.stringify(checked.rules), now.toISOString()],
  );
  const row = saved.rows[0];
  if (!row) throw new RoutingRulesRefusedError([], true);
  return settingsOf(row);
}

/** Drops the entity's rules: it pays through the default acquirer again. */
export function removeRoutingRules(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly removed: boolean }> {
  return removeEntitySettings(db, 'routing_rules', entityId);
}

/**
 * What a payment reads the rules through: an entity's rules (or their absence) are remembered for ROUTING_CACHE_MS.
 * A change made through this process applies at once (`forget`); on other instances within ROUTING_CACHE_MS.
 */
export interface RoutingLookup {
  get(entityId: string): Promise<RoutingSettings | undefined>;
  forget(entityId: string): void;
}

export const ROUTING_CACHE_MS = 10_000;

export function cachedRoutingRules(db: Queryable, now: () => Date, ttlMs: number = ROUTING_CACHE_MS): RoutingLookup {
  const cache = createReadCache<RoutingSettings | undefined>(ttlMs, now);
  return {
    get: (entityId) => cache.get(entityId, (key) => findRoutingRules(db, key)),
    forget: (entityId) => cache.forget(entityId),
  };
}
