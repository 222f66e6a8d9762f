import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../events/outbox.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type ApiResponse, type TestClock, type TestGateway } from '../testing/harness.ts';
import { expectEnvelope } from '../testing/envelope.ts';

/**
 * Risk velocity rules (COMPAT §17, domain/riskRules.ts, risk/velocity.ts): set per entity through the throttling
 * admin API; a payment over a rule is a decline with the rule's code (HTTP 400), recorded with an id and readable,
 * never sent to an acquirer.
 */

warnIfPostgresSkipped('velocity.test.ts');

const ADMIN_TOKEN = 'risk-admin-token-of-some-length-0123456789abcdef';
const jane = (email: string) => ({ 'customer.givenName': 'Jane', 'customer.surname': 'Jones', 'customer.email': email });
const MASTERCARD = { paymentBrand: 'MASTER', 'card.number': '5454545454545454' };
type Merchant = { entityId: string; token: string };

describe.each(STORE_KINDS)('risk velocity rules on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    // An hour into a day of the clock: windows of a day or an hour do not end during the tests.
    clock = createTestClock(new Date(Date.UTC(2032, 4, 1, 1, 0, 0)));
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN }, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const rules = async (entityId: string, risk: Record<string, unknown>) => {
    const response = await fetch(`${t.url}/admin/v1/entities/${entityId}/throttling`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ risk }),
    });
    expect(response.status).toBe(200);
  };
  const pay = (merchant: Merchant, overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', cardPayment(merchant.entityId, overrides), { token: merchant.token });
  const expectDeclinedBy = async (response: ApiResponse, code: string, merchant: Merchant) => {
    expectEnvelope(response);
    expect(response.status).toBe(400);
    expect(response.body.result.code).toBe(code);
    expect(response.body.id).toMatch(/^[0-9a-f]{32}$/);
    const row = await t.gateway.store.query<{ acquirer: string; result_code: string }>('SELECT acquirer, result_code FROM payments WHERE id = $1', [response.body.id]);
    expect(row.rows[0]).toEqual({ acquirer: 'gateway', result_code: code });
    const read = await t.get(`/v1/payments/${response.body.id}`, { entityId: merchant.entityId }, { token: merchant.token });
    expect(read.body.result.code).toBe(code);
  };

  /** A hosted checkout of `merchant` (its server creates it), with `params` as the merchant sets them. */
  const checkout = async (merchant: Merchant, params: Record<string, string> = {}) => {
    const created = await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '20.00', currency: 'EUR', paymentType: 'DB', ...params }, { token: merchant.token });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.id as string;
  };
  /** The shopper's browser posts the card (no token: the checkout names the entity). */
  const submit = (checkoutId: string) =>
    t.post(`/v1/checkouts/${checkoutId}/payment`, testCard({ shopperResultUrl: 'https://shop.example/result' }), { token: null });
  /** A card stored without a payment (POST /v1/registrations). */
  const registration = async (merchant: Merchant, card: Record<string, string> = {}) => {
    const registered = await t.post('/v1/registrations', testCard({ entityId: merchant.entityId, ...card }), { token: merchant.token });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    return registered.body.id as string;
  };
  const payWithRegistration = (merchant: Merchant, registrationId: string, amount = '5.00') =>
    t.post(`/v1/registrations/${registrationId}/payments`, { entityId: merchant.entityId, paymentType: 'DB', amount, currency: 'EUR' }, { token: merchant.token });

  it('declines the payments over a count per IP and per e-mail (800.120.102, .103), recorded and readable, others go on', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { ipCount: { max: 2, windowMinutes: 60 }, emailCount: { max: 3, windowMinutes: 60 } });
    const fromIp = { 'customer.ip': '198.51.100.9' };
    expect((await pay(merchant, fromIp)).status).toBe(200);
    expect((await pay(merchant, { ...fromIp, ...jane('jane@example.com') })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, fromIp), '800.120.102', merchant);
    expect((await pay(merchant, { 'customer.ip': '198.51.100.10', ...jane('Jane@example.com') })).status).toBe(200);
    expect((await pay(merchant, jane('jane@example.com'))).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, jane('JANE@example.com')), '800.120.103', merchant);
    // Payments without what a rule counts by are not counted by it; another entity has no rules.
    expect((await pay(merchant)).status).toBe(200);
    expect((await t.post('/v1/payments', cardPayment(t.entityId, fromIp))).status).toBe(200);
    // The next hour counts anew.
    clock.advance(60 * 60_000);
    expect((await pay(merchant, fromIp)).status).toBe(200);
  });

  it('counts redirect-brand payments by IP and volume, and declines the one over a rule before the provider sees it', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { ipCount: { max: 2, windowMinutes: 60 }, volume: { max: 3000, windowMinutes: 60 } });
    const paypal = (overrides: Record<string, string>) =>
      t.post(
        '/v1/payments',
        { entityId: merchant.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PAYPAL', shopperResultUrl: 'https://shop.example.com/back', ...overrides },
        { token: merchant.token },
      );
    const fromIp = { 'customer.ip': '198.51.100.20' };
    const pending = await paypal(fromIp);
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.redirect).toBeDefined();
    expect((await pay(merchant, { ...fromIp, amount: '10.00' })).status).toBe(200);
    const overIp = await paypal(fromIp);
    await expectDeclinedBy(overIp, '800.120.102', merchant);
    expect(overIp.body.redirect).toBeUndefined();
    expect(overIp.body.paymentBrand).toBe('PAYPAL');
    // 10.00 + 10.00 of 30.00 taken: a redirect payment of 15.00 would pass the volume.
    await expectDeclinedBy(await paypal({ amount: '15.00' }), '800.120.200', merchant);
    expect((await paypal({ amount: '10.00' })).body.result.code).toBe('000.200.000');
  });

  it('counts a follow-up authorization (referenceUuid) as a new payment, and declines one over the volume (800.120.200)', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { volume: { max: 3000, windowMinutes: 60 } });
    const original = await pay(merchant, { paymentType: 'PA', amount: '10.00' });
    expect(original.status).toBe(200);
    const increment = (amount: string) =>
      t.post(
        '/v1/payments',
        { entityId: merchant.entityId, paymentType: 'PA', amount, currency: 'EUR', referenceUuid: original.body.id, 'standingInstruction.industryPractice': 'INCREMENTAL_AUTH' },
        { token: merchant.token },
      );
    expect((await increment('15.00')).body).toMatchObject({ referencedId: original.body.id, result: { code: '000.100.110' } });
    const over = await increment('5.01');
    await expectDeclinedBy(over, '800.120.200', merchant);
    expect(over.body.referencedId).toBe(original.body.id);
    // What fits still goes through: 10.00 + 15.00 + 5.00.
    expect((await increment('5.00')).body.result.code).toBe('000.100.110');
  });

  it('counts a card as one account, typed or stored, however many times it is registered (800.120.101)', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { accountCount: { max: 3, windowMinutes: 60 } });
    const first = await registration(merchant);
    const second = await registration(merchant);
    expect((await pay(merchant)).status).toBe(200);
    expect((await payWithRegistration(merchant, first)).status).toBe(200);
    expect((await payWithRegistration(merchant, second)).status).toBe(200);
    await expectDeclinedBy(await pay(merchant), '800.120.101', merchant);
    await expectDeclinedBy(await payWithRegistration(merchant, second), '800.120.101', merchant);
    // Another card is another account.
    expect((await pay(merchant, MASTERCARD)).status).toBe(200);
  });

  it('declines a payment whose amount would take its account over the volume (800.120.201); the card is never kept in clear', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { accountVolume: { max: 1000, windowMinutes: 1440 } });
    expect((await pay(merchant, { amount: '6.00' })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, { amount: '5.00' }), '800.120.201', merchant);
    // A declined payment adds nothing: what still fits goes through.
    expect((await pay(merchant, { amount: '4.00' })).status).toBe(200);
    expect((await pay(merchant, { ...MASTERCARD, amount: '9.00' })).status).toBe(200);
    // Another currency is counted apart.
    expect((await pay(merchant, { amount: '9.00', currency: 'USD' })).status).toBe(200);
    const stored = await t.gateway.store.query<{ bucket: string }>('SELECT bucket FROM risk_counters WHERE bucket LIKE $1', [`%${merchant.entityId}%`]);
    expect(stored.rows.length).toBeGreaterThan(0);
    expect(stored.rows.map((row) => row.bucket).join(' ')).not.toMatch(/4200000000000000|5454545454545454/);
  });

  it('declines the payments of a BIN whose chargeback rate is over the rule (800.120.300), and the entity over its merchant account limit (800.120.401)', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { binChargebackRate: { maxPercent: 10, minPayments: 2, windowMinutes: 1440 } });
    const first = await pay(merchant);
    expect((await pay(merchant)).status).toBe(200);
    const chargeback = await t.post(`/v1/payments/${first.body.id}`, { entityId: merchant.entityId, paymentType: 'CB', amount: '92.00', currency: 'EUR' }, { token: merchant.token });
    expect(chargeback.status).toBe(200);
    // Chargebacks are read at most once a minute per BIN.
    clock.advance(60_000);
    await expectDeclinedBy(await pay(merchant), '800.120.300', merchant);
    expect((await pay(merchant, MASTERCARD)).status).toBe(200);

    await rules(merchant.entityId, { merchantAccountVolume: { max: 10_000, windowMinutes: 1440 } });
    expect((await pay(merchant, { amount: '99.00' })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, { amount: '1.01' }), '800.120.401', merchant);
  });

  it('never lets concurrent payments pass a count (800.120.101 per account)', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { accountCount: { max: 5, windowMinutes: 60 }, volume: { max: 1_000_000, windowMinutes: 60 } });
    const answers = await Promise.all(Array.from({ length: 16 }, () => pay(merchant, { amount: '1.00' })));
    expect(answers.filter((answer) => answer.status === 200).length).toBe(5);
    expect(answers.filter((answer) => answer.body.result.code === '800.120.101').length).toBe(11);
  });

  it('counts the accounts of the other instruments too: an IBAN, a network token, a wallet token, an MB WAY account (800.120.101)', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { accountCount: { max: 1, windowMinutes: 60 } });
    const post = (params: Record<string, string>) => t.post('/v1/payments', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', ...params }, { token: merchant.token });
    const instruments: Record<string, string>[] = [
      { paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890' },
      { paymentBrand: 'VISA', 'tokenAccount.type': 'NETWORK', 'tokenAccount.number': '4200000000000000', 'tokenAccount.cryptogram': 'AgAAAAAABk4DWZ4C28yUQAAAAAA=' },
      { paymentBrand: 'APPLEPAY', 'applePay.paymentToken': '{"data":"one-device"}' },
      { paymentBrand: 'MBWAY', 'virtualAccount.accountId': '351#912345678' },
    ];
    for (const instrument of instruments) {
      expect((await post(instrument)).status, JSON.stringify(instrument)).toBe(200);
      await expectDeclinedBy(await post(instrument), '800.120.101', merchant);
    }
    // Another IBAN is another account; nothing of an account is kept in clear.
    expect((await post({ paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'GB82WEST12345698765432' })).status).toBe(200);
    const stored = await t.gateway.store.query<{ bucket: string }>('SELECT bucket FROM risk_counters WHERE bucket LIKE $1', [`%${merchant.entityId}%`]);
    expect(stored.rows.map((row) => row.bucket).join(' ')).not.toMatch(/DE23100000001234567890|351#912345678|one-device/);
  });

  it('declines the payments whose amount would take their IP or e-mail over its volume (800.120.202, .203); a declined one adds to no rule', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { ipVolume: { max: 5000, windowMinutes: 60 }, emailVolume: { max: 8000, windowMinutes: 60 } });
    const fromIp = { 'customer.ip': '198.51.100.30' };
    expect((await pay(merchant, { ...fromIp, amount: '30.00' })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, { ...fromIp, amount: '25.00' }), '800.120.202', merchant);
    // What still fits goes through, up to the volume itself; another IP, another currency are counted apart.
    expect((await pay(merchant, { ...fromIp, amount: '20.00' })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, { ...fromIp, amount: '0.01' }), '800.120.202', merchant);
    expect((await pay(merchant, { 'customer.ip': '198.51.100.31', amount: '40.00' })).status).toBe(200);
    expect((await pay(merchant, { ...fromIp, amount: '40.00', currency: 'USD' })).status).toBe(200);

    expect((await pay(merchant, { ...jane('jane@example.com'), amount: '60.00' })).status).toBe(200);
    // Over the e-mail's volume (the address in any case): declined, and its IP's volume is not taken either.
    const fromOtherIp = { 'customer.ip': '198.51.100.32' };
    await expectDeclinedBy(await pay(merchant, { ...fromOtherIp, ...jane('Jane@Example.com'), amount: '25.00' }), '800.120.203', merchant);
    expect((await pay(merchant, { ...fromOtherIp, amount: '50.00' })).status).toBe(200);
    expect((await pay(merchant, { ...jane('jane@example.com'), amount: '20.00' })).status).toBe(200);
    await expectDeclinedBy(await pay(merchant, { ...jane('jane@example.com'), amount: '0.01' }), '800.120.203', merchant);
    // The next hour counts anew.
    clock.advance(60 * 60_000);
    expect((await pay(merchant, { ...fromIp, ...jane('jane@example.com'), amount: '50.00' })).status).toBe(200);
  });

  it('notifies a risk decline: the PAYMENT event of the declined payment carries the rule\'s code', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { ipCount: { max: 1, windowMinutes: 60 } });
    const fromIp = { 'customer.ip': '198.51.100.40' };
    expect((await pay(merchant, fromIp)).status).toBe(200);
    const declined = await pay(merchant, fromIp);
    await expectDeclinedBy(declined, '800.120.102', merchant);
    const events = await eventsOf(t.gateway.store, declined.body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'PAYMENT',
      action: 'CREATED',
      entityId: merchant.entityId,
      payload: { id: declined.body.id, paymentType: 'DB', amount: '92.00', currency: 'EUR', result: { code: '800.120.102' } },
    });
  });

  it('declines a checkout\'s payment over a rule: the shopper\'s submit and the merchant\'s status read answer the rule\'s code', async () => {
    const merchant = await t.newMerchant();
    await rules(merchant.entityId, { emailCount: { max: 1, windowMinutes: 60 } });
    expect((await pay(merchant, jane('jane@example.com'))).status).toBe(200);
    const id = await checkout(merchant, jane('jane@example.com'));
    const declined = await submit(id);
    await expectDeclinedBy(declined, '800.120.103', merchant);
    expect(declined.body.ndc).toBe(id);
    const status = await t.get(`/v1/checkouts/${id}/payment`, { entityId: merchant.entityId }, { token: merchant.token });
    expectEnvelope(status);
    expect(status.status).toBe(400);
    expect(status.body).toMatchObject({ id: declined.body.id, result: { code: '800.120.103' } });
    // A checkout of another shopper is paid.
    expect((await submit(await checkout(merchant, jane('joe@example.com')))).status).toBe(200);
  });

  it('counts the payments on a stored card by its account (800.120.101 through POST /v1/registrations/{id}/payments)', async () => {
    const merchant = await t.newMerchant();
    const visa = await registration(merchant);
    const master = await registration(merchant, MASTERCARD);
    await rules(merchant.entityId, { accountCount: { max: 2, windowMinutes: 60 } });
    expect((await payWithRegistration(merchant, visa)).status).toBe(200);
    expect((await payWithRegistration(merchant, visa)).status).toBe(200);
    const declined = await payWithRegistration(merchant, visa);
    await expectDeclinedBy(declined, '800.120.101', merchant);
    expect(declined.body.registrationId).toBe(visa);
    // Another stored card is another account.
    expect((await payWithRegistration(merchant, master)).status).toBe(200);
  });
});
