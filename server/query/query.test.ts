import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTimestamp } from '../domain/timestamps.ts';
import { issueLegacyCredentials } from '../merchants/legacyCredentials.ts';
import { shortIdOf } from '../payments/view.ts';
import { shopperCard } from '../testing/checkouts.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  cardPayment,
  CIT_INITIAL,
  createTestClock,
  MIT_REPEATED,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestGateway,
} from '../testing/harness.ts';
import { saveThrottling } from '../throttling/settings.ts';

warnIfPostgresSkipped('query/query.test.ts');

/**
 * The query API (COMPAT §14) as merchants use it: a transaction by its id or its checkout's, by their reference, with
 * its linked transactions; everything the gateway made found (smart retries, chargebacks, schedule executions, the
 * schedule and registration records), and nothing of another entity's.
 */

const ADMIN_TOKEN = 'admin-token-for-the-query-tests-0123456789abcdef';
const SOFT_DECLINE = '800.100.100';
const UNKNOWN_ID = '0123456789abcdef0123456789abcdef';

describe.each(STORE_KINDS)('the query API on %s', (kind) => {
  let t: TestGateway;
  const clock = createTestClock(new Date('2031-03-03T08:00:00Z'));
  beforeAll(async () => {
    t = await startTestGateway(kind, { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator', adminToken: ADMIN_TOKEN }, { now: clock.now });
    await unthrottled(t.entityId);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The query limits (COMPAT §17) lifted for an entity: these tests read the same ids many times (queryThrottling tests them). */
  const unthrottled = (entityId: string) => saveThrottling(t.gateway.store, entityId, { limits: { queryReadsPerMinute: 0, listQueriesPerSecond: 0 } }, clock.now());
  /** Each payment a second after the one before: answers list them in that order. */
  const pay = async (overrides: Record<string, string> = {}, entityId = t.entityId, token = t.token) => {
    clock.advance(1000);
    return t.post('/v1/payments', cardPayment(entityId, overrides), { token });
  };
  const operate = async (id: string, params: Record<string, string>) => {
    clock.advance(1000);
    const answer = await t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.id as string;
  };
  const query = (path: string, params: Record<string, string> = {}, entityId = t.entityId, token: string | null = t.token) => t.get(path, { entityId, ...params }, { token });
  const idsOf = (answer: ApiResponse): string[] => (answer.body.payments as { id: string }[]).map((payment) => payment.id);
  const expectNotFound = (answer: ApiResponse) => {
    expectEnvelope(answer);
    expect(answer.status).toBe(400);
    expect(answer.body.result).toEqual({ code: '700.400.580', description: 'cannot find transaction' });
  };

  it('answers GET /v1/query/{id} (and /v3) with the payment as it was made: its result, its time, its shortId', async () => {
    const paid = await pay({ merchantTransactionId: 'order-q-0001' });
    const paidAt = clock.now();
    const declined = await pay({ 'card.holder': '800.100.203' });
    expect(declined.status).toBe(400);
    clock.advance(3_600_000);

    const found = await query(`/v1/query/${paid.body.id}`);
    expectEnvelope(found);
    expect(found.status).toBe(200);
    const { buildNumber: _build, timestamp: _time, ndc: _ndc, ...asRead } = (await t.get(`/v1/payments/${paid.body.id}`, { entityId: t.entityId })).body;
    expect(found.body).toMatchObject({
      ...asRead,
      merchantTransactionId: 'order-q-0001',
      shortId: shortIdOf(paid.body.id),
      descriptor: shortIdOf(paid.body.id),
      paymentMethod: 'CC',
      source: 'API',
      timestamp: formatTimestamp(paidAt),
    });
    expect(found.body.shortId).toMatch(/^\d{4}\.\d{4}\.\d{4}$/);
    expect((await query(`/v3/query/${paid.body.id}`)).body).toMatchObject({ id: paid.body.id, result: paid.body.result, timestamp: formatTimestamp(paidAt) });

    // A declined payment is found as it was declined: the query succeeded, the payment did not.
    const foundDeclined = await query(`/v1/query/${declined.body.id}`);
    expect(foundDeclined.status).toBe(200);
    expect(foundDeclined.body).toMatchObject({ id: declined.body.id, result: declined.body.result });
    expect(foundDeclined.body.result.code).toBe('800.100.203');
  });

  it('finds a checkout’s payment by the checkout id; another entity’s payments and checkouts are as unknown as ids nobody made', async () => {
    const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB' });
    clock.advance(1000);
    const submitted = await t.post(`/v1/checkouts/${checkout.body.id}/payment`, shopperCard(), { token: null });
    expect(submitted.status).toBe(200);
    const byCheckout = await query(`/v1/query/${checkout.body.id}`);
    expect(byCheckout.status).toBe(200);
    expect(byCheckout.body).toMatchObject({ id: submitted.body.id, amount: '15.00', ndc: checkout.body.id, source: 'OPPUI' });
    const unpaid = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '16.00', currency: 'EUR', paymentType: 'DB' });
    expectNotFound(await query(`/v1/query/${unpaid.body.id}`));

    const other = await t.newMerchant();
    const theirs = await pay({ merchantTransactionId: 'order-q-theirs' }, other.entityId, other.token);
    const theirCheckout = await t.post('/v1/checkouts', { entityId: other.entityId, amount: '17.00', currency: 'EUR', paymentType: 'DB' }, { token: other.token });
    await t.post(`/v1/checkouts/${theirCheckout.body.id}/payment`, shopperCard(), { token: null });
    for (const answer of [
      await query(`/v1/query/${theirs.body.id}`),
      await query(`/v1/query/${theirs.body.id}`, { includeLinkedTransactions: 'true' }),
      await query(`/v1/query/${theirCheckout.body.id}`),
      await query('/v1/query', { merchantTransactionId: 'order-q-theirs' }),
      await query(`/v1/query/${UNKNOWN_ID}`),
      await query('/v1/query/not-an-id'),
    ]) {
      expectNotFound(answer);
      expect(JSON.stringify(answer.body)).not.toContain(theirs.body.id);
    }
    // Their own credentials find it; ours for their entity are refused before anything is looked up.
    expect((await query(`/v1/query/${theirs.body.id}`, {}, other.entityId, t.token)).status).toBe(403);
    expect((await query(`/v1/query/${theirs.body.id}`, {}, other.entityId, other.token)).body.id).toBe(theirs.body.id);
  });

  it('lists by merchantTransactionId in the order made; an unknown reference is 400 700.400.580, as connection checks expect', async () => {
    const first = await pay({ paymentType: 'PA', merchantTransactionId: 'order-q-0002' });
    const second = await pay({ merchantTransactionId: 'order-q-0002' });
    const listed = await query('/v1/query', { merchantTransactionId: 'order-q-0002' });
    expectEnvelope(listed);
    expect(listed.status).toBe(200);
    expect(listed.body.result).toEqual({ code: '000.000.100', description: 'successful request' });
    expect(listed.body.pages).toBe(1);
    expect(idsOf(listed)).toEqual([first.body.id, second.body.id]);
    for (const payment of listed.body.payments as Record<string, unknown>[]) {
      expect(payment).not.toHaveProperty('buildNumber');
      expect(payment).not.toHaveProperty('ndc');
      expect(payment).toMatchObject({ merchantTransactionId: 'order-q-0002', shortId: shortIdOf(payment.id as string), result: { code: '000.100.110' }, timestamp: expect.any(String) });
    }
    expect((await query('/v3/query', { merchantTransactionId: 'order-q-0002' })).body.payments).toEqual(listed.body.payments);
    expectNotFound(await query('/v1/query', { merchantTransactionId: 'connection-check-0001' }));

    // The platform vendor's clients send a legacy pair in the query string and no Authorization header.
    const pair = await t.gateway.store.transaction((tx) => issueLegacyCredentials(tx, [t.entityId], 'query client'));
    const legacy = await t.get('/v1/query', { 'authentication.userId': pair.userId, 'authentication.password': pair.password, 'authentication.entityId': t.entityId, merchantTransactionId: 'order-q-0002' }, { token: null });
    expect(legacy.status).toBe(200);
    expect(idsOf(legacy)).toEqual([first.body.id, second.body.id]);
    expect(JSON.stringify(legacy.body)).not.toContain(pair.password);
  });

  it('lists a transaction’s linked transactions, it first: captures, refunds, chargebacks and their reversals, increments', async () => {
    const authorization = (await pay({ paymentType: 'PA', amount: '50.00' })).body.id as string;
    const capture = await operate(authorization, { paymentType: 'CP', amount: '30.00' });
    const refund = await operate(capture, { paymentType: 'RF', amount: '10.00' });
    const chargeback = await operate(capture, { paymentType: 'CB', amount: '5.00' });
    const chargebackReversal = await operate(chargeback, { paymentType: 'CR', amount: '5.00' });
    const increment = await operate(authorization, { paymentType: 'PA', amount: '20.00', 'standingInstruction.industryPractice': 'INCREMENTAL_AUTH' });
    const unrelated = await operate((await pay({ paymentType: 'PA' })).body.id as string, { paymentType: 'RV', amount: '92.00' });
    const family = [authorization, capture, refund, chargeback, chargebackReversal, increment];

    const linked = await query(`/v1/query/${authorization}`, { includeLinkedTransactions: 'true' });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ result: { code: '000.000.100' }, pages: 1 });
    expect(idsOf(linked)).toEqual(family);
    expect(linked.body.payments.map((payment: { paymentType: string }) => payment.paymentType)).toEqual(['PA', 'CP', 'RF', 'CB', 'CR', 'PA']);
    expect(linked.body.payments[2]).toMatchObject({ id: refund, referencedId: capture });
    // From any member: it first, then the rest of its family, oldest first.
    expect(idsOf(await query(`/v1/query/${refund}`, { includeLinkedTransactions: 'true' }))).toEqual([refund, ...family.filter((id) => id !== refund)]);
    expect(idsOf(await query(`/v1/query/${unrelated}`, { includeLinkedTransactions: 'true' })).slice(0, 1)).toEqual([unrelated]);
    // Without it, or with false: the one transaction.
    expect((await query(`/v1/query/${authorization}`, { includeLinkedTransactions: 'false' })).body).toMatchObject({ id: authorization, paymentType: 'PA' });
  });

  it('finds both payments of a smart retry: the rejected attempt and the fallback, linked to each other', async () => {
    const merchant = await t.newMerchant();
    await unthrottled(merchant.entityId);
    const configured = await fetch(`${t.url}/admin/v1/entities/${merchant.entityId}/smart-retry`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ fallbackAcquirer: 'fallback' }),
    });
    expect(configured.status).toBe(200);
    const fallback = await pay({ 'card.holder': SOFT_DECLINE, merchantTransactionId: 'order-q-retry' }, merchant.entityId, merchant.token);
    const rejected = fallback.body.resultDetails.SoftDeclineTransactionId as string;
    expect(rejected).toMatch(/^[0-9a-f]{32}$/);
    const ask = (path: string, params: Record<string, string> = {}) => query(path, params, merchant.entityId, merchant.token);

    expect(idsOf(await ask('/v1/query', { merchantTransactionId: 'order-q-retry' })).sort()).toEqual([fallback.body.id, rejected].sort());
    expect((await ask(`/v1/query/${rejected}`)).body).toMatchObject({ id: rejected, paymentType: 'DB', result: { code: SOFT_DECLINE } });
    expect(idsOf(await ask(`/v1/query/${fallback.body.id}`, { includeLinkedTransactions: 'true' }))).toEqual([fallback.body.id, rejected]);
    expect(idsOf(await ask(`/v1/query/${rejected}`, { includeLinkedTransactions: 'true' }))).toEqual([rejected, fallback.body.id]);
  });

  it('finds a schedule’s executions by its reference, and its records SD and DS when paymentTypes names them', async () => {
    const initial = await pay({ paymentType: 'PA', amount: '9.99', createRegistration: 'true', ...CIT_INITIAL });
    const registrationId = initial.body.registrationId as string;
    const job = { 'job.second': '0', 'job.minute': '0', 'job.hour': '10', 'job.dayOfMonth': '*', 'job.month': '*', 'job.dayOfWeek': '?' };
    const created = await t.post('/scheduling/v1/schedules', { entityId: t.entityId, registrationId, amount: '12.50', currency: 'EUR', paymentType: 'DB', merchantTransactionId: 'sub-q-0001', ...MIT_REPEATED, ...job });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const scheduleId = created.body.id as string;
    const firstFire = new Date(clock.now());
    firstFire.setUTCHours(10, 0, 0, 0);
    if (firstFire <= clock.now()) firstFire.setUTCDate(firstFire.getUTCDate() + 1);
    for (const fireAt of [firstFire.getTime(), firstFire.getTime() + 86_400_000]) {
      clock.advance(fireAt - clock.now().getTime());
      await t.gateway.schedules.scheduler.takeDueFires();
      while ((await t.gateway.schedules.executions.runDueJobs()) > 0);
    }
    clock.advance(1000);
    expect((await t.delete(`/scheduling/v1/schedules/${scheduleId}`, { entityId: t.entityId })).status).toBe(200);

    const executions = await query('/v1/query', { merchantTransactionId: 'sub-q-0001' });
    expect(executions.status).toBe(200);
    expect(executions.body.payments).toMatchObject([
      { paymentType: 'DB', amount: '12.50', source: 'SYSTEM', registrationId },
      { paymentType: 'DB', amount: '12.50', source: 'SYSTEM', registrationId },
    ]);
    const records = await query('/v1/query', { merchantTransactionId: 'sub-q-0001', paymentTypes: 'SD,DS' });
    expect(records.body.payments).toMatchObject([
      { id: scheduleId, paymentType: 'SD', registrationId, amount: '12.50', shortId: shortIdOf(scheduleId), result: { code: '000.000.000' } },
      { id: scheduleId, paymentType: 'DS', registrationId, result: { code: '000.000.000' } },
    ]);
    const everything = await query('/v1/query', { merchantTransactionId: 'sub-q-0001', paymentTypes: 'DB,SD,DS' });
    expect(everything.body.payments.map((record: { paymentType: string }) => record.paymentType)).toEqual(['SD', 'DB', 'DB', 'DS']);
    expect((await query(`/v1/query/${scheduleId}`)).body).toMatchObject({ id: scheduleId, paymentType: 'SD', ndc: expect.stringMatching(new RegExp(`^${t.entityId}_`)) });
    expect(idsOf(await query(`/v1/query/${scheduleId}`, { includeLinkedTransactions: 'true' }))).toEqual(idsOf(everything));
  });

  it('lists registrations (RG) and their deletions (DR) only when paymentTypes names them', async () => {
    clock.advance(1000);
    const registration = await t.post('/v1/registrations', { entityId: t.entityId, merchantTransactionId: 'reg-q-0001', ...testCard() });
    expect(registration.status).toBe(200);
    clock.advance(1000);
    const deleted = await t.delete(`/v1/registrations/${registration.body.id}`, { entityId: t.entityId });
    expect(deleted.status).toBe(200);
    expectNotFound(await query('/v1/query', { merchantTransactionId: 'reg-q-0001' }));
    const records = await query('/v1/query', { merchantTransactionId: 'reg-q-0001', paymentTypes: 'RG,DR' });
    expect(records.body.payments).toMatchObject([
      { id: registration.body.id, paymentType: 'RG', paymentBrand: 'VISA', card: { last4Digits: '0000' }, result: { code: '000.100.110' } },
      { id: deleted.body.id, referencedId: registration.body.id, paymentType: 'DR', shortId: shortIdOf(deleted.body.id) },
    ]);
    expect(JSON.stringify(records.body)).not.toContain('4200000000000000');
    expect((await query(`/v1/query/${deleted.body.id}`)).body).toMatchObject({ id: deleted.body.id, paymentType: 'DR' });
    expect(idsOf(await query(`/v1/query/${deleted.body.id}`, { includeLinkedTransactions: 'true' }))).toEqual([deleted.body.id, registration.body.id]);
  });

  it('filters a date range by paymentTypes, paymentMethods and shortId, and finds a payment by its shortId alone', async () => {
    clock.advance(3_600_000);
    const from = formatTimestamp(clock.now()).slice(0, 19);
    const card = (await pay({ paymentType: 'DB' })).body.id as string;
    const authorization = (await pay({ paymentType: 'PA' })).body.id as string;
    clock.advance(1000);
    const { 'card.number': _n, 'card.holder': _h, 'card.expiryMonth': _m, 'card.expiryYear': _y, 'card.cvv': _c, ...plain } = cardPayment(t.entityId);
    const sepa = await t.post('/v1/payments', { ...plain, paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.bic': 'MARKDEF1100', 'bankAccount.country': 'DE' });
    expect(sepa.status, JSON.stringify(sepa.body)).toBe(200);
    const to = formatTimestamp(clock.now()).slice(0, 19);
    const range = { 'date.from': from, 'date.to': to };

    expect(idsOf(await query('/v1/query', range))).toEqual([card, authorization, sepa.body.id]);
    expect(idsOf(await query('/v1/query', { ...range, paymentTypes: 'PA' }))).toEqual([authorization]);
    expect(idsOf(await query('/v1/query', { ...range, paymentMethods: 'DD' }))).toEqual([sepa.body.id]);
    expect((await query('/v1/query', { ...range, paymentMethods: 'DD' })).body.payments[0]).toMatchObject({ paymentMethod: 'DD', paymentBrand: 'DIRECTDEBIT_SEPA' });
    expect(idsOf(await query('/v1/query', { ...range, paymentMethods: 'CC' }))).toEqual([card, authorization]);
    expect(idsOf(await query('/v1/query', { ...range, paymentMethods: 'VA,DD', paymentTypes: 'DB,RF' }))).toEqual([sepa.body.id]);
    expectNotFound(await query('/v1/query', { ...range, paymentMethods: 'OT' }));
    expect(idsOf(await query('/v1/query', { ...range, shortId: shortIdOf(authorization) }))).toEqual([authorization]);
    expect(idsOf(await query('/v1/query', { shortId: shortIdOf(card) }))).toEqual([card]);
    // date.to names the last second it includes.
    expect(idsOf(await query('/v1/query', { 'date.from': to, 'date.to': to }))).toEqual([sepa.body.id]);
  });

  it('reads query parameter names trimmed and ignores empty pairs (COMPAT §14)', async () => {
    const made = await pay({ merchantTransactionId: 'order-q-trim' });
    const raw = `/v1/query?%20entityId%20=${t.entityId}&&merchantTransactionId%20=order-q-trim&limit=&pageNo=&=x`;
    const answer = await readResponse(await fetch(`${t.url}${raw}`, { headers: { Authorization: `Bearer ${t.token}` } }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(idsOf(answer)).toEqual([made.body.id]);
    const twice = await readResponse(await fetch(`${t.url}/v1/query?entityId=${t.entityId}&merchantTransactionId=a&%20merchantTransactionId=b`, { headers: { Authorization: `Bearer ${t.token}` } }));
    expect(twice).toMatchObject({ status: 400, body: { result: { code: '200.300.404', parameterErrors: [{ name: 'merchantTransactionId' }] } } });
  });
});
