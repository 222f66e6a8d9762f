import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoCardData, expectRefusal, SHOPPER_CVV, shopperCard as sharedShopperCard } from '../testing/checkouts.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { findBootstrapSnapshot } from './repository.ts';

warnIfPostgresSkipped('registrationCheckouts.test.ts');

/**
 * Registration-only checkouts (COMPAT §10, doc 1 §3 rule 3): created with createRegistration=true and no
 * paymentType; the shopper's card goes to /registration, where it is verified (a 0.00 preauthorization, 3-D Secure
 * included) and stored; the merchant reads the registration once at /registration (or /payment).
 */

const CHECKOUT_ID = /^[0-9A-F]{32}\.[a-z0-9-]+$/;
const RESOURCE_ID = /^[0-9a-f]{32}$/;
const NO_SESSION = 'No payment session found for the requested id';
const MINUTE = 60_000;
const CHALLENGE_CARD = '4200000000000042';
const CARD_NUMBERS = ['4200000000000000', '5454545454545454', CHALLENGE_CARD];

/** What the widget posts: the card from the hosted fields, the brand, the form action, the browser data. */
function shopperCard(overrides: Record<string, string> = {}): Record<string, string> {
  return sharedShopperCard({ shopperResultUrl: 'https://shop.example/result?order=7', ...BROWSER_DATA, ...overrides });
}

describe.each(STORE_KINDS)('registration-only checkouts on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const createRegistrationCheckout = async (overrides: Record<string, string> = {}): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, createRegistration: 'true', ...overrides });
    expectEnvelope(created);
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  const createPaymentCheckout = async (): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** The shopper's browser: no Authorization header. */
  const submit = async (id: string, params: Record<string, string> = shopperCard(), path: 'registration' | 'payment' = 'registration') => {
    const response = await t.post(`/v1/checkouts/${id}/${path}`, params, { token: null });
    expectEnvelope(response);
    expectNoCardData(response, CARD_NUMBERS);
    return response;
  };
  const read = async (id: string, path: 'registration' | 'payment' = 'registration') => {
    const response = await t.get(`/v1/checkouts/${id}/${path}`, { entityId: t.entityId });
    expectEnvelope(response);
    expectNoCardData(response, CARD_NUMBERS);
    return response;
  };

  it('is created with createRegistration=true alone, and its widget points at /registration', async () => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, createRegistration: 'true' });
    expect(created.status).toBe(200);
    expect(created.body.result).toEqual({ code: '000.200.100', description: 'successfully created checkout' });
    expect(created.body.id).toMatch(CHECKOUT_ID);
    const id = created.body.id as string;
    expect(await findBootstrapSnapshot(t.gateway.store, id, clock.now())).toMatchObject({
      amount: null,
      currency: null,
      paymentType: null,
      resourcePath: `/v1/checkouts/${id}/registration`,
    });
    const script = await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${id}/registration`);
    expect(await script.text()).toContain(`"resourcePath":"/v1/checkouts/${id}/registration"`);
  });

  it('registers the card: the merchant reads the registration once, and it then pays and reads like any registration', async () => {
    const id = await createRegistrationCheckout({ 'customParameters[order]': '4711', merchantTransactionId: 'signup-1' });
    const before = await read(id);
    expect(before.status).toBe(200);
    expect(before.body.result).toEqual({ code: '000.200.000', description: 'transaction pending' });
    expect(before.body.id).toBeUndefined();

    const submitted = await submit(id, shopperCard({ 'customParameters[SHOPPER_note]': 'gift' }));
    expect(submitted.status).toBe(200);
    expect(submitted.body.result.code).toBe('000.100.110');
    expect(submitted.body.ndc).toBe(id);
    // The shopper's answer: the result and an id, nothing of the merchant's.
    const { result: _result, id: verificationId, buildNumber: _build, timestamp: _time, ndc: _ndc, ...rest } = submitted.body;
    expect(verificationId).toMatch(RESOURCE_ID);
    expect(rest).toEqual({});

    clock.advance(MINUTE);
    const registration = await read(id);
    expect(registration.status).toBe(200);
    expect(registration.body).toMatchObject({
      id: expect.stringMatching(RESOURCE_ID),
      paymentBrand: 'VISA',
      result: { code: '000.100.110', description: expect.any(String) },
      card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
      customParameters: {
        order: '4711',
        SHOPPER_note: 'gift',
        SHOPPER_EndToEndIdentity: createHash('sha256').update(id).digest('hex'),
      },
      merchantTransactionId: 'signup-1',
      risk: { score: '0' },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: id,
    });
    // The registration, not the verification: nothing of a payment.
    for (const name of ['amount', 'currency', 'paymentType', 'registrationId', 'descriptor', 'threeDSecure']) expect(registration.body[name], name).toBeUndefined();
    const registrationId = registration.body.id as string;
    expect(registrationId).not.toBe(verificationId);
    // One final read closes it, on both paths; the closed session is not counted as a read.
    expectRefusal(await read(id), `${NO_SESSION}`);
    expectRefusal(await read(id, 'payment'), `${NO_SESSION}`);
    expectRefusal(await submit(id), `${NO_SESSION}: its final result has already been read`);

    // The verification is among the merchant's payments: a 0.00 preauthorization that made the registration.
    const verification = await t.get(`/v1/payments/${verificationId}`, { entityId: t.entityId });
    expect(verification.status).toBe(200);
    expect(verification.body).toMatchObject({ paymentType: 'PA', amount: '0.00', currency: 'EUR', registrationId });

    // The registration is one of the merchant's registrations: read and paid with by its id.
    const stored = await t.get(`/v1/registrations/${registrationId}`, { entityId: t.entityId });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id: registrationId, paymentBrand: 'VISA', card: { last4Digits: '0000' } });
    const paid = await t.post(`/v1/registrations/${registrationId}/payments`, { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ result: { code: '000.100.110' }, amount: '15.00', registrationId });
    // COMPAT §11: the shopper's registration is the agreement's cardholder-initiated step, so a merchant-initiated
    // payment on it (a PHP client's recurring payment) names no initialTransactionId and gets the verification's.
    const recurring = await t.post(`/v1/registrations/${registrationId}/payments`, {
      entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB',
      'standingInstruction.type': 'RECURRING', 'standingInstruction.mode': 'REPEATED', 'standingInstruction.source': 'MIT',
    });
    expect([recurring.status, recurring.body.result.code]).toEqual([200, '000.100.110']);
    expect(recurring.body.standingInstruction.initialTransactionId).toMatch(/^[1-9][0-9]{14}$/);
    expect(recurring.body.standingInstruction.initialTransactionId).toBe(verification.body.resultDetails.CardholderInitiatedTransactionID);
  });

  it('answers the same on /payment for a registration-only checkout', async () => {
    const id = await createRegistrationCheckout({ currency: 'USD' });
    expect((await submit(id)).status).toBe(200);
    const answer = await read(id, 'payment');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ paymentBrand: 'VISA', result: { code: '000.100.110' }, ndc: id, risk: { score: '0' } });
    expect(answer.body.amount).toBeUndefined();
    expect(answer.body.paymentType).toBeUndefined();
    expect((await t.get(`/v1/registrations/${answer.body.id}`, { entityId: t.entityId })).status).toBe(200);
    expectRefusal(await read(id), NO_SESSION);
  });

  it('keeps a declined card from being stored: the checkout stays open, and the next card is registered', async () => {
    const id = await createRegistrationCheckout();
    const declined = await submit(id, shopperCard({ 'card.holder': '800.100.151' }));
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe('800.100.151');
    const retried = await submit(id, shopperCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' }));
    expect(retried.status).toBe(200);
    const answer = await read(id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ paymentBrand: 'MASTER', card: { last4Digits: '5454' }, result: { code: '000.100.110' } });
  });

  it('answers a declined card with its code (HTTP 400) and the verification id, then closes', async () => {
    const id = await createRegistrationCheckout();
    const declined = await submit(id, shopperCard({ 'card.holder': '800.100.151' }));
    expect(declined.status).toBe(400);
    const answer = await read(id);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      id: declined.body.id,
      paymentBrand: 'VISA',
      result: { code: '800.100.151' },
      card: { bin: '420000', last4Digits: '0000' },
      risk: { score: '0' },
      ndc: id,
    });
    // Nothing was stored under the verification's id.
    expect((await t.get(`/v1/registrations/${declined.body.id}`, { entityId: t.entityId })).status).toBe(400);
    expectRefusal(await submit(id), `${NO_SESSION}: its final result has already been read`);
  });

  it('registers a card after its 3-D Secure challenge, returning to the result URL with /registration', async () => {
    const id = await createRegistrationCheckout();
    const pending = await submit(id, shopperCard({ 'card.number': CHALLENGE_CARD }));
    expect(pending.status).toBe(200);
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.redirect?.url).toMatch(/\/v1\/redirects\//);
    // While the shopper is on the challenge, the read says pending and does not close the checkout.
    const waiting = await read(id);
    expect(waiting.status).toBe(200);
    expect(waiting.body.result.code).toBe('000.200.000');
    expect(waiting.body.id).toBeUndefined();
    expectRefusal(await submit(id), /in progress/);
    // The issuer's page asks the shopper to confirm a card, and shows no amount: nothing is charged.
    const challenge = await (await fetch(pending.body.redirect.url as string, { headers: { 'accept-language': 'de' } })).text();
    expect(challenge).toContain('Bestätigen Sie Ihre Karte');
    expect(challenge).not.toContain('0.00');

    const completion = await answerRedirect(pending);
    const page = await completion.text();
    expect(page).toContain(`"https://shop.example/result?order=7&id=${id}&resourcePath=%2Fv1%2Fcheckouts%2F${id}%2Fregistration"`);

    clock.advance(MINUTE);
    const registration = await read(id);
    expect(registration.status).toBe(200);
    expect(registration.body).toMatchObject({ paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0042' }, result: { code: '000.100.110' }, ndc: id });
    const stored = await t.get(`/v1/registrations/${registration.body.id}`, { entityId: t.entityId });
    expect(stored.status).toBe(200);
    const verification = await t.get(`/v1/payments/${pending.body.id}`, { entityId: t.entityId });
    expect(verification.body).toMatchObject({ paymentType: 'PA', amount: '0.00', registrationId: registration.body.id, threeDSecure: { authenticationStatus: 'Y' } });
  });

  it('throttles status reads: a third within a minute is 800.120.100, allowed again a minute later', async () => {
    const id = await createRegistrationCheckout();
    // Limits count in the clock's minutes (throttling/counters.ts): start at one.
    clock.advance(MINUTE - (clock.now().getTime() % MINUTE));
    expect((await read(id)).status).toBe(200);
    clock.advance(30_000);
    expect((await read(id, 'payment')).status).toBe(200);
    const third = await read(id);
    expect(third.status).toBe(400);
    expect(third.body.result).toEqual({ code: '800.120.100', description: 'Rejected by Throttling. Please try again later.' });
    expect(third.body.ndc).toBe(id);
    clock.advance(MINUTE);
    expect((await read(id)).body.result.code).toBe('000.200.000');
  });

  it('expires 30 minutes after creation: the submit and the read refuse it, a registered card too', async () => {
    const open = await createRegistrationCheckout();
    const registered = await createRegistrationCheckout();
    expect((await submit(registered)).status).toBe(200);
    clock.advance(30 * MINUTE - 1000);
    expect(await findBootstrapSnapshot(t.gateway.store, open, clock.now())).toBeDefined();
    clock.advance(1000);
    expectRefusal(await submit(open), `${NO_SESSION}: the checkout expired 30 minutes after it was created`);
    expectRefusal(await read(open), NO_SESSION);
    expectRefusal(await read(registered), NO_SESSION);
    expect(await findBootstrapSnapshot(t.gateway.store, open, clock.now())).toBeUndefined();
  });

  describe('refuses, with 200.300.404 and without touching the checkout', () => {
    it('a payment submit on a registration-only checkout, and a registration submit or read on a payment checkout', async () => {
      const registrationOnly = await createRegistrationCheckout();
      expectRefusal(await submit(registrationOnly, shopperCard(), 'payment'), /registration-only.*\/registration/);
      const payment = await createPaymentCheckout();
      const wrongSubmit = await submit(payment, shopperCard(), 'registration');
      expectRefusal(wrongSubmit, /takes a payment.*\/payment/);
      expect(wrongSubmit.body.ndc).toBe(payment);
      expectRefusal(await read(payment, 'registration'), /takes a payment/);
      // Neither was used: each still takes its own submit, and the refused read was not counted.
      expect((await submit(registrationOnly)).status).toBe(200);
      expect((await submit(payment, shopperCard(), 'payment')).status).toBe(200);
      expect((await read(payment, 'payment')).body).toMatchObject({ paymentType: 'DB', amount: '92.00' });
      expect((await read(registrationOnly)).status).toBe(200);
    });

    it('on a deleted checkout, whichever endpoint: as for an unknown id', async () => {
      const registrationOnly = await createRegistrationCheckout();
      const payment = await createPaymentCheckout();
      for (const id of [registrationOnly, payment]) {
        const deleted = await fetch(`${t.url}/v1/checkouts/${id}?entityId=${t.entityId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.token}` } });
        expect(deleted.status).toBe(200);
        for (const path of ['payment', 'registration'] as const) {
          expectRefusal(await submit(id, shopperCard(), path), NO_SESSION);
          expectRefusal(await read(id, path), NO_SESSION);
        }
      }
    });

    it('an instrument other than a typed card: a redirect brand, a stored card', async () => {
      const id = await createRegistrationCheckout();
      const paypal = await submit(id, { paymentBrand: 'PAYPAL', shopperResultUrl: 'https://shop.example/result' });
      expectRefusal(paypal, 'invalid or missing parameter');
      expect(paypal.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'paymentBrand', value: 'PAYPAL' })]);
      const stored = await submit(id, { registrationId: 'c'.repeat(32), shopperResultUrl: 'https://shop.example/result' });
      expectRefusal(stored, 'invalid or missing parameter');
      expect(stored.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'registrationId' })]);
      expect((await submit(id)).status).toBe(200);
    });

    it('an amount, currency or paymentType the page sends, and an update giving the checkout a paymentType', async () => {
      const id = await createRegistrationCheckout();
      const tampered = await submit(id, shopperCard({ amount: '1.00', paymentType: 'DB' }));
      expectRefusal(tampered, 'invalid or missing parameter');
      expect((tampered.body.result.parameterErrors as { name: string }[]).map((error) => error.name).sort()).toEqual(['amount', 'paymentType']);
      const updated = await t.post(`/v1/checkouts/${id}`, { entityId: t.entityId, paymentType: 'DB', amount: '5.00', currency: 'EUR' });
      expectRefusal(updated, 'invalid or missing parameter');
      expect(updated.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'paymentType' })]);
      expect((await t.post(`/v1/checkouts/${id}`, { entityId: t.entityId, 'customer.email': 'jane@example.com', 'customer.givenName': 'Jane', 'customer.surname': 'Jones' })).status).toBe(200);
      expect((await submit(id)).status).toBe(200);
      expect((await read(id)).body).toMatchObject({ customer: { email: 'jane@example.com' } });
    });
  });

  it('never stores or logs card numbers and security codes of a registration submit', async () => {
    const id = await createRegistrationCheckout();
    await submit(id, shopperCard({ 'card.holder': '800.100.151' }));
    await submit(id, shopperCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER', 'card.cvv': '862' }));
    const rows = await t.gateway.store.query<{ row: string }>(
      `SELECT row_to_json(c)::text AS row FROM checkouts c WHERE id = $1
       UNION ALL SELECT row_to_json(p)::text FROM payments p WHERE checkout_id = $1
       UNION ALL SELECT row_to_json(r)::text FROM registrations r WHERE checkout_id = $1`,
      [id],
    );
    expect(rows.rows.length).toBeGreaterThanOrEqual(4);
    for (const text of [...rows.rows.map((row) => row.row), ...t.logLines]) {
      for (const secret of [...CARD_NUMBERS, `"${SHOPPER_CVV}"`, '"862"', 'card.cvv']) expect(text).not.toContain(secret);
    }
  });
});
