import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { dashboardAppClient } from '../testing/dashboardApp.ts';
import { hashToken } from '../merchants/repository.ts';
import { createOperator } from './operators.ts';

/**
 * The merchants' access tokens in the dashboard (tokensApi.ts), through app.request as the page calls it: an operator
 * lists them (never a token or its hash; when each was last used), creates one for one or more entities with the
 * admin API's rules (refused alike) — the token answered once and accepted by the API at once — and revokes one, which
 * the API then refuses; a merchant may do none of it; every change needs the CSRF token and is recorded for each
 * entity the token acts for, never with the token.
 */

warnIfPostgresSkipped('the dashboard access tokens API test');

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'admin-token-of-the-dashboard-tokens-test-0123456789';

interface Action {
  actor: string;
  entity_id: string;
  detail: Record<string, unknown>;
  result_code: string | null;
}

describe.each(STORE_KINDS)('the dashboard access tokens on %s', (kind) => {
  let t: TestGateway;
  let other: { entityId: string; token: string };

  beforeAll(async () => {
    // No token cache: a revoked token is refused by the next request.
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, tokenCacheSeconds: 0 });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call, signIn, signInMerchant } = dashboardAppClient(() => ({ url: t.url, app: t.gateway.app }));
  const operator = () => signIn({ operator: 'olivia', password: PASSWORD });
  const admin = async (method: string, path: string, body?: unknown) =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );
  const actions = async (action: string): Promise<Action[]> =>
    (await t.gateway.store.query<Action>('SELECT actor, entity_id, detail, result_code FROM dashboard_actions WHERE action = $1 ORDER BY id', [action])).rows;
  const pay = (entityId: string, token: string) => t.post('/v1/payments', cardPayment(entityId), { token });

  it('lists the tokens with their entities and last use, never a token; creates one shown once, accepted at once; revokes it, refused at once', async () => {
    const olivia = await operator();
    const listed = await call(olivia, 'GET', '/tokens');
    expect(listed.status, listed.text).toBe(200);
    const mine = (listed.body.tokens as { entityIds: string[] }[]).find((token) => token.entityIds.includes(t.entityId));
    expect(mine).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), label: expect.any(String), entityIds: [t.entityId], createdAt: expect.any(String), revokedAt: null, lastUsedAt: null });
    const only = await call(olivia, 'GET', `/tokens?entityId=${other.entityId}`);
    expect(only.body.tokens.map((token: { entityIds: string[] }) => token.entityIds)).toEqual([[other.entityId]]);
    expect(only.body.tokens[0].lastUsedAt).toBeNull();

    // An API request notes the token's use (to the minute), without the request waiting for it.
    expect((await pay(other.entityId, other.token)).status).toBe(200);
    await expect.poll(async () => (await call(olivia, 'GET', `/tokens?entityId=${other.entityId}`)).body.tokens[0].lastUsedAt).toEqual(expect.any(String));

    const created = await call(olivia, 'POST', '/tokens', { label: 'till in the shop', entityIds: [t.entityId, other.entityId] });
    expect(created.status, created.text).toBe(200);
    const accessToken = created.body.accessToken as string;
    expect(accessToken.length).toBeGreaterThanOrEqual(32);
    expect(created.body.token).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      label: 'till in the shop',
      entityIds: [t.entityId, other.entityId].sort(),
      createdAt: expect.any(String),
      revokedAt: null,
      lastUsedAt: null,
    });
    const tokenId = created.body.token.id as string;
    expect((await pay(t.entityId, accessToken)).status).toBe(200);
    expect((await pay(other.entityId, accessToken)).status).toBe(200);

    const all = await call(olivia, 'GET', '/tokens');
    expect(all.body.tokens.map((token: { id: string }) => token.id)).toContain(tokenId);
    for (const answer of [listed, only, all]) {
      expect(answer.text).not.toContain(accessToken);
      expect(answer.text).not.toContain(t.token);
      expect(answer.text).not.toContain(hashToken(accessToken));
      expect(answer.text).not.toMatch(/accessToken|tokenHash|token_hash/);
    }

    const revoked = await call(olivia, 'DELETE', `/tokens/${tokenId}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.token).toMatchObject({ id: tokenId, revokedAt: expect.any(String) });
    expect((await pay(t.entityId, accessToken)).status).toBe(403);
    expect((await call(olivia, 'DELETE', `/tokens/${tokenId}`)).status).toBe(404);
    expect((await call(olivia, 'DELETE', '/tokens/not-a-token-id')).status).toBe(404);
    expect((await call(olivia, 'DELETE', '/tokens/0123456789abcdef0123456789abcdef')).status).toBe(404);
    expect((await admin('GET', '/tokens')).body.tokens.find((token: { id: string }) => token.id === tokenId)).toMatchObject({ revokedAt: expect.any(String) });

    // Recorded for each entity the token acts for, never with the token.
    const made = await actions('create token');
    expect(made.map((row) => row.entity_id).sort()).toEqual([t.entityId, other.entityId].sort());
    expect(made[0]).toMatchObject({ actor: 'operator olivia', detail: { tokenId, label: 'till in the shop', entityIds: [t.entityId, other.entityId] }, result_code: '000.000.000' });
    expect(JSON.stringify(made)).not.toContain(accessToken);
    // The second revocation, refused (revoked already), is recorded too.
    expect((await actions('revoke token')).map((row) => [row.entity_id, row.detail, row.result_code])).toEqual(
      ['000.000.000', '200.300.404'].flatMap((code) => [t.entityId, other.entityId].sort().map((entityId) => [entityId, { tokenId, label: 'till in the shop' }, code])),
    );
  });

  it("refuses what the admin API refuses, with the same parameterErrors, and never echoes a token", async () => {
    const olivia = await operator();
    const bodies: unknown[] = [{}, { entityIds: [] }, { entityIds: ['not-an-entity'] }, { entityIds: [t.entityId], label: '' }, { entityIds: [t.entityId], label: 'x'.repeat(201) }, { entityIds: t.entityId, colour: 'red' }, { entityIds: [1] }, 'not json'];
    for (const body of bodies) {
      const refused = await call(olivia, 'POST', '/tokens', body);
      const asAdmin = await admin('POST', '/tokens', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.result.code).toBe('200.300.404');
      expect(refused.body.result.parameterErrors, JSON.stringify(body)).toEqual(asAdmin.body.result.parameterErrors);
    }
    const unknown = await call(olivia, 'POST', '/tokens', { entityIds: ['0123456789abcdef0123456789abcdef'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.result.description).toEqual((await admin('POST', '/tokens', { entityIds: ['0123456789abcdef0123456789abcdef'] })).body.result.description);
    const filter = await call(olivia, 'GET', '/tokens?entityId=nope&limit=5');
    expect(filter.status).toBe(400);
    expect(filter.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['entityId', 'limit']);
    // One label for the token made with one entity id given as a string, as the admin API takes it.
    const single = await call(olivia, 'POST', '/tokens', { entityIds: t.entityId });
    expect(single.body.token).toMatchObject({ label: 'token', entityIds: [t.entityId] });
  });

  it('lets only an operator list, create and revoke tokens, and only with the session’s CSRF token from the gateway’s own origin', async () => {
    const merchant = await signInMerchant(t.gateway.store, t.token);
    const tokenId = ((await admin('GET', `/tokens?entityId=${t.entityId}`)).body.tokens as { id: string }[])[0]?.id as string;
    expect((await call(merchant, 'GET', '/tokens')).status).toBe(403);
    expect((await call(merchant, 'POST', '/tokens', { entityIds: [t.entityId] })).status).toBe(403);
    expect((await call(merchant, 'DELETE', `/tokens/${tokenId}`)).status).toBe(403);
    expect((await call({}, 'GET', '/tokens')).status).toBe(401);

    const olivia = await operator();
    const bare = { cookie: olivia.cookie as string };
    expect((await call(bare, 'POST', '/tokens', { entityIds: [t.entityId] })).status).toBe(403);
    expect((await call(bare, 'DELETE', `/tokens/${tokenId}`, undefined, { 'x-csrf-token': 'not-the-token' })).status).toBe(403);
    expect((await call(olivia, 'POST', '/tokens', { entityIds: [t.entityId] }, { origin: 'https://attacker.example' })).status).toBe(403);
    expect((await call(olivia, 'DELETE', `/tokens/${tokenId}`, undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // The merchant's token still works: nothing was revoked.
    expect((await pay(t.entityId, t.token)).status).toBe(200);
  });
});
