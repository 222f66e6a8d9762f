import { createDecipheriv } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/index.ts';
import { startGateway } from '../gateway.ts';
import {
  cardPayment,
  configAt,
  freshStoreLocation,
  liveApp,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type ApiResponse,
  type StoreLocation,
  type TestGateway,
} from '../testing/harness.ts';
import { startNodeReceiver, type NodeReceiver, type ReceivedNotification } from '../testing/webhookReceivers.ts';

warnIfPostgresSkipped('admin.test.ts');

/** Configuring webhooks (COMPAT §13) by the operator: the admin commands and the admin HTTP API, against real receivers. */

const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';

const receivers: NodeReceiver[] = [];
async function receiver(behaviour: Parameters<typeof startNodeReceiver>[1] = 200): Promise<NodeReceiver> {
  const started = await startNodeReceiver(SECRET, behaviour);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((started) => started.close()));
});

const typeOf = (request: ReceivedNotification | undefined) => (request?.json as { type?: string } | undefined)?.type;

/** Decrypts what a receiver got with a secret the test only learnt from the command's output. */
function decryptWith(secretHex: string, request: ReceivedNotification): unknown {
  const decipher = createDecipheriv('aes-256-gcm', Buffer.from(secretHex, 'hex'), Buffer.from(String(request.headers['x-initialization-vector']), 'hex'));
  decipher.setAuthTag(Buffer.from(String(request.headers['x-authentication-tag']), 'hex'));
  return JSON.parse(decipher.update(Buffer.from(request.body, 'hex'), undefined, 'utf8') + decipher.final('utf8'));
}

function field(output: string, label: string): string {
  const match = new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(output);
  if (!match?.[1]) throw new Error(`no "${label}" in:\n${output}`);
  return match[1];
}

describe.each(STORE_KINDS)('webhook admin commands on %s', (kind) => {
  let location: StoreLocation;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
  });
  afterAll(async () => {
    await location?.dispose();
  });

  const env = () => ({
    DATA_DIR: location.dataDir,
    DATABASE_URL: location.databaseUrl ?? '',
    CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
  });
  const gateway = (...args: string[]) => runCli(args, { env: env(), progress: () => {} });
  /** A gateway on the same store for a while: takes a payment and sends what is due. */
  async function payAndDeliver(entityId: string, token: string, pay: boolean): Promise<void> {
    const running = await startGateway(configAt(location), { jobPollMs: 0 });
    try {
      if (pay) {
        const paid = await fetch(`${running.url}/v1/payments`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(cardPayment(entityId)),
        });
        expect(paid.status).toBe(200);
      }
      await running.webhooks.deliveries.runDueJobs();
    } finally {
      await running.close();
    }
  }

  it('create, list, test, update, deliveries, resend and delete: the secret printed once, the activation outcome shown', async () => {
    const entity = await gateway('entity', 'create', '--name', 'Webhook shop');
    const entityId = field(entity.stdout, 'entityId');
    const token = field(entity.stdout, 'access token');
    const target = await receiver(200);

    const created = await gateway('webhook', 'create', '--entity', entityId, '--url', target.url, '--types', 'PAYMENT', '--wrapper', 'JSON', '--secret', SECRET);
    expect(created.exitCode).toBe(0);
    const id = field(created.stdout, 'webhook id');
    expect(created.stdout).toMatch(/^status\s+active$/m);
    expect(created.stdout).toMatch(/^activation\s+delivered \(HTTP 200\)$/m);
    expect(field(created.stdout, 'secret')).toBe(SECRET);
    expect(created.stdout).toContain('will not be shown again');
    expect(target.received).toHaveLength(1);
    expect(typeOf(target.received[0])).toBe('test');

    // A 500 to the activation leaves the webhook pending.
    const other = await receiver(500);
    const pending = await gateway('webhook', 'create', '--entity', entityId, '--url', other.url, '--secret', SECRET);
    expect(pending.exitCode).toBe(0);
    const pendingId = field(pending.stdout, 'webhook id');
    expect(pending.stdout).toMatch(/^status\s+pending \(waiting for a 2xx to the activation message\)$/m);
    expect(pending.stdout).toMatch(/^activation\s+not delivered \(HTTP 500\)$/m);

    // A generated secret, printed once: the message opens with it (not with the receiver's, which answers 500).
    const third = await receiver(200);
    const withGenerated = await gateway('webhook', 'create', '--entity', entityId, '--url', third.url);
    expect(withGenerated.exitCode).toBe(0);
    const generatedId = field(withGenerated.stdout, 'webhook id');
    const generated = field(withGenerated.stdout, 'secret');
    expect(generated).toMatch(/^[0-9A-F]{64}$/);
    expect(generated).not.toBe(SECRET);
    expect(withGenerated.stdout).toMatch(/^activation\s+not delivered \(HTTP 500\)$/m);
    expect(decryptWith(generated, third.received[0] as ReceivedNotification)).toMatchObject({ type: 'test' });

    const listed = await gateway('webhook', 'list');
    expect(listed.stdout).toContain(`${id}  entity ${entityId}  active  PAYMENT  ALL  JSON  ${target.url}`);
    expect(listed.stdout).toContain(`${pendingId}  entity ${entityId}  pending`);
    expect(listed.stdout).not.toContain(SECRET);
    expect(listed.stdout).toContain(`${generatedId}  entity ${entityId}  pending`);
    expect(listed.stdout).not.toContain(generated);
    expect((await gateway('webhook', 'list', '--entity', '0'.repeat(32))).stdout).toBe('(no webhooks)\n');

    other.setBehaviour(200);
    const tested = await gateway('webhook', 'test', pendingId);
    expect(tested.stdout).toMatch(/^status\s+active$/m);
    expect(tested.stdout).toMatch(/^activation\s+delivered \(HTTP 200\)$/m);
    expect(tested.stdout).not.toContain(SECRET);
    const off = await gateway('webhook', 'update', pendingId, '--active', 'false');
    expect(off.stdout).toMatch(/^status\s+inactive \(switched off by the operator\)$/m);
    const changed = await gateway('webhook', 'update', id, '--types', 'PAYMENT,REGISTRATION', '--fields', 'NON_CUSTOMER_DATA');
    expect(changed.stdout).toMatch(/^types\s+PAYMENT,REGISTRATION$/m);
    expect(changed.stdout).toMatch(/^fields\s+NON_CUSTOMER_DATA$/m);

    // Refused settings: non-zero, naming the option.
    const badUrl = await gateway('webhook', 'create', '--entity', entityId, '--url', 'ftp://receiver.example/hook');
    expect(badUrl.exitCode).toBe(1);
    expect(badUrl.stderr).toContain('--url must be an absolute http or https URL');
    const badTypes = await gateway('webhook', 'update', id, '--types', 'PAYMENT,BOGUS');
    expect(badTypes.exitCode).toBe(1);
    expect(badTypes.stderr).toContain('--types must be one or more of PAYMENT, REGISTRATION, SCHEDULE, RISK (not BOGUS)');
    const badEntity = await gateway('webhook', 'create', '--entity', '0'.repeat(32), '--url', target.url);
    expect(badEntity.exitCode).toBe(1);
    expect(badEntity.stderr).toContain(`--entity: no entity ${'0'.repeat(32)}`);
    const badActive = await gateway('webhook', 'update', id, '--active', 'maybe');
    expect(badActive.exitCode).toBe(1);
    expect(badActive.stderr).toContain('--active must be true or false');

    await payAndDeliver(entityId, token, true);
    expect(target.received.map(typeOf)).toEqual(['test', 'PAYMENT']);
    expect(other.received).toHaveLength(2); // switched off: no payment notification

    const log = await gateway('webhook', 'deliveries', id, '--limit', '10');
    expect(log.exitCode).toBe(0);
    const [first, attempt] = log.stdout.split('\n');
    expect(first).toMatch(/^[0-9a-f]{32}  PAYMENT \S+ [0-9a-f]{32}  delivered \S+  \(created \S+, 1 attempt\(s\)\)$/);
    expect(attempt).toMatch(/^ {2}\S+Z {2}HTTP 200 {2}\d+ ms$/);
    const deliveryId = (first as string).slice(0, 32);

    const resent = await gateway('webhook', 'resend', deliveryId);
    expect(resent.exitCode).toBe(0);
    expect(resent.stdout).toContain(`re-send of delivery ${deliveryId} scheduled`);
    await payAndDeliver(entityId, token, false);
    expect(target.received.map(typeOf)).toEqual(['test', 'PAYMENT', 'PAYMENT']);
    expect((await gateway('webhook', 'deliveries', id)).stdout).toContain('2 attempt(s)');

    expect((await gateway('webhook', 'delete', generatedId)).exitCode).toBe(0);
    const deleted = await gateway('webhook', 'delete', pendingId);
    expect(deleted.stdout).toContain(`deleted webhook ${pendingId}`);
    expect((await gateway('webhook', 'list')).stdout).not.toContain(pendingId);
    const gone = await gateway('webhook', 'test', pendingId);
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toContain(`no webhook ${pendingId}`);
    const noDelivery = await gateway('webhook', 'resend', 'f'.repeat(32));
    expect(noDelivery.exitCode).toBe(1);
    expect(noDelivery.stderr).toContain(`no delivery ${'f'.repeat(32)}`);
    const usage = await gateway('webhook', 'delete');
    expect(usage.exitCode).toBe(1);
    expect(usage.stderr).toContain('webhook delete needs the webhook ID');
    expect(usage.stderr).toContain('webhook deliveries ID [--limit N]');
  }, 120_000);
});

describe.each(STORE_KINDS)('the admin webhooks API on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await t?.close();
  });

  const deliver = () => t.gateway.webhooks.deliveries.runDueJobs();
  async function admin(method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN): Promise<ApiResponse & { text: string }> {
    const response = await fetch(`${t.url}/admin/v1/webhooks${path === '/' ? '' : path.startsWith('/?') ? path.slice(1) : path}`, {
      method,
      headers: {
        ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.clone().text();
    return { ...(await readResponse(response)), text };
  }
  const names = (response: ApiResponse) => (response.body.result.parameterErrors as { name: string }[]).map((error) => error.name);

  it('creates a webhook (activation received), lists its deliveries with their attempts, re-sends, changes, tests and deletes it', async () => {
    const target = await receiver(200);
    const merchant = await t.newMerchant();
    const created = await admin('POST', '/', { entityId: merchant.entityId, url: target.url, types: ['PAYMENT'], wrapper: 'JSON', secret: SECRET });
    expect(created.status).toBe(201);
    expect(created.body.result.code).toBe('000.000.100');
    expect(created.body.secret).toBe(SECRET);
    expect(created.body.activation).toEqual({ delivered: true, httpStatus: 200, error: null });
    const id = created.body.webhook.id as string;
    expect(created.body.webhook).toEqual({
      id,
      entityId: merchant.entityId,
      url: target.url,
      types: ['PAYMENT'],
      fields: 'ALL',
      wrapper: 'JSON',
      status: 'active',
      statusReason: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(target.received.map(typeOf)).toEqual(['test']);

    const read = await admin('GET', `/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.webhook.status).toBe('active');
    expect(read.text).not.toContain(SECRET);
    expect(read.text).not.toContain('secret');
    const listed = await admin('GET', `/?entityId=${merchant.entityId}`);
    expect(listed.body.webhooks.map((webhook: { id: string }) => webhook.id)).toEqual([id]);
    expect(listed.text).not.toContain(SECRET);

    const paid = await t.post('/v1/payments', cardPayment(merchant.entityId), { token: merchant.token });
    expect(paid.status).toBe(200);
    await deliver();
    expect(target.received.map(typeOf)).toEqual(['test', 'PAYMENT']);
    const log = await admin('GET', `/${id}/deliveries?limit=5`);
    expect(log.status).toBe(200);
    expect(log.body.deliveries).toHaveLength(1);
    const delivery = log.body.deliveries[0];
    expect(delivery).toMatchObject({ type: 'PAYMENT', resourceId: paid.body.id, state: 'delivered', givenUpAt: null });
    expect(delivery.attempts).toEqual([{ attemptedAt: expect.any(String), httpStatus: 200, latencyMs: expect.any(Number), error: null }]);

    const resent = await admin('POST', `/deliveries/${delivery.id}/resend`);
    expect(resent.status).toBe(202);
    await deliver();
    expect(target.received.map(typeOf)).toEqual(['test', 'PAYMENT', 'PAYMENT']);
    expect((await admin('GET', `/${id}/deliveries`)).body.deliveries[0].attempts).toHaveLength(2);

    const off = await admin('PATCH', `/${id}`, { active: false, fields: 'NON_CUSTOMER_DATA' });
    expect(off.status).toBe(200);
    expect(off.body.webhook).toMatchObject({ status: 'inactive', fields: 'NON_CUSTOMER_DATA' });
    expect(off.body.activation).toBeNull();
    const on = await admin('PATCH', `/${id}`, { active: true });
    expect(on.body.webhook.status).toBe('active');
    expect(on.body.activation).toMatchObject({ delivered: true, httpStatus: 200 });
    target.setBehaviour(503);
    const tested = await admin('POST', `/${id}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.activation).toMatchObject({ delivered: false, httpStatus: 503 });
    expect(tested.body.webhook.status).toBe('active');

    // The operator's scope is the whole gateway: another entity's webhook is listed and managed alike.
    const second = await t.newMerchant();
    const theirs = await admin('POST', '/', { entityId: second.entityId, url: `${target.url}?second`, types: ['REGISTRATION'] });
    expect(theirs.status).toBe(201);
    expect(theirs.body.secret).toMatch(/^[0-9A-F]{64}$/);
    const all = await admin('GET', '/');
    expect(all.body.webhooks.map((webhook: { id: string }) => webhook.id)).toEqual(expect.arrayContaining([id, theirs.body.webhook.id]));
    expect(all.text).not.toContain(theirs.body.secret);
    expect((await admin('DELETE', `/${theirs.body.webhook.id}`)).status).toBe(200);

    const deleted = await admin('DELETE', `/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.webhook.id).toBe(id);
    expect((await admin('GET', `/${id}`)).status).toBe(404);
    expect((await admin('POST', `/${id}/test`)).status).toBe(404);
    expect((await admin('GET', `/${id}/deliveries`)).status).toBe(404);
    expect((await admin('POST', `/deliveries/${delivery.id}/resend`)).status).toBe(404);
  }, 60_000);

  it('refuses refused settings, malformed JSON and unknown fields with 400 and parameterErrors, never a 500', async () => {
    const target = await receiver(200);
    const base = { entityId: t.entityId, url: target.url };
    const cases: [unknown, string[]][] = [
      ['{"url":', ['body']],
      ['[]', ['body']],
      ['', ['body']],
      [{ ...base, colour: 'red' }, ['colour']],
      [{ ...base, types: 'PAYMENT' }, ['types']],
      [{ ...base, types: ['PAYMENT', 'BOGUS'] }, ['types']],
      [{ ...base, url: 'ftp://receiver.example/' }, ['url']],
      [{ ...base, url: `${t.url}/hook` }, ['url']],
      [{ ...base, fields: 'SOME' }, ['fields']],
      [{ ...base, wrapper: 'XML' }, ['wrapper']],
      [{ ...base, secret: 'abc' }, ['secret']],
      [{ ...base, entityId: '0'.repeat(32) }, ['entityId']],
      [{ ...base, entityId: 'nope' }, ['entityId']],
      [{ url: target.url }, ['entityId']],
    ];
    for (const [body, expected] of cases) {
      const refused = await admin('POST', '/', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.result.code).toBe('200.300.404');
      expect(names(refused), JSON.stringify(body)).toEqual(expected);
    }
    expect(target.received).toHaveLength(0);

    const created = await admin('POST', '/', { ...base, secret: SECRET });
    const id = created.body.webhook.id as string;
    for (const [body, expected] of [
      [{ bogus: 1 }, ['bogus']],
      [{ active: 'yes' }, ['active']],
      [{ url: 'not a url' }, ['url']],
      ['{', ['body']],
    ] as [unknown, string[]][]) {
      const refused = await admin('PATCH', `/${id}`, body);
      expect(refused.status).toBe(400);
      expect(names(refused)).toEqual(expected);
    }
    expect((await admin('GET', `/${id}/deliveries?limit=abc`)).status).toBe(400);
    expect((await admin('GET', `/${id}/deliveries?limit=0`)).status).toBe(400);
    expect((await admin('GET', '/?entityId=bad')).status).toBe(400);
    expect((await admin('GET', '/not-an-id')).status).toBe(404);
    expect((await admin('PATCH', `/${'0'.repeat(32)}`, { active: false })).status).toBe(404);
    const huge = await admin('POST', '/', JSON.stringify({ ...base, url: `${target.url}?${'a'.repeat(70_000)}` }));
    expect(huge.status).toBe(413);
  });

  it('answers 401 without a bearer token and 403 for a wrong one, never logging the token; without ADMIN_TOKEN there is no admin API', async () => {
    const missing = await admin('GET', '/', undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body.result.code).toBe('800.900.300');
    const wrong = await admin('GET', '/', undefined, `${ADMIN_TOKEN}x`);
    expect(wrong.status).toBe(403);
    expect(wrong.body.result.code).toBe('800.900.300');
    // A merchant's access token is not the admin token.
    expect((await admin('POST', '/', { entityId: t.entityId, url: 'http://127.0.0.1:9/' }, t.token)).status).toBe(403);
    const basic = await fetch(`${t.url}/admin/v1/webhooks`, { headers: { Authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
    expect((await admin('GET', '/')).status).toBe(200);
    expect(t.logLines.join('\n')).not.toContain(ADMIN_TOKEN);

    // An app whose configuration has no ADMIN_TOKEN: the paths do not exist, whatever the caller sends.
    const withoutToken = await liveApp({ ...t, gateway: { ...t.gateway, config: { ...t.gateway.config, adminToken: undefined } } });
    const absent = await withoutToken.request('/admin/v1/webhooks', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(absent.status).toBe(404);
    expect(((await absent.json()) as { result: { code: string } }).result.code).toBe('200.100.103');
    const withToken = await (await liveApp(t)).request('/admin/v1/webhooks', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(withToken.status).toBe(200);
  });
});
