import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import { newNdc } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { requireMerchant } from '../http/auth.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { CORS_HEADERS, jsonResponse } from '../http/respond.ts';
import { findEntityName } from '../merchants/repository.ts';
import { QUERY_LIMITS } from '../throttling/service.ts';
import { aggregationView, recordView, type RecordContext } from './recordView.ts';
import { detailQueryOf, findAggregation, findAggregations, RECORDS_PER_PAGE, summaryQueryOf, unknownAggregation } from './service.ts';
import { countRecordsOfBatch, recordsOfBatch, type SettlementBatch, type SettlementRecord } from './settlementRecords.ts';

/**
 * The settlement reports (COMPAT §14): `/reports/v1/reconciliations/aggregations` (summary: the entity's aggregations
 * of a span of days), `/reports/v1/reconciliations/aggregations/{id}` (detail: every record of one, sorted by
 * SettlementTxDate either way, streamed a page of the store at a time), `/reports/v2/reconciliations/aggregations/{id}`
 * (detail a page of 100 records at a time, of one record type when asked, with `pages`). Authenticated as the
 * payment API, throttled as list queries (1/s per entity, COMPAT §17). The platform's own documentation spells the
 * path `/reconiliations/aggregrations` (and, for the detail, `/reconciliations/aggregrations`): both are answered too.
 */

const COLLECTIONS = ['reconciliations/aggregations', 'reconiliations/aggregrations', 'reconciliations/aggregrations'] as const;
/** Records read from the store at a time while the v1 detail streams. */
const STREAM_PAGE = 200;

async function contextOf(deps: Pick<HttpDependencies, 'store' | 'config'>, entityId: string): Promise<RecordContext> {
  return { entityName: (await findEntityName(deps.store, entityId)) ?? '', pspEntityId: deps.config.pspEntityId };
}

/**
 * The v1 detail's answer, `{"id", "records": [...], result, buildNumber, timestamp, ndc}`, written as the records are
 * read: a batch of a million records never sits in memory. A failure once the answer has started ends the connection
 * (the client sees a truncated body, never a complete-looking one), and is logged.
 */
function streamedDetail(c: Context<AppEnv>, deps: Pick<HttpDependencies, 'store'>, batch: SettlementBatch, context: RecordContext, descending: boolean, ndc: string): Response {
  const encoder = new TextEncoder();
  const tail = JSON.stringify(envelope(RESULTS.successfulRequest, ndc));
  let after: number | undefined;
  let started = false;
  let first = true;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`{"id":${JSON.stringify(batch.id)},"records":[`));
        return;
      }
      try {
        const page: SettlementRecord[] = await recordsOfBatch(deps.store, batch.id, { limit: STREAM_PAGE, descending, ...(after === undefined ? {} : { after }) });
        const text = page.map((record) => JSON.stringify(recordView(record, batch, context))).join(',');
        if (text !== '') controller.enqueue(encoder.encode(`${first ? '' : ','}${text}`));
        first = first && text === '';
        after = page.at(-1)?.position;
        if (page.length < STREAM_PAGE) {
          controller.enqueue(encoder.encode(`],${tail.slice(1)}`));
          controller.close();
        }
      } catch (error) {
        c.get('log').error('settlement detail report failed while streaming', { error, aggregationId: batch.id });
        controller.error(error);
      }
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': 'application/json', ...CORS_HEADERS, 'cache-control': 'no-store', ...c.get('baseHeaders'), 'x-request-id': c.get('requestId') },
  });
}

type RouteDependencies = HttpDependencies & { readonly throttling?: Throttling };


export function reportRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  const { environment } = deps.config;
  const report = [requestParams, requireMerchant(deps, QUERY_LIMITS.settlementReport)] as const;
  const aggregationId = pathId('aggregation', () => unknownAggregation());
  const onlyGet = () => {
    throw methodNotAllowed(['GET']);
  };

  for (const collection of COLLECTIONS) {
    router.get(`/v1/${collection}`, ...report, async (c) => {
      const entityId = c.get('entityId');
      const query = summaryQueryOf(c.get('params'), environment);
      const batches = await findAggregations(deps.store, entityId, query, environment);
      return jsonResponse(c, envelope(RESULTS.successfulRequest, newNdc(entityId), { aggregations: batches.map(aggregationView) }), 200);
    });
    router.all(`/v1/${collection}`, onlyGet);

    router.get(`/v1/${collection}/:id`, ...report, aggregationId, async (c) => {
      const entityId = c.get('entityId');
      const query = detailQueryOf(c.get('params'), environment, false);
      const batch = await findAggregation(deps.store, entityId, c.req.param('id'), environment);
      return streamedDetail(c, deps, batch, await contextOf(deps, entityId), query.descending, newNdc(entityId));
    });
    router.all(`/v1/${collection}/:id`, onlyGet);

    router.get(`/v2/${collection}/:id`, ...report, aggregationId, async (c) => {
      const entityId = c.get('entityId');
      const query = detailQueryOf(c.get('params'), environment, true);
      const batch = await findAggregation(deps.store, entityId, c.req.param('id'), environment);
      const count = await countRecordsOfBatch(deps.store, batch.id, query.recordType);
      const skipped = (query.pageNo - 1) * RECORDS_PER_PAGE;
      // Without a type, positions run 1..count: the page is a key range of the index; of one type, an offset in it.
      const page =
        skipped >= count
          ? []
          : query.recordType === undefined
            ? await recordsOfBatch(deps.store, batch.id, { limit: RECORDS_PER_PAGE, descending: query.descending, after: query.descending ? count - skipped + 1 : skipped })
            : await recordsOfBatch(deps.store, batch.id, { limit: RECORDS_PER_PAGE, descending: query.descending, recordType: query.recordType, offset: skipped });
      const context = await contextOf(deps, entityId);
      return jsonResponse(
        c,
        envelope(RESULTS.successfulRequest, newNdc(entityId), {
          id: batch.id,
          records: page.map((record) => recordView(record, batch, context)),
          pages: Math.ceil(count / RECORDS_PER_PAGE),
        }),
        200,
      );
    });
    router.all(`/v2/${collection}/:id`, onlyGet);
  }
  return router;
}
