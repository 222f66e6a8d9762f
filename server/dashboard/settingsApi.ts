import { Hono, type Context } from 'hono';
import { Readable } from 'node:stream';
import { KNOWN_BRANDS } from '../domain/brands.ts';
import { GatewayError, invalidParameters, type ParameterError } from '../domain/errors.ts';
import type { AcquirerNames } from '../domain/smartRetryRules.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody, adminNotFound } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { removeOfferedBrands, saveOfferedBrands, showOfferedBrands, type OfferedBrands } from '../merchants/brands.ts';
import { smartRetryInputOf, smartRetryJson } from '../merchants/smartRetryRoutes.ts';
import { removeSmartRetry, saveSmartRetry, showSmartRetry } from '../merchants/smartRetrySettings.ts';
import { dayFile } from '../reconciliation/dayFile.ts';
import { dateProblem, fileJson, resendFile } from '../reconciliation/files.ts';
import { filesOfEntity, findFile } from '../reconciliation/repository.ts';
import { ftpSettingsInput } from '../reconciliation/routes.ts';
import { ftpSettingsJson, removeFtpSettings, saveFtpSettings, showFtpSettings, type FtpSettingsInput } from '../reconciliation/settings.ts';
import { aggregationView } from '../reports/recordView.ts';
import { findAggregations, MAX_REPORT_DAYS, summaryQueryOf } from '../reports/service.ts';
import { findSettlementBatches } from '../reports/settlementRecords.ts';
import { actorOf, requireRole, sessionOf } from './access.ts';
import { ok } from './api.ts';
import { recordAction } from './audit.ts';
import { entitySettingsAccess, noEntity, SUCCESS_CODE } from './entitySettings.ts';
import type { Session } from './sessions.ts';

/**
 * The dashboard's pages of an entity's settings and settlements (/dashboard/api/entities/{entityId}/...), on the
 * use-cases the admin API uses, so the same rules and refusals apply (400 200.300.404 with parameterErrors, nothing
 * written):
 *   smart-retry, brands, ftp                              GET (both principals, their own entities), PUT and DELETE
 *                                                         (operators only): the FTP password is write-only
 *   settlements?from&to | ?date [&currency]               GET: the settlement reports' summary (reports/service.ts)
 *   reconciliation-files?from&to                          GET: the entity's files, newest first
 *   reconciliation-files/{date}                           GET: the day's file itself (text/csv, an attachment)
 *   reconciliation-files/{date}/resend                    POST: send it again over FTP (an operator, a merchant's admin)
 * A merchant asking for another entity gets 403 (as a list filtered by it); an operator naming no entity 404. Every
 * change, re-send and download is recorded (audit.ts), refused ones with their result code; never a password.
 */

const DEFAULT_FILE_RANGE_DAYS = 31;
const MAX_FILE_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

const badDate = (_c: Context<AppEnv>, date: string): GatewayError => invalidParameters([{ name: 'date', value: date, message: 'must be a date yyyy-MM-dd' }]);
const dayBefore = (date: string, days: number): string => new Date(Date.parse(date) - days * DAY_MS).toISOString().slice(0, 10);

/** The offered brands as the admin API shows them, with every brand the gateway knows (the choices). */
function brandsJson(entityId: string, offered: OfferedBrands): Record<string, unknown> {
  return { entityId, brands: offered.brands, default: offered.isDefault, updatedAt: offered.updatedAt?.toISOString() ?? null, knownBrands: KNOWN_BRANDS };
}

/** What a change of FTP settings is recorded as: what was set, and whether a new password came (never the password). */
function ftpDetail(input: FtpSettingsInput): Record<string, unknown> {
  const { password, tlsCertificate, ...shown } = input;
  return { ...shown, passwordChanged: password !== undefined, ...(tlsCertificate !== undefined ? { tlsCertificate: true } : {}) };
}

/** Each query parameter outside `known` named as not a filter; then the problems found. */
function queryProblems(query: Record<string, string>, known: readonly string[]): ParameterError[] {
  return Object.keys(query)
    .filter((name) => !known.includes(name))
    .map((name) => ({ name, value: query[name] ?? '', message: 'is not a filter of this list' }));
}

export function settingsApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const { signedIn, entityPathId, entityOf, changerOf, requireExisting, recorded } = entitySettingsAccess(deps);
  const names: AcquirerNames = { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer };
  const ftpServices = { store, vault: deps.payments.vault, now: deps.now, allowPrivateAddresses: config.outboundAllowPrivate };
  const datePathId = pathId('settlementDate', badDate, 'date');

  // Smart retry (merchants/smartRetrySettings.ts).
  const smartRetryAnswer = (c: Context<AppEnv>, session: Session, entityId: string, settings: Parameters<typeof smartRetryJson>[1]) =>
    ok(c, {
      smartRetry: smartRetryJson(entityId, settings, names),
      // The fallback acquirers an operator may choose from: every configured one but the default.
      ...(session.principal.kind === 'operator' ? { fallbackAcquirers: names.acquirers.filter((name) => name !== names.defaultAcquirer) } : {}),
    });
  routes.get('/entities/:entityId/smart-retry', signedIn, entityPathId, async (c) => {
    const { session, entityId } = entityOf(c);
    const shown = await showSmartRetry(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return smartRetryAnswer(c, session, entityId, shown.settings);
  });
  routes.put('/entities/:entityId/smart-retry', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const body = await adminJsonBody(c, { enabled: 'boolean', codes: 'stringsOrString', standalone: 'boolean', cardOnFile: 'boolean', fallbackAcquirer: 'string' });
    const saved = await recorded(session, entityId, 'smart-retry.save', body, async () => saveSmartRetry(store, names, entityId, smartRetryInputOf(body), deps.now()));
    // This instance's payments see the change at once; other instances within SMART_RETRY_CACHE_MS.
    deps.payments.smartRetry.forget(entityId);
    return smartRetryAnswer(c, session, entityId, saved);
  });
  routes.delete('/entities/:entityId/smart-retry', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    await requireExisting(entityId);
    await recorded(session, entityId, 'smart-retry.remove', {}, async () => {
      if (!(await removeSmartRetry(store, entityId)).entityExists) throw noEntity(entityId);
    });
    deps.payments.smartRetry.forget(entityId);
    return smartRetryAnswer(c, session, entityId, undefined);
  });
  routes.all('/entities/:entityId/smart-retry', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });

  // The brands the entity offers (merchants/brands.ts).
  const offeredOf = async (entityId: string) => {
    const offered = await showOfferedBrands(store, entityId);
    if (!offered) throw noEntity(entityId);
    return offered;
  };
  routes.get('/entities/:entityId/brands', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    return ok(c, { offeredBrands: brandsJson(entityId, await offeredOf(entityId)) });
  });
  routes.put('/entities/:entityId/brands', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const body = await adminJsonBody(c, { brands: 'strings' });
    if (body.brands === undefined) throw invalidParameters([{ name: 'brands', value: '', message: 'is required: the brands the entity offers' }]);
    const brands = body.brands as string[];
    const saved = await recorded(session, entityId, 'brands.save', { brands }, () => saveOfferedBrands(store, entityId, brands, deps.now()));
    deps.payments.brandOffers.forget(entityId);
    return ok(c, { offeredBrands: brandsJson(entityId, saved) });
  });
  routes.delete('/entities/:entityId/brands', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    await requireExisting(entityId);
    await recorded(session, entityId, 'brands.remove', {}, async () => {
      if (!(await removeOfferedBrands(store, entityId)).entityExists) throw noEntity(entityId);
    });
    deps.payments.brandOffers.forget(entityId);
    return ok(c, { offeredBrands: brandsJson(entityId, await offeredOf(entityId)) });
  });
  routes.all('/entities/:entityId/brands', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });

  // Where the reconciliation file goes (reconciliation/settings.ts): the password is written, never shown.
  routes.get('/entities/:entityId/ftp', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    const shown = await showFtpSettings(store, entityId);
    if (!shown.entityExists) throw noEntity(entityId);
    return ok(c, { ftp: shown.settings ? ftpSettingsJson(shown.settings) : null });
  });
  routes.put('/entities/:entityId/ftp', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    const input = await ftpSettingsInput(c);
    await requireExisting(entityId);
    const saved = await recorded(session, entityId, 'ftp.save', ftpDetail(input), () => saveFtpSettings(ftpServices, entityId, input));
    return ok(c, { ftp: ftpSettingsJson(saved) });
  });
  routes.delete('/entities/:entityId/ftp', signedIn, entityPathId, async (c) => {
    const { session, entityId } = changerOf(c);
    await requireExisting(entityId);
    await recorded(session, entityId, 'ftp.remove', {}, async () => {
      if (!(await removeFtpSettings(ftpServices, entityId)).entityExists) throw noEntity(entityId);
    });
    return ok(c, { ftp: null });
  });
  routes.all('/entities/:entityId/ftp', () => {
    throw methodNotAllowed(['GET', 'PUT', 'DELETE']);
  });

  // Settlements: the reports API's summary (reports/service.ts), by its rules (at most MAX_REPORT_DAYS days).
  routes.get('/entities/:entityId/settlements', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    const query = c.req.query();
    const problems = queryProblems(query, ['date', 'from', 'to', 'currency']);
    if (query.date !== undefined && (query.from !== undefined || query.to !== undefined)) {
      problems.push({ name: 'date', value: query.date, message: 'is one day: send it, or from and to' });
    }
    const to = query.date ?? query.to ?? deps.now().toISOString().slice(0, 10);
    const from = query.date ?? query.from ?? (dateProblem(to) ? to : dayBefore(to, MAX_REPORT_DAYS - 1));
    const params = new Map<string, string>([['date.from', from], ['date.to', to], ...(query.currency !== undefined ? [['currency', query.currency] as const] : [])]);
    let summary: ReturnType<typeof summaryQueryOf> | undefined;
    try {
      summary = summaryQueryOf(params, config.environment);
    } catch (error) {
      if (!(error instanceof GatewayError && error.parameterErrors)) throw error;
      // The reports API names its parameters date.from and date.to; this list takes from and to (or date).
      const rename = (name: string) => (query.date !== undefined && name.startsWith('date.') ? 'date' : name === 'date.from' ? 'from' : name === 'date.to' ? 'to' : name);
      for (const problem of error.parameterErrors) {
        const name = rename(problem.name);
        if (!problems.some((known) => known.name === name)) problems.push({ ...problem, name });
      }
    }
    if (problems.length > 0 || !summary) throw invalidParameters(problems);
    await requireExisting(entityId);
    const batches = await findAggregations(store, entityId, summary, config.environment);
    return ok(c, { from: summary.from, to: summary.to, settlements: batches.map(aggregationView) });
  });
  routes.all('/entities/:entityId/settlements', () => {
    throw methodNotAllowed(['GET']);
  });

  // Reconciliation files (reconciliation/files.ts, dayFile.ts).
  routes.get('/entities/:entityId/reconciliation-files', signedIn, entityPathId, async (c) => {
    const { entityId } = entityOf(c);
    const query = c.req.query();
    const problems = queryProblems(query, ['from', 'to']);
    for (const name of ['from', 'to'] as const) {
      const value = query[name];
      const problem = value === undefined ? undefined : dateProblem(value);
      if (problem) problems.push({ name, value: value as string, message: problem });
    }
    const to = query.to ?? deps.now().toISOString().slice(0, 10);
    const from = query.from ?? (dateProblem(to) ? to : dayBefore(to, DEFAULT_FILE_RANGE_DAYS - 1));
    if (problems.every((problem) => problem.name !== 'from' && problem.name !== 'to')) {
      if (from > to) problems.push({ name: 'from', value: from, message: `must not be after to (${to})` });
      else if (Date.parse(to) - Date.parse(from) >= MAX_FILE_RANGE_DAYS * DAY_MS) problems.push({ name: 'from', value: from, message: `must be at most ${MAX_FILE_RANGE_DAYS} days before to` });
    }
    if (problems.length > 0) throw invalidParameters(problems);
    await requireExisting(entityId);
    return ok(c, { from, to, files: (await filesOfEntity(store, entityId, { from, to })).map(fileJson) });
  });
  routes.all('/entities/:entityId/reconciliation-files', () => {
    throw methodNotAllowed(['GET']);
  });

  /** The path's day, a day of the calendar (its shape checked by pathId). */
  const dayOf = (c: Context<AppEnv>): string => {
    const date = c.req.param('date') as string;
    if (dateProblem(date)) throw badDate(c, date);
    return date;
  };

  // The day's file as the upload sends it (byte for byte), built from the records as it streams. A day with neither a
  // file sent (or being sent) nor settlements has no file: 404.
  routes.get('/entities/:entityId/reconciliation-files/:date', signedIn, entityPathId, datePathId, async (c) => {
    const { session, entityId } = entityOf(c);
    const date = dayOf(c);
    await requireExisting(entityId);
    const known = (await findFile(store, entityId, date)) ?? (await findSettlementBatches(store, entityId, { from: date, to: date }))[0];
    if (!known) throw adminNotFound(`reconciliation file of ${entityId} for`, date);
    const file = await dayFile(store, entityId, date, config.pspEntityId);
    if (!file) throw noEntity(entityId);
    // A HEAD (a link checked, not followed) downloads nothing.
    if (c.req.method === 'GET') {
      await recordAction(store, { actor: actorOf(session.principal), entityId, action: 'reconciliation-file.download', detail: { date }, resultCode: SUCCESS_CODE, at: deps.now() });
    }
    return new Response(Readable.toWeb(Readable.from(file.chunks)) as ReadableStream<Uint8Array>, {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${file.name}"`,
        'cache-control': 'no-store',
        ...c.get('baseHeaders'),
        'x-request-id': c.get('requestId'),
      },
    });
  });
  routes.all('/entities/:entityId/reconciliation-files/:date', () => {
    throw methodNotAllowed(['GET']);
  });

  // Sending it again to the entity's FTP server: the destination is the operator's setting, the file the entity's own,
  // so a merchant may ask too (a file lost or deleted on its side); each re-send replaces the one under way.
  routes.post('/entities/:entityId/reconciliation-files/:date/resend', signedIn, entityPathId, datePathId, async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const { session, entityId } = entityOf(c);
    const date = dayOf(c);
    await requireExisting(entityId);
    const file = await recorded(session, entityId, 'reconciliation-file.resend', { date }, () => resendFile(store, entityId, date, deps.now()));
    return ok(c, { file: fileJson(file) });
  });
  routes.all('/entities/:entityId/reconciliation-files/:date/resend', () => {
    throw methodNotAllowed(['POST']);
  });

  return routes;
}
