import { SettingsRefusedError } from '../domain/errors.ts';
import { defaultOfferedBrands, isKnownBrand } from '../domain/brands.ts';
import type { Queryable } from '../store/index.ts';
import { removeEntitySettings } from './repository.ts';
import { createReadCache } from '../store/readCache.ts';

/**
 * The payment brands an entity offers (COMPAT §7): the operator's list (admin API: brandsRoutes.ts; command line:
 * `npm run gateway -- brands`), or without one every brand the gateway knows (domain/brands.ts). A
 * payment with a brand the entity does not offer is refused with 600.200.201 (payments/offers.ts).
 */

export interface OfferedBrands {
  readonly brands: readonly string[];
  /** False when the operator set the list; true for the default (every brand). */
  readonly isDefault: boolean;
  readonly updatedAt: Date | null;
}

/** A brand list refused (each unknown brand named), or an unknown entity. */
export class BrandsConfigError extends SettingsRefusedError {}

function offered(row: { brands: string[]; updated_at: Date | string } | undefined): OfferedBrands {
  return row
    ? { brands: row.brands, isDefault: false, updatedAt: new Date(row.updated_at) }
    : { brands: defaultOfferedBrands(), isDefault: true, updatedAt: null };
}

/** The entity's offered brands, or undefined for an unknown entity. */
export async function showOfferedBrands(db: Queryable, entityId: string): Promise<OfferedBrands | undefined> {
  const found = await db.query<{ id: string; brands: string[] | null; updated_at: Date | string | null }>(
    'SELECT e.id, b.brands, b.updated_at FROM entities e LEFT JOIN entity_brands b ON b.entity_id = e.id WHERE e.id = $1',
    [entityId],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  return offered(row.brands === null ? undefined : { brands: row.brands, updated_at: row.updated_at as Date | string });
}

/** Replaces the entity's list (in its given order, without repeats); every brand must be one the gateway knows. */
export async function saveOfferedBrands(db: Queryable, entityId: string, brands: readonly string[], now: Date): Promise<OfferedBrands> {
  const problems = brands
    .filter((brand) => !isKnownBrand(brand))
    .map((brand) => ({ name: 'brands', value: brand, message: 'is not a payment brand of the gateway' }));
  if (brands.length === 0) problems.push({ name: 'brands', value: '', message: 'must name at least one brand (DELETE restores the default)' });
  if (problems.length > 0) throw new BrandsConfigError(problems);
  const unique = [...new Set(brands)];
  const saved = await db.query<{ brands: string[]; updated_at: Date | string }>(
    `INSERT INTO entity_brands (entity_id, brands, updated_at)
     SELECT id, $2::text[], $3::timestamptz FROM entities WHERE id = $1
     ON CONFLICT (entity_id) DO UPDATE SET brands = excluded.brands, updated_at = excluded.updated_at
     RETURNING brands, updated_at`,
    [entityId, unique, now.toISOString()],
  );
  const row = saved.rows[0];
  if (!row) throw new BrandsConfigError([], true);
  return { brands: row.brands, isDefault: false, updatedAt: new Date(row.updated_at) };
}

/** Back to the default (every brand); entityExists false when there is no such entity. */
export function removeOfferedBrands(db: Queryable, entityId: string): Promise<{ readonly entityExists: boolean; readonly removed: boolean }> {
  return removeEntitySettings(db, 'entity_brands', entityId);
}

/**
 * What payments read the offers through: remembered per entity for BRAND_OFFERS_CACHE_MS, so a payment costs no
 * statement for them but one per entity and period. A change made through this process's admin API applies here at
 * once (`forget`), on other instances and after a command-line change within the period.
 */
export interface BrandOffers {
  offers(entityId: string, brand: string): Promise<boolean>;
  forget(entityId: string): void;
}

export const BRAND_OFFERS_CACHE_MS = 10_000;

export function cachedBrandOffers(db: Queryable, now: () => Date, ttlMs: number = BRAND_OFFERS_CACHE_MS): BrandOffers {
  const defaults: ReadonlySet<string> = new Set(defaultOfferedBrands());
  const cache = createReadCache<ReadonlySet<string>>(ttlMs, now);
  const load = async (entityId: string): Promise<ReadonlySet<string>> => {
    const found = await db.query<{ brands: string[] }>('SELECT brands FROM entity_brands WHERE entity_id = $1', [entityId], {
      preparedAs: 'find-entity-brands',
    });
    const row = found.rows[0];
    return row ? new Set(row.brands) : defaults;
  };
  return {
    async offers(entityId, brand) {
      return (await cache.get(entityId, load)).has(brand);
    },
    forget: (entityId) => cache.forget(entityId),
  };
}
