import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { findTokenAccess } from '../merchants/repository.ts';
import { cachedLegacyAccess } from '../merchants/legacyAccessCache.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  cardPayment,
  CIT_INITIAL,
  createTestClock,
  MIT_REPEATED,
  STORE_KINDS,
  startTestGateway,
  freshStoreLocation,
  testCard,
  type StoreLocation,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestClock,
  type StoreKind,
  type TestGateway,
} from '../testing/harness.ts';
import { randomBytes } from 'node:crypto';
import { runCli } from '../cli/index.ts';
import { createAuthFailureGuard } from './authFailures.ts';
import { QUERY_LIMITS } from './service.ts';

/**
 * Limits on what a client may ask (COMPAT §8, and what a card tester or a token guesser does), counted in the
 * store so every instance enforces the same ones. Over a limit: HTTP 400, 800.120.100.
 */

warnIfPostgresSkipped('throttling.test.ts');

const MINUTE = 60_000;
const DEFAULT_LIMITS = loadConfig({}).limits;
const DEFAULT_THROTTLE = loadConfig({}).throttle;

function expectThrottled(response: ApiResponse): void {
  expectEnvelope(response);
  expect(response.status).toBe(400);
  expect(response.body.result.code).toBe('800.120.100');
}

const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const ADMIN_TOKEN = 'throttling-admin-token-of-some-length-0123456789';

/** The same cases with the counts in the store, and in Redis (THROTTLE_REDIS_URL). */
const VARIANTS: readonly (readonly [string, StoreKind, boolean])[] = [
  ...STORE_KINDS.map((kind) => [kind, kind, false] as const),
  ...STORE_KINDS.map((kind) => [`${kind}, counted in Redis`, kind, true] as const),
];

describe.each(VARIANTS)('request limits on %s', (_name, kind, inRedis) => {
  let t: TestGateway;
  let clock: TestClock;
  /** A second instance on the same store (PostgreSQL only: the embedded store is one process's). */
  let other: RunningGateway | undefined;
  const limits: RequestLimits = { ...DEFAULT_LIMITS, backOfficePerMinute: 5, checkoutMaxDeclines: 3 };
  beforeAll(async () => {
    // A clock in a minute of its own: Redis keeps the windows of other runs.
    clock = createTestClock(new Date(Date.UTC(2031, 0, 1) + Math.floor(Math.random() * 1e6) * MINUTE));
    const throttle = inRedis ? { redisUrl: TEST_REDIS_URL, redisKeyPrefix: `test:${randomBytes(6).toString('hex')}:` } : DEFAULT_THROTTLE;
    t = await startTestGateway(kind, { limits, throttle, adminToken: ADMIN_TOKEN }, { now: clock.now });
    if (kind === 'PostgreSQL') other = await startGateway({ ...t.gateway.config, port: 0 }, { now: clock.now, jobPollMs: 0, logSink: () => undefined });
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  /** GET on this gateway or, when there is one, alternately on the other instance. */
  const readOn = async (which: number, id: string) => {
    if (!other || which % 2 === 0) return t.get(`/v1/payments/${id}`, { entityId: t.entityId });
    const response = await fetch(`${other.url}/v1/payments/${id}?entityId=${t.entityId}`, { headers: { Authorization: `Bearer ${t.token}` } });
    return { status: response.status, headers: response.headers, body: await response.json() } as ApiResponse;
  };

  it('allows 2 reads of a payment per minute (on every instance together), then 800.120.100', async () => {
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    const another = await t.post('/v1/payments', cardPayment(t.entityId));
    expect((await readOn(0, paid.body.id)).status).toBe(200);
    expect((await readOn(1, paid.body.id)).status).toBe(200);
    expectThrottled(await readOn(0, paid.body.id));
    expectThrottled(await readOn(1, paid.body.id));
    // Another payment has its own count.
    expect((await readOn(0, another.body.id)).status).toBe(200);
    clock.advance(MINUTE);
    expect((await readOn(1, paid.body.id)).status).toBe(200);
  });

  it('allows the configured number of back-office calls per entity and minute, then 800.120.100', async () => {
    const authorized = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '10.00' }));
    const capture = () => t.post(`/v1/payments/${authorized.body.id}`, { entityId: t.entityId, paymentType: 'CP', amount: '1.00', currency: 'EUR' });
    for (let call = 0; call < limits.backOfficePerMinute; call++) expect((await capture()).status).toBe(200);
    expectThrottled(await capture());
    // Nothing was captured by the refused call.
    const captured = await t.gateway.store.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE parent_id = $1 AND payment_type = 'CP'", [
      authorized.body.id,
    ]);
    expect(captured.rows[0]?.n).toBe(limits.backOfficePerMinute);
    // Another merchant's calls are counted apart.
    const merchant = await t.newMerchant();
    const theirs = await t.post('/v1/payments', cardPayment(merchant.entityId), { token: merchant.token });
    const refund = await t.post(`/v1/payments/${theirs.body.id}`, { entityId: merchant.entityId, paymentType: 'RF', amount: '1.00', currency: 'EUR' }, { token: merchant.token });
    expect(refund.status).toBe(200);
    clock.advance(MINUTE);
    expect((await capture()).status).toBe(200);
  });

  it('counts updating, extending and deleting a registration and cancelling a schedule as back-office calls', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const stored = await t.post('/v1/payments', { ...cardPayment(merchant.entityId, { paymentType: 'PA', createRegistration: 'true' }), ...CIT_INITIAL }, as);
    const registrationId = stored.body.registrationId as string;
    const scheduled = await t.post(
      '/scheduling/v1/schedules',
      { entityId: merchant.entityId, registrationId, amount: '1.00', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 12 * * ?', ...MIT_REPEATED },
      as,
    );
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    expect((await admin('PUT', merchant.entityId, { limits: { backOfficePerMinute: 3 } })).status).toBe(200);

    expect((await t.post(`/v1/registrations/${registrationId}`, { entityId: merchant.entityId, 'card.holder': 'Jane Roe' }, as)).status).toBe(200);
    expect((await t.post(`/v1/registrations/${registrationId}/extendlife`, { entityId: merchant.entityId }, as)).status).toBe(200);
    expect((await t.delete(`/scheduling/v1/schedules/${scheduled.body.id}`, { entityId: merchant.entityId }, as)).status).toBe(200);
    // The fourth back-office call of the minute, whichever it is, is refused, and nothing is deleted.
    expectThrottled(await t.delete(`/v1/registrations/${registrationId}`, { entityId: merchant.entityId }, as));
    expectThrottled(await t.post(`/v1/payments/${stored.body.id}`, { entityId: merchant.entityId, paymentType: 'CP', amount: '1.00', currency: 'EUR' }, as));
    expect((await t.get(`/v1/registrations/${registrationId}`, { entityId: merchant.entityId }, as)).status).toBe(200);
    clock.advance(MINUTE);
    expect((await t.delete(`/v1/registrations/${registrationId}`, { entityId: merchant.entityId }, as)).status).toBe(200);
  });

  it('refuses further submits on a checkout that had the configured number of declined payments', async () => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' });
    const id = created.body.id as string;
    const submit = (holder: string) => t.post(`/v1/checkouts/${id}/payment`, testCard({ 'card.holder': holder }), { token: null });
    for (let attempt = 0; attempt < limits.checkoutMaxDeclines; attempt++) expect((await submit('800.100.151')).status).toBe(400);
    const refused = await submit('Jane Jones');
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('200.300.404');
    expect(refused.body.result.description).toMatch(/3 declined payments and takes no more/);
    const payments = await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM checkout_payments WHERE checkout_id = $1', [id]);
    expect(payments.rows[0]?.n).toBe(limits.checkoutMaxDeclines);
  });

  const admin = async (method: string, entityId: string, body?: unknown) => {
    const response = await fetch(`${t.url}/admin/v1/entities/${entityId}/throttling`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, headers: response.headers, body: await response.json() } as ApiResponse;
  };

  it('limits every request of an entity, and its payments made in every way, by its own settings; Retry-After says when', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const set = await admin('PUT', merchant.entityId, { limits: { paymentCreationsPerMinute: 3, paymentReadsPerMinute: 1 } });
    expect(set.status).toBe(200);
    expect(set.body.throttling.limits.paymentCreationsPerMinute).toBe(3);
    expect(set.body.throttling.ownLimits).toEqual({ paymentCreationsPerMinute: 3, paymentReadsPerMinute: 1 });

    // A payment, a registration, and a checkout's submit are payments made.
    const paid = await t.post('/v1/payments', cardPayment(merchant.entityId), as);
    expect(paid.status).toBe(200);
    const registered = await t.post('/v1/registrations', testCard({ entityId: merchant.entityId }), as);
    expect(registered.status).toBe(200);
    const checkout = await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' }, as);
    expect((await t.post(`/v1/checkouts/${checkout.body.id}/payment`, testCard({ 'card.holder': 'Jane Jones' }), { token: null })).status).toBe(200);
    const refused = await t.post('/v1/payments', cardPayment(merchant.entityId), as);
    expectThrottled(refused);
    expect(refused.body.result.description).toBe('Rejected by Throttling. Please try again later.');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectThrottled(await t.post(`/v1/registrations/${registered.body.id}/payments`, { entityId: merchant.entityId, paymentType: 'DB', amount: '1.00', currency: 'EUR' }, as));
    expectThrottled(await t.post('/v1/registrations', testCard({ entityId: merchant.entityId }), as));
    const another = await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' }, as);
    expectThrottled(await t.post(`/v1/checkouts/${another.body.id}/payment`, testCard(), { token: null }));
    // The default merchant is not held back by another's limit.
    expect((await t.post('/v1/payments', cardPayment(t.entityId))).status).toBe(200);

    // Reads of a registration share the payment reads' limit, per id.
    expect((await t.get(`/v1/registrations/${registered.body.id}`, { entityId: merchant.entityId }, as)).status).toBe(200);
    expectThrottled(await t.get(`/v1/registrations/${registered.body.id}`, { entityId: merchant.entityId }, as));
    expect((await t.get(`/v1/payments/${paid.body.id}`, { entityId: merchant.entityId }, as)).status).toBe(200);

    // Every authenticated request counts against requestsPerMinute.
    await admin('PUT', merchant.entityId, { limits: { requestsPerMinute: 2 } });
    clock.advance(MINUTE);
    expect((await t.get(`/v1/payments/${paid.body.id}`, { entityId: merchant.entityId }, as)).status).toBe(200);
    expect((await t.delete(`/v1/checkouts/${another.body.id}`, { entityId: merchant.entityId }, as)).status).toBe(200);
    expectThrottled(await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' }, as));
    // Back to the defaults: allowed again at once.
    expect((await admin('DELETE', merchant.entityId)).body.throttling.ownLimits).toEqual({});
    expect((await t.post('/v1/payments', cardPayment(merchant.entityId), as)).status).toBe(200);
  });

  it('counts creating a schedule as a payment made, and limits reading one like a payment read, per id', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const stored = await t.post('/v1/payments', { ...cardPayment(merchant.entityId, { paymentType: 'PA', createRegistration: 'true' }), ...CIT_INITIAL }, as);
    expect(stored.status).toBe(200);
    const registrationId = stored.body.registrationId as string;
    const schedule = () =>
      t.post(
        '/scheduling/v1/schedules',
        { entityId: merchant.entityId, registrationId, amount: '1.00', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 12 * * ?', ...MIT_REPEATED },
        as,
      );
    const readSchedule = (id: string) => t.get(`/scheduling/v1/schedules/${id}`, { entityId: merchant.entityId }, as);
    const schedulesMade = async () =>
      (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM schedules WHERE registration_id = $1', [registrationId])).rows[0]?.n;
    // A minute of its own, with two payments made allowed: a schedule and a payment take them.
    clock.advance(MINUTE);
    expect((await admin('PUT', merchant.entityId, { limits: { paymentCreationsPerMinute: 2 } })).status).toBe(200);
    const first = await schedule();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await t.post('/v1/payments', cardPayment(merchant.entityId), as)).status).toBe(200);
    const refused = await schedule();
    expectThrottled(refused);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectThrottled(await t.post('/v1/payments', cardPayment(merchant.entityId), as));
    expect(await schedulesMade()).toBe(1);

    // Reads of a schedule: 2 per id and minute by default, as a payment's.
    expect((await readSchedule(first.body.id)).status).toBe(200);
    expect((await readSchedule(first.body.id)).status).toBe(200);
    expectThrottled(await readSchedule(first.body.id));

    clock.advance(MINUTE);
    const second = await schedule();
    expect(second.status).toBe(200);
    expect(await schedulesMade()).toBe(2);
    // Each schedule has its own count.
    expect((await readSchedule(second.body.id)).status).toBe(200);
    expect((await readSchedule(second.body.id)).status).toBe(200);
    expectThrottled(await readSchedule(second.body.id));
    expect((await readSchedule(first.body.id)).status).toBe(200);
    // The entity's own read limit applies to schedules too.
    expect((await admin('PUT', merchant.entityId, { limits: { paymentReadsPerMinute: 1 } })).status).toBe(200);
    expectThrottled(await readSchedule(first.body.id));
    clock.advance(MINUTE);
    expect((await readSchedule(first.body.id)).status).toBe(200);
    expectThrottled(await readSchedule(first.body.id));
  });

  it('gives the query and report endpoints their limits: 2 reads per id and minute, 1 list query per entity and second', async () => {
    const { throttling } = t.gateway;
    const merchant = await t.newMerchant();
    const id = '0123456789abcdef0123456789abcdef';
    await throttling.admit(merchant.entityId, [QUERY_LIMITS.byId(id)]);
    await throttling.admit(merchant.entityId, [QUERY_LIMITS.byId(id)]);
    await expect(throttling.admit(merchant.entityId, [QUERY_LIMITS.byId(id)])).rejects.toMatchObject({ status: 400, result: { code: '800.120.100' } });
    await throttling.admit(merchant.entityId, [QUERY_LIMITS.byId(id.replace('0', '1'))]);
    await throttling.admit(merchant.entityId, [QUERY_LIMITS.list]);
    await expect(throttling.admit(merchant.entityId, [QUERY_LIMITS.settlementReport])).rejects.toMatchObject({ headers: { 'Retry-After': '1' } });
    clock.advance(1000);
    await throttling.admit(merchant.entityId, [QUERY_LIMITS.settlementReport]);
  });

  it('refuses bad settings precisely and writes nothing', async () => {
    const merchant = await t.newMerchant();
    const refused = await admin('PUT', merchant.entityId, {
      limits: { paymentReadsPerMinute: -1, backOfficePerMinute: 2.5, requestsPerHour: 5, paymentCreationsPerMinute: '7' },
      risk: { ipCount: { max: 0 }, shoeSize: {} },
    });
    expectEnvelope(refused);
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('200.300.404');
    const names = (refused.body.result.parameterErrors as { name: string }[]).map((error) => error.name).sort();
    expect(names).toEqual(
      [
        'limits.backOfficePerMinute',
        'limits.paymentCreationsPerMinute',
        'limits.paymentReadsPerMinute',
        'limits.requestsPerHour',
        'risk.ipCount.max',
        'risk.ipCount.windowMinutes',
        'risk.shoeSize',
      ].sort(),
    );
    expect((await admin('PUT', merchant.entityId, { limit: {} })).body.result.parameterErrors[0].name).toBe('limit');
    const shown = await admin('GET', merchant.entityId);
    expect(shown.body.throttling.ownLimits).toEqual({});
    expect(shown.body.throttling.updatedAt).toBeNull();
    expect((await admin('GET', 'f'.repeat(32))).status).toBe(404);
    expect((await fetch(`${t.url}/admin/v1/entities/${merchant.entityId}/throttling`)).status).toBe(401);
  });
});

describe.each(STORE_KINDS)('npm run gateway -- throttling on %s', (kind) => {
  let location: StoreLocation;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
  });
  afterAll(async () => {
    await location?.dispose();
  });
  const gateway = (...args: string[]) =>
    runCli(args, {
      env: { DATA_DIR: location.dataDir, DATABASE_URL: location.databaseUrl ?? '', CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '' },
      progress: () => {},
    });

  it('shows, sets and switches off an entity’s limits and rules, and explains every refusal', async () => {
    const created = await gateway('entity', 'create', '--name', 'Throttled shop');
    const entityId = /^entityId\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    const shown = await gateway('throttling', 'show', entityId);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toMatch(/paymentReadsPerMinute\s+2\s+\(default\)/);
    expect(shown.stdout).toContain('risk rules  none');

    const bad = await gateway('throttling', 'set', entityId, 'paymentReadsPerMinute=-3', 'burstsPerHour=4', 'risk.ipCount.max=x');
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('throttling refused: paymentReadsPerMinute=-3 must be an integer from 0 (no limit) to 1000000000');
    expect(bad.stderr).toContain('throttling refused: burstsPerHour=4 is not a known limit');
    expect(bad.stderr).toContain('throttling refused: risk.ipCount.max=x must be an integer');
    expect(bad.stderr).toContain('risk.ipCount.windowMinutes is required');

    const set = await gateway('throttling', 'set', entityId, 'paymentReadsPerMinute=5', 'risk.ipCount.max=3', 'risk.ipCount.windowMinutes=60');
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toMatch(/paymentReadsPerMinute\s+5\s+\(own\)/);
    expect(set.stdout).toMatch(/ipCount\s+max=3 windowMinutes=60/);
    // set keeps what it does not name.
    const more = await gateway('throttling', 'set', entityId, 'backOfficePerMinute=0');
    expect(more.stdout).toMatch(/backOfficePerMinute\s+0 \(no limit\)\s+\(own\)/);
    expect(more.stdout).toMatch(/paymentReadsPerMinute\s+5\s+\(own\)/);
    const off = await gateway('throttling', 'off', entityId);
    expect(off.stdout).toContain('throttling back to the defaults');
    expect((await gateway('throttling', 'show', entityId)).stdout).toMatch(/paymentReadsPerMinute\s+2\s+\(default\)/);
    expect((await gateway('throttling', 'show', 'e'.repeat(32))).stderr).toContain('no entity');
  });
});

describe('failed authentications from one address', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { clientAddressHeader: 'x-forwarded-for' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are answered until the limit, then refused with 800.120.100 without another token lookup, per address', async () => {
    let lookups = 0;
    const clock = createTestClock();
    const app = createApp({
      readiness: async () => ({}),
      config: { ...t.gateway.config, clientAddressHeader: 'x-forwarded-for' },
      store: t.gateway.store,
      logger: createLogger({ level: 'silent' }),
      payments: t.gateway.payments,
      observations: t.gateway.observations,
      webhooks: t.gateway.webhooks.services,
      tokenAccess: (token) => {
        lookups++;
        return findTokenAccess(t.gateway.store, token);
      },
      legacyAccess: cachedLegacyAccess(t.gateway.store, 0, clock.now),
      authFailures: createAuthFailureGuard(t.gateway.store, 5, clock.now),
      widgetBuild: undefined,
      staticBaseUrl: `${t.url}/v1/static/unbuilt`,
      now: clock.now,
    });
    const read = async (token: string | null, address: string) => {
      const response = await app.request(`/v1/payments/${'0'.repeat(32)}?entityId=${t.entityId}`, {
        headers: { 'x-forwarded-for': `198.51.100.7, ${address}`, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as { result: { code: string; description: string } } };
    };

    for (let guess = 0; guess < 5; guess++) {
      const answer = await read(`guessed-token-${guess}-of-some-length`, '203.0.113.50');
      expect(answer.status).toBe(403);
    }
    expect(lookups).toBe(5);
    // Over the limit: refused, including a missing header, and no token is looked up any more.
    for (let guess = 5; guess < 300; guess++) {
      const answer = await read(guess % 7 === 0 ? null : `guessed-token-${guess}-of-some-length`, '203.0.113.50');
      expect(answer.status).toBe(400);
      expect(answer.body.result).toEqual({
        code: '800.120.100',
        description: 'Rejected by Throttling. Too many failed authentications from this address; please try again later.',
      });
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
    }
    // A valid token from the refused address is refused too, until the minute has passed.
    expect((await read(t.token, '203.0.113.50')).status).toBe(400);
    expect(lookups).toBe(6);
    // Another address is served as usual, and the blocked one again after its minute.
    expect((await read(t.token, '203.0.113.51')).status).toBe(404);
    clock.advance(MINUTE);
    expect((await read(t.token, '203.0.113.50')).status).toBe(404);
  });
});
