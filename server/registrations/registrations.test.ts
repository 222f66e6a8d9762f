import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('registrations.test.ts');

/** Stored cards (createRegistration=true) and payments with them: server to server and one-click through a checkout. */

const BROWSER = { shopperResultUrl: 'https://shop.example/result', ...BROWSER_DATA };

describe.each(STORE_KINDS)('registrations on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = async (overrides: Record<string, string> = {}) => {
    const paid = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true', ...overrides }));
    return paid;
  };
  const payWith = (registrationId: string, overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB', registrationId, ...overrides });

  it('stores the card of an approved payment and answers its registrationId; the number only sealed', async () => {
    const paid = await register({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' });
    expect(paid.status).toBe(200);
    expect(paid.body.registrationId).toMatch(/^[0-9a-f]{32}$/);
    const rows = await t.gateway.store.query<{ payment_brand: string; card: unknown; sealed: unknown }>(
      `SELECT r.payment_brand, r.card, row_to_json(v) AS sealed FROM registrations r JOIN vault_items v ON v.id = r.sealed_card_id
        WHERE r.id = $1`,
      [paid.body.registrationId],
    );
    expect(rows.rows[0]?.sealed).toMatchObject({ iv: expect.any(String), data: expect.any(String) });
    expect(rows.rows[0]?.payment_brand).toBe('MASTER');
    expect(rows.rows[0]?.card).toEqual({ bin: '545454', last4Digits: '5454', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' });
    expect(JSON.stringify(rows.rows[0])).not.toContain('5454545454545454');
    expect(JSON.stringify(rows.rows[0])).not.toContain('"123"');
  });

  it('stores nothing for a declined payment', async () => {
    const declined = await register({ 'card.holder': '800.100.151' });
    expect(declined.status).toBe(400);
    expect(declined.body.registrationId).toBeUndefined();
    const count = await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM registrations');
    const before = count.rows[0]?.n;
    await register({ 'card.holder': '800.100.203' });
    expect((await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM registrations')).rows[0]?.n).toBe(before);
  });

  it('pays with a registration: the stored card, with or without a CVV, and the registration named in the answer', async () => {
    const { registrationId } = (await register()).body;
    const paid = await payWith(registrationId);
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
    expect(paid.body).toMatchObject({ paymentBrand: 'VISA', registrationId, card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones' } });
    expect((await payWith(registrationId, { 'card.cvv': '321' })).status).toBe(200);
    // The stored card's brand decides; another brand is a mismatch, as for a typed card.
    expect((await payWith(registrationId, { paymentBrand: 'MASTER' })).body.result.code).toBe('100.100.700');
  });

  it('does not let another merchant use a registration', async () => {
    const { registrationId } = (await register()).body;
    const other = await t.newMerchant();
    const refused = await t.post(
      '/v1/payments',
      { entityId: other.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB', registrationId },
      { token: other.token },
    );
    // COMPAT §10: the same answer as an unknown id, so the other merchant learns nothing.
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('100.150.200');
    expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'registrationId' })]);
  });

  it('stores the card of a challenged payment once the challenge succeeds', async () => {
    const pending = await register({ 'card.number': '4200000000000042', ...BROWSER });
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.registrationId).toBeUndefined();
    await answerRedirect(pending);
    const final = await t.get(`/v1/payments/${pending.body.id}`, { entityId: t.entityId });
    expect(final.body.registrationId).toMatch(/^[0-9a-f]{32}$/);
    // The registration keeps the payment's customer data, but not the browser data of that one visit.
    const registration = await t.get(`/v1/registrations/${final.body.registrationId}`, { entityId: t.entityId });
    expect(registration.status).toBe(200);
    expect(final.body.customer.browser).toBeDefined();
    expect(registration.body.customer).toBeUndefined();
    // The stored enrolled card is challenged again when paid with later.
    const again = await payWith(final.body.registrationId, BROWSER);
    expect(again.body.result.code).toBe('000.200.000');
  });

  describe('one-click through a checkout', () => {
    it('offers only the merchant’s own registrations, and shows the widget what a payment response shows', async () => {
      const { registrationId } = (await register()).body;
      const refused = await t.post('/v1/checkouts', {
        entityId: t.entityId,
        amount: '9.00',
        currency: 'EUR',
        paymentType: 'DB',
        'registrations[0].id': registrationId,
        'registrations[1].id': 'f'.repeat(32),
      });
      expect(refused.status).toBe(400);
      expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'registrations[1].id' })]);

      const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'DB', 'registrations[0].id': registrationId });
      const script = await (await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${created.body.id}`)).text();
      expect(script).toContain(`"registrations":[{"id":"${registrationId}","brand":"VISA","last4Digits":"0000","expiryMonth":"05","expiryYear":"2034","holder":"Jane Jones"}]`);
      expect(script).not.toContain('4200000000000000');
    });

    it('pays one-click with an offered registration, and refuses one the checkout does not offer', async () => {
      const { registrationId } = (await register()).body;
      const other = (await register({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' })).body.registrationId as string;
      const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '9.00', currency: 'EUR', paymentType: 'DB', 'registrations[0].id': registrationId });
      const checkoutId = created.body.id as string;
      const notOffered = await t.post(`/v1/checkouts/${checkoutId}/payment`, { registrationId: other, shopperResultUrl: 'https://shop.example/r' }, { token: null });
      expect(notOffered.status).toBe(400);
      const paid = await t.post(
        `/v1/checkouts/${checkoutId}/payment`,
        { registrationId, paymentBrand: 'VISA', shopperResultUrl: 'https://shop.example/r' },
        { token: null },
      );
      expect(paid.status).toBe(200);
      expect(paid.body.result.code).toBe('000.100.110');
      const payment = await t.get(`/v1/payments/${paid.body.id}`, { entityId: t.entityId });
      expect(payment.body).toMatchObject({ result: { code: '000.100.110' }, amount: '9.00', registrationId, card: { last4Digits: '0000' } });
    });
  });
});
