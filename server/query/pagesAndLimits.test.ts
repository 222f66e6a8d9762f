import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../domain/timestamps.ts';
import { shortIdOf } from '../payments/view.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { seedPayments } from '../testing/seedPayments.ts';
import { saveThrottling, THROTTLING_CACHE_MS } from '../throttling/settings.ts';

warnIfPostgresSkipped('query/pagesAndLimits.test.ts');

/**
 * The query API's pages, limits and refusals (COMPAT §14, §17, doc 1 §8, doc 3 §2.16): a date range of hundreds of
 * payments read page by page; every malformed query refused with 200.300.404 naming its parameter; the request
 * limits (2 a minute per id, 1 a second per entity's list queries) on the controllable clock; and the short id the
 * store keeps for every payment equal to the one the gateway shows.
 */

const SEEDED = 449;
const START = new Date('2031-05-10T12:00:00Z');

describe.each(STORE_KINDS)('query pages and limits on %s', (kind) => {
  let t: TestGateway;
  const clock = createTestClock(START);
  /** The template payment, then SEEDED copies 10 s apart: 450 payments from 12:00:00 to 13:14:50. */
  let template: string;
  beforeAll(async () => {
    t = await startTestGateway(kind, {}, { now: clock.now });
    const made = await t.post('/v1/payments', cardPayment(t.entityId, { merchantTransactionId: 'order-template' }));
    template = made.body.id as string;
    await seedPayments(t.gateway.store, { templateId: template, count: SEEDED, idSeed: `pages-${kind}`, firstAt: new Date(START.getTime() + 10_000), stepMs: 10_000, merchantTransactionIdPrefix: 'order-' });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The query limits lifted for the rest of the file (read again once the entity's cached settings expire). */
  const unthrottled = async () => {
    await saveThrottling(t.gateway.store, t.entityId, { limits: { queryReadsPerMinute: 0, listQueriesPerSecond: 0 } }, clock.now());
    clock.advance(THROTTLING_CACHE_MS + 1000);
  };
  const query = (params: Record<string, string>, path = '/v1/query') => t.get(path, { entityId: t.entityId, ...params });
  const idsOf = (answer: ApiResponse): string[] => (answer.body.payments as { id: string }[]).map((payment) => payment.id);
  const DAY = { 'date.from': '2031-05-10 00:00:00', 'date.to': '2031-05-10 23:59:59' };
  const expectRefused = (answer: ApiResponse, name: string) => {
    expectEnvelope(answer);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.result.code).toBe('200.300.404');
    expect(answer.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain(name);
  };

  it('throttles GET /v1/query/{id} at 2 a minute per id (/v1 and /v3 alike) and list queries at 1 a second per entity', async () => {
    const byId = (path: string) => t.get(path, { entityId: t.entityId });
    expect((await byId(`/v1/query/${template}`)).status).toBe(200);
    expect((await byId(`/v3/query/${template}`)).status).toBe(200);
    const throttled = await byId(`/v1/query/${template}`);
    expect(throttled).toMatchObject({ status: 400, body: { result: { code: '800.120.100' } } });
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another id has its own count; an unknown one too (answered as unknown until its own limit).
    expect((await byId(`/v1/query/${'f'.repeat(32)}`)).body.result.code).toBe('700.400.580');
    clock.advance(60_000);
    expect((await byId(`/v1/query/${template}`)).status).toBe(200);

    expect((await query({ merchantTransactionId: 'order-template' })).status).toBe(200);
    expect((await query({ merchantTransactionId: 'order-1' })).body.result.code).toBe('800.120.100');
    clock.advance(1000);
    // A query that finds nothing counts as one too.
    expect((await query({ merchantTransactionId: 'nothing-here' })).body.result.code).toBe('700.400.580');
    expect((await query({ merchantTransactionId: 'order-1' })).body.result.code).toBe('800.120.100');
    clock.advance(1000);
    expect((await query({ merchantTransactionId: 'order-1' })).status).toBe(200);
    await unthrottled();
  });

  it('reads a date range page by page (limit 100 to 500, default 100), in the order made, each payment once', async () => {
    const firstPage = await query(DAY);
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.pages).toBe(5);
    expect(firstPage.body.payments).toHaveLength(100);
    const pages = [firstPage];
    for (let pageNo = 2; pageNo <= 5; pageNo++) pages.push(await query({ ...DAY, pageNo: String(pageNo) }));
    expect(pages.map((page) => page.body.payments.length)).toEqual([100, 100, 100, 100, 50]);
    const listed = pages.flatMap(idsOf);
    const made = await t.gateway.store.query<{ id: string }>('SELECT id FROM payments WHERE entity_id = $1 ORDER BY created_at, id', [t.entityId]);
    expect(listed).toEqual(made.rows.map((row) => row.id));
    expect(pages[4]?.body.payments.at(-1)).toMatchObject({ merchantTransactionId: `order-${SEEDED}`, timestamp: formatTimestamp(new Date(START.getTime() + SEEDED * 10_000)) });

    const whole = await query({ ...DAY, limit: '500' });
    expect(whole.body.pages).toBe(1);
    expect(idsOf(whole)).toEqual(listed);
    const threeHundreds = await query({ ...DAY, limit: '300', pageNo: '2' });
    expect(threeHundreds.body.pages).toBe(2);
    expect(idsOf(threeHundreds)).toEqual(listed.slice(300));
    // A page past the last has nothing: 700.400.580, so clients paging until refused stop there.
    const beyond = await query({ ...DAY, limit: '500', pageNo: '2' });
    expect(beyond).toMatchObject({ status: 400, body: { result: { code: '700.400.580', description: 'cannot find transaction: page 2 is beyond the last page (1)' } } });
    // Part of an hour, and one reference.
    expect(idsOf(await query({ 'date.from': '2031-05-10 12:01:00', 'date.to': '2031-05-10 12:01:59' }))).toEqual(listed.slice(6, 12));
    expect(idsOf(await query({ merchantTransactionId: 'order-17' }))).toEqual([listed[17]]);
  });

  it('refuses malformed queries with 200.300.404 naming the parameter', async () => {
    const refusals: [Record<string, string>, string][] = [
      [{ 'date.from': '2031-13-01 00:00:00', 'date.to': '2031-05-10 00:00:00' }, 'date.from'],
      [{ 'date.from': '2031-02-30 00:00:00', 'date.to': '2031-03-01 00:00:00' }, 'date.from'],
      [{ 'date.from': '2031-05-10T00:00:00', 'date.to': '2031-05-10 10:00:00' }, 'date.from'],
      [{ 'date.from': '10.05.2031', 'date.to': '2031-05-10 10:00:00' }, 'date.from'],
      [{ 'date.from': '2031-05-10 00:00:00', 'date.to': '2031-05-10 24:00:00' }, 'date.to'],
      [{ 'date.from': '2031-05-10 00:00:00' }, 'date.to'],
      // Reversed, and a span over 31 days.
      [{ 'date.from': '2031-05-10 00:00:01', 'date.to': '2031-05-10 00:00:00' }, 'date.to'],
      [{ 'date.from': '2031-05-01 00:00:00', 'date.to': '2031-06-01 00:00:00' }, 'date.to'],
      [{ 'date.from': '2031-05-01', 'date.to': '2031-06-01' }, 'date.to'],
      [{ 'date.from': '2031-04-10 12:00:00', 'date.to': '2031-05-11 12:00:00' }, 'date.to'],
      // Both forms, and neither.
      [{ merchantTransactionId: 'order-1', ...DAY }, 'merchantTransactionId'],
      [{ paymentTypes: 'DB' }, 'merchantTransactionId'],
      [{ ...DAY, limit: '99' }, 'limit'],
      [{ ...DAY, limit: '501' }, 'limit'],
      [{ ...DAY, limit: 'all' }, 'limit'],
      [{ ...DAY, pageNo: '0' }, 'pageNo'],
      [{ ...DAY, pageNo: '-1' }, 'pageNo'],
      [{ ...DAY, paymentTypes: 'DB;PA' }, 'paymentTypes'],
      [{ ...DAY, paymentTypes: 'XX' }, 'paymentTypes'],
      [{ ...DAY, paymentMethods: 'CARD' }, 'paymentMethods'],
      [{ ...DAY, includeLinkedTransactions: 'yes' }, 'includeLinkedTransactions'],
      [{ shortId: '1234.5678.90123' }, 'shortId'],
      [{ merchantTransactionId: 'x'.repeat(256) }, 'merchantTransactionId'],
    ];
    for (const [params, name] of refusals) expectRefused(await query(params), name);
    expectRefused(await query({ limit: '1000' }, `/v1/query/${template}`), 'limit');
    // A month of 31 days is the longest range, and whole days may be named by their date.
    expect((await query({ 'date.from': '2031-05-01', 'date.to': '2031-05-31' })).status).toBe(200);
    expect((await query({ 'date.from': '2031-04-10 12:00:00', 'date.to': '2031-05-11 11:59:59' })).status).toBe(200);
    // A card number sent as a reference is not shown back.
    const card = await query({ merchantTransactionId: '4200000000000000', ...DAY });
    expect(JSON.stringify(card.body)).not.toContain('4200000000000000');
  });

  it('keeps the short id of every payment in the store, the same value the gateway computes (SQL and shortIdOf agree)', async () => {
    const stored = await t.gateway.store.query<{ id: string; short_id: string }>('SELECT id, short_id FROM payments WHERE entity_id = $1', [t.entityId]);
    expect(stored.rows).toHaveLength(SEEDED + 1);
    for (const row of stored.rows) expect(row.short_id).toBe(shortIdOf(row.id));
    const ids = ['0'.repeat(32), 'f'.repeat(32), '80000000000000000000000000000000', ...Array.from({ length: 500 }, () => randomBytes(16).toString('hex'))];
    const computed = await t.gateway.store.query<{ id: string; short_id: string }>('SELECT id, payment_short_id(id) AS short_id FROM unnest($1::text[]) AS id', [ids]);
    expect(computed.rows.map((row) => row.short_id)).toEqual(ids.map(shortIdOf));
    expect(idsOf(await query({ shortId: shortIdOf(template) }))).toEqual([template]);
  });
});
