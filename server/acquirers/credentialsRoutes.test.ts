import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorSettings } from '../acquirerConfig.ts';
import { readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';

/**
 * The admin API of an entity's credentials at a connector's provider (credentialsRoutes.ts) on each store, with a
 * gateway whose `hyperpay` is an opp connector (nothing here reaches its provider): set, shown, replaced and removed;
 * the token sealed at rest and never in an answer, a refusal or a log line; a replaced or removed token's vault item
 * erased; what the connector reads following each change at once; unknown entities and names that take no credentials.
 */

warnIfPostgresSkipped('the acquirer credentials admin API test');

const ADMIN_TOKEN = 'admin-token-of-the-acquirer-credentials-test-0123';
const HYPERPAY: ConnectorSettings = { kind: 'opp', url: 'http://127.0.0.1:9', timeoutMs: 1000, neverReceivedAfterMs: 2000, notificationKey: undefined, maxConnections: 1 };
const PROVIDER_ENTITY_ID = '8a8294174b7ecb28014b9699220015ca';
const TOKEN = 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8c3k2S0pzVDg=';
const NEW_TOKEN = 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8UmVwbGFjZWQ9';
const UNKNOWN_ENTITY = '0123456789abcdef0123456789abcdef';

describe.each(STORE_KINDS)('the admin API of credentials at connectors on %s', (kind) => {
  let t: TestGateway;
  /** Every answer's text, searched for the tokens at the end. */
  const answered: string[] = [];

  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, acquirers: ['simulator', 'hyperpay'], connectors: { hyperpay: HYPERPAY } });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function admin(method: string, path: string, body?: unknown): Promise<ApiResponse> {
    const response = await t.gateway.app.request(`/admin/v1/entities${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.clone().text();
    answered.push(text);
    return readResponse(response);
  }
  const stored = async (entityId: string) =>
    (await t.gateway.store.query<{ upstream_entity_id: string; access_token_id: string }>('SELECT * FROM acquirer_credentials WHERE entity_id = $1', [entityId])).rows;
  const vaultItem = async (id: string) => (await t.gateway.store.query('SELECT * FROM vault_items WHERE id = $1', [id])).rows[0];
  const connectorReads = (entityId: string) => t.gateway.payments.acquirers.credentials.get(entityId, 'hyperpay');

  it('lists only the connectors, and sets, shows, replaces and removes the credentials with the token sealed', async () => {
    const { entityId } = await t.newMerchant();
    const none = await admin('GET', `/${entityId}/acquirers`);
    expect(none.status).toBe(200);
    expect(none.body.result.code).toMatch(/^000\.000\./);
    expect(none.body.acquirerCredentials).toEqual([{ entityId, acquirer: 'hyperpay', set: false, providerEntityId: null, updatedAt: null }]);
    // The connector has read (and remembered) that there are none: the change below must reach it at once.
    expect(await connectorReads(entityId)).toBeUndefined();

    const saved = await admin('PUT', `/${entityId}/acquirers/hyperpay`, { entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });
    expect(saved.status).toBe(200);
    expect(saved.body.acquirerCredentials).toEqual({ entityId, acquirer: 'hyperpay', set: true, providerEntityId: PROVIDER_ENTITY_ID, updatedAt: expect.any(String) });
    expect(await connectorReads(entityId)).toEqual({ entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });
    expect((await admin('GET', `/${entityId}/acquirers/hyperpay`)).body.acquirerCredentials).toEqual(saved.body.acquirerCredentials);
    expect((await admin('GET', `/${entityId}/acquirers`)).body.acquirerCredentials).toEqual([saved.body.acquirerCredentials]);

    // At rest: the provider's entity id and a vault item's id; the item sealed.
    const [row] = await stored(entityId);
    expect(row?.upstream_entity_id).toBe(PROVIDER_ENTITY_ID);
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    const sealed = await vaultItem(row?.access_token_id as string);
    expect(sealed).toBeDefined();
    expect(JSON.stringify(sealed)).not.toContain(TOKEN);
    expect(JSON.stringify(sealed)).not.toContain(Buffer.from(TOKEN).toString('base64'));

    // Replaced: the old token's item is erased, the connector pays with the new one.
    const replaced = await admin('PUT', `/${entityId}/acquirers/hyperpay`, { entityId: 'other-entity', accessToken: NEW_TOKEN });
    expect(replaced.body.acquirerCredentials).toMatchObject({ set: true, providerEntityId: 'other-entity' });
    const [after] = await stored(entityId);
    expect(after?.access_token_id).not.toBe(row?.access_token_id);
    expect(await vaultItem(row?.access_token_id as string)).toBeUndefined();
    expect(await connectorReads(entityId)).toEqual({ entityId: 'other-entity', accessToken: NEW_TOKEN });

    const removed = await admin('DELETE', `/${entityId}/acquirers/hyperpay`);
    expect(removed.status).toBe(200);
    expect(removed.body.acquirerCredentials).toEqual({ entityId, acquirer: 'hyperpay', set: false, providerEntityId: null, updatedAt: null });
    expect(await stored(entityId)).toEqual([]);
    expect(await vaultItem(after?.access_token_id as string)).toBeUndefined();
    expect(await connectorReads(entityId)).toBeUndefined();
    // Removing what is not there changes nothing.
    expect((await admin('DELETE', `/${entityId}/acquirers/hyperpay`)).status).toBe(200);
  });

  it('refuses a body naming what is wrong, never quoting the token, and writes nothing', async () => {
    const { entityId } = await t.newMerchant();
    const path = `/${entityId}/acquirers/hyperpay`;
    const namesOf = (answer: ApiResponse) => (answer.body.result.parameterErrors as { name: string }[]).map((error) => error.name);

    const wrong = await admin('PUT', path, { entityId: 'has a space', accessToken: 'short' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.result.code).toBe('200.300.404');
    expect(namesOf(wrong)).toEqual(['entityId', 'accessToken']);
    expect(wrong.body.result.parameterErrors[1]).toMatchObject({ value: '', message: expect.stringContaining('8 to 512 printable characters') });
    expect(namesOf(await admin('PUT', path, { entityId: PROVIDER_ENTITY_ID }))).toEqual(['accessToken']);
    expect(namesOf(await admin('PUT', path, { entityId: PROVIDER_ENTITY_ID, accessToken: `${TOKEN} ` }))).toEqual(['accessToken']);
    expect(namesOf(await admin('PUT', path, { entityId: PROVIDER_ENTITY_ID, accessToken: 12345678 }))).toEqual(['accessToken']);
    // A mistyped name still holds the token: refused without its value.
    const mistyped = await admin('PUT', path, { entityId: PROVIDER_ENTITY_ID, access_token: TOKEN });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.result.parameterErrors).toEqual([{ name: 'access_token', value: '', message: 'is not a known field (known: entityId, accessToken)' }]);
    expect((await admin('PUT', path, 'not json')).status).toBe(400);
    expect(await stored(entityId)).toEqual([]);
    expect((await admin('GET', path)).body.acquirerCredentials).toMatchObject({ set: false });
  });

  it('answers 404 for an entity that does not exist and for a name that takes no credentials, 405 for other methods', async () => {
    const body = { entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN };
    for (const [method, path] of [
      ['GET', `/${UNKNOWN_ENTITY}/acquirers`],
      ['GET', `/${UNKNOWN_ENTITY}/acquirers/hyperpay`],
      ['PUT', `/${UNKNOWN_ENTITY}/acquirers/hyperpay`],
      ['DELETE', `/${UNKNOWN_ENTITY}/acquirers/hyperpay`],
      ['GET', '/not-an-entity/acquirers'],
    ] as const) {
      const answer = await admin(method, path, method === 'PUT' ? body : undefined);
      expect([answer.status, answer.body.result.description], `${method} ${path}`).toEqual([404, `invalid or missing parameter: no entity ${path.split('/')[1]}`]);
    }
    // The simulator is an acquirer, not a connector; "nope" is neither; "No_Name" could be no acquirer's name.
    for (const name of ['simulator', 'nope', 'No_Name']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await admin(method, `/${t.entityId}/acquirers/${name}`, method === 'PUT' ? body : undefined);
        expect(answer.status, `${method} ${name}`).toBe(404);
        expect(answer.body.result.description).toBe(`invalid or missing parameter: no connector ${name}: only a connector takes credentials (the connectors are hyperpay)`);
      }
    }
    expect(await stored(t.entityId)).toEqual([]);
    expect((await admin('POST', `/${t.entityId}/acquirers/hyperpay`, body)).status).toBe(405);
    expect((await admin('PUT', `/${t.entityId}/acquirers`, body)).status).toBe(405);
    const anonymous = await t.gateway.app.request(`/admin/v1/entities/${t.entityId}/acquirers`);
    expect(anonymous.status).toBe(401);
  });

  it('never showed the token in an answer or a log line', () => {
    expect(answered.length).toBeGreaterThan(20);
    for (const token of [TOKEN, NEW_TOKEN]) {
      expect(answered.filter((text) => text.includes(token))).toEqual([]);
      expect(t.logLines.filter((line) => line.includes(token))).toEqual([]);
    }
  });
});
