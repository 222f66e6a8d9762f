import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app.ts';
import { loadConfig, type RequestLimits } from '../config.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { findTokenAccess } from '../merchants/repository.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import {
  cardPayment,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { createAuthFailureGuard } from './authFailures.ts';

/**
 * Limits on what a client may ask (COMPAT §8, and what a card tester or a token guesser does), counted in the
 * store so every instance enforces the same ones. Over a limit: HTTP 400, 800.120.100.
 */

warnIfPostgresSkipped('throttling.test.ts');

const MINUTE = 60_000;
const DEFAULT_LIMITS = loadConfig({}).limits;

function expectThrottled(response: ApiResponse): void {
  expectEnvelope(response);
  expect(response.status).toBe(400);
  expect(response.body.result.code).toBe('800.120.100');
}

describe.each(STORE_KINDS)('request limits on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  /** A second instance on the same store (PostgreSQL only: the embedded store is one process's). */
  let other: RunningGateway | undefined;
  const limits: RequestLimits = { ...DEFAULT_LIMITS, backOfficePerMinute: 5, checkoutMaxDeclines: 3 };
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, { limits }, { now: clock.now });
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
      config: { ...t.gateway.config, clientAddressHeader: 'x-forwarded-for' },
      store: t.gateway.store,
      logger: createLogger({ level: 'silent' }),
      payments: t.gateway.payments,
      webhooks: t.gateway.webhooks.services,
      tokenAccess: (token) => {
        lookups++;
        return findTokenAccess(t.gateway.store, token);
      },
      authFailures: createAuthFailureGuard(t.gateway.store, 5, clock.now),
      widgetBuild: undefined,
      staticBaseUrl: `${t.url}/v1/static/unbuilt`,
      now: clock.now,
    });
    const read = async (token: string | null, address: string) => {
      const response = await app.request(`/v1/payments/${'0'.repeat(32)}?entityId=${t.entityId}`, {
        headers: { 'x-forwarded-for': `198.51.100.7, ${address}`, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      });
      return { status: response.status, body: (await response.json()) as { result: { code: string } } };
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
      expect(answer.body.result.code).toBe('800.120.100');
    }
    expect(lookups).toBe(6);
    // Another address is served as usual, and the blocked one again after its minute.
    expect((await read(t.token, '203.0.113.51')).status).toBe(404);
    clock.advance(MINUTE);
    expect((await read(t.token, '203.0.113.50')).status).toBe(404);
  });
});
