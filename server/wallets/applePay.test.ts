import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from '../testing/envelope.ts';
import { testAuthority, type TestCertificate } from '../testing/certificates.ts';
import { createTestClock, readResponse, startTestGateway, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { shopperCard } from '../testing/checkouts.ts';
import { checkApplePayIdentity } from './applePayIdentity.ts';
import { APPLE_PAY_VALIDATION_HOSTS } from './applePaySession.ts';

/**
 * Apple Pay's merchant validation through the gateway (issue 35 point 2), against a real HTTPS receiver on loopback
 * standing in for Apple: it demands a client certificate issued by its authority (Apple's, for merchant identities),
 * so a session comes back only when the gateway presented the entity's identity over mutual TLS. The receiver is
 * reached through the gateway's test seams only: Apple's sandbox host name resolved to 127.0.0.1 (GatewayOptions
 * resolve), the allowed hosts narrowed to that name with the receiver's port, and the receiver's authority trusted
 * (GatewayOptions applePay). Then the admin API of the identity, every refusal, and no secret in answers or logs.
 */

const ADMIN_TOKEN = 'admin-token-of-the-apple-pay-test-0123456789';
const APPLE_HOST = 'apple-pay-gateway-cert.apple.com';
const MERCHANT_ID = 'merchant.com.example.shop';
const DOMAIN = 'shop.example.com';

type Behaviour = 'session' | 'refuse' | 'fail' | 'hang' | 'notJson';

interface Received {
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: unknown;
  readonly clientSubject: string;
}

describe('Apple Pay merchant validation', () => {
  let t: TestGateway;
  let apple: Server;
  let port: number;
  let behaviour: Behaviour = 'session';
  const received: Received[] = [];
  /** Apple's stand-in's merchant session: opaque, relayed as it is. */
  const SESSION = { epochTimestamp: 1700000000000, expiresAt: 1700000300000, merchantSessionIdentifier: 'SSH0123456789ABCDEF', nonce: 'a1b2c3d4', merchantIdentifier: 'ABCDEF0123', domainName: DOMAIN, displayName: 'My shop', signature: '308006092a864886f70d0107', operationalAnalyticsIdentifier: 'My shop:ABCDEF', retries: 0, pspId: 'ABCDEF' };
  let identity: TestCertificate;
  let otherIdentity: TestCertificate;
  let strangerIdentity: TestCertificate;
  /** Every answer's text, searched for the keys at the end. */
  const answered: string[] = [];
  /** The gateway's clock: the request limits' windows follow it. */
  const clock = createTestClock();

  beforeAll(async () => {
    const appleRoot = testAuthority('/CN=Test Apple Root CA');
    const merchantAuthority = testAuthority('/CN=Test Apple Worldwide Developer Relations CA');
    const server = appleRoot.issue(`/CN=${APPLE_HOST}`, { dns: APPLE_HOST });
    identity = merchantAuthority.issue(`/UID=${MERCHANT_ID}/CN=Apple Pay Merchant Identity:${MERCHANT_ID}/O=Example Shop/C=DE`, { rsa: true });
    otherIdentity = merchantAuthority.issue(`/UID=${MERCHANT_ID}/CN=Apple Pay Merchant Identity:${MERCHANT_ID} (renewed)/O=Example Shop/C=DE`);
    // Not issued by Apple's authority: the receiver refuses its handshake.
    strangerIdentity = testAuthority('/CN=Not Apple').issue(`/UID=${MERCHANT_ID}/CN=Stranger`);
    apple = createServer({ key: server.privateKey, cert: server.certificate, ca: merchantAuthority.certificate, requestCert: true, rejectUnauthorized: true }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const peer = (request.socket as TLSSocket).getPeerCertificate();
        const text = Buffer.concat(chunks).toString('utf8');
        received.push({ path: request.url ?? '', contentType: request.headers['content-type'], body: JSON.parse(text), clientSubject: String(peer.subject?.CN ?? '') });
        const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (behaviour === 'session') json(200, SESSION);
        else if (behaviour === 'refuse') json(400, { statusMessage: `Payment Services Exception merchantId=ABCDEF not registered for domain=${DOMAIN}`, statusCode: '400' });
        else if (behaviour === 'fail') json(503, { statusMessage: 'Service unavailable', statusCode: '503' });
        else if (behaviour === 'notJson') response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        // 'hang': no answer; the gateway's short timeout ends the call.
      });
    });
    await new Promise<void>((resolve) => apple.listen(0, '127.0.0.1', resolve));
    port = (apple.address() as AddressInfo).port;
    t = await startTestGateway(
      'PGlite',
      { adminToken: ADMIN_TOKEN },
      {
        resolve: async (host) => (host === APPLE_HOST ? [{ address: '127.0.0.1', family: 4 }] : []),
        applePay: { hosts: [`${APPLE_HOST}:${port}`], trustedCertificates: appleRoot.certificate, timeoutMs: 300 },
        now: clock.now,
      },
    );
  });
  afterAll(async () => {
    await t?.close();
    apple?.closeAllConnections();
    await new Promise<void>((resolve) => (apple ? apple.close(() => resolve()) : resolve()));
  });

  const validationUrl = () => `https://${APPLE_HOST}:${port}/paymentservices/startSession`;

  async function admin(method: string, entityId: string, body?: unknown, setting = 'applePay'): Promise<ApiResponse> {
    const response = await t.gateway.app.request(`/admin/v1/entities/${entityId}/${setting}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    answered.push(await response.clone().text());
    return readResponse(response);
  }
  const identityOf = (certificate: TestCertificate, overrides: Record<string, unknown> = {}) => ({
    merchantIdentifier: MERCHANT_ID,
    displayName: 'Example Shop',
    domains: [DOMAIN, 'WWW.Example.com'],
    certificate: certificate.certificate,
    privateKey: certificate.privateKey,
    ...overrides,
  });
  const newCheckout = async (entity: { entityId: string; token: string } = { entityId: t.entityId, token: t.token }): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: entity.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' }, { token: entity.token });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** What the widget posts (widget/app/wallet/live.ts): JSON, no credentials, from the page of the body's domain. */
  async function validate(body: Record<string, unknown>, origin = `https://${typeof body.domain === 'string' ? body.domain : DOMAIN}`): Promise<{ status: number; headers: Headers; text: string; json: any }> {
    const response = await fetch(`${t.url}/v1/wallets/applepay/session`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify(body) });
    const text = await response.text();
    answered.push(text);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    return { status: response.status, headers: response.headers, text, json: JSON.parse(text) };
  }
  const refusal = (answer: { status: number; headers: Headers; json: any }) => {
    expectEnvelope({ status: answer.status, headers: answer.headers, body: answer.json });
    return { status: answer.status, code: answer.json.result.code as string, description: answer.json.result.description as string, names: ((answer.json.result.parameterErrors ?? []) as { name: string }[]).map((error) => error.name) };
  };

  it('keeps Apple’s hosts as the production list', () => {
    expect(APPLE_PAY_VALIDATION_HOSTS).toContain('apple-pay-gateway.apple.com');
    expect(APPLE_PAY_VALIDATION_HOSTS).toContain('cn-apple-pay-gateway-tj-pod3.apple.com');
    expect(APPLE_PAY_VALIDATION_HOSTS).toContain('apple-pay-gateway-cert.apple.com');
    expect(APPLE_PAY_VALIDATION_HOSTS).toHaveLength(20);
    expect(APPLE_PAY_VALIDATION_HOSTS.every((host) => host.endsWith('.apple.com') && !host.includes(':'))).toBe(true);
  });

  it('sets, shows, replaces and removes an entity’s identity through the admin API, the certificate and key sealed', async () => {
    const { entityId } = await t.newMerchant();
    expect((await admin('GET', entityId)).body.applePay).toEqual({ entityId, set: false, merchantIdentifier: null, displayName: null, domains: [], certificate: null, updatedAt: null });
    const saved = await admin('PUT', entityId, identityOf(identity));
    expect(saved.status).toBe(200);
    expect(saved.body.applePay).toEqual({
      entityId,
      set: true,
      merchantIdentifier: MERCHANT_ID,
      displayName: 'Example Shop',
      domains: [DOMAIN, 'www.example.com'],
      certificate: { subject: expect.stringContaining(`CN=Apple Pay Merchant Identity:${MERCHANT_ID}`), expiresAt: expect.any(String) },
      updatedAt: expect.any(String),
    });
    expect((await admin('GET', entityId)).body.applePay).toEqual(saved.body.applePay);
    const [row] = (await t.gateway.store.query<{ identity_id: string }>('SELECT * FROM apple_pay_identities WHERE entity_id = $1', [entityId])).rows;
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
    const item = (await t.gateway.store.query('SELECT * FROM vault_items WHERE id = $1', [row?.identity_id])).rows[0];
    expect(item).toBeDefined();
    expect(JSON.stringify(item)).not.toMatch(/BEGIN|PRIVATE/);

    const replaced = await admin('PUT', entityId, identityOf(otherIdentity, { displayName: undefined, domains: [DOMAIN] }));
    expect(replaced.body.applePay).toMatchObject({ displayName: null, domains: [DOMAIN], certificate: { subject: expect.stringContaining('(renewed)') } });
    expect((await t.gateway.store.query('SELECT * FROM vault_items WHERE id = $1', [row?.identity_id])).rows).toEqual([]);

    const removed = await admin('DELETE', entityId);
    expect([removed.status, removed.body.applePay.set]).toEqual([200, false]);
    expect((await t.gateway.store.query('SELECT * FROM apple_pay_identities WHERE entity_id = $1', [entityId])).rows).toEqual([]);
    expect((await admin('DELETE', entityId)).status).toBe(200);
  });

  it('refuses an identity it could not use, naming the field and quoting neither certificate nor key', async () => {
    const { entityId } = await t.newMerchant();
    const namesOf = (answer: ApiResponse) => (answer.body.result.parameterErrors as { name: string }[]).map((error) => error.name);
    const wrong = await admin('PUT', entityId, identityOf(identity, { merchantIdentifier: 'com.example', domains: ['https://shop.example.com/pay'], privateKey: otherIdentity.privateKey }));
    expect([wrong.status, wrong.body.result.code]).toEqual([400, '200.300.404']);
    expect(namesOf(wrong)).toEqual(['merchantIdentifier', 'domains', 'privateKey']);
    expect(wrong.body.result.parameterErrors[2].message).toBe('is not the private key of this certificate');
    expect(namesOf(await admin('PUT', entityId, identityOf(identity, { certificate: 'not a certificate', domains: [] })))).toEqual(['domains', 'certificate']);
    expect(namesOf(await admin('PUT', entityId, { ...identityOf(identity), key: identity.privateKey }))).toEqual(['key']);
    expect((await admin('PUT', entityId, identityOf(identity, { displayName: 'x'.repeat(65) }))).status).toBe(400);
    expect((await admin('GET', entityId)).body.applePay.set).toBe(false);
    // An expired certificate: Apple would refuse every validation.
    expect(() => checkApplePayIdentity(identityOf(identity), new Date(Date.now() + 400 * 86_400_000))).toThrow(/certificate expired on/);
    expect((await admin('GET', '0123456789abcdef0123456789abcdef')).status).toBe(404);
    expect((await admin('POST', entityId, {})).status).toBe(405);
    expect((await t.gateway.app.request(`/admin/v1/entities/${entityId}/applePay`)).status).toBe(401);
  });

  it('validates the merchant with the entity’s identity over mutual TLS and relays Apple’s session unchanged', async () => {
    expect((await admin('PUT', t.entityId, identityOf(identity))).status).toBe(200);
    const checkoutId = await newCheckout();
    behaviour = 'session';
    received.length = 0;
    const answer = await validate({ validationUrl: validationUrl(), domain: DOMAIN, displayName: 'My shop', merchantIdentifier: MERCHANT_ID, checkoutId });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify(SESSION));
    expect(received).toEqual([
      {
        path: '/paymentservices/startSession',
        contentType: 'application/json',
        body: { merchantIdentifier: MERCHANT_ID, displayName: 'My shop', initiative: 'web', initiativeContext: DOMAIN },
        clientSubject: `Apple Pay Merchant Identity:${MERCHANT_ID}`,
      },
    ]);
    // Without the page's display name, the identity's; the widget's merchantIdentifier may be left out.
    const again = await validate({ validationUrl: validationUrl(), domain: 'www.example.com', checkoutId });
    expect(again.status).toBe(200);
    expect(received[1]?.body).toEqual({ merchantIdentifier: MERCHANT_ID, displayName: 'Example Shop', initiative: 'web', initiativeContext: 'www.example.com' });
    expect(t.logLines.some((line) => line.includes('Apple Pay merchant session') && line.includes(t.entityId))).toBe(true);
  });

  it('validates a fast checkout’s page, which has no checkout yet, by its merchant identifier and domain, counted against the entity’s limits', async () => {
    const merchant = await t.newMerchant();
    const LIMITED_ID = 'merchant.com.example.limited';
    const LIMITED_DOMAIN = 'limited.example.com';
    expect((await admin('PUT', merchant.entityId, identityOf(identity, { merchantIdentifier: LIMITED_ID, domains: [LIMITED_DOMAIN] }))).status).toBe(200);
    expect((await admin('PUT', merchant.entityId, { limits: { requestsPerMinute: 2 } }, 'throttling')).status).toBe(200);
    behaviour = 'session';
    received.length = 0;
    const fast = (overrides: Record<string, unknown> = {}) => ({ validationUrl: validationUrl(), domain: LIMITED_DOMAIN, merchantIdentifier: LIMITED_ID, ...overrides });
    const answer = await validate(fast());
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify(SESSION));
    expect(received.map((call) => [call.body, call.clientSubject])).toEqual([
      [{ merchantIdentifier: LIMITED_ID, displayName: 'Example Shop', initiative: 'web', initiativeContext: LIMITED_DOMAIN }, `Apple Pay Merchant Identity:${MERCHANT_ID}`],
    ]);
    // The checkout id of a fast checkout page is empty until the merchant made one: the same as none.
    expect((await validate(fast({ checkoutId: '' }))).status).toBe(200);
    // The entity's requestsPerMinute (2) is spent: a page (or a script) asking again waits for the next window.
    const throttled = refusal(await validate(fast()));
    expect([throttled.status, throttled.code]).toEqual([400, '800.120.100']);
    clock.advance(60_000);
    expect((await validate(fast())).status).toBe(200);
    expect(received).toHaveLength(3);

    received.length = 0;
    // No identifier, another entity's domain, an identifier nobody has, a page that is not on the domain it names.
    const none = refusal(await validate(fast({ merchantIdentifier: undefined })));
    expect([none.status, none.names]).toEqual([400, ['merchantIdentifier']]);
    expect(none.description).toBe('invalid or missing parameter');
    const elsewhere = refusal(await validate(fast({ domain: DOMAIN })));
    expect([elsewhere.status, elsewhere.names]).toEqual([400, ['merchantIdentifier']]);
    expect(refusal(await validate(fast({ merchantIdentifier: 'merchant.com.nobody' }))).names).toEqual(['merchantIdentifier']);
    const forged = refusal(await validate(fast(), 'https://evil.example'));
    expect([forged.status, forged.names]).toEqual([400, ['domain']]);
    expect(received).toEqual([]);
  });

  it('refuses a validationUrl off Apple’s hosts before anything is called, and the other fields naming each', async () => {
    const checkoutId = await newCheckout();
    received.length = 0;
    for (const url of [
      'https://evil.example/paymentservices/startSession',
      `http://apple-pay-gateway.apple.com/paymentservices/startSession`,
      // On Apple's production list, but not this test gateway's: the seam replaces the list, it does not add to it.
      'https://apple-pay-gateway.apple.com/paymentservices/startSession',
      `https://${APPLE_HOST}/paymentservices/startSession`,
      `https://user:pass@${APPLE_HOST}:${port}/paymentservices/startSession`,
      `https://127.0.0.1:${port}/paymentservices/startSession`,
      'not a url',
    ]) {
      const answer = refusal(await validate({ validationUrl: url, domain: DOMAIN, checkoutId }));
      expect([answer.status, answer.code, answer.names], url).toEqual([400, '200.300.404', ['validationUrl']]);
    }
    const all = refusal(await validate({ validationUrl: 'https://evil.example/', domain: 'https://shop.example.com', checkoutId: 'nope', displayName: '' }));
    expect(all.names).toEqual(['validationUrl', 'domain', 'checkoutId', 'displayName']);
    expect(refusal(await validate({ validationUrl: validationUrl(), domain: DOMAIN, checkoutId, merchantId: MERCHANT_ID })).names).toEqual(['merchantId']);
    const notJson = await fetch(`${t.url}/v1/wallets/applepay/session`, { method: 'POST', body: 'validationUrl=x' });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${t.url}/v1/wallets/applepay/session`)).status).toBe(405);
    expect(received).toEqual([]);
  });

  it('refuses an unknown or closed checkout, an entity without an identity, an unregistered domain, another merchantIdentifier', async () => {
    received.length = 0;
    const body = (checkoutId: string, overrides: Record<string, unknown> = {}) => ({ validationUrl: validationUrl(), domain: DOMAIN, checkoutId, ...overrides });
    const unknown = refusal(await validate(body('0123456789ABCDEF0123456789ABCDEF.uat01-vm-tx01')));
    expect([unknown.status, unknown.code, unknown.description]).toEqual([400, '200.300.404', 'No payment session found for the requested id']);

    const paid = await newCheckout();
    expect((await t.post(`/v1/checkouts/${paid}/payment`, shopperCard(), { token: null })).status).toBe(200);
    const closed = refusal(await validate(body(paid)));
    expect([closed.status, closed.code]).toEqual([400, '200.300.404']);
    expect(closed.description).toMatch(/^checkout already paid/);

    const deleted = await newCheckout();
    expect((await t.delete(`/v1/checkouts/${deleted}`, { entityId: t.entityId })).status).toBe(200);
    expect(refusal(await validate(body(deleted))).description).toBe('No payment session found for the requested id');

    const other = await t.newMerchant();
    const none = refusal(await validate(body(await newCheckout(other))));
    expect([none.status, none.code]).toEqual([400, '600.200.201']);
    expect(none.description).toContain('no Apple Pay merchant identity is configured for this entity');

    const checkoutId = await newCheckout();
    const foreign = refusal(await validate(body(checkoutId, { domain: 'evil.example' })));
    expect([foreign.status, foreign.code, foreign.names]).toEqual([400, '200.300.404', ['domain']]);
    const otherId = refusal(await validate(body(checkoutId, { merchantIdentifier: 'merchant.com.other' })));
    expect([otherId.status, otherId.names]).toEqual([400, ['merchantIdentifier']]);
    expect(received).toEqual([]);
  });

  it('answers 502 when Apple refuses, fails, answers no session or refuses the certificate, and 504 when it does not answer in time', async () => {
    const checkoutId = await newCheckout();
    const body = { validationUrl: validationUrl(), domain: DOMAIN, checkoutId };
    behaviour = 'refuse';
    const refused = refusal(await validate(body));
    expect([refused.status, refused.code]).toEqual([502, '900.100.200']);
    expect(refused.description).toBe(`error response from connector/acquirer: Apple Pay merchant validation failed: Apple answered HTTP 400: Payment Services Exception merchantId=ABCDEF not registered for domain=${DOMAIN}`);
    behaviour = 'fail';
    expect(refusal(await validate(body)).status).toBe(502);
    behaviour = 'notJson';
    const notJson = refusal(await validate(body));
    expect([notJson.status, notJson.code, notJson.description]).toEqual([502, '900.100.200', 'error response from connector/acquirer: Apple Pay merchant validation failed: Apple answered HTTP 200 without a merchant session']);
    behaviour = 'hang';
    const started = Date.now();
    const late = refusal(await validate(body));
    expect([late.status, late.code]).toEqual([504, '900.100.400']);
    expect(Date.now() - started).toBeLessThan(3000);
    // A certificate Apple did not issue: the handshake fails, nothing is answered.
    behaviour = 'session';
    const { entityId, token } = await t.newMerchant();
    expect((await admin('PUT', entityId, identityOf(strangerIdentity))).status).toBe(200);
    const stranger = refusal(await validate({ ...body, checkoutId: await newCheckout({ entityId, token }) }));
    expect([stranger.status, stranger.code, stranger.description]).toEqual([502, '900.100.100', 'unexpected communication error with connector/acquirer: Apple Pay merchant validation failed: Apple could not be reached']);
    const warnings = t.logLines.filter((line) => line.includes('Apple Pay merchant validation: Apple'));
    expect(warnings.length).toBeGreaterThanOrEqual(5);
    expect(warnings.some((line) => line.includes('"status":400') && line.includes('not registered for domain'))).toBe(true);
  });

  it('never showed a certificate, a key or a session in a log line, nor a key in an answer', () => {
    expect(answered.length).toBeGreaterThan(20);
    for (const pem of [identity, otherIdentity, strangerIdentity]) {
      const keyBody = pem.privateKey.split('\n')[1] as string;
      const certificateBody = pem.certificate.split('\n')[1] as string;
      expect(answered.filter((text) => text.includes(keyBody))).toEqual([]);
      expect(t.logLines.filter((line) => line.includes(keyBody) || line.includes(certificateBody))).toEqual([]);
    }
    expect(t.logLines.filter((line) => line.includes(SESSION.merchantSessionIdentifier) || line.includes(SESSION.signature))).toEqual([]);
  });
});
