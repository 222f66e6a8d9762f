import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setShopperResultUrlBase } from '../merchants/repository.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { BROWSER_DATA, cardPayment, CIT_INITIAL, MIT_REPEATED, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { createWebhook } from '../webhooks/service.ts';
import { runCli } from '../cli/index.ts';
import { lastUseExpiringAt } from './triggers.ts';
import { expiryOf } from '../registrations/storedCards.ts';

warnIfPostgresSkipped('control/triggers.test.ts');

/**
 * Issue 36: a CI test makes any event happen on its own objects (POST /test/v1/triggers/{name}) and reads everything
 * the gateway sent (GET /test/v1/sent). Each trigger goes through the flow the event goes through when it comes by
 * itself, so what the shop sees — the payment's state, the events, the webhooks — is what it will see in production.
 * (The upstream's notification, which needs a connector to a provider, is tried in acquirers/opp/connector.test.ts.)
 */

describe.each(STORE_KINDS)('triggers and what was sent, on %s', (kind) => {
  let t: TestGateway;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestGateway(kind, { testControlApi: true });
    await setShopperResultUrlBase(t.gateway.store, t.entityId, `${receiver.url}/`);
    await createWebhook(t.gateway.webhooks.services, t.entityId, { url: `${receiver.url}/hook`, secret: randomBytes(32).toString('hex'), types: ['PAYMENT', 'SCHEDULE', 'REGISTRATION'] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const trigger = (name: string, params: Record<string, string> = {}) => t.post(`/test/v1/triggers/${name}`, params, { token: null });
  const sent = (query: Record<string, string> = {}) => t.get('/test/v1/sent', query, { token: null });
  const pay = async (overrides: Record<string, string> = {}): Promise<string> => {
    const paid = await t.post('/v1/payments', cardPayment(t.entityId, overrides));
    expect(paid.status).toBe(200);
    return paid.body.id as string;
  };
  const codeOf = async (id: string) => (await t.get(`/v1/payments/${id}`, { entityId: t.entityId })).body.result.code as string;
  const eventsOf = (answer: ApiResponse) => (answer.body.events as { type: string; action: string; resourceId: string }[]).map((event) => `${event.type} ${event.action} ${event.resourceId}`);

  it('charges back a payment with the shop’s reason and reverses it, each answering the operation and its events, its webhook delivered', async () => {
    const id = await pay({ amount: '40.00' });
    const chargeback = await trigger('chargeback', { paymentId: id, amount: '15.00', reasonCode: '000.100.203' });
    expect(chargeback.status).toBe(200);
    const made = chargeback.body.caused.chargeback;
    expect(made).toMatchObject({ paymentType: 'CB', referencedId: id, amount: '15.00', currency: 'EUR', result: { code: '000.100.203' } });
    expect(eventsOf(chargeback)).toContain(`PAYMENT CREATED ${made.id}`);
    // The webhook went out in the same call (what fell due ran): readable, decrypted, with the receiver's answer.
    const delivered = await sent({ paymentId: id, kind: 'webhook' });
    expect(delivered.body.sent).toContainEqual(
      expect.objectContaining({ kind: 'webhook', resourceId: made.id, notification: expect.objectContaining({ type: 'PAYMENT', payload: expect.objectContaining({ id: made.id, paymentType: 'CB' }) }), answer: expect.objectContaining({ httpStatus: 200 }) }),
    );

    const reversal = await trigger('chargeback-reversal', { paymentId: id });
    expect(reversal.status).toBe(200);
    expect(reversal.body.caused.reversal).toMatchObject({ paymentType: 'CR', referencedId: made.id, amount: '15.00' });
    // The gateway's own rules still hold: more than was paid is refused, and says so.
    const tooMuch = await trigger('chargeback', { paymentId: id, amount: '41.00' });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.caused.chargeback.result.code).toBe('700.300.500');
  });

  it('answers the provider’s word on payments that wait: approval, decline, expiry — once', async () => {
    const waiting = async () => (await t.post('/v1/payments', { entityId: t.entityId, amount: '25.50', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PREPAYMENT', shopperResultUrl: `${receiver.url}/back` })).body.id as string;
    const [approved, declined, expired] = [await waiting(), await waiting(), await waiting()];
    expect(await codeOf(approved)).toBe('000.200.000');
    expect((await trigger('async-approval', { paymentId: approved })).body.caused.payment.result.code).toBe('000.100.110');
    expect((await trigger('async-decline', { paymentId: declined })).body.caused.payment.result.code).toBe('800.100.100');
    const timedOut = await trigger('async-expiry', { paymentId: expired });
    expect(timedOut.body.caused.payment.result.code).toBe('100.396.103');
    expect(eventsOf(timedOut)).toContain(`PAYMENT UPDATED ${expired}`);
    const again = await trigger('async-approval', { paymentId: expired });
    expect([again.status, again.body.result.description]).toEqual([409, expect.stringContaining('final already')]);
    // A card payment waits for nothing a provider says.
    expect((await trigger('async-approval', { paymentId: await pay() })).status).toBe(404);
  });

  it('re-sends a payment’s webhook, and lists every attempt with what the receiver answered', async () => {
    const flush = () => t.post('/test/v1/clock', { advanceSeconds: '1' }, { token: null });
    await flush();
    receiver.answer('/hook', 503);
    const id = await pay();
    await flush();
    const resent = await trigger('webhook-resend', { paymentId: id });
    expect(resent.status).toBe(200);
    const attempts = (await sent({ paymentId: id, kind: 'webhook' })).body.sent as { deliveryId: string; answer: { httpStatus: number } }[];
    // Newest first: the re-send the receiver took, then the first attempt it refused.
    expect(attempts.map((attempt) => attempt.answer.httpStatus)).toEqual([200, 503]);
    expect(new Set(attempts.map((attempt) => attempt.deliveryId))).toEqual(new Set([resent.body.caused.deliveryId]));
  });

  it('expires a checkout now: the merchant’s read answers as the platform does, the shopper’s submit says it expired', async () => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB' });
    const id = created.body.id as string;
    const expired = await trigger('checkout-expiry', { checkoutId: id });
    expect(expired.status).toBe(200);
    // The merchant's status read gives the platform's words; the shopper's submit says why.
    const status = await t.get(`/v1/checkouts/${id}/payment`, { entityId: t.entityId });
    expect(status.body.result).toMatchObject({ code: '200.300.404', description: 'No payment session found for the requested id' });
    const paid = await t.post(`/v1/checkouts/${id}/payment`, testCard(), { token: null });
    expect([paid.status, paid.body.result.description]).toEqual([400, expect.stringContaining('expired')]);
  });

  it('fires a schedule now and expires a registration now, each with the payments and refusals that follow', async () => {
    const initial = await t.post('/v1/payments', { ...cardPayment(t.entityId), createRegistration: 'true', ...CIT_INITIAL });
    const registrationId = initial.body.registrationId as string;
    const schedule = await t.post('/scheduling/v1/schedules', { entityId: t.entityId, registrationId, amount: '12.50', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 9 1 * ? *', ...MIT_REPEATED });
    expect(schedule.status).toBe(200);
    const fired = await trigger('schedule-fire', { scheduleId: schedule.body.id });
    expect(fired.status).toBe(200);
    const executed = (fired.body.events as { type: string; action: string; payload?: unknown; resourceId: string }[]).filter((event) => event.type === 'PAYMENT');
    expect(executed).toHaveLength(1);
    expect(await codeOf(executed[0]?.resourceId as string)).toBe('000.100.110');
    // Its next fire is the expression's again: the 1st of a month at 09:00.
    const next = await t.gateway.store.query<{ next_fire_at: Date }>('SELECT next_fire_at FROM schedules WHERE id = $1', [schedule.body.id]);
    const nextFire = new Date(next.rows[0]?.next_fire_at as Date);
    expect([nextFire.getUTCDate(), nextFire.getUTCHours(), nextFire.getTime() > Date.now()]).toEqual([1, 9, true]);

    const expiry = await trigger('registration-expiry', { registrationId });
    expect(expiry.status).toBe(200);
    const refused = await t.post('/v1/payments', { entityId: t.entityId, amount: '3.00', currency: 'EUR', paymentType: 'DB', registrationId, ...MIT_REPEATED });
    expect(refused.body.result.code).toBe('100.150.203');
  });

  it('runs the day’s settlement and answers the batches and the reconciliation file that carries the payment', async () => {
    const id = await pay({ amount: '31.00' });
    const settled = await trigger('settlement', { entityId: t.entityId });
    expect(settled.status).toBe(200);
    const [file] = settled.body.caused.files as { name: string; records: number; content: string; upload: string }[];
    expect(file?.name).toMatch(new RegExp(`^${t.entityId}_\\d{8}\\.csv$`));
    expect(file?.content).toContain(id);
    expect(file?.upload).toBe('no FTP settings');
    expect(settled.body.caused.batches).toContainEqual(expect.objectContaining({ entityId: t.entityId }));
    // Settled once: the same day again settles nothing new.
    const again = await trigger('settlement', { entityId: t.entityId });
    expect(again.body.caused.files[0].content).toContain(id);
  });

  it('lists the pages shoppers were sent to and back from, and the checkout calls, filtered by payment', async () => {
    const challenged = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000018', shopperResultUrl: `${receiver.url}/back`, ...BROWSER_DATA }));
    expect(challenged.body.redirect).toBeDefined();
    const redirects = (await sent({ paymentId: challenged.body.id })).body.sent;
    expect(redirects).toEqual([expect.objectContaining({ kind: 'redirect', paymentId: challenged.body.id, page: 'threeDSecure', outcome: null, returnUrl: expect.stringContaining(`${receiver.url}/back`) })]);
  });

  it('does the same from the command line, against the running gateway at GATEWAY_URL', async () => {
    const cli = (...args: string[]) => runCli(args, { env: { GATEWAY_URL: t.url }, progress: () => undefined });
    const id = await pay({ amount: '18.00' });
    const charged = await cli('trigger', 'chargeback', '--paymentId', id, '--amount=5.00');
    expect(charged.exitCode, charged.stderr).toBe(0);
    expect(JSON.parse(charged.stdout).caused.chargeback).toMatchObject({ paymentType: 'CB', referencedId: id, amount: '5.00' });
    const listed = await cli('sent', '--paymentId', id, '--kind', 'webhook');
    expect((JSON.parse(listed.stdout).sent as { resourceId: string }[]).some((item) => item.resourceId === JSON.parse(charged.stdout).caused.chargeback.id)).toBe(true);
    const moved = await cli('clock', 'advance', '60');
    expect(JSON.parse(moved.stdout)).toMatchObject({ steppedSeconds: 60 });
    expect(JSON.parse((await cli('clock', 'reset')).stdout)).toMatchObject({ advancedSeconds: 0 });
    // Refusals exit 1 with the gateway's words.
    const refused = await cli('trigger', 'chargeback', '--paymentId', 'nope');
    expect([refused.exitCode, refused.stderr]).toEqual([1, expect.stringContaining('paymentId')]);
    const elsewhere = await runCli(['clock'], { env: { GATEWAY_URL: 'http://127.0.0.1:9' }, progress: () => undefined });
    expect([elsewhere.exitCode, elsewhere.stderr]).toEqual([1, expect.stringContaining('GATEWAY_URL')]);
  });

  it('refuses what names nothing, clearly: an unknown trigger (404), a malformed id (400, named), an unknown payment (404), a notification no provider would send (409)', async () => {
    const unknown = await trigger('no-such-event');
    expect([unknown.status, unknown.body.result.description]).toEqual([404, expect.stringContaining('chargeback')]);
    const malformed = await trigger('chargeback', { paymentId: 'x' });
    expect([malformed.status, malformed.body.result.parameterErrors?.[0]?.name]).toEqual([400, 'paymentId']);
    expect((await trigger('chargeback', { paymentId: '0'.repeat(32) })).status).toBe(404);
    // No provider speaks for a payment the simulated acquirer made: its notification is refused.
    const simulated = await trigger('upstream-notification', { paymentId: await pay() });
    expect([simulated.status, simulated.body.result.description]).toEqual([409, expect.stringContaining('not a connector')]);
    expect((await sent({ kind: 'email' })).status).toBe(400);
    expect((await t.get('/test/v1/triggers', {}, { token: null })).body.triggers).toContain('settlement');
  });
});

describe('a registration’s last use that makes it expire now', () => {
  it('is at most now, whatever month the day falls in', () => {
    for (const now of ['2026-03-31T10:00:00Z', '2026-12-08T00:00:00Z', '2028-02-29T23:59:59Z']) {
      for (const months of [1, 13, 36]) {
        const lastUse = lastUseExpiringAt(new Date(now), months);
        const expiry = expiryOf({ lastUsedAt: lastUse }, months).getTime();
        expect(expiry).toBeLessThanOrEqual(Date.parse(now));
        expect(Date.parse(now) - expiry).toBeLessThan(4 * 86_400_000);
      }
    }
  });
});
