import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { BrandsConfigError, removeOfferedBrands, saveOfferedBrands, showOfferedBrands, type BrandOffers, type OfferedBrands } from './brands.ts';

/**
 * The admin API of the brands an entity offers (COMPAT §7): `/admin/v1/entities/{entityId}/brands`, JSON in and out,
 * with the ADMIN_TOKEN (mounted by app.ts only when it is set). GET shows the list (the environment's default when
 * the operator set none), PUT `{"brands": [...]}` replaces it, DELETE restores the default. A brand the gateway does not
 * know is refused (400 200.300.404 naming it) and nothing is written.
 */

const noEntity = (id: string) => adminNotFound('entity', id);

function brandsJson(entityId: string, offered: OfferedBrands): Record<string, unknown> {
  return { entityId, brands: offered.brands, default: offered.isDefault, updatedAt: offered.updatedAt?.toISOString() ?? null };
}

export function brandsAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly brandOffers: BrandOffers } }, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  const ok = (c: Context<AppEnv>, entityId: string, offered: OfferedBrands) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { offeredBrands: brandsJson(entityId, offered) }), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');
  const shown = async (entityId: string) => {
    const offered = await showOfferedBrands(store, entityId);
    if (!offered) throw noEntity(entityId);
    return offered;
  };

  routes.get('/:entityId/brands', entityPathId, async (c) => ok(c, c.req.param('entityId'), await shown(c.req.param('entityId'))));

  routes.put('/:entityId/brands', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const body = await adminJsonBody(c, { brands: 'strings' });
    if (body.brands === undefined) throw invalidParameters([{ name: 'brands', value: '', message: 'is required: the brands the entity offers' }]);
    let saved: OfferedBrands;
    try {
      saved = await saveOfferedBrands(store, entityId, body.brands as string[], deps.now());
    } catch (error) {
      if (error instanceof BrandsConfigError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
    // This instance's payments see the change at once; other instances within BRAND_OFFERS_CACHE_MS.
    deps.payments.brandOffers.forget(entityId);
    return ok(c, entityId, saved);
  });

  routes.delete('/:entityId/brands', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const removed = await removeOfferedBrands(store, entityId);
    if (!removed.entityExists) throw noEntity(entityId);
    deps.payments.brandOffers.forget(entityId);
    return ok(c, entityId, await shown(entityId));
  });

  routes.all('/:entityId/brands', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
