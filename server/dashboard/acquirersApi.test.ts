import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../acquirerConfig.ts';
import { dashboardClient } from '../testing/dashboardClient.ts';
import { readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { createOperator } from './operators.ts';

/**
 * The dashboard's routing rules and credentials at the connectors (acquirersApi.ts) over a real socket, as its app
 * calls them: a merchant reads its own entity's rules and whether credentials are set (nothing more), never another
 * entity's, and changes nothing; an operator sets and removes both, with the admin API's rules and refusals (compared
 * with its answers), the token write-only — never answered, recorded or logged — and every change recorded.
 */

warnIfPostgresSkipped('the dashboard routing and credentials API test');

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'admin-token-for-the-dashboard-acquirers-test-0123456';
const HYPERPAY: ConnectorSettings = { kind: 'opp', url: 'http://127.0.0.1:9', timeoutMs: 1000, neverReceivedAfterMs: 2000, notificationKey: undefined, maxConnections: 1 };
const TOKEN = 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8RGFzaGJvYXJk';
const PROVIDER_ENTITY_ID = '8a8294174b7ecb28014b9699220015ca';
const ENTITY_PATH = (entityId: string, rest: string) => `/entities/${entityId}/${rest}`;

interface Action {
  actor: string;
  action: string;
  detail: Record<string, unknown>;
  result_code: string | null;
}

describe.each(STORE_KINDS)('the dashboard routing and credentials on %s', (kind) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(kind, { acquirers: ['simulator', 'fallback', 'hyperpay'], defaultAcquirer: 'simulator', connectors: { hyperpay: HYPERPAY }, adminToken: ADMIN_TOKEN });
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call, signIn, signInMerchant } = dashboardClient(() => t.url);
  const operator = () => signIn({ operator: 'olivia', password: PASSWORD });
  // A merchant's admin (a merchant user of the entity the token acts for).
  const merchant = (token = t.token) => signInMerchant(t.gateway.store, token);
  const admin = async (method: string, path: string, body?: unknown) =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const actionsOf = async (entityId: string): Promise<Action[]> =>
    // What was done to the entity's settings: its users' sign-ins are recorded too, and left out here.
    (await t.gateway.store.query<Action>(`SELECT actor, action, detail, result_code FROM dashboard_actions WHERE entity_id = $1 AND action <> 'sign in' ORDER BY id`, [entityId])).rows;

  it("shows a merchant its own entity's rules and whether credentials are set, and lets only an operator change them", async () => {
    const other = await t.newMerchant();
    await admin('PUT', `/entities/${t.entityId}/acquirers/hyperpay`, { entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });
    const mine = await merchant();
    const routing = await call(mine, 'GET', ENTITY_PATH(t.entityId, 'routing'));
    expect(routing.status, routing.text).toBe(200);
    expect(routing.body.routing).toEqual({ entityId: t.entityId, rules: [], defaultAcquirer: 'simulator', acquirers: ['simulator', 'fallback', 'hyperpay'], connectors: ['hyperpay'], updatedAt: null });
    // Whether they are set, nothing more: not even the provider's entity id.
    const credentials = await call(mine, 'GET', ENTITY_PATH(t.entityId, 'acquirers'));
    expect(credentials.body.acquirerCredentials).toEqual([{ entityId: t.entityId, acquirer: 'hyperpay', set: true }]);
    for (const setting of ['routing', 'acquirers']) {
      expect((await call(mine, 'GET', ENTITY_PATH(other.entityId, setting))).status, setting).toBe(403);
    }
    expect((await call(mine, 'PUT', ENTITY_PATH(t.entityId, 'routing'), { rules: [] })).status).toBe(403);
    expect((await call(mine, 'DELETE', ENTITY_PATH(t.entityId, 'routing'))).status).toBe(403);
    expect((await call(mine, 'PUT', ENTITY_PATH(t.entityId, 'acquirers/hyperpay'), { entityId: 'mine', accessToken: 'a-token-of-my-own' })).status).toBe(403);
    expect((await call(mine, 'DELETE', ENTITY_PATH(t.entityId, 'acquirers/hyperpay'))).status).toBe(403);
    expect(await actionsOf(t.entityId)).toEqual([]);
    expect((await admin('GET', `/entities/${t.entityId}/acquirers/hyperpay`)).body.acquirerCredentials).toMatchObject({ set: true, providerEntityId: PROVIDER_ENTITY_ID });

    const olivia = await operator();
    expect((await call(olivia, 'GET', ENTITY_PATH(t.entityId, 'acquirers'))).body.acquirerCredentials).toEqual([
      { entityId: t.entityId, acquirer: 'hyperpay', set: true, providerEntityId: PROVIDER_ENTITY_ID, updatedAt: expect.any(String) },
    ]);
    for (const path of ['routing', 'acquirers', 'acquirers/hyperpay']) {
      const method = path === 'acquirers' ? 'GET' : 'DELETE';
      expect((await call(olivia, method, ENTITY_PATH('0123456789abcdef0123456789abcdef', path))).status, path).toBe(404);
    }
    expect((await call(olivia, 'DELETE', ENTITY_PATH(t.entityId, 'acquirers/simulator'))).status).toBe(404);
    expect((await call(olivia, 'POST', ENTITY_PATH(t.entityId, 'routing'), { rules: [] })).status).toBe(405);
    expect((await call(olivia, 'GET', ENTITY_PATH(t.entityId, 'acquirers/hyperpay'))).status).toBe(405);
    // Without the CSRF token, or signed out.
    expect((await call({ cookie: olivia.cookie }, 'PUT', ENTITY_PATH(t.entityId, 'routing'), { rules: [] })).status).toBe(403);
    expect((await call({}, 'GET', ENTITY_PATH(t.entityId, 'routing'))).status).toBe(401);
  });

  it("saves and removes routing rules with the admin API's rules and refusals, and records each change", async () => {
    const { entityId } = await t.newMerchant();
    const olivia = await operator();
    const path = ENTITY_PATH(entityId, 'routing');
    const wrong = { rules: [{ acquirer: 'nope' }, { acquirer: 'fallback', maxAmount: 'a lot' }] };
    const refused = await call(olivia, 'PUT', path, wrong);
    expect(refused.status).toBe(400);
    expect(refused.body.result.parameterErrors).toEqual((await admin('PUT', `/entities/${entityId}/routing`, wrong)).body.result.parameterErrors);
    expect((refused.body.result.parameterErrors as { name: string }[]).map((error) => error.name)).toEqual(['rules[0].acquirer', 'rules[1].maxAmount']);
    // What PostgreSQL's jsonb cannot hold (a NUL, half a surrogate pair) is refused and recorded all the same.
    const unstorable = await call(olivia, 'PUT', path, { rules: [{ acquirer: 'fall\u0000back', 'colo\ud800ur': 'red' }] });
    expect(unstorable.status, unstorable.text).toBe(400);

    const rules = [{ acquirer: 'fallback', brands: ['MASTER'], maxAmount: '50.00' }];
    const saved = await call(olivia, 'PUT', path, { rules });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.routing).toMatchObject({ entityId, rules, updatedAt: expect.any(String) });
    expect((await admin('GET', `/entities/${entityId}/routing`)).body.routing).toEqual(saved.body.routing);
    const removed = await call(olivia, 'DELETE', path);
    expect(removed.body.routing).toMatchObject({ rules: [], updatedAt: null });

    const actions = await actionsOf(entityId);
    expect(actions.map((action) => [action.actor, action.action, action.result_code])).toEqual([
      ['operator olivia', 'routing.save', '200.300.404'],
      ['operator olivia', 'routing.save', '200.300.404'],
      ['operator olivia', 'routing.save', '000.000.000'],
      ['operator olivia', 'routing.remove', '000.000.000'],
    ]);
    expect(actions[1]?.detail).toEqual({ rules: [{ acquirer: 'fall\ufffdback', 'colo\ufffdur': 'red' }] });
    expect(actions[2]?.detail).toEqual({ rules });
  });

  it('keeps the token write-only: set and replaced, never answered, recorded or logged, and removed', async () => {
    const { entityId } = await t.newMerchant();
    const olivia = await operator();
    const path = ENTITY_PATH(entityId, 'acquirers/hyperpay');
    const answers: string[] = [];
    const put = async (body: unknown) => {
      const answer = await call(olivia, 'PUT', path, body);
      answers.push(answer.text);
      return answer;
    };

    const refused = await put({ entityId: 'has space', accessToken: 'short' });
    expect(refused.status).toBe(400);
    expect(refused.body.result.parameterErrors).toEqual((await admin('PUT', `/entities/${entityId}/acquirers/hyperpay`, { entityId: 'has space', accessToken: 'short' })).body.result.parameterErrors);
    expect((await put({ entityId: PROVIDER_ENTITY_ID, token: TOKEN })).body.result.parameterErrors).toEqual([{ name: 'token', value: '', message: 'is not a known field (known: entityId, accessToken)' }]);

    const set = await put({ entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });
    expect(set.status, set.text).toBe(200);
    expect(set.body.acquirerCredentials).toEqual({ entityId, acquirer: 'hyperpay', set: true, providerEntityId: PROVIDER_ENTITY_ID, updatedAt: expect.any(String) });
    expect(await t.gateway.payments.acquirers.credentials.get(entityId, 'hyperpay')).toEqual({ entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });
    const replaced = await put({ entityId: 'another-entity', accessToken: `${TOKEN}2` });
    expect(replaced.body.acquirerCredentials).toMatchObject({ providerEntityId: 'another-entity' });
    expect(await t.gateway.payments.acquirers.credentials.get(entityId, 'hyperpay')).toEqual({ entityId: 'another-entity', accessToken: `${TOKEN}2` });
    expect((await call(olivia, 'GET', ENTITY_PATH(entityId, 'acquirers'))).body.acquirerCredentials).toEqual([replaced.body.acquirerCredentials]);

    const removed = await call(olivia, 'DELETE', path);
    expect(removed.body.acquirerCredentials).toEqual({ entityId, acquirer: 'hyperpay', set: false, providerEntityId: null, updatedAt: null });
    expect(await t.gateway.payments.acquirers.credentials.get(entityId, 'hyperpay')).toBeUndefined();

    const actions = await actionsOf(entityId);
    // A body that is no credentials at all (a field mistyped) is not a change tried; credentials refused are.
    expect(actions.map((action) => [action.action, action.result_code, action.detail])).toEqual([
      ['acquirer-credentials.save', '200.300.404', { acquirer: 'hyperpay', providerEntityId: 'has space' }],
      ['acquirer-credentials.save', '000.000.000', { acquirer: 'hyperpay', providerEntityId: PROVIDER_ENTITY_ID }],
      ['acquirer-credentials.save', '000.000.000', { acquirer: 'hyperpay', providerEntityId: 'another-entity' }],
      ['acquirer-credentials.remove', '000.000.000', { acquirer: 'hyperpay' }],
    ]);
    expect(answers.filter((text) => text.includes(TOKEN))).toEqual([]);
    expect(t.logLines.filter((line) => line.includes(TOKEN))).toEqual([]);
  });
});
