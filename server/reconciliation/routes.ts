import { Hono, type Context } from 'hono';
import { Readable } from 'node:stream';
import type { HttpDependencies } from '../http/access.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { CORS_HEADERS, jsonResponse } from '../http/respond.ts';
import { entityExists } from '../merchants/repository.ts';
import { dayFile } from './dayFile.ts';
import { dateProblem, fileJson, resendFile, ResendRefused } from './files.ts';
import { filesOfDay, filesOfEntity, findFile, type FileStatus } from './repository.ts';
import { FtpSettingsError, ftpSettingsJson, removeFtpSettings, saveFtpSettings, showFtpSettings, type FtpSettingsInput } from './settings.ts';

/**
 * The admin API of the reconciliation file (COMPAT §14), with `Authorization: Bearer <ADMIN_TOKEN>` (mounted by app.ts
 * only when ADMIN_TOKEN is set):
 *   /admin/v1/entities/{entityId}/reconciliation/ftp                       GET, PUT (JSON), DELETE: the FTP settings
 *   /admin/v1/entities/{entityId}/reconciliation/files[?from&to]           GET: the entity's files, newest first
 *   /admin/v1/entities/{entityId}/reconciliation/files/{date}              GET: one day's file
 *   /admin/v1/entities/{entityId}/reconciliation/files/{date}/resend       POST: send it again
 *   /admin/v1/entities/{entityId}/reconciliation/files/{date}/csv          GET: the file itself (text/csv)
 *   /admin/v1/reconciliation/files?date[&status][&after][&limit]           GET: one day's files of every entity
 * Refusals are 400 200.300.404 with parameterErrors (nothing written), an unknown entity or file 404.
 */

type Deps = Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: { readonly vault: CardVault } };

const DEFAULT_RANGE_DAYS = 31;
const MAX_RANGE_DAYS = 366;
const DEFAULT_DAY_LIMIT = 100;
const MAX_DAY_LIMIT = 1000;
const STATUSES: readonly FileStatus[] = ['pending', 'retrying', 'uploaded', 'failed'];
const DAY_MS = 86_400_000;

const noEntity = (id: string) => adminNotFound('entity', id);
const badDate = (_c: Context<AppEnv>, date: string) => invalidParameters([{ name: 'date', value: date, message: 'must be a date yyyy-MM-dd' }]);

/** A date query parameter, checked; `fallback` when absent. */
function dateParameter(c: Context<AppEnv>, name: string, fallback?: string): string | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  const problem = dateProblem(raw);
  if (problem) throw invalidParameters([{ name, value: raw, message: problem }]);
  return raw;
}

/** The date path parameter: its shape was checked (pathId), this checks it is a day of the calendar. */
function dayOf(c: Context<AppEnv>): string {
  const date = c.req.param('date') as string;
  if (dateProblem(date)) throw badDate(c, date);
  return date;
}

/** The FTP settings' PUT body as input (the shapes checked by adminJsonBody); the dashboard reads it so too. */
export async function ftpSettingsInput(c: Context<AppEnv>): Promise<FtpSettingsInput> {
  const body = await adminJsonBody(c, {
    host: 'string',
    port: 'integer',
    username: 'string',
    password: 'string',
    folder: 'string',
    explicitTls: 'boolean',
    passive: 'boolean',
    tlsCertificate: 'string',
  });
  return body as FtpSettingsInput;
}

export function reconciliationEntityRoutes(deps: Deps, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store } = deps;
  const services = { store, vault: deps.payments.vault, now: deps.now, allowPrivateAddresses: deps.config.outboundAllowPrivate };
  const ok = (c: Context<AppEnv>, fields: Record<string, unknown>) => jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), fields), 200);
  routes.use('*', requireAdminToken(deps, adminToken));
  const entityPathId = pathId('entity', (_c, id) => noEntity(id), 'entityId');
  const datePathId = pathId('settlementDate', badDate, 'date');

  routes.get('/:entityId/reconciliation/ftp', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const shown = await showFtpSettings(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return ok(c, { ftp: shown.settings ? ftpSettingsJson(shown.settings) : null });
  });

  routes.put('/:entityId/reconciliation/ftp', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const input = await ftpSettingsInput(c);
    try {
      return ok(c, { ftp: ftpSettingsJson(await saveFtpSettings(services, entityId, input)) });
    } catch (error) {
      if (error instanceof FtpSettingsError) throw error.unknownEntity ? noEntity(entityId) : invalidParameters(error.problems);
      throw error;
    }
  });

  routes.delete('/:entityId/reconciliation/ftp', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    if (!(await removeFtpSettings(services, entityId)).entityExists) throw noEntity(entityId);
    return ok(c, { ftp: null });
  });

  routes.all('/:entityId/reconciliation/ftp', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });

  routes.get('/:entityId/reconciliation/files', entityPathId, async (c) => {
    const entityId = c.req.param('entityId');
    const today = deps.now().toISOString().slice(0, 10);
    const to = dateParameter(c, 'to', today) as string;
    const from = dateParameter(c, 'from', new Date(Date.parse(to) - (DEFAULT_RANGE_DAYS - 1) * DAY_MS).toISOString().slice(0, 10)) as string;
    if (from > to) throw invalidParameters([{ name: 'from', value: from, message: `must not be after to (${to})` }]);
    if (Date.parse(to) - Date.parse(from) >= MAX_RANGE_DAYS * DAY_MS) throw invalidParameters([{ name: 'from', value: from, message: `must be at most ${MAX_RANGE_DAYS} days before to` }]);
    if (!(await entityExists(store, entityId))) throw noEntity(entityId);
    return ok(c, { from, to, files: (await filesOfEntity(store, entityId, { from, to })).map(fileJson) });
  });

  routes.get('/:entityId/reconciliation/files/:date', entityPathId, datePathId, async (c) => {
    const entityId = c.req.param('entityId');
    const date = dayOf(c);
    const file = await findFile(store, entityId, date);
    if (!file) {
      if (!(await entityExists(store, entityId))) throw noEntity(entityId);
      throw adminNotFound(`reconciliation file of ${entityId} for`, date);
    }
    return ok(c, { file: fileJson(file) });
  });

  routes.post('/:entityId/reconciliation/files/:date/resend', entityPathId, datePathId, async (c) => {
    const entityId = c.req.param('entityId');
    const date = dayOf(c);
    try {
      return ok(c, { file: fileJson(await resendFile(store, entityId, date, deps.now())) });
    } catch (error) {
      if (error instanceof ResendRefused) throw error.unknownEntity ? noEntity(entityId) : new GatewayError(withReason(RESULTS.invalidParameter, error.message), 400);
      throw error;
    }
  });

  routes.get('/:entityId/reconciliation/files/:date/csv', entityPathId, datePathId, async (c) => {
    const entityId = c.req.param('entityId');
    const date = dayOf(c);
    const file = await dayFile(store, entityId, date, deps.config.pspEntityId);
    if (!file) throw noEntity(entityId);
    // Built from the records as it is sent: a day of a million records streams in constant memory.
    return new Response(Readable.toWeb(Readable.from(file.chunks)) as ReadableStream<Uint8Array>, {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${file.name}"`,
        ...CORS_HEADERS,
        'cache-control': 'no-store',
        ...c.get('baseHeaders'),
        'x-request-id': c.get('requestId'),
      },
    });
  });

  routes.all('/:entityId/reconciliation/files/:date/resend', () => {
    throw methodNotAllowed(['POST']);
  });
  routes.all('/:entityId/reconciliation/files/:date/csv', () => {
    throw methodNotAllowed(['GET']);
  });
  routes.all('/:entityId/reconciliation/files/:date', () => {
    throw methodNotAllowed(['GET']);
  });
  routes.all('/:entityId/reconciliation/files', () => {
    throw methodNotAllowed(['GET']);
  });
  return routes;
}

/** `/admin/v1/reconciliation/files?date=`: one settlement day's files of every entity, by entity id, a page at a time. */
export function reconciliationDayRoutes(deps: Deps, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('*', requireAdminToken(deps, adminToken));
  routes.get('/files', async (c) => {
    const date = dateParameter(c, 'date');
    if (date === undefined) throw invalidParameters([{ name: 'date', value: '', message: 'is required (yyyy-MM-dd)' }]);
    const status = c.req.query('status');
    if (status !== undefined && !STATUSES.includes(status as FileStatus)) throw invalidParameters([{ name: 'status', value: status, message: `must be one of ${STATUSES.join(', ')}` }]);
    const after = c.req.query('after');
    if (after !== undefined && !ENTITY_ID.test(after)) throw invalidParameters([{ name: 'after', value: after, message: 'must be an entity id (32 lowercase hexadecimal characters)' }]);
    const rawLimit = c.req.query('limit');
    const limit = rawLimit === undefined ? DEFAULT_DAY_LIMIT : Number(rawLimit);
    if (rawLimit !== undefined && (!/^\d{1,7}$/.test(rawLimit) || limit < 1 || limit > MAX_DAY_LIMIT)) {
      throw invalidParameters([{ name: 'limit', value: rawLimit, message: `must be an integer between 1 and ${MAX_DAY_LIMIT}` }]);
    }
    const files = await filesOfDay(deps.store, date, { limit, ...(after ? { after } : {}), ...(status ? { status: status as FileStatus } : {}) });
    const fields = { date, files: files.map(fileJson), ...(files.length === limit ? { next: files.at(-1)?.entityId } : {}) };
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), fields), 200);
  });
  routes.all('/files', () => {
    throw methodNotAllowed(['GET']);
  });
  return routes;
}
