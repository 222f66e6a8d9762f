import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../../merchants/repository.ts';
import { RECOVERY_INTERVAL_MS } from '../../payments/recovery.ts';
import { openStore } from '../../store/index.ts';
import { createCardVault } from '../../vault/cardVault.ts';
import { startFaultProxy, type FaultProxy } from '../../testing/faultProxy.ts';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gatewayProcess.ts';
import { BROWSER_DATA, cardPayment, configAt, connectorTo, createTestClock, freshStoreLocation, warnIfPostgresSkipped, type StoreLocation } from '../../testing/harness.ts';
import { LIVE_STORE } from '../../testing/liveFront.ts';
import { startUpstream, type Upstream } from '../../testing/upstream.ts';
import { saveCredentials } from '../credentials.ts';

warnIfPostgresSkipped('the opp connector’s crash recovery');

/**
 * A live gateway process killed (SIGKILL) at each step of an attempt at a real provider (this gateway in test mode, a
 * process of its own), the step held by a TCP proxy: before the request reached the provider (dropped, or delivered
 * after the crash), and after the provider answered — approved, declined, or pending its 3-D Secure challenge — before
 * the gateway recorded the answer. Another gateway on the same store (PostgreSQL, as in production) recovers the
 * attempt by asking the provider, never by sending it again: one payment, as the provider made it, or none.
 */

const NEVER_RECEIVED_AFTER_MS = 120_000;

let upstream: Upstream;
let proxy: FaultProxy;

beforeAll(async () => {
  upstream = await startUpstream();
  proxy = await startFaultProxy(upstream.url);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

describe.each([LIVE_STORE])('a live gateway killed in the middle of an attempt at its provider, on %s', (kind) => {
  const cardDataKey = randomBytes(32);
  const connectors = () => ({ hyperpay: connectorTo(proxy.url, { timeoutMs: 30_000, neverReceivedAfterMs: NEVER_RECEIVED_AFTER_MS }) });
  /** Each crash on a store of its own (its jobs and clock the test's alone), with a merchant and its credentials. */
  let location: StoreLocation;
  let entityId: string;
  let token: string;

  beforeEach(async () => {
    location = await freshStoreLocation(kind);
    token = newAccessToken();
    const store = await openStore(configAt(location, { cardDataKey }));
    const entity = await createEntity(store, 'Crash shop');
    entityId = entity.id;
    await grantToken(store, token, 'crash', [entityId]);
    await store.transaction((tx) => saveCredentials(tx, createCardVault(cardDataKey), entityId, 'hyperpay', upstream.credentials, new Date()));
    await store.close();
    writeFileSync(join(location.dataDir, 'acquirers.json'), JSON.stringify({ acquirers: { hyperpay: { kind: 'opp', url: proxy.url, timeoutSeconds: 30, neverReceivedAfterSeconds: NEVER_RECEIVED_AFTER_MS / 1000 } } }));
  });
  afterEach(async () => {
    await location?.dispose();
  });

  /** The gateway process to kill: live, on the store, its one acquirer the provider behind the proxy. */
  async function crashingGateway(): Promise<{ process: GatewayProcess; url: string }> {
    const child = startGatewayProcess({
      GATEWAY_ENV: 'live',
      DATA_DIR: location.dataDir,
      DATABASE_URL: location.databaseUrl ?? '',
      CARD_DATA_KEY: cardDataKey.toString('hex'),
      ACQUIRERS: 'hyperpay',
      ACQUIRERS_FILE: join(location.dataDir, 'acquirers.json'),
      PORT: '0',
      HOST: '127.0.0.1',
    });
    const url = /Gateway listening on (\S+)/.exec(await child.listening)?.[1] as string;
    return { process: child, url };
  }

  /** The gateway that stays (or, on the embedded store, the one started after the crash), its clock the test's. */
  async function survivor(clock: { now: () => Date }): Promise<RunningGateway> {
    return startGateway(configAt(location, { environment: 'live', cardDataKey, acquirers: ['hyperpay'], defaultAcquirer: 'hyperpay', connectors: connectors() }), { now: clock.now, jobPollMs: 0 });
  }

  function pay(url: string, params: Record<string, string>, headers: Record<string, string> = {}): void {
    void fetch(`${url}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    }).catch(() => undefined);
  }

  /** Kills the gateway once the held step is reached; the survivor then sees the dead instance's open attempt. */
  async function crashAt(step: 'holdRequest' | 'holdAnswer', params: Record<string, string>, after: 'drop' | 'forward') {
    const clock = createTestClock();
    const authorizations = () => proxy.requests.filter((line) => line.startsWith('POST /v1/payments ')).length;
    const sentBefore = authorizations();
    const crashing = await crashingGateway();
    const running = kind === 'PostgreSQL' ? await survivor(clock) : undefined;
    proxy.plan(/^POST \/v1\/payments /, step);
    pay(crashing.url, params);
    const held = await proxy.nextHeld();
    await crashing.process.kill();
    if (after === 'forward') held.forward();
    else held.drop();
    const gateway = running ?? (await survivor(clock));
    const attempts = await gateway.store.query<{ id: string; payment_id: string; instance_id: string }>(
      "SELECT id, payment_id, instance_id FROM acquirer_attempts WHERE finished_at IS NULL AND entity_id = $1",
      [entityId],
    );
    expect(attempts.rows).toHaveLength(1);
    const attempt = attempts.rows[0] as { id: string; payment_id: string; instance_id: string };
    await expect.poll(() => gateway.store.isInstanceAlive(attempt.instance_id), { timeout: 15_000 }).toBe(false);
    /** The authorizations sent for the payment since: one, whatever the recovery does. */
    const sent = () => authorizations() - sentBefore;
    return { gateway, clock, attempt, sent };
  }

  const recover = async (gateway: RunningGateway, clock: { advance(ms: number): void }, ms: number) => {
    clock.advance(ms);
    await gateway.jobs.runDueJobs();
  };
  const paymentOf = async (gateway: RunningGateway, id: string) =>
    (await gateway.store.query<{ status: string; result_code: string }>('SELECT status, result_code FROM payments WHERE id = $1', [id])).rows[0];
  const atProvider = async (attemptId: string) => {
    const found = await upstream.api('GET', '/v1/query', { merchantTransactionId: attemptId });
    return found.status === 200 ? (found.body.payments as { id: string; result: { code: string }; redirect?: { url: string; parameters: { value: string }[] } }[]) : [];
  };
  const eventsOf = async (gateway: RunningGateway, id: string) =>
    (await gateway.store.query<{ action: string }>("SELECT action FROM events WHERE resource_id = $1 AND type = 'PAYMENT' ORDER BY id", [id])).rows.map((row) => row.action);

  it.each([
    ['approved', 'Jane Jones', '000.100.110', 'approved'],
    ['declined', '800.100.203', '800.100.203', 'declined'],
  ])('after the provider %s, before the gateway recorded it: the recovery records what the provider made, once', async (_state, holder, code, status) => {
    const { gateway, clock, attempt, sent } = await crashAt('holdAnswer', cardPayment(entityId, { 'card.holder': holder }), 'drop');
    try {
      expect(await paymentOf(gateway, attempt.payment_id)).toBeUndefined();
      await recover(gateway, clock, RECOVERY_INTERVAL_MS + 1000);
      expect(await paymentOf(gateway, attempt.payment_id)).toEqual({ status, result_code: code });
      expect(await eventsOf(gateway, attempt.payment_id)).toEqual(['CREATED']);
      expect((await atProvider(attempt.id)).map((payment) => payment.result.code)).toEqual([code]);
      expect(sent()).toBe(1);
    } finally {
      await gateway.close();
    }
  }, 90_000);

  it('after the provider answered pending (its 3-D Secure challenge): recorded pending, then as the challenge ends at the provider', async () => {
    const params = cardPayment(entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/back', ...BROWSER_DATA });
    const { gateway, clock, attempt, sent } = await crashAt('holdAnswer', params, 'drop');
    try {
      await recover(gateway, clock, RECOVERY_INTERVAL_MS + 1000);
      expect(await paymentOf(gateway, attempt.payment_id)).toEqual({ status: 'pending', result_code: '000.200.000' });
      // The shopper still answers the provider's challenge (it is the provider's page); the next inquiry records it.
      const [atUpstream] = await atProvider(attempt.id);
      const upstreamPayment = await upstream.api('GET', `/v1/payments/${atUpstream?.id}`);
      const answered = await fetch(`${upstreamPayment.body.redirect.url}/answer`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ action: 'submit', otp: '1234', paymentId: upstreamPayment.body.redirect.parameters[0].value }),
      });
      expect(answered.status).toBe(200);
      await recover(gateway, clock, 20 * 60_000);
      expect(await paymentOf(gateway, attempt.payment_id)).toEqual({ status: 'approved', result_code: '000.100.110' });
      expect(await eventsOf(gateway, attempt.payment_id)).toEqual(['CREATED', 'UPDATED']);
      expect(sent()).toBe(1);
    } finally {
      await gateway.close();
    }
  }, 90_000);

  it('before the request reached the provider, which never gets it: nothing recorded, nothing charged, the attempt closed once it cannot still arrive', async () => {
    const { gateway, clock, attempt, sent } = await crashAt('holdRequest', cardPayment(entityId), 'drop');
    try {
      await recover(gateway, clock, RECOVERY_INTERVAL_MS + 1000);
      const open = await gateway.store.query<{ finished_at: Date | null }>('SELECT finished_at FROM acquirer_attempts WHERE id = $1', [attempt.id]);
      expect(open.rows[0]?.finished_at).toBeNull();
      await recover(gateway, clock, NEVER_RECEIVED_AFTER_MS);
      const closed = await gateway.store.query<{ outcome: string }>('SELECT outcome FROM acquirer_attempts WHERE id = $1', [attempt.id]);
      expect(closed.rows[0]?.outcome).toBe('unknown');
      expect(await paymentOf(gateway, attempt.payment_id)).toBeUndefined();
      expect(await atProvider(attempt.id)).toEqual([]);
      expect(sent()).toBe(1);
    } finally {
      await gateway.close();
    }
  }, 90_000);

  it('before the request reached the provider, which gets it after the crash: the recovery finds and records it', async () => {
    const { gateway, clock, attempt, sent } = await crashAt('holdRequest', cardPayment(entityId), 'forward');
    try {
      await expect.poll(async () => (await atProvider(attempt.id)).length, { timeout: 15_000, interval: 250 }).toBe(1);
      await recover(gateway, clock, RECOVERY_INTERVAL_MS + 1000);
      expect(await paymentOf(gateway, attempt.payment_id)).toEqual({ status: 'approved', result_code: '000.100.110' });
      expect(await atProvider(attempt.id)).toHaveLength(1);
      expect(sent()).toBe(1);
    } finally {
      await gateway.close();
    }
  }, 90_000);
});
