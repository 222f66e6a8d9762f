import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeToken, grantToken, newAccessToken } from '../merchants/repository.ts';
import { cardPayment, createTestClock, startTestGateway, type TestGateway } from '../testing/harness.ts';

describe('authentication', () => {
  let t: TestGateway;
  const clock = createTestClock();
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { tokenCacheSeconds: 1 }, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const pay = (token: string | null, params = cardPayment(t.entityId), headers: Record<string, string> = {}) =>
    t.post('/v1/payments', params, { token, headers });

  it('answers 401 without an Authorization header, with the envelope', async () => {
    const response = await pay(null);
    expect(response.status).toBe(401);
    expect(response.body.result.code).toBe('800.900.300');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.body).toHaveProperty('buildNumber');
    expect(response.body).toHaveProperty('timestamp');
    expect(response.body).toHaveProperty('ndc');
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer '], ['Bearer two words'], ['token-without-scheme']])(
    'answers 401 for the malformed header "%s"',
    async (header) => {
      const response = await t.post('/v1/payments', cardPayment(t.entityId), { token: null, headers: { Authorization: header } });
      expect(response.status).toBe(401);
      expect(response.body.result.code).toBe('800.900.300');
    },
  );

  it('answers 403 with 800.900.300 for an unknown token', async () => {
    const response = await pay('an-unknown-token-of-some-length');
    expect(response.status).toBe(403);
    expect(response.body.result.code).toBe('800.900.300');
  });

  it('answers 403 when the token is not allowed for the entityId', async () => {
    const other = await t.newMerchant();
    const response = await pay(t.token, cardPayment(other.entityId));
    expect(response.status).toBe(403);
    expect(response.body.result.code).toBe('800.900.300');
    // The other merchant's own token works for its entity.
    expect((await pay(other.token, cardPayment(other.entityId))).status).toBe(200);
  });

  it('lets one token act for several entities it was granted', async () => {
    const first = await t.newMerchant();
    const second = await t.newMerchant();
    const shared = newAccessToken();
    await grantToken(t.gateway.store, shared, 'shared', [first.entityId, second.entityId]);
    expect((await pay(shared, cardPayment(first.entityId))).status).toBe(200);
    expect((await pay(shared, cardPayment(second.entityId))).status).toBe(200);
    expect((await pay(shared, cardPayment(t.entityId))).status).toBe(403);
  });

  it('refuses a revoked token once the token cache (TOKEN_CACHE_SECONDS, here 1 s) has expired', async () => {
    const token = newAccessToken();
    const tokenId = await grantToken(t.gateway.store, token, 'to revoke', [t.entityId]);
    expect((await pay(token)).status).toBe(200);
    await revokeToken(t.gateway.store, tokenId);
    // On the gateway's clock: the cache still holds the token's grant until its 1 s has passed.
    clock.advance(999);
    expect((await pay(token)).status).toBe(200);
    clock.advance(1);
    const response = await pay(token);
    expect(response.status).toBe(403);
    expect(response.body.result.code).toBe('800.900.300');
  });

  it('requires a well-formed entityId', async () => {
    const missing = cardPayment(t.entityId);
    delete missing.entityId;
    const withoutEntity = await pay(t.token, missing);
    expect(withoutEntity.status).toBe(400);
    expect(withoutEntity.body.result.parameterErrors).toEqual([{ name: 'entityId', value: '', message: 'is required' }]);

    const malformed = await pay(t.token, cardPayment('8AC7A4C79394BDC801939736F17E063D'));
    expect(malformed.status).toBe(400);
    expect(malformed.body.result.parameterErrors[0].name).toBe('entityId');
  });

  it('refuses entityId and authentication.entityId that disagree', async () => {
    const other = await t.newMerchant();
    const response = await pay(t.token, cardPayment(t.entityId, { 'authentication.entityId': other.entityId }));
    expect(response.status).toBe(400);
    expect(response.body.result.parameterErrors[0].name).toBe('authentication.entityId');
  });

  it('never stores a token in clear', async () => {
    const stored = await t.gateway.store.query<{ token_hash: string }>('SELECT token_hash FROM access_tokens');
    expect(stored.rows.length).toBeGreaterThan(0);
    for (const row of stored.rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.token_hash).not.toBe(t.token);
    }
  });
});
