import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_NOTIFICATION } from '../checkouts/callbacks.ts';
import { findJobByKey } from '../jobs/repository.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  startTestGateway,
  STORE_KINDS,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestGateway,
} from '../testing/harness.ts';
import { eventsOf, type StoredEvent } from './outbox.ts';

warnIfPostgresSkipped('events.test.ts');

/**
 * The outbox seen from the API: every change a merchant can cause through HTTP leaves exactly one event, with the
 * resource as the API shows it, and the jobs the event causes exist as soon as the event does.
 */

const summary = (events: readonly StoredEvent[]): string[] => events.map((event) => `${event.type} ${event.action}`);
const codeOf = (event: StoredEvent | undefined): unknown => (event?.payload.result as { code?: string } | undefined)?.code;

describe.each(STORE_KINDS)('events of API calls on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, {}, { now: createTestClock().now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const events = (id: string) => eventsOf(t.gateway.store, id);

  it('an approved and a declined payment: one PAYMENT CREATED each, carrying the payment as answered', async () => {
    const approved = await t.post('/v1/payments', cardPayment(t.entityId));
    const declined = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.holder': '800.100.151' }));
    expect(approved.body.result.code).toBe('000.100.110');
    expect(declined.body.result.code).toBe('800.100.151');
    for (const answer of [approved, declined]) {
      const stored = await events(answer.body.id);
      expect(summary(stored)).toEqual(['PAYMENT CREATED']);
      expect(stored[0]?.entityId).toBe(t.entityId);
      expect(stored[0]?.payload).toMatchObject({ id: answer.body.id, paymentType: 'DB', amount: answer.body.amount, result: { code: answer.body.result.code } });
      expect(stored[0]?.payload.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\+0000$/);
      expect(stored[0]?.payload.ndc).toBe(answer.body.ndc);
      expect(JSON.stringify(stored[0]?.payload)).not.toContain('4200000000000000');
    }
  });

  it('a 3-D Secure challenge: CREATED while pending, UPDATED once when the shopper answers, nothing on a repeated answer', async () => {
    const pending = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }));
    expect(pending.body.result.code).toBe('000.200.000');
    expect(summary(await events(pending.body.id))).toEqual(['PAYMENT CREATED']);

    expect((await answerRedirect(pending)).status).toBe(200);
    await answerRedirect(pending);
    const stored = await events(pending.body.id);
    expect(summary(stored)).toEqual(['PAYMENT CREATED', 'PAYMENT UPDATED']);
    expect([codeOf(stored[0]), codeOf(stored[1])]).toEqual(['000.200.000', '000.100.110']);
  });

  it('back office: each capture, refund and reversal is a PAYMENT CREATED of its own; a refused one too, the parent gets none', async () => {
    const authorization = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
    const operate = (params: Record<string, string>) => t.post(`/v1/payments/${authorization.body.id}`, { entityId: t.entityId, currency: 'EUR', ...params });
    const capture = await operate({ paymentType: 'CP', amount: '50.00' });
    const tooMuch = await operate({ paymentType: 'CP', amount: '500.00' });
    const refund = await t.post(`/v1/payments/${capture.body.id}`, { entityId: t.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' });
    expect([capture.body.result.code, refund.body.result.code]).toEqual(['000.100.110', '000.100.110']);
    expect(tooMuch.body.result.code).toMatch(/^700\./);
    for (const child of [capture, tooMuch, refund]) {
      const stored = await events(child.body.id);
      expect(summary(stored)).toEqual(['PAYMENT CREATED']);
      expect(codeOf(stored[0])).toBe(child.body.result.code);
    }
    expect(summary(await events(authorization.body.id))).toEqual(['PAYMENT CREATED']);
  });

  it('a payment that stores the card: REGISTRATION CREATED for the registration, PAYMENT CREATED for the payment', async () => {
    const answer = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }));
    expect(answer.body.registrationId).toMatch(/^[0-9a-f]{32}$/);
    const registration = await events(answer.body.registrationId);
    expect(summary(registration)).toEqual(['REGISTRATION CREATED']);
    expect(registration[0]?.payload).toMatchObject({ id: answer.body.registrationId, paymentBrand: 'VISA', card: { last4Digits: '0000' } });
    expect(summary(await events(answer.body.id))).toEqual(['PAYMENT CREATED']);
  });

  it('a repeated Idempotency-Key adds no event', async () => {
    const send = () => t.post('/v1/payments', cardPayment(t.entityId), { headers: { 'Idempotency-Key': 'events-once' } });
    const first: ApiResponse = await send();
    await send();
    expect(summary(await events(first.body.id))).toEqual(['PAYMENT CREATED']);
  });

  it("a checkout's payment: its event and its notificationUrl call are committed together", async () => {
    const checkout = await t.post('/v1/checkouts', {
      entityId: t.entityId,
      amount: '12.00',
      currency: 'EUR',
      paymentType: 'DB',
      notificationUrl: 'https://shop.example/notify',
    });
    const paid = await t.post(`/v1/checkouts/${checkout.body.id}/payment`, testCard(), { token: null });
    expect(paid.body.result.code).toBe('000.100.110');
    const stored = await events(paid.body.id);
    expect(summary(stored)).toEqual(['PAYMENT CREATED']);
    // COMPAT §13: a checkout's payment carries the checkout's id as its ndc, receivers' fallback lookup key.
    expect(stored[0]?.payload.ndc).toBe(checkout.body.id);
    const job = await findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${paid.body.id}`);
    expect(job?.payload).toEqual({ checkoutId: checkout.body.id, url: 'https://shop.example/notify' });
  });
});
