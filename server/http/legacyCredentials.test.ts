import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLegacyCredentials, type IssuedCredentials } from '../merchants/legacyCredentials.ts';
import { shopperCard } from '../testing/checkouts.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  cardPayment,
  createTestClock,
  startTestGateway,
  STORE_KINDS,
  warnIfPostgresSkipped,
  readResponse,
  type ApiResponse,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';

/**
 * Legacy credentials at the wire (COMPAT §1): authentication.userId / authentication.password in the body of a POST,
 * in the query string of a GET or DELETE, and no Authorization header — as the platform vendor's own client library
 * sends them. Wrong pairs are answered as wrong tokens are; the pair is never shown back or kept.
 */

warnIfPostgresSkipped('legacyCredentials.test.ts');

const ADMIN_TOKEN = 'admin-token-for-the-legacy-credential-tests-0123456789';
const TOKEN_CACHE_SECONDS = 10;

describe.each(STORE_KINDS)('legacy credentials on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let pair: IssuedCredentials;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(
      kind,
      { tokenCacheSeconds: TOKEN_CACHE_SECONDS, clientAddressHeader: 'x-forwarded-for', adminToken: ADMIN_TOKEN },
      { now: clock.now },
    );
    pair = await t.gateway.store.transaction((tx) => issueLegacyCredentials(tx, [t.entityId], 'php client'));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The pair as a legacy client sends it: the entity as authentication.entityId, no entityId. */
  const credentials = (of: IssuedCredentials = pair, entityId = t.entityId): Record<string, string> => ({
    'authentication.userId': of.userId,
    'authentication.password': of.password,
    'authentication.entityId': entityId,
  });
  const legacyPayment = (of: IssuedCredentials = pair) => {
    const { entityId, ...payment } = cardPayment(t.entityId);
    return { ...credentials(of, entityId), ...payment };
  };
  const from = (address: string) => ({ token: null, headers: { 'X-Forwarded-For': address } });

  /** Neither half of a pair anywhere in an answer, its headers included. */
  function expectNothingOf(answer: ApiResponse, of: IssuedCredentials = pair): void {
    const shown = JSON.stringify(answer.body) + JSON.stringify([...answer.headers]);
    expect(shown).not.toContain(of.password);
    expect(shown).not.toContain(of.userId);
  }

  async function storedAnywhere(value: string): Promise<number> {
    const found = await t.gateway.store.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM checkouts WHERE parameters::text LIKE '%' || $1 || '%')
            + (SELECT count(*) FROM payments WHERE request_echo::text LIKE '%' || $1 || '%')
            + (SELECT count(*) FROM registrations WHERE request_echo::text LIKE '%' || $1 || '%') AS n`,
      [value],
    );
    return Number(found.rows[0]?.n);
  }

  it('pays with body credentials on POST /v1/payments and creates a checkout with them on POST /v1/checkouts', async () => {
    const paid = await t.post('/v1/payments', legacyPayment(), from('192.0.2.1'));
    expectEnvelope(paid);
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
    expectNothingOf(paid);

    const checkout = await t.post('/v1/checkouts', { ...credentials(), amount: '10.00', currency: 'EUR', paymentType: 'DB' }, from('192.0.2.1'));
    expect(checkout.status).toBe(200);
    expect(checkout.body.result.code).toBe('000.200.100');
    expectNothingOf(checkout);
    expect(await storedAnywhere(pair.password)).toBe(0);
    expect(await storedAnywhere(pair.userId)).toBe(0);
  });

  it('reads and deletes with query-string credentials: GET /v1/payments/{id}, GET /v1/checkouts/{id}/payment, DELETE /v1/registrations/{id}', async () => {
    const paid = await t.post('/v1/payments', legacyPayment(), from('192.0.2.2'));
    const read = await t.get(`/v1/payments/${paid.body.id}`, credentials(), from('192.0.2.2'));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: paid.body.id, result: { code: '000.100.110' } });
    expectNothingOf(read);

    const checkout = await t.post('/v1/checkouts', { ...credentials(), amount: '12.00', currency: 'EUR', paymentType: 'DB' }, from('192.0.2.2'));
    // The shopper's page submits without any credentials; the merchant's server then reads the result with its pair.
    await t.post(`/v1/checkouts/${checkout.body.id}/payment`, shopperCard(), { token: null });
    const result = await t.get(`/v1/checkouts/${checkout.body.id}/payment`, credentials(), from('192.0.2.2'));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ amount: '12.00', result: { code: '000.100.110' } });
    expectNothingOf(result);

    const { entityId: _entityId, amount: _amount, currency: _currency, paymentType: _type, ...card } = cardPayment(t.entityId);
    const registered = await t.post('/v1/registrations', { ...credentials(), ...card }, from('192.0.2.2'));
    expect(registered.status).toBe(200);
    const deleted = await t.delete(`/v1/registrations/${registered.body.id}`, credentials(), from('192.0.2.2'));
    expect(deleted.status).toBe(200);
    expect(deleted.body.result.code).toMatch(/^000\./);
    expectNothingOf(deleted);
    expect(await storedAnywhere(pair.password)).toBe(0);
  });

  it('answers a wrong password exactly as a wrong token, twenty times, and only then throttles the address', async () => {
    const wrongToken = await t.post('/v1/payments', cardPayment(t.entityId), { token: 'a-wrong-token-of-some-length', headers: { 'X-Forwarded-For': '198.51.100.1' } });
    const wrong = { ...pair, password: `${pair.password}x` };
    const address = '198.51.100.2';
    for (let attempt = 1; attempt <= 20; attempt++) {
      const refused = await t.post('/v1/payments', legacyPayment(wrong), from(address));
      expectEnvelope(refused);
      expect([refused.status, refused.body.result.code]).toEqual([wrongToken.status, wrongToken.body.result.code]);
      expect([refused.status, refused.body.result.code]).toEqual([403, '800.900.300']);
      expect(refused.body.result.description).toMatch(/^invalid authentication information: unknown authentication\.userId or wrong authentication\.password$/);
      expectNothingOf(refused, wrong);
    }
    const throttled = await t.post('/v1/payments', legacyPayment(wrong), from(address));
    expect(throttled.status).toBe(400);
    expect(throttled.body.result.code).toBe('800.120.100');
    expect(throttled.headers.get('retry-after')).toMatch(/^\d+$/);
    // The address is refused for the rest of its minute, right pair or not.
    expect((await t.post('/v1/payments', legacyPayment(), from(address))).body.result.code).toBe('800.120.100');
    // Another address is not held back.
    expect((await t.post('/v1/payments', legacyPayment(), from('198.51.100.3'))).status).toBe(200);
  });

  it('refuses an unknown userId, a pair without its password and a password alone as unknown credentials (403)', async () => {
    const { 'authentication.password': _password, ...withoutPassword } = legacyPayment();
    const { 'authentication.userId': _userId, ...withoutUserId } = legacyPayment();
    for (const params of [legacyPayment({ userId: 'f'.repeat(32), password: pair.password }), withoutPassword, withoutUserId]) {
      const refused = await t.post('/v1/payments', params, from('198.51.100.4'));
      expect([refused.status, refused.body.result.code]).toEqual([403, '800.900.300']);
      expectNothingOf(refused);
    }
    // Without any credentials it is the missing header, as before.
    const { entityId: _entityId, ...bare } = cardPayment(t.entityId);
    const missing = await t.post('/v1/payments', { ...bare, 'authentication.entityId': t.entityId }, from('198.51.100.4'));
    expect(missing.status).toBe(401);
    expect(missing.body.result.description).toMatch(/missing Authorization header/);
  });

  it('refuses credentials for an entity they are not allowed for (403)', async () => {
    const other = await t.newMerchant();
    const refused = await t.post('/v1/payments', { ...legacyPayment(), 'authentication.entityId': other.entityId }, from('198.51.100.5'));
    expect([refused.status, refused.body.result.code]).toEqual([403, '800.900.300']);
    expect(refused.body.result.description).toMatch(/not allowed for this entityId/);
    const read = await t.get(`/v1/payments/${'0'.repeat(32)}`, credentials(pair, other.entityId), from('198.51.100.5'));
    expect(read.status).toBe(403);
  });

  it('refuses revoked credentials once the cache (TOKEN_CACHE_SECONDS) has expired: issued and revoked through the admin API', async () => {
    const admin = { token: ADMIN_TOKEN, headers: { 'Content-Type': 'application/json' } };
    const issued = await fetch(`${t.url}/admin/v1/credentials`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ entityIds: [t.entityId], label: 'to revoke' }),
    });
    expect(issued.status).toBe(201);
    const { credentials: created } = (await issued.json()) as { credentials: IssuedCredentials & { entityIds: string[] } };
    expect(created).toMatchObject({ userId: expect.stringMatching(/^[0-9a-f]{32}$/), entityIds: [t.entityId], label: 'to revoke', revokedAt: null });
    expect(created.password.length).toBeGreaterThanOrEqual(32);
    expect((await t.post('/v1/payments', legacyPayment(created), from('198.51.100.6'))).status).toBe(200);

    const revoked = await t.delete(`/admin/v1/credentials/${created.userId}`, {}, admin);
    expect(revoked.status).toBe(200);
    expect(revoked.body.credentials).toMatchObject({ userId: created.userId, revokedAt: expect.any(String) });
    expect(JSON.stringify(revoked.body)).not.toContain(created.password);
    const listed = await t.get('/admin/v1/credentials', { entityId: t.entityId }, admin);
    expect(listed.body.credentials.map((entry: { userId: string }) => entry.userId)).toEqual(expect.arrayContaining([pair.userId, created.userId]));
    expect(JSON.stringify(listed.body)).not.toMatch(/password|scrypt/);

    // Within the cache's time this instance still knows the pair as verified; then it is refused.
    clock.advance((TOKEN_CACHE_SECONDS + 1) * 1000);
    const refused = await t.post('/v1/payments', legacyPayment(created), from('198.51.100.6'));
    expect([refused.status, refused.body.result.code]).toEqual([403, '800.900.300']);
    expect((await t.delete(`/admin/v1/credentials/${created.userId}`, {}, admin)).status).toBe(404);
  });

  it('issues credentials through the admin API only for entities that exist, and only with the admin token', async () => {
    const issue = (body: unknown, token = ADMIN_TOKEN) =>
      fetch(`${t.url}/admin/v1/credentials`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.8' },
        body: JSON.stringify(body),
      }).then(readResponse);
    const missing = await issue({ label: 'no entity' });
    expect([missing.status, missing.body.result.parameterErrors?.[0]?.name]).toEqual([400, 'entityIds']);
    const malformed = await issue({ entityIds: ['4200000000000000'] });
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).not.toContain('4200000000000000');
    expect((await issue({ entityIds: ['f'.repeat(32)] })).status).toBe(404);
    expect((await issue({ entityIds: [t.entityId] }, 'not-the-admin-token-but-long-enough-to-be-one')).status).toBe(403);
    expect((await t.delete('/admin/v1/credentials/4200000000000000', {}, { token: ADMIN_TOKEN })).body.result.description).not.toContain('4200000000000000');
  });

  it('lets a Bearer header decide: the pair is then ignored, whatever it holds', async () => {
    const wrong = { userId: 'not-a-user-id', password: 'x'.repeat(300) };
    const withToken = await t.post('/v1/payments', { ...legacyPayment(wrong), entityId: t.entityId }, { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    expect(withToken.status).toBe(200);
    expect(withToken.body.result.parameterErrors).toBeUndefined();
    expectNothingOf(withToken, wrong);
    // A good pair does not rescue a wrong token.
    const wrongToken = await t.post('/v1/payments', legacyPayment(), { token: 'a-wrong-token-of-some-length', headers: { 'X-Forwarded-For': '198.51.100.7' } });
    expect([wrongToken.status, wrongToken.body.result.code]).toEqual([403, '800.900.300']);
    expect(wrongToken.body.result.description).toMatch(/unknown access token/);
  });
});
