import { Hono, type MiddlewareHandler } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import { invalidParameters } from '../domain/errors.ts';
import { newNdc } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import { requireMerchant } from '../http/auth.ts';
import type { AppEnv } from '../http/context.ts';
import { ANSWERED_AT, currentBuildNumber } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { isPathId, pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { jsonResponse } from '../http/respond.ts';
import type { ParameterError } from '../domain/errors.ts';
import { QUERY_LIMITS } from '../throttling/service.ts';
import { byIdQueryOf, listQueryOf } from './request.ts';
import { nothingFound, queryLinked, queryList, queryRecord, type RecordPage } from './service.ts';
import { listedView, recordView } from './view.ts';

/**
 * The query API (COMPAT §14), mounted at /v1/query and /v3/query:
 *   GET /{id}?entityId=[&includeLinkedTransactions=true]   one transaction (a checkout's id names its payment), or it
 *                                                           and its linked transactions as a list
 *   GET /?entityId=&merchantTransactionId= | &date.from=&date.to= | &shortId=  [&paymentTypes][&paymentMethods]
 *                                                           [&limit][&pageNo]   the list form
 * Throttled per id (2 a minute) and per entity (list queries, 1 a second): COMPAT §17.
 */

/** COMPAT §14: a query's parameter names are trimmed (`?entityId=...& limit=200`); a name sent twice is refused. */
const trimmedNames: MiddlewareHandler<AppEnv> = async (c, next) => {
  const trimmed = new Map<string, string>();
  const errors: ParameterError[] = [];
  for (const [name, value] of c.get('params')) {
    const bare = name.trim();
    if (bare === '') continue;
    if (trimmed.has(bare)) errors.push({ name: bare, value: '', message: 'must not be sent more than once' });
    else trimmed.set(bare, value);
  }
  if (errors.length > 0) throw invalidParameters(errors);
  c.set('params', trimmed);
  await next();
};

/** The list answer: 000.000.100 and the page of records, each without buildNumber and ndc. */
function listBody(entityId: string, page: RecordPage): Record<string, unknown> {
  const { code, description } = RESULTS.successfulRequest;
  return {
    result: { code, description },
    buildNumber: currentBuildNumber(),
    timestamp: formatTimestamp(new Date()),
    ndc: newNdc(entityId),
    payments: page.records.map(listedView),
    pages: page.pages,
    [ANSWERED_AT]: true,
  };
}

type RouteDependencies = HttpDependencies & { readonly throttling?: Throttling };


export function queryRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { store } = deps;
  const router = new Hono<AppEnv>();
  // Only ids of a queryable shape are counted per id: any other is unknown without a look at the store.
  const byIdLimit = requireMerchant(deps, (c) => {
    const id = c.req.param('id') as string | undefined;
    return id !== undefined && isPathId('transaction', id) ? QUERY_LIMITS.byId(id) : undefined;
  });

  router.get('/', requestParams, trimmedNames, requireMerchant(deps, QUERY_LIMITS.list), async (c) => {
    const entityId = c.get('entityId');
    const page = await queryList(store, entityId, listQueryOf(c.get('params')));
    return jsonResponse(c, listBody(entityId, page), 200);
  });
  router.all('/', () => {
    throw methodNotAllowed(['GET']);
  });

  router.get('/:id', requestParams, trimmedNames, byIdLimit, pathId('transaction', () => nothingFound()), async (c) => {
    const entityId = c.get('entityId');
    const id = c.req.param('id');
    const query = byIdQueryOf(c.get('params'));
    if (query.includeLinkedTransactions) return jsonResponse(c, listBody(entityId, await queryLinked(store, entityId, id, query)), 200);
    const record = recordView(await queryRecord(store, entityId, id));
    // The transaction as it was made: its result and time, and its own ndc (a payment's), under this answer's build.
    return jsonResponse(c, { ...record, buildNumber: currentBuildNumber(), ndc: record.ndc ?? newNdc(entityId) }, 200);
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET']);
  });
  return router;
}
