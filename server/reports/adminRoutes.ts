import { Hono, type Context } from 'hono';
import { connectorsIn } from '../acquirers/registry.ts';
import { simulatedAcquirers } from '../config.ts';
import type { HttpDependencies } from '../http/access.ts';
import type { PaymentServices } from '../payments/services.ts';
import { invalidParameters } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import type { ParameterError } from '../domain/errors.ts';
import { importProviderSettlements } from './providerSettlements.ts';
import { formatSignedAmount } from './settlementMoney.ts';
import { findSettlementBatchesOfDay, type SettlementBatch } from './settlementRecords.ts';
import { isSettlementDay, runSettlement, settlementDateProblem, type SettledBatch } from './settlementRun.ts';
import {
  checkSettlementSettings,
  removeSettlementSettings,
  saveSettlementSettings,
  SettlementSettingsError,
  showSettlementSettings,
  type SettlementSettings,
} from './settlementSettings.ts';

/**
 * The operator's settlements (admin API, `Authorization: Bearer <ADMIN_TOKEN>`):
 * - `POST /admin/v1/settlements/runs` `{"date": "yyyy-MM-dd"}`: runs the simulated acquirers' settlement of that day
 *   now (test environment; a day already run settles only what is left) and imports what the connectors' providers
 *   report they settled that day (providerSettlements.ts), answering the batches it wrote;
 * - `GET /admin/v1/settlements?date=yyyy-MM-dd[&entityId=...]`: the day's settlements (batches), every entity's;
 * - `GET|PUT|DELETE /admin/v1/entities/{entityId}/settlement`: the entity's settlement currency and test records
 *   (`{"currency": "EUR", "unmatchedRecords": n, "duplicateRecords": n}`; PUT replaces, a field left out taking its
 *   default — no currency: each transaction's own, 0 test records —, DELETE resets).
 */

export function settlementJson(batch: SettlementBatch | SettledBatch, date: string): Record<string, unknown> {
  return {
    id: batch.id,
    entityId: batch.entityId,
    clearingInstitute: batch.clearingInstitute,
    date,
    currency: batch.settlementCurrency,
    settlementAmount: formatSignedAmount(batch.settlementAmountMinor),
    transactionCount: batch.transactionCount,
    test: batch.test,
  };
}

export function settlementSettingsJson(entityId: string, settings: SettlementSettings): Record<string, unknown> {
  return { entityId, currency: settings.settlementCurrency, unmatchedRecords: settings.unmatchedRecords, duplicateRecords: settings.duplicateRecords };
}

type Deps = Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'>;

/** Mounted at /admin/v1/settlements. */
export function settlementRunAdminRoutes(deps: Deps & Pick<HttpDependencies, 'logger'> & { readonly payments: PaymentServices }, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('*', requireAdminToken(deps, adminToken));

  routes.post('/runs', async (c) => {
    const body = await adminJsonBody(c, { date: 'string' });
    const date = typeof body.date === 'string' ? body.date : '';
    const problem = settlementDateProblem(date, deps.now());
    if (problem) throw invalidParameters([{ name: 'date', value: date, message: problem }]);
    const { config } = deps;
    const simulated = config.environment === 'test' ? simulatedAcquirers(config) : [];
    const result = await runSettlement({ store: deps.store, acquirers: simulated, settlement: config.settlement, now: deps.now }, date);
    const imported = await importProviderSettlements(
      { store: deps.store, payments: deps.payments, acquirers: connectorsIn(deps.payments.acquirers), test: config.environment === 'test', now: deps.now, logger: deps.logger },
      date,
    );
    const settlements = [...result.batches, ...imported].map((batch) => settlementJson(batch, date));
    return jsonResponse(
      c,
      envelope(RESULTS.successfulRequest, c.get('requestId'), { settlementRun: { date, cutoffAt: result.cutoffAt.toISOString(), until: result.until.toISOString(), settlements } }),
      200,
    );
  });
  routes.all('/runs', () => {
    throw methodNotAllowed(['POST']);
  });

  routes.get('/', async (c) => {
    const date = c.req.query('date') ?? '';
    const entityId = c.req.query('entityId');
    const problems: ParameterError[] = [];
    if (!isSettlementDay(date)) problems.push({ name: 'date', value: date, message: 'must be a date yyyy-MM-dd' });
    if (entityId !== undefined && !ENTITY_ID.test(entityId)) problems.push({ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' });
    if (problems.length > 0) throw invalidParameters(problems);
    const batches = await findSettlementBatchesOfDay(deps.store, date, entityId);
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { settlements: batches.map((batch) => settlementJson(batch, date)) }), 200);
  });
  routes.all('/', () => {
    throw methodNotAllowed(['GET']);
  });
  return routes;
}

const noEntity = (id: string) => adminNotFound('entity', id);

/** Mounted at /admin/v1/entities. */
export function settlementSettingsAdminRoutes(deps: Deps, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  routes.use('/:entityId/settlement', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');
  const ok = (c: Context<AppEnv>, entityId: string, settings: SettlementSettings) =>
    jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { settlement: settlementSettingsJson(entityId, settings) }), 200);

  routes.get('/:entityId/settlement', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const settings = await showSettlementSettings(store, entityId);
    if (!settings) throw noEntity(entityId);
    return ok(c, entityId, settings);
  });

  routes.put('/:entityId/settlement', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const body = await adminJsonBody(c, { currency: 'string', unmatchedRecords: 'integer', duplicateRecords: 'integer' });
    let settings: SettlementSettings;
    try {
      settings = checkSettlementSettings(body);
    } catch (error) {
      if (error instanceof SettlementSettingsError) throw invalidParameters(error.problems);
      throw error;
    }
    if (!(await saveSettlementSettings(store, entityId, settings, deps.now()))) throw noEntity(entityId);
    return ok(c, entityId, settings);
  });

  routes.delete('/:entityId/settlement', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    if (!(await removeSettlementSettings(store, entityId))) throw noEntity(entityId);
    const settings = await showSettlementSettings(store, entityId);
    return ok(c, entityId, settings ?? checkSettlementSettings({}));
  });

  routes.all('/:entityId/settlement', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });
  return routes;
}
