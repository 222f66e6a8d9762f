import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dashboardClient } from '../testing/dashboardClient.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { CIT_INITIAL, cardPayment, createTestClock, MIT_REPEATED, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { unmaskedCardNumbers } from '../testing/routeTable.ts';
import { startNodeReceiver, type NodeReceiver } from '../testing/webhookReceivers.ts';
import { createOperator } from './operators.ts';

/**
 * The dashboard's registrations, schedules and webhooks over a real socket (cookies, CSRF, Origin): the lists newest
 * first and paged, what they show (never a card number, an IBAN in clear or a webhook's secret), cancelling a
 * schedule and creating, testing and re-sending webhooks through the API's own use-cases against a real receiver on
 * loopback, what a merchant may see and do (its own entity only), and the record of every action.
 */

warnIfPostgresSkipped('the dashboard records API test');

const PASSWORD = 'correct horse battery staple';
const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const IBAN = 'DE23100000001234567890';
const IBAN_MASKED = 'DE2310************7890';
const DAY_MS = 24 * 60 * 60_000;

describe.each(STORE_KINDS)('the dashboard records API on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let other: { entityId: string; token: string };
  const receivers: NodeReceiver[] = [];

  beforeAll(async () => {
    clock = createTestClock(new Date('2026-06-01T09:30:00Z'));
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    // A lifetime of one month: a registration left alone for 32 days has expired.
    t = await startTestGateway(kind, { limits, registrationLifetimeMonths: 1 }, { now: clock.now });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call, signIn, signInMerchant } = dashboardClient(() => t.url);


  const operator = () => signIn({ operator: 'olivia', password: PASSWORD });
  // A merchant's admin (a merchant user of the entity the token acts for).
  const merchant = (token = t.token) => signInMerchant(t.gateway.store, token);

  const actions = async (action: string) =>
    (
      await t.gateway.store.query<{ actor: string; entity_id: string; payment_id: string | null; detail: Record<string, any>; result_code: string | null }>(
        'SELECT actor, entity_id, payment_id, detail, result_code FROM dashboard_actions WHERE action = $1 ORDER BY id',
        [action],
      )
    ).rows;

  /** A card stored by a cardholder-initiated INITIAL payment: what a schedule charges. */
  const storedCard = async (entityId = t.entityId, token = t.token): Promise<string> => {
    const initial = await t.post('/v1/payments', { entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard(), ...CIT_INITIAL }, { token });
    expect(initial.status, JSON.stringify(initial.body)).toBe(200);
    return initial.body.registrationId as string;
  };
  const schedule = async (registrationId: string, overrides: Record<string, string> = {}, entityId = t.entityId, token = t.token): Promise<string> => {
    const made = await t.post(
      '/scheduling/v1/schedules',
      { entityId, registrationId, amount: '12.50', currency: 'EUR', paymentType: 'DB', ...MIT_REPEATED, 'job.second': '0', 'job.minute': '0', 'job.hour': '10', 'job.dayOfMonth': '1', 'job.month': '*', ...overrides },
      { token },
    );
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    return made.body.id as string;
  };

  it('lists stored cards and bank accounts newest first, 50 a page, masked, active, deleted or expired', async () => {
    const old = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard({ 'card.holder': 'Old Timer' }) });
    expect(old.status).toBe(200);
    clock.advance(32 * DAY_MS);
    const made: string[] = [];
    for (let index = 0; index < 50; index++) {
      clock.advance(1000);
      const registered = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER', 'card.expiryMonth': '11' }) });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);
      made.push(registered.body.id as string);
    }
    clock.advance(1000);
    const account = await t.post('/v1/registrations', { entityId: t.entityId, paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': IBAN, 'bankAccount.mandate.id': 'MANDATE-JONES' });
    expect(account.status, JSON.stringify(account.body)).toBe(200);
    clock.advance(1000);
    const deleted = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), merchantTransactionId: 'card-to-forget' });
    expect((await t.delete(`/v1/registrations/${deleted.body.id as string}`, { entityId: t.entityId })).status).toBe(200);
    const theirs = await t.post('/v1/registrations', { entityId: other.entityId, ...testCard() }, { token: other.token });

    const browser = await merchant();
    const first = await call(browser, 'GET', '/registrations');
    expect(first.status, first.text).toBe(200);
    expect(first.body.registrations).toHaveLength(50);
    expect(first.body.registrations[0]).toEqual({
      id: deleted.body.id,
      entityId: t.entityId,
      paymentBrand: 'VISA',
      // A deleted registration keeps its BIN and last 4, not its holder or expiry (docs/decisions.md).
      card: { bin: '420000', last4Digits: '0000' },
      status: 'deleted',
      merchantTransactionId: 'card-to-forget',
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      deletedAt: clock.now().toISOString(),
    });
    expect(first.body.registrations[1]).toEqual({
      id: account.body.id,
      entityId: t.entityId,
      paymentBrand: 'DIRECTDEBIT_SEPA',
      bankAccount: { holder: 'Jane Jones', iban: IBAN_MASKED, country: 'DE', mandateId: 'MANDATE-JONES' },
      status: 'active',
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      expiresAt: expect.stringMatching(/^2026-08-0/),
    });
    expect(first.body.registrations[2]).toMatchObject({ id: made[49], paymentBrand: 'MASTER', card: { bin: '545454', last4Digits: '5454', expiryMonth: '11' }, status: 'active' });
    const second = await call(browser, 'GET', `/registrations?cursor=${first.body.nextCursor as string}`);
    expect(second.body.registrations.map((row: { id: string; status: string }) => `${row.id} ${row.status}`)).toEqual([`${made[1]} active`, `${made[0]} active`, `${old.body.id as string} expired`]);
    expect(second.body.nextCursor).toBeUndefined();
    for (const answer of [first, second]) {
      expect(unmaskedCardNumbers(answer.text)).toEqual([]);
      expect(answer.text).not.toContain(IBAN);
      expect(answer.text).not.toContain(theirs.body.id);
    }

    // The operator sees every entity's, or one entity's; a merchant another entity's never.
    const everyone = await call(await operator(), 'GET', `/registrations?entityId=${other.entityId}`);
    expect(everyone.body.registrations.map((row: { id: string }) => row.id)).toEqual([theirs.body.id]);
    expect((await call(browser, 'GET', `/registrations?entityId=${other.entityId}`)).status).toBe(403);
    const wrong = await call(browser, 'GET', '/registrations?entityId=nope&cursor=nope&colour=red');
    expect(wrong.status).toBe(400);
    expect(wrong.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['colour', 'cursor', 'entityId']);
    expect((await call({}, 'GET', '/registrations')).status).toBe(401);
  });

  it("lists schedules with their job, payment and next fire time, and cancels one with the API's rules, recorded", async () => {
    const registrationId = await storedCard();
    const monthly = await schedule(registrationId, { merchantTransactionId: 'gym-0042', 'job.name': 'monthly' });
    clock.advance(1000);
    const weekly = await schedule(registrationId, { 'job.dayOfMonth': '?', 'job.dayOfWeek': 'MON', amount: '3.00' });
    const theirs = await schedule(await storedCard(other.entityId, other.token), {}, other.entityId, other.token);

    const browser = await merchant();
    const listed = await call(browser, 'GET', '/schedules');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.schedules.map((row: { id: string }) => row.id)).toEqual([weekly, monthly]);
    expect(listed.body.schedules[1]).toEqual({
      id: monthly,
      entityId: t.entityId,
      registrationId,
      registration: { paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0000' }, deleted: false },
      status: 'active',
      paymentType: 'DB',
      amount: '12.50',
      currency: 'EUR',
      merchantTransactionId: 'gym-0042',
      job: { name: 'monthly', second: '0', minute: '0', hour: '10', dayOfMonth: '1', month: '*', dayOfWeek: '?', year: '*', expression: '0 0 10 1 * ? *' },
      nextFireAt: '2026-08-01T10:00:00.000Z',
      startAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(listed.body.schedules[0]).toMatchObject({ amount: '3.00', job: { dayOfWeek: 'MON', expression: '0 0 10 ? * MON *' }, nextFireAt: '2026-07-06T10:00:00.000Z' });

    // Another entity's schedule is unknown to a merchant, as the API answers it (400 700.400.580), and stays active.
    const foreign = await call(browser, 'POST', `/schedules/${theirs}/cancel`, {});
    expect(foreign.status).toBe(400);
    expect(foreign.body.result.code).toBe('700.400.580');
    expect((await call(browser, 'GET', `/schedules?entityId=${other.entityId}`)).status).toBe(403);
    // Without the CSRF token nothing is cancelled.
    expect((await call({ cookie: browser.cookie }, 'POST', `/schedules/${monthly}/cancel`, {})).status).toBe(403);

    const cancelled = await call(browser, 'POST', `/schedules/${monthly}/cancel`, {});
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.schedule).toMatchObject({ id: monthly, status: 'cancelled', cancelReason: 'merchant', cancelledAt: clock.now().toISOString() });
    expect(cancelled.body.schedule.nextFireAt).toBeUndefined();
    const again = await call(await operator(), 'POST', `/schedules/${monthly}/cancel`, {});
    expect(again.status).toBe(400);
    // The API's own refusal of a closed schedule.
    expect(again.body.result.code).toBe((await t.delete(`/scheduling/v1/schedules/${monthly}`, { entityId: t.entityId })).body.result.code);
    expect(again.body.result.code).toBe('100.350.101');
    const events = await t.gateway.store.query<{ action: string }>("SELECT action FROM events WHERE type = 'SCHEDULE' AND resource_id = $1 ORDER BY id", [monthly]);
    expect(events.rows.map((row) => row.action)).toEqual(['CREATED', 'DELETED']);

    expect((await call(browser, 'GET', '/schedules?status=cancelled')).body.schedules.map((row: { id: string }) => row.id)).toEqual([monthly]);
    expect((await call(browser, 'GET', '/schedules?status=active')).body.schedules.map((row: { id: string }) => row.id)).toEqual([weekly]);
    const everyone = await call(await operator(), 'GET', '/schedules?status=active');
    expect(everyone.body.schedules.map((row: { id: string }) => row.id)).toEqual(expect.arrayContaining([weekly, theirs]));
    const wrong = await call(browser, 'GET', '/schedules?status=paused');
    expect(wrong.status).toBe(400);
    expect(wrong.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'status' })]);

    expect(await actions('cancel schedule')).toEqual([
      { actor: `user admin@${t.entityId}.test (Test merchant)`, entity_id: t.entityId, payment_id: null, detail: { scheduleId: monthly }, result_code: '000.000.000' },
      { actor: 'operator olivia', entity_id: t.entityId, payment_id: null, detail: { scheduleId: monthly }, result_code: '100.350.101' },
    ]);
    // An operator's cancellation says so, not "by the merchant".
    const byOperator = await call(await operator(), 'POST', `/schedules/${theirs}/cancel`, {});
    expect(byOperator.body.schedule).toMatchObject({ id: theirs, status: 'cancelled', cancelReason: 'operator' });
  });

  it('creates, tests and lists webhooks and their deliveries, re-sends one, never shows a secret, and records each action', async () => {
    const answering = await startNodeReceiver(SECRET, 200);
    const late = await startNodeReceiver(SECRET, [500, 200]);
    receivers.push(answering, late);
    const browser = await merchant();

    const created = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: answering.url, types: ['PAYMENT'], wrapper: 'JSON', secret: SECRET });
    expect(created.status, created.text).toBe(200);
    expect(created.body.webhook).toMatchObject({ entityId: t.entityId, url: answering.url, types: ['PAYMENT'], wrapper: 'JSON', fields: 'ALL', status: 'active' });
    expect(created.body.activation).toEqual({ delivered: true, httpStatus: 200, error: null });
    expect(answering.received.map((request) => (request.json as { type: string }).type)).toEqual(['test']);
    const webhookId = created.body.webhook.id as string;

    // A receiver that fails the activation: pending, until a test gets its 2xx.
    clock.advance(1000);
    const pending = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: late.url, secret: SECRET });
    expect(pending.body.webhook).toMatchObject({ status: 'pending', types: ['PAYMENT', 'REGISTRATION', 'SCHEDULE', 'RISK'] });
    expect(pending.body.activation).toEqual({ delivered: false, httpStatus: 500, error: 'answered HTTP 500' });
    const tested = await call(browser, 'POST', `/webhooks/${pending.body.webhook.id as string}/test`, {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body).toMatchObject({ webhook: { status: 'active' }, activation: { delivered: true, httpStatus: 200 } });

    // Without a secret the gateway generates one, shown in this answer only (checked below: no other shows it).
    clock.advance(1000);
    const generated = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: `${answering.url}?generated` });
    expect(generated.status).toBe(200);
    expect(generated.body.secret).toMatch(/^[0-9a-f]{64}$/i);
    expect(generated.body.webhook).toMatchObject({ status: 'pending' });

    // The use-case's refusals, named.
    const refused = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: 'ftp://shop.example/hook', types: ['PAYMENT', 'REFUND'], secret: 'short-secret' });
    expect(refused.status).toBe(400);
    expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'url', value: '' })]);
    const badSecret = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: answering.url, secret: 'not-a-secret-but-private' });
    expect(badSecret.body.result.parameterErrors).toEqual([{ name: 'secret', value: '', message: 'must be 64 hexadecimal characters' }]);
    expect(badSecret.text).not.toContain('not-a-secret-but-private');
    const badTypes = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url: answering.url, types: ['REFUND'] });
    expect(badTypes.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'types' })]);
    expect((await call(browser, 'POST', '/webhooks', { url: answering.url })).body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'entityId' })]);

    // A payment: a delivery to each active webhook; the gateway sends it.
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    await t.gateway.webhooks.deliveries.runDueJobs();
    await answering.waitFor(2);
    const deliveries = await call(browser, 'GET', `/webhooks/${webhookId}/deliveries`);
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.body.deliveries).toEqual([
      expect.objectContaining({ type: 'PAYMENT', action: 'CREATED', resourceId: paid.body.id, state: 'delivered', attempts: [expect.objectContaining({ httpStatus: 200, error: null })] }),
    ]);
    const deliveryId = deliveries.body.deliveries[0].id as string;

    const resent = await call(browser, 'POST', `/deliveries/${deliveryId}/resend`, {});
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body).toMatchObject({ deliveryId, webhookId, resend: 'scheduled' });
    await t.gateway.webhooks.deliveries.runDueJobs();
    await answering.waitFor(3);
    expect((answering.received[2]?.json as { payload?: { id?: string } }).payload?.id).toBe(paid.body.id);
    const after = await call(browser, 'GET', `/webhooks/${webhookId}/deliveries?limit=10`);
    expect(after.body.deliveries[0].attempts).toHaveLength(2);
    expect(after.body.actions.map((action: { action: string }) => action.action)).toEqual(['create webhook', 'resend delivery']);
    expect((await call(browser, 'GET', `/webhooks/${webhookId}/deliveries?limit=0&since=today`)).body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual([
      'since',
      'limit',
    ]);

    const listed = await call(browser, 'GET', '/webhooks');
    expect(listed.body.webhooks.map((webhook: { id: string; status: string }) => `${webhook.id} ${webhook.status}`)).toEqual([
      `${webhookId} active`,
      `${pending.body.webhook.id as string} active`,
      `${generated.body.webhook.id as string} pending`,
    ]);
    const sealed = await t.gateway.store.query<{ keyId: string; iv: string; tag: string; data: string }>(
      'SELECT v.key_id AS "keyId", v.iv, v.tag, v.data FROM vault_items v JOIN webhooks w ON w.secret_id = v.id WHERE w.id = $1',
      [generated.body.webhook.id],
    );
    const generatedSecret = t.gateway.webhooks.services.vault.open<string>(sealed.rows[0]!);
    expect(generated.body.secret.toUpperCase()).toBe(generatedSecret.toUpperCase());
    expect(created.body.secret).toBeUndefined();
    for (const answer of [created, pending, tested, refused, deliveries, after, listed]) {
      expect(answer.text).not.toContain(SECRET);
      expect(answer.text.toUpperCase()).not.toContain(generatedSecret.toUpperCase());
      expect(answer.text).not.toMatch(/secretId|secret_id/);
    }

    const recorded = await actions('create webhook');
    expect(recorded.map((row) => row.result_code)).toEqual(['000.000.000', '000.000.000', '000.000.000', '200.300.404', '200.300.404', '200.300.404']);
    expect(recorded[0]).toMatchObject({ entity_id: t.entityId, detail: { url: answering.url, types: ['PAYMENT'], wrapper: 'JSON', secretGiven: true, webhookId, delivered: true, httpStatus: 200 } });
    expect(recorded[2]?.detail).toMatchObject({ secretGiven: false, delivered: false });
    expect(JSON.stringify(recorded)).not.toContain(SECRET);
    expect(JSON.stringify(recorded)).not.toContain('not-a-secret-but-private');
    expect(await actions('test webhook')).toEqual([expect.objectContaining({ detail: { webhookId: pending.body.webhook.id, delivered: true, httpStatus: 200 }, result_code: '000.000.000' })]);
    expect(await actions('resend delivery')).toEqual([expect.objectContaining({ detail: { webhookId, deliveryId }, result_code: '000.000.000' })]);
  });

  it("never shows a merchant another entity's webhooks or deliveries, nor lets it act on them; an operator may", async () => {
    const receiver = await startNodeReceiver(SECRET, 200);
    receivers.push(receiver);
    const stranger = await merchant(other.token);
    const mine = await merchant();
    const made = await call(mine, 'POST', '/webhooks', { entityId: t.entityId, url: receiver.url, secret: SECRET, types: ['PAYMENT'] });
    const id = made.body.webhook.id as string;
    await t.post('/v1/payments', cardPayment(t.entityId));
    const [delivery] = (await call(mine, 'GET', `/webhooks/${id}/deliveries`)).body.deliveries as { id: string }[];
    const before = receiver.received.length;

    expect((await call(stranger, 'GET', '/webhooks')).body.webhooks).toEqual([]);
    expect((await call(stranger, 'GET', `/webhooks?entityId=${t.entityId}`)).status).toBe(403);
    expect((await call(stranger, 'POST', '/webhooks', { entityId: t.entityId, url: receiver.url })).status).toBe(403);
    expect((await call(stranger, 'POST', `/webhooks/${id}/test`, {})).status).toBe(404);
    expect((await call(stranger, 'GET', `/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await call(stranger, 'POST', `/deliveries/${delivery?.id as string}/resend`, {})).status).toBe(404);
    expect((await call(stranger, 'POST', '/webhooks/not-an-id/test', {})).status).toBe(404);
    expect(receiver.received.length).toBe(before);

    const olivia = await operator();
    expect((await call(olivia, 'GET', '/webhooks')).body.webhooks.map((webhook: { id: string }) => webhook.id)).toContain(id);
    const test = await call(olivia, 'POST', `/webhooks/${id}/test`, {});
    expect(test.body.activation).toMatchObject({ delivered: true });
    expect((await actions('test webhook')).at(-1)).toMatchObject({ actor: 'operator olivia', entity_id: t.entityId });
  });
});
