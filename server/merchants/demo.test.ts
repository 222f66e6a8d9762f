import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_MERCHANT, type GatewayConfig } from '../config.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { startGatewayProcess } from '../testing/gatewayProcess.ts';
import { cardPayment, configAt, freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreKind, type StoreLocation } from '../testing/harness.ts';

/**
 * The demo merchant's credentials are public (README, start banner). A store that once ran in the test
 * environment must not let them into a live gateway.
 */

warnIfPostgresSkipped('demo credentials');

const demo = DEFAULT_DEMO_MERCHANT;
const liveKey = randomBytes(32);

/** A live gateway's one acquirer is a connector (a live gateway never pays through a simulator); nothing here pays live. */
const LIVE_CONNECTOR = { kind: 'opp', url: 'http://127.0.0.1:9', timeoutMs: 1000, neverReceivedAfterMs: 2000, notificationKey: undefined, maxConnections: 1 } as const;

function configFor(location: StoreLocation, environment: 'test' | 'live'): GatewayConfig {
  return configAt(location, {
    cardDataKey: location.cardDataKey ?? liveKey,
    environment,
    demoMerchant: environment === 'test' ? demo : undefined,
    connectors: environment === 'live' ? { simulator: LIVE_CONNECTOR } : {},
  });
}

async function send(gateway: RunningGateway, path: string, params: Record<string, string>, method = 'POST'): Promise<number> {
  const query = method === 'GET' ? `?${new URLSearchParams(params)}` : '';
  const response = await fetch(`${gateway.url}${path}${query}`, {
    method,
    headers: { Authorization: `Bearer ${demo.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    ...(method === 'POST' ? { body: new URLSearchParams(params) } : {}),
  });
  await response.body?.cancel();
  return response.status;
}

/** The demo's legacy pair (COMPAT §1) instead of its token: in the body of a POST, in the query string of a GET. */
async function sendLegacy(gateway: RunningGateway, path: string, params: Record<string, string>, method = 'POST'): Promise<number> {
  const pair = { ...params, 'authentication.userId': demo.userId, 'authentication.password': demo.password };
  const query = method === 'GET' ? `?${new URLSearchParams(pair)}` : '';
  const response = await fetch(`${gateway.url}${path}${query}`, {
    method,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    ...(method === 'POST' ? { body: new URLSearchParams(pair) } : {}),
  });
  await response.body?.cancel();
  return response.status;
}

describe.each(STORE_KINDS)('demo credentials on %s', (kind: StoreKind) => {
  const locations: StoreLocation[] = [];
  afterAll(async () => {
    for (const location of locations) await location.dispose();
  });

  it('work in test, are disabled by a live start on the same store (and said so), and work again in test', async () => {
    const location = await freshStoreLocation(kind);
    locations.push(location);

    const test = await startGateway(configFor(location, 'test'), { jobPollMs: 0 });
    let paymentId: string;
    try {
      const paid = await fetch(`${test.url}/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${demo.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(demo.entityId)),
      });
      expect(paid.status).toBe(200);
      paymentId = ((await paid.json()) as { id: string }).id;
      expect(await sendLegacy(test, `/v1/payments/${paymentId}`, { entityId: demo.entityId }, 'GET')).toBe(200);
      expect(test.notices).toEqual([]);
    } finally {
      await test.close();
    }

    const live = await startGateway(configFor(location, 'live'), { jobPollMs: 0 });
    try {
      expect(live.notices.join('\n')).toMatch(/Disabled 1 demo access token/);
      expect(live.notices.join('\n')).toMatch(/Disabled 1 demo legacy credential/);
      expect(await sendLegacy(live, '/v1/payments', cardPayment(demo.entityId))).toBe(403);
      expect(await sendLegacy(live, `/v1/payments/${paymentId}`, { entityId: demo.entityId }, 'GET')).toBe(403);
      // Everything the token could do: pay, credit any card, refund, read.
      const liveDebit = cardPayment(demo.entityId);
      expect(await send(live, '/v1/payments', liveDebit)).toBe(403);
      expect(await send(live, '/v1/payments', { ...liveDebit, paymentType: 'CD', amount: '999.00' })).toBe(403);
      expect(await send(live, `/v1/payments/${paymentId}`, { entityId: demo.entityId, paymentType: 'RF', amount: '1.00', currency: 'EUR' })).toBe(403);
      expect(await send(live, `/v1/payments/${paymentId}`, { entityId: demo.entityId }, 'GET')).toBe(403);
    } finally {
      await live.close();
    }

    const liveAgain = await startGateway(configFor(location, 'live'), { jobPollMs: 0 });
    try {
      expect(liveAgain.notices).toEqual([]);
      expect(await send(liveAgain, `/v1/payments/${paymentId}`, { entityId: demo.entityId }, 'GET')).toBe(403);
    } finally {
      await liveAgain.close();
    }

    const testAgain = await startGateway(configFor(location, 'test'), { jobPollMs: 0 });
    try {
      expect(await send(testAgain, `/v1/payments/${paymentId}`, { entityId: demo.entityId }, 'GET')).toBe(200);
      expect(await sendLegacy(testAgain, '/v1/payments', cardPayment(demo.entityId))).toBe(200);
    } finally {
      await testAgain.close();
    }
  }, 60_000);

  if (kind === 'PostgreSQL') {
    it('lets several instances start at once on a fresh store, each making sure the demo merchant exists', async () => {
      const location = await freshStoreLocation(kind);
      locations.push(location);
      const gateways = await Promise.all(Array.from({ length: 3 }, () => startGateway(configFor(location, 'test'), { jobPollMs: 0 })));
      try {
        for (const gateway of gateways) expect(await send(gateway, '/v1/payments', cardPayment(demo.entityId))).toBe(200);
      } finally {
        await Promise.all(gateways.map((gateway) => gateway.close()));
      }
    });
  }
});

describe('the start banner of a live gateway', () => {
  it('names the disabled demo tokens and prints no access token', async () => {
    const location = await freshStoreLocation('PGlite');
    try {
      const test = await startGateway(configFor(location, 'test'), { jobPollMs: 0 });
      await test.close();
      const acquirersFile = join(location.dataDir, 'acquirers.json');
      writeFileSync(acquirersFile, JSON.stringify({ acquirers: { simulator: { kind: 'opp', url: 'http://127.0.0.1:9' } } }));
      const live = startGatewayProcess({
        GATEWAY_ENV: 'live',
        ACQUIRERS_FILE: acquirersFile,
        DATA_DIR: location.dataDir,
        DATABASE_URL: '',
        CARD_DATA_KEY: liveKey.toString('hex'),
        PORT: '0',
        HOST: '127.0.0.1',
      });
      const banner = await live.listening.finally(() => live.kill());
      expect(banner).toMatch(/live environment/);
      expect(banner).toMatch(/Disabled 1 demo access token/);
      expect(banner).not.toContain(demo.accessToken);
      expect(banner).toMatch(/Disabled 1 demo legacy credential/);
      expect(banner).not.toContain(demo.password);
      expect(banner).not.toMatch(/access token\s+\S{16,}/);
    } finally {
      await location.dispose();
    }
  }, 60_000);

});
