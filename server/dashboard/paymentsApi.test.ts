import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import { dashboardClient, type DashboardBrowser } from '../testing/dashboardClient.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { unmaskedCardNumbers } from '../testing/routeTable.ts';
import { createOperator } from './operators.ts';
import { EXPORT_COLUMNS } from './paymentViews.ts';

/**
 * What the back office tells of payments: each one's lifecycle state and what is left of it (the detail and its
 * actions), the list filtered by state, currency and the search box (last 4, BIN, card holder, e-mail, exact amount)
 * with its total, the export of the filtered list as CSV (every row, cells safe for spreadsheets), the overview's
 * figures and the chargebacks list.
 */

warnIfPostgresSkipped('the dashboard payments API test');

const PASSWORD = 'correct horse battery staple';

describe.each(STORE_KINDS)('the dashboard payments API on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let operator: DashboardBrowser;
  const { call, signIn, signInMerchant } = dashboardClient(() => t.url);

  beforeAll(async () => {
    clock = createTestClock(new Date('2026-12-01T10:00:00Z'));
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway(kind, { limits }, { now: clock.now });
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
    operator = await signIn({ operator: 'olivia', password: PASSWORD });
  });
  afterAll(async () => {
    await t?.close();
  });

  const pay = async (overrides: Record<string, string>) => {
    const answer = await t.post('/v1/payments', cardPayment(t.entityId, overrides));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.id as string;
  };
  const operate = (id: string, params: Record<string, string>) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });

  it("shows a payment's state and what is left of it, and offers only what the API accepts", async () => {
    const authorized = await pay({ paymentType: 'PA', amount: '50.00' });
    expect((await call(operator, 'GET', `/payments/${authorized}`)).body).toMatchObject({
      payment: { state: 'approved', capturableAmount: '50.00', refundableAmount: '0.00' },
      actions: { capture: true, refund: false, reverse: true },
    });
    const capture = await operate(authorized, { paymentType: 'CP', amount: '20.00' });
    const partly = await call(operator, 'GET', `/payments/${authorized}`);
    expect(partly.body).toMatchObject({ payment: { state: 'partiallyCaptured', capturableAmount: '30.00' }, actions: { capture: true, refund: false, reverse: false } });
    expect(partly.body.transactions).toEqual([expect.objectContaining({ paymentType: 'CP', state: 'approved' })]);
    await operate(capture.body.id as string, { paymentType: 'RF', amount: '5.00' });
    expect((await call(operator, 'GET', `/payments/${capture.body.id as string}`)).body).toMatchObject({
      payment: { state: 'partiallyRefunded', refundableAmount: '15.00' },
      actions: { capture: false, refund: true, reverse: false },
    });

    // The cases: after a full reversal nothing is offered; a €10 refund of €30 leaves €20.
    const reversed = await pay({ paymentType: 'PA', amount: '20.00' });
    await operate(reversed, { paymentType: 'RV' });
    expect((await call(operator, 'GET', `/payments/${reversed}`)).body).toMatchObject({
      payment: { state: 'reversed', capturableAmount: '0.00' },
      actions: { capture: false, refund: false, reverse: false },
    });
    const debit = await pay({ paymentType: 'DB', amount: '30.00' });
    await operate(debit, { paymentType: 'RF', amount: '10.00' });
    const refunded = await call(operator, 'GET', `/payments/${debit}`);
    expect(refunded.body).toMatchObject({ payment: { state: 'partiallyRefunded', refundableAmount: '20.00' }, actions: { refund: true, reverse: false } });
    const tooMuch = await call(operator, 'POST', `/payments/${debit}/refund`, { amount: '20.01' });
    expect(tooMuch.body.result.code).toBe('700.400.200');
    expect((await call(operator, 'POST', `/payments/${debit}/refund`, { amount: '20.00' })).body.result.code).toMatch(/^000\./);
    expect((await call(operator, 'GET', `/payments/${debit}`)).body).toMatchObject({ payment: { state: 'refunded', refundableAmount: '0.00' }, actions: { refund: false } });

    const declined = (await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'DB', amount: '30.00', 'card.holder': '800.100.151' }))).body.id as string;
    expect((await call(operator, 'GET', `/payments/${declined}`)).body).toMatchObject({ payment: { state: 'declined' }, actions: { capture: false, refund: false, reverse: false } });

    // The list shows the state the detail shows, and filters by it.
    const list = await call(operator, 'GET', `/payments?state=partiallyCaptured&entityId=${t.entityId}`);
    expect(list.body.payments.map((row: { id: string }) => row.id)).toEqual([authorized]);
    expect(list.body.payments[0]).toMatchObject({ state: 'partiallyCaptured', status: 'approved' });
    expect(list.body.total).toBeUndefined();
    expect((await call(operator, 'GET', `/payments/count?state=partiallyCaptured&entityId=${t.entityId}`)).body.total).toBe(1);
    expect((await call(operator, 'GET', '/payments?state=refunded')).body.payments.map((row: { id: string }) => row.id)).toEqual([debit]);
    const wrong = await call(operator, 'GET', '/payments?state=lost');
    expect(wrong.status).toBe(400);
    expect(wrong.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'state' })]);
  });

  it('finds payments by currency, last 4 digits, BIN, card holder, e-mail and exact amount, and counts them', async () => {
    const holder = `Zelda Quint ${kind}`;
    const mine = await pay({ amount: '17.43', currency: 'GBP', 'card.holder': holder, 'customer.email': `Zelda.${kind}@Example.com`, 'customer.givenName': 'Zelda', 'customer.surname': 'Quint', 'card.number': '5454545454545454', paymentBrand: 'MASTER' });
    const ids = async (query: string) => {
      const answer = await call(operator, 'GET', `/payments?${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.payments.map((row: { id: string }) => row.id) as string[];
    };
    expect(await ids('currency=GBP')).toContain(mine);
    expect(await ids('currency=USD')).not.toContain(mine);
    for (const q of ['5454', '545454', '17.43', `zelda.${kind}@example.com`, `quint ${kind}`.toUpperCase()]) {
      expect(await ids(`q=${encodeURIComponent(q)}`), q).toEqual([mine]);
    }
    expect(await ids(`last4Digits=5454&holder=${encodeURIComponent('quint')}&currency=GBP`)).toEqual([mine]);
    expect(await ids('q=17.44')).toEqual([]);
    // A holder's name is matched as text: wildcards in it are taken literally.
    expect(await ids(`holder=${encodeURIComponent('%')}%25`)).toEqual([]);
    // Counted every page of them (a cursor given is no filter of the count).
    const counted = await call(operator, 'GET', '/payments/count?currency=EUR&cursor=whatever');
    const all = Number((await t.gateway.store.query<{ n: string }>(`SELECT count(*) AS n FROM payments WHERE currency = 'EUR'`)).rows[0]?.n);
    expect(counted.body.total).toBe(all);
    const bad = await call(operator, 'GET', '/payments?last4Digits=12&bin=abc&email=nobody');
    expect(bad.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['bin', 'email', 'last4Digits']);
  });

  it('exports the filtered list as CSV, every row, its cells safe for a spreadsheet', async () => {
    const formula = '=HYPERLINK("http://evil.example","click")';
    const shopper = await pay({ amount: '11.11', currency: 'CHF', 'card.holder': formula });
    const more = [];
    for (let n = 0; n < 3; n++) more.push(await pay({ amount: '11.11', currency: 'CHF' }));
    const exported = await fetch(`${t.url}/dashboard/api/payments/export?currency=CHF`, { headers: { cookie: operator.cookie as string } });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="payments-\d{8}-\d{6}\.csv"$/);
    const text = await exported.text();
    const lines = text.split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(lines).toHaveLength(5);
    expect(lines.slice(1).map((line) => line.split(',')[0]).sort()).toEqual([...more, shopper].sort());
    const row = lines.find((line) => line.startsWith(shopper)) as string;
    expect(row).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
    expect(row).toContain(',11.11,CHF,approved,');
    expect(unmaskedCardNumbers(text)).toEqual([]);
    expect((await fetch(`${t.url}/dashboard/api/payments/export`)).status).toBe(401);
    // A merchant exports its own entities' payments only.
    const other = await t.newMerchant();
    await t.post('/v1/payments', cardPayment(other.entityId, { amount: '11.11', currency: 'CHF' }), { token: other.token });
    const merchant = await signInMerchant(t.gateway.store, t.token, 'viewer');
    const own = await (await fetch(`${t.url}/dashboard/api/payments/export?currency=CHF`, { headers: { cookie: merchant.cookie as string } })).text();
    expect(own.split('\r\n').filter((line) => line !== '')).toHaveLength(5);
  });

  it('gives an overview of today and the last 30 days, pending payments and open chargebacks; lists the chargebacks', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const debit = async (amount: string, overrides: Record<string, string> = {}) =>
      (await t.post('/v1/payments', cardPayment(merchant.entityId, { amount, currency: 'EUR', ...overrides }), as)).body.id as string;
    clock.advance(-10 * 86_400_000);
    await debit('100.00');
    await debit('5.00', { 'card.holder': '800.100.151' });
    clock.advance(10 * 86_400_000);
    const charged = await debit('40.00');
    await debit('60.00');
    await debit('1.00', { 'card.holder': '800.100.151' });
    const chargeback = await t.post(`/v1/payments/${charged}`, { entityId: merchant.entityId, paymentType: 'CB', amount: '40.00', currency: 'EUR' }, as);
    expect(chargeback.body.result.code).toMatch(/^000\.100\.2/);
    const answer = await call(operator, 'GET', `/overview?entityId=${merchant.entityId}`);
    expect(answer.status, answer.text).toBe(200);
    const { overview } = answer.body;
    expect(overview.today).toMatchObject({ volume: [{ currency: 'EUR', amount: '100.00', count: 2 }], approved: 2, declined: 1, approvalRate: 2 / 3 });
    expect(overview.last30Days).toMatchObject({ volume: [{ currency: 'EUR', amount: '200.00', count: 3 }], approved: 3, declined: 2 });
    expect(overview.last30Days.declinesByReason).toEqual([expect.objectContaining({ code: expect.stringMatching(/^[0-9.]+$/), count: 2 })]);
    expect(overview.openChargebacks).toEqual({ count: 1, byCurrency: [{ currency: 'EUR', amount: '40.00', count: 1 }] });
    expect(overview.pending).toEqual({ count: 0, oldestAt: null });

    const chargebacks = await call(operator, 'GET', `/chargebacks?entityId=${merchant.entityId}`);
    expect(chargebacks.body.chargebacks).toEqual([
      expect.objectContaining({ id: chargeback.body.id, amount: '40.00', currency: 'EUR', payment: expect.objectContaining({ id: charged }), reversed: false, reason: expect.objectContaining({ code: chargeback.body.result.code }) }),
    ]);
    await t.post(`/v1/payments/${chargeback.body.id as string}`, { entityId: merchant.entityId, paymentType: 'CR', amount: '40.00', currency: 'EUR' }, as);
    expect((await call(operator, 'GET', `/chargebacks?entityId=${merchant.entityId}`)).body.chargebacks[0].reversed).toBe(true);
    expect((await call(operator, 'GET', `/overview?entityId=${merchant.entityId}`)).body.overview.openChargebacks.count).toBe(0);
    // Another merchant's figures are not a merchant's to see.
    const viewer = await signInMerchant(t.gateway.store, t.token, 'viewer');
    expect((await call(viewer, 'GET', `/overview?entityId=${merchant.entityId}`)).status).toBe(403);
  });
});
