import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { createLogger } from '../logger.ts';
import { createCardVault } from '../vault/cardVault.ts';
import { createAcquirerRegistry } from './registry.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  readResponse,
  startTestGateway,
  STORE_KINDS,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestGateway,
} from '../testing/harness.ts';
import type { Acquirer } from './types.ts';

warnIfPostgresSkipped('registry.test.ts');

/** What reached which acquirer, as `name operation`. The card network cannot exist here, so it is observed. */
function observing(calls: string[]): (acquirer: Acquirer) => Acquirer {
  return (acquirer) => ({
    ...acquirer,
    authorize: (request) => {
      calls.push(`${acquirer.name} authorize`);
      return acquirer.authorize(request);
    },
    backOffice: (request) => {
      calls.push(`${acquirer.name} ${request.paymentType}`);
      return acquirer.backOffice(request);
    },
  });
}

/** A merchant's POST to a gateway started outside the harness (a restart on the harness's store). */
async function postTo(gateway: RunningGateway, token: string, path: string, params: Record<string, string>): Promise<ApiResponse> {
  return readResponse(
    await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    }),
  );
}

/**
 * Two simulated acquirers, as smart retry will have them. Payments are made while `fallback` is the default; the
 * gateway is then restarted with `simulator` as the default (an operator's change), and every later operation on
 * those payments must still go to `fallback`, the acquirer that holds them (spec 01 §3 rule 5).
 */
describe.each(STORE_KINDS)('a second acquirer on %s', (kind) => {
  let first: TestGateway;
  let restarted: RunningGateway | undefined;
  const calls: string[] = [];
  let authorization: ApiResponse;
  let debit: ApiResponse;
  let toReverse: ApiResponse;
  let challenged: ApiResponse;

  const call = (path: string, params: Record<string, string>) => postTo(restarted as RunningGateway, first.token, path, params);
  const storedAcquirer = async (id: string): Promise<{ acquirer: string; acquirer_reference: string | null }> => {
    const found = await (restarted as RunningGateway).store.query<{ acquirer: string; acquirer_reference: string | null }>(
      'SELECT acquirer, acquirer_reference FROM payments WHERE id = $1',
      [id],
    );
    return found.rows[0] as { acquirer: string; acquirer_reference: string | null };
  };

  beforeAll(async () => {
    first = await startTestGateway(kind, { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'fallback' }, { wrapAcquirer: observing(calls) });
    authorization = await first.post('/v1/payments', cardPayment(first.entityId, { paymentType: 'PA' }));
    debit = await first.post('/v1/payments', cardPayment(first.entityId));
    toReverse = await first.post('/v1/payments', cardPayment(first.entityId, { paymentType: 'PA' }));
    challenged = await first.post(
      '/v1/payments',
      cardPayment(first.entityId, { paymentType: 'PA', 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA }),
    );
    await first.gateway.close();
    restarted = await startGateway(
      { ...first.gateway.config, defaultAcquirer: 'simulator' },
      { wrapAcquirer: observing(calls), jobPollMs: 0, logSink: () => undefined },
    );
  });
  afterAll(async () => {
    await restarted?.close();
    await first?.location.dispose();
  });

  it('records the acquirer that handled a payment and its reference', async () => {
    expect(authorization.body.result.code).toBe('000.100.110');
    expect(calls.slice(0, 3)).toEqual(['fallback authorize', 'fallback authorize', 'fallback authorize']);
    const stored = await storedAcquirer(authorization.body.id);
    expect(stored.acquirer).toBe('fallback');
    expect(stored.acquirer_reference).toMatch(/^FALLBACK-/);
    expect(authorization.body.resultDetails.ConnectorTxID1).toBe(stored.acquirer_reference);
  });

  it('sends a capture of that payment to that acquirer after the default changed, and a new payment to the new default', async () => {
    calls.length = 0;
    const capture = await call(`/v1/payments/${authorization.body.id}`, { entityId: first.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
    expect(capture.body.result.code).toBe('000.100.110');
    expect(await storedAcquirer(capture.body.id)).toMatchObject({ acquirer: 'fallback', acquirer_reference: expect.stringMatching(/^FALLBACK-/) });

    const fresh = await call('/v1/payments', cardPayment(first.entityId));
    expect(fresh.body.result.code).toBe('000.100.110');
    expect(await storedAcquirer(fresh.body.id)).toMatchObject({ acquirer: 'simulator', acquirer_reference: expect.stringMatching(/^SIMULATOR-/) });
    expect(calls).toEqual(['fallback CP', 'simulator authorize']);
  });

  it('sends refunds and reversals to the acquirer of the payment', async () => {
    calls.length = 0;
    const refund = await call(`/v1/payments/${debit.body.id}`, { entityId: first.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' });
    const reversal = await call(`/v1/payments/${toReverse.body.id}`, { entityId: first.entityId, paymentType: 'RV' });
    expect([refund.body.result.code, reversal.body.result.code]).toEqual(['000.100.110', '000.100.110']);
    expect(calls).toEqual(['fallback RF', 'fallback RV']);
  });

  it('authorizes a payment whose 3-D Secure challenge began before the change with the acquirer it began with', async () => {
    calls.length = 0;
    expect(challenged.body.result.code).toBe('000.200.000');
    expect((await answerRedirect(challenged)).status).toBe(200);
    expect(calls).toEqual(['fallback authorize']);
    expect((await storedAcquirer(challenged.body.id)).acquirer).toBe('fallback');
  });
});

describe('an acquirer taken out of the configuration', () => {
  let t: TestGateway;
  let without: RunningGateway | undefined;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'fallback' });
  });
  afterAll(async () => {
    await without?.close();
    await t?.location.dispose();
  });

  it('refuses operations on its payments with a system error and touches no other acquirer', async () => {
    const calls: string[] = [];
    const authorization = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
    await t.gateway.close();
    without = await startGateway(
      { ...t.gateway.config, acquirers: ['simulator'], defaultAcquirer: 'simulator' },
      { wrapAcquirer: observing(calls), jobPollMs: 0, logSink: () => undefined },
    );
    const capture = await postTo(without, t.token, `/v1/payments/${authorization.body.id}`, {
      entityId: t.entityId,
      paymentType: 'CP',
      amount: '92.00',
      currency: 'EUR',
    });
    expect(capture.status).toBe(400);
    expect(capture.body.result.code).toBe('800.800.800');
    expect(capture.body.result.description).toContain('fallback');
    expect(calls).toEqual([]);
  });
});

describe('a live registry', () => {
  it('never makes a simulated acquirer, however its configuration was made', () => {
    const config = { acquirers: ['simulator'], defaultAcquirer: 'simulator', connectors: {}, environment: 'live' as const, simulatedAcquirerLatencyMs: 0, simulatorDurableRecords: false };
    const deps = { vault: createCardVault(randomBytes(32)), now: () => new Date(), logger: createLogger({ level: 'silent' }) };
    // The store is never touched when a simulated acquirer is refused.
    const store = {} as Parameters<typeof createAcquirerRegistry>[0];
    expect(() => createAcquirerRegistry(store, config, deps)).toThrow(ConfigError);
    expect(() => createAcquirerRegistry(store, config, deps)).toThrow(/the acquirer simulator would be simulated: a live gateway never pays through a simulated acquirer/);
  });
});
