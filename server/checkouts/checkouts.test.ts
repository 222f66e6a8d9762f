import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoCardData, expectRefusal, shopperCard } from '../testing/checkouts.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  cardPayment,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestClock,
  type TestGateway,
  liveApp,
} from '../testing/harness.ts';
import { setShopperResultUrlBase } from '../merchants/repository.ts';
import { renderBootstrap } from './bootstrap.ts';
import { findBootstrapSnapshot } from './repository.ts';

warnIfPostgresSkipped('checkouts.test.ts');

const CHECKOUT_ID = /^[0-9A-F]{32}\.[a-z0-9-]+$/;
const PAYMENT_ID = /^[0-9a-f]{32}$/;
const NO_SESSION = 'No payment session found for the requested id';
const MINUTE = 60_000;
const CARD_NUMBERS = ['4200000000000000', '5454545454545454', '4444444444444444'];

function parameterNames(response: ApiResponse): string[] {
  return (response.body.result.parameterErrors as { name: string }[]).map((error) => error.name).sort();
}

describe.each(STORE_KINDS)('hosted checkouts on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now });
    // Where this merchant's shoppers return: the 29-minute call goes to result URLs under it.
    await setShopperResultUrlBase(t.gateway.store, t.entityId, 'https://shop.example/');
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (overrides: Record<string, string> = {}) =>
    t.post('/v1/checkouts', { entityId: t.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB', ...overrides });
  const createdId = async (overrides: Record<string, string> = {}): Promise<string> => {
    const created = await create(overrides);
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** The shopper's browser: no Authorization header. */
  const submit = async (id: string, params: Record<string, string> = shopperCard()) => {
    const response = await t.post(`/v1/checkouts/${id}/payment`, params, { token: null });
    expectEnvelope(response);
    expectNoCardData(response, CARD_NUMBERS);
    return response;
  };
  const read = async (id: string, merchant: { entityId: string; token: string } = t) => {
    const response = await t.get(`/v1/checkouts/${id}/payment`, { entityId: merchant.entityId }, { token: merchant.token });
    expectEnvelope(response);
    expectNoCardData(response, CARD_NUMBERS);
    return response;
  };
  /** The payment a submit made, as the merchant's server reads it (the shopper's answer does not show it). */
  const paymentOf = async (submitted: ApiResponse) => {
    const response = await t.get(`/v1/payments/${submitted.body.id}`, { entityId: t.entityId });
    expect(response.status).toBeLessThan(500);
    return response.body;
  };
  const update = (id: string, params: Record<string, string>) => t.post(`/v1/checkouts/${id}`, { entityId: t.entityId, ...params });
  const remove = async (id: string, merchant: { entityId: string; token: string } = t) => {
    const response = await fetch(`${t.url}/v1/checkouts/${id}?entityId=${merchant.entityId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${merchant.token}` },
    });
    return { status: response.status, headers: response.headers, body: await response.json() } as ApiResponse;
  };

  describe('creating', () => {
    it('answers 000.200.100 with an id of 32 uppercase hex and a cluster suffix, echoed as ndc', async () => {
      const response = await create({ 'customer.givenName': 'Jane', 'customer.surname': 'Jones', merchantTransactionId: 'order-4711' });
      expectEnvelope(response);
      expect(response.status).toBe(200);
      expect(response.body.result).toEqual({ code: '000.200.100', description: 'successfully created checkout' });
      expect(response.body.id).toMatch(CHECKOUT_ID);
      expect(response.body.id.length).toBeGreaterThanOrEqual(32);
      expect(response.body.id.length).toBeLessThanOrEqual(48);
      expect(response.body.ndc).toBe(response.body.id);
      expect(response.body.integrity).toBeUndefined();
      expect(`/v1/checkouts/${response.body.id}/payment`).toMatch(/^\/v[0-9]+\/checkouts\/[a-zA-Z0-9.-]+\/payment$/);
    });

    it('with integrity=true returns the SRI hash of the exact paymentWidgets.js bytes, which an update does not change', async () => {
      // Two stored cards of this merchant, offered out of index order.
      const stored = async (overrides: Record<string, string>) =>
        (await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true', ...overrides }))).body.registrationId as string;
      const visa = await stored({});
      const master = await stored({ paymentBrand: 'MASTER', 'card.number': '5454545454545454', 'card.holder': 'Joe Bloggs' });
      const response = await create({ integrity: 'true', 'registrations[1].id': master, 'registrations[0].id': visa });
      expect(response.status).toBe(200);
      const id = response.body.id as string;
      const snapshot = await findBootstrapSnapshot(t.gateway.store, id, clock.now());
      expect(snapshot).toEqual({
        checkoutId: id,
        amount: '92.00',
        currency: 'EUR',
        paymentType: 'DB',
        resourcePath: `/v1/checkouts/${id}/payment`,
        registrations: [
          { id: visa, brand: 'VISA', last4Digits: '0000', expiryMonth: '05', expiryYear: '2034', holder: 'Jane Jones' },
          { id: master, brand: 'MASTER', last4Digits: '5454', expiryMonth: '05', expiryYear: '2034', holder: 'Joe Bloggs' },
        ],
        gatewayUrl: t.gateway.config.publicUrl,
        staticBaseUrl: expect.stringMatching(new RegExp(`^${t.gateway.config.publicUrl}/v1/static/[^/]+$`)),
      });
      const script = renderBootstrap(snapshot ?? null, { gatewayUrl: 'http://unused', staticBaseUrl: 'http://unused' });
      const expected = `sha384-${createHash('sha384').update(Buffer.from(script, 'utf8')).digest('base64')}`;
      expect(response.body.integrity).toBe(expected);

      expect((await update(id, { amount: '50.00' })).status).toBe(200);
      const after = await findBootstrapSnapshot(t.gateway.store, id, clock.now());
      expect(renderBootstrap(after ?? null, { gatewayUrl: 'x', staticBaseUrl: 'x' })).toBe(script);
    });

    it('makes a registration-only checkout without paymentType point its widget at /registration', async () => {
      const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '1.00', currency: 'EUR', createRegistration: 'true' });
      expect(created.status).toBe(200);
      const snapshot = await findBootstrapSnapshot(t.gateway.store, created.body.id, clock.now());
      expect(snapshot).toMatchObject({ paymentType: null, resourcePath: `/v1/checkouts/${created.body.id}/registration` });
      expectRefusal(await submit(created.body.id), /registration-only/);
    });

    it('reports every invalid parameter with 200.300.404', async () => {
      const missing = await t.post('/v1/checkouts', { entityId: t.entityId });
      expectRefusal(missing, 'invalid or missing parameter');
      expect(parameterNames(missing)).toEqual(['amount', 'currency', 'paymentType']);
      const wrong = await create({ amount: '12.345', currency: 'eur', paymentType: 'CD', 'customer.email': 'x' });
      expect(wrong.status).toBe(400);
      expect(parameterNames(wrong)).toEqual(['amount', 'currency', 'customer.email', 'customer.givenName', 'customer.surname', 'paymentType']);
      expect(wrong.body.id).toBeUndefined();
    });

    it('refuses card data sent with a checkout, masked in the answer', async () => {
      const response = await create({ 'card.number': '4200000000000000', 'card.cvv': '123' });
      expectRefusal(response, 'invalid or missing parameter');
      expect(parameterNames(response)).toEqual(['card.cvv', 'card.number']);
      expectNoCardData(response, CARD_NUMBERS);
    });

    it('answers 100.300.101 for an invalid testMode and 600.200.701 for testMode in live', async () => {
      const invalid = await create({ testMode: 'LIVE' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.result.code).toBe('100.300.101');
      const live = await liveApp(t, clock.now);
      const request = (params: Record<string, string>) =>
        live.request('/v1/checkouts', {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', ...params }).toString(),
        });
      const withTestMode = await request({ testMode: 'INTERNAL' });
      expect(withTestMode.status).toBe(400);
      expect((await withTestMode.json()).result.code).toBe('600.200.701');
      const liveCheckout = await request({});
      expect(liveCheckout.status).toBe(200);
      expect((await liveCheckout.json()).id).toMatch(CHECKOUT_ID);
    });

    it('requires the Bearer token, and one allowed for the entity', async () => {
      const anonymous = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB' }, { token: null });
      expect(anonymous.status).toBe(401);
      const other = await t.newMerchant();
      const foreignEntity = await t.post(
        '/v1/checkouts',
        { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB' },
        { token: other.token },
      );
      expect(foreignEntity.status).toBe(403);
      expect(foreignEntity.body.result.code).toBe('800.900.300');
    });
  });

  describe('updating and deleting', () => {
    it('updates an open checkout; the payment is made with the new values', async () => {
      const id = await createdId({ 'customer.givenName': 'Jane', 'customer.surname': 'Jones' });
      const updated = await update(id, { amount: '10.50', currency: 'USD', 'customer.email': 'jane@example.com' });
      expectEnvelope(updated);
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ result: { code: '000.200.101', description: 'successfully updated checkout' }, id, ndc: id });
      const paid = await submit(id);
      expect(paid.status).toBe(200);
      expect(await paymentOf(paid)).toMatchObject({ amount: '10.50', currency: 'USD', customer: { givenName: 'Jane', surname: 'Jones', email: 'jane@example.com' } });
    });

    it('refuses an invalid update, naming the parameter, and keeps the checkout as it was', async () => {
      const id = await createdId();
      const refused = await update(id, { amount: 'ten', 'card.number': '4200000000000000' });
      expectRefusal(refused, 'invalid or missing parameter');
      expect(refused.body.ndc).toBe(id);
      expect(parameterNames(refused)).toEqual(['amount', 'card.number']);
      expectNoCardData(refused, CARD_NUMBERS);
      expect((await paymentOf(await submit(id))).amount).toBe('92.00');
    });

    it('deletes a checkout, which then answers as an unknown id everywhere', async () => {
      const id = await createdId();
      const deleted = await remove(id);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ result: { code: '000.200.102', description: 'successfully deleted checkout' }, id, ndc: id });
      expectRefusal(await read(id), NO_SESSION);
      expectRefusal(await submit(id), NO_SESSION);
      expectRefusal(await update(id, { amount: '1.00' }), NO_SESSION);
      expectRefusal(await remove(id), NO_SESSION);
      expect(await findBootstrapSnapshot(t.gateway.store, id, clock.now())).toBeUndefined();
    });

    it("keeps another entity's checkout invisible: read, update and delete answer as for an unknown id", async () => {
      const id = await createdId();
      const other = await t.newMerchant();
      const asOther = { entityId: other.entityId, token: other.token };
      expectRefusal(await read(id, asOther), NO_SESSION);
      expectRefusal(await t.post(`/v1/checkouts/${id}`, { entityId: other.entityId, amount: '1.00' }, { token: other.token }), NO_SESSION);
      expectRefusal(await remove(id, asOther), NO_SESSION);
      // Still the owner's, unchanged.
      expect((await paymentOf(await submit(id))).amount).toBe('92.00');
    });

    it('refuses update and delete once the checkout is paid', async () => {
      const id = await createdId();
      expect((await submit(id)).status).toBe(200);
      expectRefusal(await update(id, { amount: '1.00' }), /^checkout already paid/);
      expectRefusal(await remove(id), /^checkout already paid/);
    });

    it('answers 405 for a method a checkout path does not have', async () => {
      const id = await createdId();
      const put = await fetch(`${t.url}/v1/checkouts/${id}`, { method: 'PUT', headers: { Authorization: `Bearer ${t.token}` } });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toContain('DELETE');
    });
  });

  describe('expiry', () => {
    it('expires 30 minutes after creation: submit, update, read and the widget snapshot refuse it', async () => {
      const id = await createdId();
      const other = await createdId();
      clock.advance(30 * MINUTE - 1000);
      expect(await findBootstrapSnapshot(t.gateway.store, id, clock.now())).toBeDefined();
      expect((await update(other, { amount: '1.00' })).status).toBe(200);
      clock.advance(1000);
      expect(await findBootstrapSnapshot(t.gateway.store, id, clock.now())).toBeUndefined();
      expectRefusal(await submit(id), `${NO_SESSION}: the checkout expired 30 minutes after it was created`);
      expectRefusal(await update(id, { amount: '1.00' }), /^No payment session found for the requested id: the checkout expired/);
      expectRefusal(await read(id), NO_SESSION);
    });

    it('no longer gives the result of a paid checkout once it has expired', async () => {
      const id = await createdId();
      expect((await submit(id)).status).toBe(200);
      clock.advance(30 * MINUTE);
      expectRefusal(await read(id), NO_SESSION);
    });
  });

  describe('the shopper submit and the merchant read', () => {
    it('pays without credentials, then the merchant reads the payment once', async () => {
      const id = await createdId({ merchantTransactionId: 'order-10001', descriptor: 'Shop order 10001' });
      const before = await read(id);
      expect(before.status).toBe(200);
      expect(before.body.result).toEqual({ code: '000.200.000', description: 'transaction pending' });
      expect(before.body.ndc).toBe(id);
      expect(before.body.id).toBeUndefined();
      expect(before.body.amount).toBeUndefined();

      const paid = await submit(id);
      expect(paid.status).toBe(200);
      expect(paid.headers.get('access-control-allow-origin')).toBe('*');
      expect(paid.body.id).toMatch(PAYMENT_ID);
      expect(paid.body.result.code).toBe('000.100.110');
      expect(paid.body.ndc).toBe(id);

      clock.advance(MINUTE);
      const result = await read(id);
      expect(result.status).toBe(200);
      expect(result.body.ndc).toBe(id);
      expect(result.body).toMatchObject({
        id: paid.body.id,
        result: { code: '000.100.110' },
        paymentType: 'DB',
        paymentBrand: 'VISA',
        amount: '92.00',
        currency: 'EUR',
        merchantTransactionId: 'order-10001',
        card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
      });
      const direct = await t.get(`/v1/payments/${paid.body.id}`, { entityId: t.entityId });
      const { ndc: _directNdc, timestamp: _directTime, ...directBody } = direct.body;
      const { ndc: _readNdc, timestamp: _readTime, ...readBody } = result.body;
      expect(readBody).toEqual(directBody);
      // One-shot, and it stays so: further reads are not turned into throttling answers.
      expectRefusal(await read(id), NO_SESSION);
      expectRefusal(await read(id), NO_SESSION);
    });

    it('refuses a second payment on a paid checkout', async () => {
      const id = await createdId();
      expect((await submit(id)).status).toBe(200);
      const again = await submit(id, shopperCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' }));
      expectRefusal(again, /^checkout already paid/);
      expect(again.body.ndc).toBe(id);
    });

    it('keeps a declined checkout open: the shopper retries on the same checkout and succeeds', async () => {
      const id = await createdId();
      const declined = await submit(id, shopperCard({ 'card.holder': '800.100.203' }));
      expect(declined.status).toBe(400);
      expect(declined.body.result.code).toBe('800.100.203');
      expect(declined.body.ndc).toBe(id);
      const retried = await submit(id, shopperCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' }));
      expect(retried.status).toBe(200);
      expect(retried.body.id).not.toBe(declined.body.id);
      const result = await read(id);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ id: retried.body.id, paymentBrand: 'MASTER', result: { code: '000.100.110' } });
    });

    it('closes a declined checkout once the merchant has read the decline, so its result never changes', async () => {
      const id = await createdId();
      const declined = await submit(id, shopperCard({ 'card.holder': '800.100.151' }));
      const result = await read(id);
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ id: declined.body.id, result: { code: '800.100.151' } });
      expectRefusal(await submit(id), `${NO_SESSION}: its final result has already been read`);
    });

    it('refuses amount, currency, paymentType and entityId that differ from the checkout, naming them', async () => {
      const id = await createdId();
      const other = await t.newMerchant();
      const tampered = await submit(
        id,
        shopperCard({ amount: '1.00', currency: 'USD', paymentType: 'PA', entityId: other.entityId }),
      );
      expectRefusal(tampered, 'invalid or missing parameter');
      expect(parameterNames(tampered)).toEqual(['amount', 'currency', 'entityId', 'paymentType']);
      // Nothing was paid: the same values as the checkout's are accepted.
      const honest = await submit(id, shopperCard({ amount: '92', currency: 'EUR', paymentType: 'DB', entityId: t.entityId }));
      expect(honest.status).toBe(200);
      expect((await paymentOf(honest)).amount).toBe('92.00');
    });

    it('refuses custom parameters without SHOPPER_ and merchant-only parameters from the page', async () => {
      const id = await createdId();
      const refused = await submit(
        id,
        shopperCard({
          'customParameters[discount]': '100',
          notificationUrl: 'https://evil.example/n',
          testMode: 'EXTERNAL',
          registrationId: 'c'.repeat(32),
        }),
      );
      expectRefusal(refused, 'invalid or missing parameter');
      expect(parameterNames(refused)).toEqual(['customParameters[discount]', 'notificationUrl', 'registrationId', 'testMode']);
      expect(refused.body.result.parameterErrors[0].message).toMatch(/SHOPPER_/);
    });

    it("passes SHOPPER_ custom parameters and the shopper's own fields on, under the checkout's own values", async () => {
      const id = await createdId({ 'customParameters[order]': '4711', 'billing.city': 'Berlin' });
      const paid = await submit(
        id,
        shopperCard({
          'customParameters[SHOPPER_note]': 'ring twice',
          createRegistration: 'true',
          'recurring.numberOfInstallments': '3',
          'billing.city': 'Hamburg',
          'billing.postcode': '10115',
          'customer.browser.language': 'de-DE',
          // A merchant's own input (not a parameter of the spec) is ignored, as on every endpoint.
          _csrf: 'form-token',
        }),
      );
      expect(paid.status).toBe(200);
      const result = await read(id);
      expect(result.body.customParameters).toEqual({ order: '4711', SHOPPER_note: 'ring twice' });
      expect(result.body.createRegistration).toBe('true');
      expect(result.body.recurring).toEqual({ numberOfInstallments: '3' });
      expect(result.body.billing).toEqual({ city: 'Berlin', postcode: '10115' });
      expect(result.body._csrf).toBeUndefined();
    });

    it("refuses what only the merchant's server sets: references, descriptor, customer data, external 3-D Secure", async () => {
      const id = await createdId({ 'customer.givenName': 'Jane', 'customer.surname': 'Jones' });
      const forged = await submit(
        id,
        shopperCard({
          merchantTransactionId: 'order-forged',
          descriptor: 'forged descriptor',
          'customer.givenName': 'Mallory',
          'customer.email': 'mallory@example.com',
          'threeDSecure.eci': '05',
          'threeDSecure.verificationId': 'AAACBllleHchZTBWIGV4AAAAAAA=',
          'card.numberType': 'DPAN',
        }),
      );
      expectRefusal(forged, 'invalid or missing parameter');
      expect(parameterNames(forged)).toEqual([
        'card.numberType',
        'customer.email',
        'customer.givenName',
        'descriptor',
        'merchantTransactionId',
        'threeDSecure.eci',
        'threeDSecure.verificationId',
      ]);
      expect(forged.body.result.parameterErrors[0].message).toMatch(/only the merchant's server sets it/);
      // Nothing was paid, and the honest submit is paid with the checkout's values only.
      const paid = await submit(id);
      expect(paid.status).toBe(200);
      const payment = await paymentOf(paid);
      expect(payment.merchantTransactionId).toBeUndefined();
      expect(payment.customer).toEqual({ givenName: 'Jane', surname: 'Jones' });
      expect(payment.threeDSecure).toBeUndefined();
    });

    it("answers the shopper's submit with the result only, never the merchant's server-side parameters", async () => {
      const id = await createdId({
        merchantTransactionId: 'order-secret-77',
        notificationUrl: 'https://shop.example/notify?secret=s3cr3t-value',
        'customParameters[internalMargin]': '0.37',
        'customer.givenName': 'Jane',
        'customer.surname': 'Jones',
        'customer.email': 'jane@example.com',
        'customer.ip': '203.0.113.9',
        'customer.merchantCustomerId': 'cust-9001',
      });
      const paid = await submit(id, shopperCard({ 'customParameters[SHOPPER_note]': 'gift' }));
      expect(paid.status).toBe(200);
      const { result, id: paymentId, buildNumber, timestamp, ndc, ...rest } = paid.body;
      expect(result.code).toBe('000.100.110');
      expect(paymentId).toMatch(PAYMENT_ID);
      expect([buildNumber, timestamp, ndc].every((field) => typeof field === 'string')).toBe(true);
      expect(rest).toEqual({});
      const text = JSON.stringify(paid.body);
      for (const secret of ['order-secret-77', 's3cr3t-value', '0.37', 'jane@example.com', '203.0.113.9', 'cust-9001', 'gift']) {
        expect(text).not.toContain(secret);
      }
      // The merchant's authenticated read has everything.
      const payment = await paymentOf(paid);
      expect(payment).toMatchObject({ merchantTransactionId: 'order-secret-77', customer: { email: 'jane@example.com' } });

      const declined = await submit(await createdId({ merchantTransactionId: 'order-secret-78' }), shopperCard({ 'card.holder': '800.100.203' }));
      expect(declined.status).toBe(400);
      expect(JSON.stringify(declined.body)).not.toContain('order-secret-78');
    });

    it('answers unknown and malformed checkout ids with no payment session', async () => {
      for (const id of ['0123456789ABCDEF0123456789ABCDEF.sbx01-gw01', 'not-a-checkout', '0123456789abcdef0123456789abcdef.sbx01-gw01']) {
        expectRefusal(await submit(id), NO_SESSION);
        expectRefusal(await read(id), NO_SESSION);
      }
    });

    it('refuses a malformed card as a parameter error without holding the checkout', async () => {
      const id = await createdId();
      const refused = await submit(id, shopperCard({ 'card.expiryMonth': '13', 'card.number': '42000000000000000000000000000000000' }));
      expectRefusal(refused, 'invalid or missing parameter');
      expect(parameterNames(refused)).toEqual(['card.expiryMonth', 'card.number']);
      expect(JSON.stringify(refused.body)).not.toContain('42000000000000000000000000000000000');
      const cvvForAmex = await submit(id, shopperCard({ paymentBrand: 'AMEX', 'card.number': '377777777777770' }));
      expect(parameterNames(cvvForAmex)).toEqual(['card.cvv']);
      expect((await submit(id)).status).toBe(200);
    });

    it('makes at most one payment when the same checkout is submitted concurrently', async () => {
      const id = await createdId();
      const answers = await Promise.all(Array.from({ length: 5 }, () => submit(id)));
      const paid = answers.filter((answer) => answer.status === 200);
      expect(paid).toHaveLength(1);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expectRefusal(refused, /^(checkout already paid|a payment for this checkout is in progress)/);
      }
      expect((await read(id)).body.id).toBe(paid[0]?.body.id);
    });

    it('throttles status reads: a third within a minute is 800.120.100, allowed again a minute later', async () => {
      const id = await createdId();
      // Limits count in the clock's minutes (throttling/counters.ts): start at one.
      clock.advance(MINUTE - (clock.now().getTime() % MINUTE));
      expect((await read(id)).status).toBe(200);
      clock.advance(30_000);
      expect((await read(id)).status).toBe(200);
      const third = await read(id);
      expect(third.status).toBe(400);
      expect(third.body.result).toEqual({ code: '800.120.100', description: 'Rejected by Throttling. Please try again later.' });
      expect(third.body.ndc).toBe(id);
      clock.advance(30_000);
      // The next minute takes two reads again.
      expect((await read(id)).status).toBe(200);
      expect((await read(id)).status).toBe(200);
      expect((await read(id)).status).toBe(400);
      clock.advance(MINUTE);
      expect((await read(id)).body.result.code).toBe('000.200.000');
    });

    it('never stores or logs card numbers and security codes of a submit', async () => {
      const id = await createdId({ 'customer.givenName': 'Jane', 'customer.surname': 'Jones' });
      await submit(id, shopperCard({ 'card.number': '4444444444444444' }));
      await submit(id, shopperCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER', 'card.cvv': '862' }));
      const rows = await t.gateway.store.query<{ row: string }>(
        `SELECT row_to_json(c)::text AS row FROM checkouts c WHERE id = $1
         UNION ALL SELECT row_to_json(j)::text FROM jobs j WHERE payload->>'checkoutId' = $1`,
        [id],
      );
      expect(rows.rows.length).toBeGreaterThanOrEqual(2);
      for (const text of [...rows.rows.map((row) => row.row), ...t.logLines]) {
        for (const secret of [...CARD_NUMBERS, '"739"', '"862"', 'card.cvv']) expect(text).not.toContain(secret);
      }
    });
  });
});
