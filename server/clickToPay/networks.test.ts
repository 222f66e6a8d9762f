import { generateKeyPairSync } from 'node:crypto';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppEnv } from '../http/context.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { createTestClock, liveApp, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestClock, type TestGateway } from '../testing/harness.ts';
import { checkoutResponseOf, NETWORK_TOKEN, srcTestKeys, type SrcKeys } from '../testing/srcNetwork.ts';
import { CORRELATION_LIFETIME_MS, SESSION_LIFETIME_MS } from './service.ts';
import { DEFAULT_SDK_URLS } from './settings.ts';

warnIfPostgresSkipped('networks.test.ts');

/**
 * Click to Pay with the networks' SRC systems (issue 35 point 6, live): the entity's settings through the admin API
 * (the decryption key sealed, never shown), a session for the widget to initialise the networks' SDKs with, and the
 * network's checkout response — signed by the network, its payload encrypted to the entity's key, made here by a
 * stand-in network (testing/srcNetwork.ts) — opened by a live gateway and paid once as a network token through its
 * provider (this test gateway, reached through the connector). Every way a payload can be wrong is refused naming it.
 */

const ADMIN_TOKEN = 'admin-token-of-the-click-to-pay-networks-test-0123';
const MINUTE = 60_000;

describe.each(STORE_KINDS)('Click to Pay with the networks on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let live: Hono<AppEnv>;
  let keys: SrcKeys;
  beforeAll(async () => {
    clock = createTestClock();
    keys = srcTestKeys();
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN }, { now: clock.now });
    live = await liveApp(t, clock.now);
  });
  afterAll(async () => {
    await t?.close();
  });

  const settingsOf = (overrides: Record<string, unknown> = {}) => ({
    dpaName: 'Example Shop',
    keyId: keys.merchant.keyId,
    privateKey: keys.merchant.privateKeyPem,
    mastercard: { srcDpaId: 'dpa-mc-0001', srcInitiatorId: 'init-mc-0001', signingKey: keys.network.publicKeyPem },
    ...overrides,
  });
  async function admin(method: string, entityId: string, body?: unknown): Promise<ApiResponse & { text: string }> {
    const response = await t.gateway.app.request(`/admin/v1/entities/${entityId}/clickToPay`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.clone().text();
    return { ...(await readResponse(response)), text };
  }
  const newCheckout = async (): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** A step of the shopper's browser on the live gateway: no Authorization; nothing sensitive in any answer. */
  async function step(checkoutId: string, name: string, params: Record<string, string>): Promise<ApiResponse> {
    const response = await live.request(`/v1/checkouts/${checkoutId}/clickToPay/${name}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params).toString(),
    });
    const answer = await readResponse(response);
    expectEnvelope(answer);
    expect(answer.status).toBeLessThan(500);
    expect(JSON.stringify(answer.body)).not.toContain(NETWORK_TOKEN.paymentToken);
    return answer;
  }
  const session = async (checkoutId: string) => (await step(checkoutId, 'session', {})).body.clickToPay.srciTransactionId as string;
  const deliver = (checkoutId: string, sessionId: string, checkoutResponse: string, network = 'mastercard') => step(checkoutId, 'checkout', { sessionId, network, checkoutResponse });
  const refusedPayload = (answer: ApiResponse, because: string) => {
    expect([answer.status, answer.body.result.code]).toEqual([400, '200.300.404']);
    const errors = answer.body.result.parameterErrors as { name: string; value: string; message: string }[];
    expect(errors.map((error) => [error.name, error.value])).toEqual([['checkoutResponse', '']]);
    expect(errors[0]?.message).toContain(because);
  };
  const vaultItems = async () => Number((await t.gateway.store.query<{ count: string }>('SELECT count(*) AS count FROM vault_items')).rows[0]?.count);

  it('sets, shows, replaces and removes an entity’s settings through the admin API, the private key sealed and never shown', async () => {
    const merchant = await t.newMerchant();
    expect((await admin('GET', merchant.entityId)).body.clickToPay).toEqual({ entityId: merchant.entityId, set: false, dpaName: null, keyId: null, networks: [], updatedAt: null });
    const before = await vaultItems();
    const set = await admin('PUT', merchant.entityId, settingsOf({ visa: { srcDpaId: 'dpa-visa-1', srcInitiatorId: 'init-visa-1', signingKey: keys.network.publicKeyPem, sdkUrl: 'https://sandbox.secure.checkout.visa.com/sdk.js' } }));
    expect(set.status).toBe(200);
    expect(set.body.clickToPay).toMatchObject({
      set: true,
      dpaName: 'Example Shop',
      keyId: keys.merchant.keyId,
      networks: [
        { network: 'mastercard', srcDpaId: 'dpa-mc-0001', srcInitiatorId: 'init-mc-0001', sdkUrl: DEFAULT_SDK_URLS.mastercard, signingKey: keys.network.publicKeyPem },
        { network: 'visa', srcDpaId: 'dpa-visa-1', sdkUrl: 'https://sandbox.secure.checkout.visa.com/sdk.js' },
      ],
    });
    expect((await admin('GET', merchant.entityId)).body.clickToPay).toEqual(set.body.clickToPay);
    expect(await vaultItems()).toBe(before + 1);
    // Replaced: the old key erased; removed: the new one too.
    expect((await admin('PUT', merchant.entityId, settingsOf())).body.clickToPay.networks).toHaveLength(1);
    expect(await vaultItems()).toBe(before + 1);
    expect((await admin('DELETE', merchant.entityId)).body.clickToPay.set).toBe(false);
    expect(await vaultItems()).toBe(before);
    expect((await admin('DELETE', '0123456789abcdef0123456789abcdef')).status).toBe(404);

    // What it could not use, each named; the key never quoted, even under a wrong name.
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const cases: [Record<string, unknown>, string[]][] = [
      [settingsOf({ mastercard: undefined }), ['mastercard']],
      [settingsOf({ privateKey: weak }), ['privateKey']],
      [settingsOf({ privateKey: ec }), ['privateKey']],
      [settingsOf({ privateKey: 'not a key' }), ['privateKey']],
      [settingsOf({ keyId: 'a b' }), ['keyId']],
      [settingsOf({ mastercard: { srcDpaId: '', srcInitiatorId: 'x', signingKey: 'nope', sdkUrl: 'http://evil.example/sdk.js', extra: 1 } }), ['mastercard.extra', 'mastercard.srcDpaId', 'mastercard.sdkUrl', 'mastercard.signingKey']],
      [settingsOf({ mastercard: 'dpa' }), ['mastercard']],
      [settingsOf({ privatekey: keys.merchant.privateKeyPem }), ['privatekey']],
    ];
    for (const [body, names] of cases) {
      const refused = await admin('PUT', merchant.entityId, body);
      expect([refused.status, refused.body.result.code]).toEqual([400, '200.300.404']);
      expect((refused.body.result.parameterErrors as { name: string }[]).map((error) => error.name)).toEqual(names);
      expect(refused.text).not.toContain('PRIVATE KEY');
    }
  });

  it('pays a network’s checkout response in live: the session the SDKs start with, the payload opened and paid once as a network token', async () => {
    expect((await admin('PUT', t.entityId, settingsOf())).status).toBe(200);
    const checkoutId = await newCheckout();
    const started = await step(checkoutId, 'session', {});
    expect(started.status).toBe(200);
    expect(started.body.clickToPay).toEqual({
      srciTransactionId: expect.stringMatching(/^[0-9a-f]{32}$/),
      dpaName: 'Example Shop',
      networks: [{ network: 'mastercard', srcDpaId: 'dpa-mc-0001', srcInitiatorId: 'init-mc-0001', sdkUrl: DEFAULT_SDK_URLS.mastercard }],
      dpaTransactionOptions: {
        transactionAmount: { transactionAmount: '92.00', transactionCurrencyCode: 'EUR' },
        paymentOptions: [{ dynamicDataType: 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM' }],
      },
    });
    const sessionId = started.body.clickToPay.srciTransactionId as string;
    const items = await vaultItems();
    const chosen = await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId }));
    expect(chosen.status).toBe(200);
    const correlationId = chosen.body.clickToPay.correlationId as string;
    expect(correlationId).toMatch(/^[0-9a-f]{32}$/);
    // The token and cryptogram wait sealed in the vault, not in the session's row.
    expect(await vaultItems()).toBe(items + 1);
    const row = (await t.gateway.store.query('SELECT * FROM click_to_pay_sessions WHERE id = $1', [sessionId])).rows[0];
    expect(JSON.stringify(row)).not.toContain(NETWORK_TOKEN.paymentToken);

    const submit = (params: Record<string, string>) =>
      live.request(`/v1/checkouts/${checkoutId}/payment`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ paymentBrand: 'CLICK_TO_PAY', shopperResultUrl: 'https://shop.example/result', ...params }).toString(),
      });
    const paid = await readResponse(await submit({ 'clickToPay.correlationId': correlationId }));
    expect(paid.status).toBe(200);
    // The provider is this test gateway: its approval in test mode, relayed.
    expect(paid.body.result.code).toBe('000.100.110');
    expect(JSON.stringify(paid.body)).not.toContain(NETWORK_TOKEN.paymentToken);
    // Paid, the payload is erased; the merchant reads a network token payment, masked.
    expect(await vaultItems()).toBe(items);
    const read = await readResponse(await live.request(`/v1/checkouts/${checkoutId}/payment?entityId=${t.entityId}`, { headers: { Authorization: `Bearer ${t.token}` } }));
    expect(read.body).toMatchObject({ paymentBrand: 'MASTER', amount: '92.00', tokenAccount: { type: 'NETWORK', number: '518600******9726', expiryMonth: '09', expiryYear: '2031' } });
    // Once: the correlation id is spent, the session has had its payload.
    const again = await readResponse(await submit({ 'clickToPay.correlationId': correlationId }));
    expect(again.status).toBe(400);
    const paidAlready = await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId }));
    expect(paidAlready.status).toBe(400);
    expect(paidAlready.body.result.description).toMatch(/already (paid|been read)/);
  });

  it('refuses a forged, another session’s, another key’s, a card-number or a replayed payload, naming checkoutResponse and quoting none of it', async () => {
    expect((await admin('PUT', t.entityId, settingsOf())).status).toBe(200);
    const checkoutId = await newCheckout();
    const sessionId = await session(checkoutId);
    const other = await session(await newCheckout());
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await checkoutResponseOf(keys, { srciTransactionId: sessionId, signWith: stranger.privateKey });
    refusedPayload(await deliver(checkoutId, sessionId, forged), 'not signed by mastercard’s key');
    refusedPayload(await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: other })), 'another Click to Pay session');
    refusedPayload(await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId, encryptTo: stranger.publicKey })), 'does not open with the entity’s key');
    const cardOnly = { card: { primaryAccountNumber: '5454545454545454', panExpirationMonth: '05', panExpirationYear: '2033' } };
    refusedPayload(await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId, payload: cardOnly })), 'not a network token');
    const noCryptogram = { token: NETWORK_TOKEN };
    refusedPayload(await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId, payload: noCryptogram })), 'no cryptogram');
    refusedPayload(await deliver(checkoutId, sessionId, 'eyJhbGciOi.not.a-jws'), 'not signed');
    refusedPayload(await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId }), 'visa'), 'no Click to Pay settings for visa');
    // The right one, then the same network checkout again (its srcCorrelationId) for a new session of the checkout.
    const good = await checkoutResponseOf(keys, { srciTransactionId: sessionId, srcCorrelationId: 'corr-replayed-1' });
    expect((await deliver(checkoutId, sessionId, good)).status).toBe(200);
    refusedPayload(await deliver(checkoutId, sessionId, good), 'already given');
    const next = await session(checkoutId);
    refusedPayload(await deliver(checkoutId, next, await checkoutResponseOf(keys, { srciTransactionId: next, srcCorrelationId: 'corr-replayed-1' })), 'already given');

    // The other parameters named; a session past its lifetime; an entity without settings: 600.200.201.
    const malformed = await step(checkoutId, 'checkout', { sessionId: 'x', network: 'amex', checkoutResponse: '' });
    expect((malformed.body.result.parameterErrors as { name: string }[]).map((error) => error.name)).toEqual(['sessionId', 'network', 'checkoutResponse']);
    const late = await session(checkoutId);
    clock.advance(SESSION_LIFETIME_MS + MINUTE);
    const expired = await deliver(checkoutId, late, await checkoutResponseOf(keys, { srciTransactionId: late }));
    expect((expired.body.result.parameterErrors as { name: string }[]).map((error) => error.name)).toEqual(['sessionId']);
    expect((await admin('DELETE', t.entityId)).status).toBe(200);
    const unconfigured = await step(checkoutId, 'session', {});
    expect([unconfigured.status, unconfigured.body.result.code]).toEqual([400, '600.200.201']);
    const logs = t.logLines.join('\n');
    expect(logs).not.toContain(NETWORK_TOKEN.paymentToken);
    expect(logs).not.toContain('PRIVATE KEY');
  });

  it('erases a payload never paid with its session, at the hourly housekeeping', async () => {
    expect((await admin('PUT', t.entityId, settingsOf())).status).toBe(200);
    const checkoutId = await newCheckout();
    const sessionId = await session(checkoutId);
    expect((await deliver(checkoutId, sessionId, await checkoutResponseOf(keys, { srciTransactionId: sessionId }))).status).toBe(200);
    const payloadId = (await t.gateway.store.query<{ payload_id: string }>('SELECT payload_id FROM click_to_pay_sessions WHERE id = $1', [sessionId])).rows[0]?.payload_id;
    const sealed = async () => (await t.gateway.store.query('SELECT 1 FROM vault_items WHERE id = $1', [payloadId])).rows.length;
    expect(await sealed()).toBe(1);
    clock.advance(SESSION_LIFETIME_MS + CORRELATION_LIFETIME_MS + 60 * MINUTE);
    await t.gateway.jobs.runDueJobs();
    expect(await sealed()).toBe(0);
    expect((await t.gateway.store.query('SELECT 1 FROM click_to_pay_sessions WHERE id = $1', [sessionId])).rows).toEqual([]);
  });
});
