import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardClient } from '../testing/dashboardClient.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { unmaskedCardNumbers } from '../testing/routeTable.ts';
import { createOperator } from './operators.ts';
import { ABSOLUTE_TIMEOUT_MS, IDLE_TIMEOUT_MS, pruneSessions } from './sessions.ts';

/**
 * The dashboard's API as its app uses it, over a real socket (cookies, Origin): signing in (operator, merchant user),
 * the session cookie and its timeouts on a moved clock, CSRF, what each principal sees and may do, the payment list's
 * filters and pages, a payment's detail, capture / refund / reverse with the API's own answers, and the record of who
 * did what.
 */

warnIfPostgresSkipped('the dashboard API test');

const PASSWORD = 'correct horse battery staple';

describe.each(STORE_KINDS)('the dashboard API on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let other: { entityId: string; token: string };

  beforeAll(async () => {
    clock = createTestClock(new Date('2026-11-27T10:00:00Z'));
    // No request limits (the list test makes 53 payments in a minute of the moved clock), but 5 failed sign-ins a minute.
    const limits = { ...(Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits), authFailuresPerMinute: 5 };
    t = await startTestGateway(kind, { limits }, { now: clock.now });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call, signIn, signInMerchant } = dashboardClient(() => t.url);


  it('signs an operator in with a session cookie that scripts cannot read and other sites do not send', async () => {
    const answer = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD });
    expect(answer.status).toBe(200);
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^gw_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Strict$/);
    expect(answer.body.session).toMatchObject({ principal: { kind: 'operator', name: 'olivia' }, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(answer.body.session.entities.map((entity: { id: string }) => entity.id)).toEqual(expect.arrayContaining([t.entityId, other.entityId]));
    expect(answer.text).not.toContain(PASSWORD);
  });

  it('refuses a wrong password, an unknown name or address, an access token and a request from another site', async () => {
    for (const credentials of [{ operator: 'olivia', password: 'wrong password!!' }, { operator: 'nobody', password: PASSWORD }, { email: 'nobody@example.com', password: PASSWORD }]) {
      const answer = await call({}, 'POST', '/session', credentials, { 'x-forwarded-for': '203.0.113.9' });
      expect(answer.status).toBe(401);
      expect(answer.body.result.code).toBe('800.900.300');
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
    // Access tokens no longer sign in (merchant users do).
    const token = await call({}, 'POST', '/session', { token: t.token });
    expect(token.status).toBe(400);
    expect(token.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'token' })]);
    const crossSite = await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const form = await fetch(`${t.url}/dashboard/api/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'operator=olivia' });
    expect(form.status).toBe(400);
    const malformed = await call({}, 'POST', '/session', { operator: 'olivia' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'body' })]);
  });

  it('needs the CSRF token on every change, and ends the session on sign-out', async () => {
    const browser = await signIn({ operator: 'olivia', password: PASSWORD });
    expect((await call(browser, 'GET', '/session')).status).toBe(200);
    expect((await call({ cookie: browser.cookie }, 'DELETE', '/session')).status).toBe(403);
    expect((await call({ ...browser, csrf: 'x'.repeat(43) }, 'DELETE', '/session')).status).toBe(403);
    expect((await call(browser, 'DELETE', '/session', undefined, { origin: 'https://evil.example' })).status).toBe(403);
    const out = await call(browser, 'DELETE', '/session');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^gw_dashboard=; Max-Age=0/);
    expect((await call(browser, 'GET', '/session')).status).toBe(401);
    expect((await call({}, 'GET', '/payments')).status).toBe(401);
  });

  it('ends a session after 30 idle minutes, and after 12 hours however busy', async () => {
    const idle = await signIn({ operator: 'olivia', password: PASSWORD });
    clock.advance(IDLE_TIMEOUT_MS - 60_000);
    expect((await call(idle, 'GET', '/session')).status).toBe(200);
    clock.advance(IDLE_TIMEOUT_MS - 60_000);
    expect((await call(idle, 'GET', '/session')).status).toBe(200);
    clock.advance(IDLE_TIMEOUT_MS);
    expect((await call(idle, 'GET', '/session')).status).toBe(401);

    const busy = await signIn({ operator: 'olivia', password: PASSWORD });
    for (let elapsed = 0; elapsed < ABSOLUTE_TIMEOUT_MS - 20 * 60_000; elapsed += 20 * 60_000) {
      clock.advance(20 * 60_000);
      expect((await call(busy, 'GET', '/session')).status).toBe(200);
    }
    clock.advance(20 * 60_000);
    expect((await call(busy, 'GET', '/session')).status).toBe(401);
  });

  it('lists payments newest first, 50 a page, filtered, and finds one by id, short id or reference', async () => {
    const browser = await signInMerchant(t.gateway.store, t.token);
    const made: string[] = [];
    for (let index = 0; index < 53; index++) {
      clock.advance(1000);
      const amount = index === 7 ? '77.00' : '10.00';
      const payment = await t.post('/v1/payments', cardPayment(t.entityId, { amount, merchantTransactionId: `order-${String(index).padStart(4, '0')}`, ...(index === 9 ? { 'card.holder': '800.100.203' } : {}) }));
      expect(payment.body.result?.code, JSON.stringify(payment.body)).toMatch(/^000\.|^800\.100\.203/);
      made.push(payment.body.id as string);
    }
    const first = await call(browser, 'GET', '/payments');
    expect(first.status, first.text).toBe(200);
    expect(first.body.payments).toHaveLength(50);
    expect(first.body.payments[0]).toMatchObject({ id: made[52], entityId: t.entityId, status: 'approved', amount: '10.00', currency: 'EUR', card: { bin: '420000', last4Digits: '0000' } });
    const second = await call(browser, 'GET', `/payments?cursor=${first.body.nextCursor as string}`);
    expect(second.body.payments.map((row: { id: string }) => row.id)).toEqual([made[2], made[1], made[0]]);
    expect(second.body.nextCursor).toBeUndefined();

    const ids = async (query: string) => ((await call(browser, 'GET', `/payments?${query}`)).body.payments as { id: string }[]).map((row) => row.id);
    expect(await ids('amountFrom=50.00')).toEqual([made[7]]);
    expect(await ids('amountFrom=10.00&amountTo=10.00&merchantTransactionId=order-0007')).toEqual([]);
    expect(await ids('q=order-0003')).toEqual([made[3]]);
    expect(await ids(`q=${made[4] as string}`)).toEqual([made[4]]);
    const shortId = first.body.payments[5].shortId as string;
    expect(await ids(`q=${shortId}`)).toEqual([first.body.payments[5].id]);
    expect(await ids('status=declined')).toEqual([made[9]]);
    expect(await ids('paymentType=PA')).toEqual([]);
    expect((await ids('paymentBrand=VISA&paymentType=DB')).length).toBe(50);
    expect(await ids('dateFrom=2026-11-28&dateTo=2026-11-30')).toEqual([]);

    const wrong = await call(browser, 'GET', '/payments?status=lost&amountFrom=ten&dateTo=2026-02-30&cursor=nope&colour=red');
    expect(wrong.status).toBe(400);
    expect(wrong.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['amountFrom', 'colour', 'cursor', 'dateTo', 'status']);
  });

  it('never shows a merchant another entity, its payments, or lets it act on them', async () => {
    const theirs = await t.post('/v1/payments', cardPayment(other.entityId, { paymentType: 'PA' }), { token: other.token });
    const mine = await signInMerchant(t.gateway.store, t.token);
    expect(mine.csrf).toBeDefined();
    const session = await call(mine, 'GET', '/session');
    expect(session.body.session.entities).toEqual([{ id: t.entityId, name: 'Test merchant' }]);
    expect((await call(mine, 'GET', '/entities')).body.entities).toEqual([{ id: t.entityId, name: 'Test merchant' }]);
    const listed = await call(mine, 'GET', '/payments');
    expect(listed.body.payments.every((row: { entityId: string }) => row.entityId === t.entityId)).toBe(true);
    expect((await call(mine, 'GET', `/payments?entityId=${other.entityId}`)).status).toBe(403);
    expect((await call(mine, 'GET', `/payments?q=${theirs.body.id as string}`)).body.payments).toEqual([]);
    expect((await call(mine, 'GET', `/payments/${theirs.body.id as string}`)).status).toBe(404);
    const capture = await call(mine, 'POST', `/payments/${theirs.body.id as string}/capture`, { amount: '1.00' });
    expect(capture.status).toBe(404);
    expect((await t.get(`/v1/payments/${theirs.body.id as string}`, { entityId: other.entityId }, { token: other.token })).body.result.code).toMatch(/^000\./);

    // The operator sees both.
    const operator = await signIn({ operator: 'olivia', password: PASSWORD });
    expect((await call(operator, 'GET', `/payments/${theirs.body.id as string}`)).status).toBe(200);
  });

  it("captures, refunds and reverses with the API's rules and answers, and records who did it", async () => {
    const operator = await signIn({ operator: 'olivia', password: PASSWORD });
    const authorized = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '30.00' }));
    const id = authorized.body.id as string;
    const detail = await call(operator, 'GET', `/payments/${id}`);
    expect(detail.body.actions).toEqual({ capture: true, refund: false, reverse: true });
    expect(detail.body.payment).toMatchObject({ id, status: 'approved', acquirer: expect.any(String) });
    // The card as BIN and last 4 only: no holder, no expiry.
    expect(detail.body.payment.card).toEqual({ bin: '420000', last4Digits: '0000' });
    expect(detail.body.events).toEqual([expect.objectContaining({ type: 'PAYMENT', action: 'CREATED' })]);

    const tooMuch = await call(operator, 'POST', `/payments/${id}/capture`, { amount: '31.00' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.result.code).toBe((await t.post(`/v1/payments/${id}`, { entityId: t.entityId, paymentType: 'CP', amount: '31.00', currency: 'EUR' })).body.result.code);
    const badAmount = await call(operator, 'POST', `/payments/${id}/capture`, { amount: 'lots' });
    expect(badAmount.status).toBe(400);
    expect(badAmount.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'amount' })]);

    const captured = await call(operator, 'POST', `/payments/${id}/capture`, { amount: '20.00' });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ paymentType: 'CP', amount: '20.00', referencedId: id, result: { code: expect.stringMatching(/^000\./) } });
    const refunded = await call(operator, 'POST', `/payments/${captured.body.id as string}/refund`, { amount: '5.00' });
    expect(refunded.body).toMatchObject({ paymentType: 'RF', amount: '5.00', result: { code: expect.stringMatching(/^000\./) } });

    const merchant = await signInMerchant(t.gateway.store, t.token);
    const authorizedToo = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
    const reversed = await call(merchant, 'POST', `/payments/${authorizedToo.body.id as string}/reverse`, {});
    expect(reversed.body).toMatchObject({ paymentType: 'RV', result: { code: expect.stringMatching(/^000\./) } });

    const after = await call(operator, 'GET', `/payments/${id}`);
    // The refused captures are transactions too (declined), as the API records them.
    expect(after.body.transactions.map((row: { paymentType: string; status: string }) => `${row.paymentType} ${row.status}`)).toEqual(['CP declined', 'CP declined', 'CP approved', 'RF approved']);
    expect(after.body.operatorActions).toEqual([
      expect.objectContaining({ who: 'operator olivia', action: 'capture', paymentId: id, detail: expect.objectContaining({ amount: '31.00', currency: 'EUR' }), resultCode: tooMuch.body.result.code }),
      expect.objectContaining({ who: 'operator olivia', action: 'capture', detail: { amount: 'lots', currency: 'EUR' }, resultCode: '200.300.404' }),
      expect.objectContaining({ who: 'operator olivia', action: 'capture', detail: { amount: '20.00', currency: 'EUR', transactionId: captured.body.id }, resultCode: expect.stringMatching(/^000\./) }),
      expect.objectContaining({ who: 'operator olivia', action: 'refund', paymentId: captured.body.id, resultCode: expect.stringMatching(/^000\./) }),
    ]);
    const reversedDetail = await call(merchant, 'GET', `/payments/${authorizedToo.body.id as string}`);
    expect(reversedDetail.body.operatorActions).toEqual([expect.objectContaining({ who: `user admin@${t.entityId}.test (Test merchant)`, action: 'reverse' })]);
    for (const answer of [detail, after, captured, refunded]) expect(unmaskedCardNumbers(answer.text)).toEqual([]);
  });

  it('throttles an address that keeps failing to sign in, and forgets old sessions', async () => {
    let answer = await call({}, 'POST', '/session', { operator: 'olivia', password: 'guess number 0' });
    for (let guess = 1; guess < 10 && answer.status === 401; guess++) answer = await call({}, 'POST', '/session', { operator: 'olivia', password: `guess number ${guess}` });
    expect(answer.status).toBe(400);
    expect(answer.body.result.code).toBe('800.120.100');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right password too, from that address, until the window has passed.
    expect((await call({}, 'POST', '/session', { operator: 'olivia', password: PASSWORD })).body.result.code).toBe('800.120.100');
    clock.advance(2 * 60 * 60_000);
    const browser = await signIn({ operator: 'olivia', password: PASSWORD });

    const sessions = async () => Number((await t.gateway.store.query<{ n: string }>('SELECT count(*) AS n FROM dashboard_sessions')).rows[0]?.n);
    const before = await sessions();
    clock.advance(ABSOLUTE_TIMEOUT_MS + 86_400_000 + 60_000);
    expect(await pruneSessions(t.gateway.store, clock.now())).toBe(before);
    expect(await sessions()).toBe(0);
    expect((await call(browser, 'GET', '/session')).status).toBe(401);
  });
});
