import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import { dashboardAppClient } from '../testing/dashboardApp.ts';
import { cardPayment, CIT_INITIAL, MIT_REPEATED, readResponse, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { startNodeReceiver, type NodeReceiver } from '../testing/webhookReceivers.ts';
import { createOperator } from './operators.ts';

/**
 * Managing webhooks and stored cards in the dashboard (issue 34), through app.request as the page calls the API
 * (cookie, CSRF token, Origin): a webhook's address, types, data and wrapper changed, switched off and on, deleted —
 * by the webhooks feature's own use-cases (changeWebhook, removeWebhook), refused as the admin API refuses, with
 * real receivers on loopback; a stored card deleted by the registrations feature's own deletion (card erased,
 * schedules cancelled, REGISTRATION DELETED notified). A merchant touches only its own entity's webhooks and cards;
 * every change needs the session's CSRF token; every change and refusal of a use-case is recorded.
 */

warnIfPostgresSkipped('the dashboard webhook and stored card management test');

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'admin-token-of-the-dashboard-management-test-0123';
const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';

interface Action {
  actor: string;
  entity_id: string;
  detail: Record<string, unknown>;
  result_code: string | null;
}

describe.each(STORE_KINDS)('managing webhooks and stored cards in the dashboard on %s', (kind) => {
  let t: TestGateway;
  let other: { entityId: string; token: string };
  const receivers: NodeReceiver[] = [];

  beforeAll(async () => {
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway(kind, { limits, adminToken: ADMIN_TOKEN });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call, signIn, signInMerchant } = dashboardAppClient(() => ({ url: t.url, app: t.gateway.app }));
  const operator = () => signIn({ operator: 'olivia', password: PASSWORD });
  const merchant = (token = t.token) => signInMerchant(t.gateway.store, token);
  const receiver = async (behaviour: Parameters<typeof startNodeReceiver>[1] = 200) => {
    const started = await startNodeReceiver(SECRET, behaviour);
    receivers.push(started);
    return started;
  };
  const admin = async (method: string, path: string, body?: unknown) =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const actions = async (action: string): Promise<Action[]> =>
    (await t.gateway.store.query<Action>('SELECT actor, entity_id, detail, result_code FROM dashboard_actions WHERE action = $1 ORDER BY id', [action])).rows;
  const notifications = (at: NodeReceiver) => at.received.map((request) => `${(request.json as { type: string }).type} ${(request.json as { action: string }).action}`);

  const newWebhook = async (browser: Awaited<ReturnType<typeof merchant>>, url: string, more: Record<string, unknown> = {}) => {
    const made = await call(browser, 'POST', '/webhooks', { entityId: t.entityId, url, secret: SECRET, ...more });
    expect(made.status, made.text).toBe(200);
    return made.body.webhook.id as string;
  };

  it("changes a webhook's address, types, data and wrapper, switches it off and on, each with the admin API's rules, and records each change", async () => {
    const first = await receiver();
    const second = await receiver();
    const browser = await merchant();
    const id = await newWebhook(browser, first.url);

    const changed = await call(browser, 'PATCH', `/webhooks/${id}`, { types: ['PAYMENT', 'RISK'], fields: 'NON_CUSTOMER_DATA', wrapper: 'JSON' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.webhook).toMatchObject({ id, url: first.url, types: ['PAYMENT', 'RISK'], fields: 'NON_CUSTOMER_DATA', wrapper: 'JSON', status: 'active' });
    expect(changed.body.activation).toBeNull();

    // A new address: pending until its activation message gets a 2xx, sent at once.
    const moved = await call(browser, 'PATCH', `/webhooks/${id}`, { url: second.url });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ webhook: { url: second.url, status: 'active' }, activation: { delivered: true, httpStatus: 200, error: null } });
    expect(notifications(second)).toEqual(['test webhook activation']);

    // Off: what happens meanwhile is never sent to it. On again: its activation message first.
    const off = await call(browser, 'PATCH', `/webhooks/${id}`, { active: false });
    expect(off.body.webhook).toMatchObject({ status: 'inactive', statusReason: 'switched off by the operator' });
    await t.post('/v1/payments', cardPayment(t.entityId));
    await t.gateway.webhooks.deliveries.runDueJobs();
    expect((await call(browser, 'GET', `/webhooks/${id}/deliveries`)).body.deliveries).toEqual([]);
    const on = await call(browser, 'PATCH', `/webhooks/${id}`, { active: true });
    expect(on.body).toMatchObject({ webhook: { status: 'active', statusReason: null }, activation: { delivered: true } });
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    await t.gateway.webhooks.deliveries.runDueJobs();
    await second.waitFor(3);
    expect(notifications(second)).toEqual(['test webhook activation', 'test webhook activation', 'PAYMENT CREATED']);
    expect((second.received[2]?.json as { payload: { id: string } }).payload.id).toBe(paid.body.id);

    // Refused as the admin API refuses the same change (one set of rules), the secret never changeable nor echoed.
    for (const body of [{ url: 'ftp://shop.example/hook' }, { types: ['REFUND'] }, { types: [] }, { fields: 'SOME' }, { wrapper: 'XML' }, { active: 'no' }, { secret: SECRET }, { colour: 'red' }, 'not json']) {
      const refused = await call(browser, 'PATCH', `/webhooks/${id}`, body);
      const asAdmin = await readResponse(
        await t.gateway.app.request(`/admin/v1/webhooks/${id}`, { method: 'PATCH', headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
      );
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.result.code).toBe('200.300.404');
      expect(refused.body.result.parameterErrors, JSON.stringify(body)).toEqual(asAdmin.body.result.parameterErrors);
      expect(refused.text).not.toContain(SECRET);
    }
    expect((await call(browser, 'GET', `/webhooks/${id}/deliveries`)).body.webhook).toMatchObject({ url: second.url, types: ['PAYMENT', 'RISK'], status: 'active' });

    const recorded = await actions('change webhook');
    // The use-case's refusals are recorded (address, types twice, data, wrapper); a body that is no change is not.
    expect(recorded.map((row) => row.result_code)).toEqual(['000.000.000', '000.000.000', '000.000.000', '000.000.000', ...Array(5).fill('200.300.404')]);
    expect(recorded[0]).toMatchObject({ actor: `user admin@${t.entityId}.test (Test merchant)`, entity_id: t.entityId, detail: { webhookId: id, types: ['PAYMENT', 'RISK'], fields: 'NON_CUSTOMER_DATA', wrapper: 'JSON', status: 'active' } });
    expect(recorded[1]?.detail).toMatchObject({ webhookId: id, url: second.url, status: 'active', delivered: true, httpStatus: 200 });
    expect(recorded[2]?.detail).toEqual({ webhookId: id, active: false, status: 'inactive' });
    expect(JSON.stringify(recorded)).not.toContain(SECRET);
    // Shown on the webhook's page with the rest.
    const page = await call(browser, 'GET', `/webhooks/${id}/deliveries`);
    expect(page.body.actions.map((action: { action: string }) => action.action)).toEqual(['create webhook', ...recorded.map(() => 'change webhook')]);
  });

  it('deletes a webhook: its pending deliveries are not sent, it is unknown afterwards, the deletion is recorded', async () => {
    const at = await receiver();
    const browser = await merchant();
    const id = await newWebhook(browser, at.url, { types: ['PAYMENT'] });
    await t.post('/v1/payments', cardPayment(t.entityId));
    expect((await call(browser, 'GET', `/webhooks/${id}/deliveries`)).body.deliveries).toEqual([expect.objectContaining({ state: 'pending' })]);
    const secretId = (await t.gateway.store.query<{ secret_id: string }>('SELECT secret_id FROM webhooks WHERE id = $1', [id])).rows[0]?.secret_id;

    const deleted = await call(browser, 'DELETE', `/webhooks/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.webhook).toMatchObject({ id, url: at.url, entityId: t.entityId });
    await t.gateway.webhooks.deliveries.runDueJobs();
    expect(notifications(at)).toEqual(['test webhook activation']);
    expect((await call(browser, 'GET', `/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await call(browser, 'GET', '/webhooks')).body.webhooks.map((webhook: { id: string }) => webhook.id)).not.toContain(id);
    expect((await admin('GET', `/webhooks/${id}`)).status).toBe(404);
    // Its secret is erased from the vault.
    expect(secretId).toMatch(/^[0-9a-f]{32}$/);
    expect((await t.gateway.store.query('SELECT id FROM vault_items WHERE id = $1', [secretId])).rows).toEqual([]);

    const again = await call(browser, 'DELETE', `/webhooks/${id}`);
    expect(again.status).toBe(404);
    expect((await call(browser, 'DELETE', '/webhooks/not-a-webhook-id')).status).toBe(404);
    expect(await actions('delete webhook')).toEqual([{ actor: `user admin@${t.entityId}.test (Test merchant)`, entity_id: t.entityId, detail: { webhookId: id, url: at.url }, result_code: '000.000.000' }]);
  });

  it("lets a merchant change or delete neither another entity's webhook, nor its own without the session's CSRF token or the admin role; an operator may", async () => {
    const at = await receiver();
    const mine = await merchant();
    const stranger = await merchant(other.token);
    const id = await newWebhook(mine, at.url);
    const before = (await call(mine, 'GET', `/webhooks/${id}/deliveries`)).body.webhook;

    expect((await call(stranger, 'PATCH', `/webhooks/${id}`, { active: false })).status).toBe(404);
    expect((await call(stranger, 'PATCH', `/webhooks/${id}`, { url: 'https://attacker.example/hook' })).status).toBe(404);
    expect((await call(stranger, 'DELETE', `/webhooks/${id}`)).status).toBe(404);
    const bare = { cookie: mine.cookie as string };
    const refusedRequests: [typeof mine, Record<string, string>][] = [
      [bare, {}],
      [bare, { 'x-csrf-token': 'not-the-token' }],
      [mine, { origin: 'https://attacker.example' }],
      [mine, { 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [sent, headers] of refusedRequests) {
      expect((await call(sent, 'PATCH', `/webhooks/${id}`, { active: false }, headers)).status, JSON.stringify(headers)).toBe(403);
      expect((await call(sent, 'DELETE', `/webhooks/${id}`, undefined, headers)).status, JSON.stringify(headers)).toBe(403);
    }
    expect((await call({}, 'DELETE', `/webhooks/${id}`)).status).toBe(401);
    // Webhooks are the merchant's admin's: a viewer or a refunds user of the same entity changes none.
    for (const role of ['viewer', 'refunds'] as const) {
      const user = await signInMerchant(t.gateway.store, t.token, role);
      expect((await call(user, 'PATCH', `/webhooks/${id}`, { active: false })).status, role).toBe(403);
      expect((await call(user, 'DELETE', `/webhooks/${id}`)).status, role).toBe(403);
    }
    expect((await call(mine, 'GET', `/webhooks/${id}/deliveries`)).body.webhook).toEqual(before);
    expect(notifications(at)).toEqual(['test webhook activation']);

    const olivia = await operator();
    const off = await call(olivia, 'PATCH', `/webhooks/${id}`, { active: false });
    expect(off.body.webhook).toMatchObject({ status: 'inactive' });
    expect((await actions('change webhook')).at(-1)).toMatchObject({ actor: 'operator olivia', entity_id: t.entityId, detail: { webhookId: id, active: false } });
    expect((await call(olivia, 'DELETE', `/webhooks/${id}`)).status).toBe(200);
  });

  it("deletes a stored card with the registrations API's own deletion: the card erased, its schedule cancelled, REGISTRATION DELETED notified, recorded", async () => {
    const at = await receiver();
    const browser = await merchant();
    await newWebhook(browser, at.url, { types: ['REGISTRATION', 'SCHEDULE'] });
    const initial = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard(), ...CIT_INITIAL });
    expect(initial.status, JSON.stringify(initial.body)).toBe(200);
    const registrationId = initial.body.registrationId as string;
    const schedule = await t.post('/scheduling/v1/schedules', {
      entityId: t.entityId,
      registrationId,
      amount: '12.50',
      currency: 'EUR',
      paymentType: 'DB',
      ...MIT_REPEATED,
      'job.second': '0',
      'job.minute': '0',
      'job.hour': '10',
      'job.dayOfMonth': '1',
      'job.month': '*',
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(200);
    await t.gateway.webhooks.deliveries.runDueJobs();
    const before = at.received.length;

    const deleted = await call(browser, 'DELETE', `/registrations/${registrationId}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.registration).toMatchObject({ id: registrationId, entityId: t.entityId, status: 'deleted', card: { bin: '420000', last4Digits: '0000' }, deletedAt: expect.any(String) });
    expect(deleted.body.deregistrationId).toMatch(/^[0-9a-f]{32}$/);
    expect(deleted.text).not.toContain('4200000000000000');

    const row = await t.gateway.store.query<{ deleted_at: Date | null; sealed_card_id: string | null; deregistration_id: string | null }>(
      'SELECT deleted_at, sealed_card_id, deregistration_id FROM registrations WHERE id = $1',
      [registrationId],
    );
    expect(row.rows[0]).toMatchObject({ deleted_at: expect.anything(), sealed_card_id: null, deregistration_id: deleted.body.deregistrationId });
    const cancelled = await t.gateway.store.query<{ status: string }>('SELECT status FROM schedules WHERE id = $1', [schedule.body.id]);
    expect(cancelled.rows[0]?.status).toBe('cancelled');
    await t.gateway.webhooks.deliveries.runDueJobs();
    await at.waitFor(before + 2);
    expect(notifications(at).slice(before).sort()).toEqual(['REGISTRATION DELETED', 'SCHEDULE DELETED']);
    // The API sees it deleted, as after DELETE /v1/registrations/{id}.
    expect((await t.get(`/v1/registrations/${registrationId}`, { entityId: t.entityId })).body.result.code).toBe('100.150.202');

    // Deleted already: the use-case's refusal, recorded.
    const again = await call(browser, 'DELETE', `/registrations/${registrationId}`);
    expect(again.status).toBe(400);
    expect(again.body.result.code).toBe('100.150.202');
    expect(await actions('delete registration')).toEqual([
      { actor: `user admin@${t.entityId}.test (Test merchant)`, entity_id: t.entityId, detail: { registrationId, deregistrationId: deleted.body.deregistrationId }, result_code: '000.000.000' },
      { actor: `user admin@${t.entityId}.test (Test merchant)`, entity_id: t.entityId, detail: { registrationId }, result_code: '100.150.202' },
    ]);
  });

  it("lets a merchant delete neither another entity's stored card, nor one without the CSRF token or the admin role; an operator may", async () => {
    const theirs = await t.post('/v1/registrations', { entityId: other.entityId, ...testCard() }, { token: other.token });
    const id = theirs.body.id as string;
    const mine = await merchant();
    const unknown = await call(mine, 'DELETE', `/registrations/${id}`);
    expect([unknown.status, unknown.body.result.code]).toEqual([400, '100.150.200']);
    for (const path of ['/registrations/0123456789abcdef0123456789abcdef', '/registrations/not-a-registration']) {
      const answer = await call(mine, 'DELETE', path);
      expect([answer.status, answer.body.result.code], path).toEqual([400, '100.150.200']);
    }
    const stranger = await merchant(other.token);
    expect((await call({ cookie: stranger.cookie as string }, 'DELETE', `/registrations/${id}`)).status).toBe(403);
    expect((await call(stranger, 'DELETE', `/registrations/${id}`, undefined, { origin: 'https://attacker.example' })).status).toBe(403);
    for (const role of ['viewer', 'refunds'] as const) {
      const user = await signInMerchant(t.gateway.store, other.token, role);
      expect((await call(user, 'DELETE', `/registrations/${id}`)).status, role).toBe(403);
    }
    expect((await t.get(`/v1/registrations/${id}`, { entityId: other.entityId }, { token: other.token })).status).toBe(200);

    const olivia = await operator();
    const deleted = await call(olivia, 'DELETE', `/registrations/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await actions('delete registration')).at(-1)).toMatchObject({ actor: 'operator olivia', entity_id: other.entityId, result_code: '000.000.000' });
  });
});
