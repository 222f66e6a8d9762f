import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPayment, startTestGateway, STORE_KINDS, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import type { Acquirer } from './types.ts';

warnIfPostgresSkipped('simulatedLatency.test.ts');

/**
 * SIMULATED_ACQUIRER_LATENCY_MS is a real timer (the bench's acquirer answering after 200 ms), which the test clock
 * cannot move: its effect is checked with a small latency, the acquirer's answer to an authorization (timed around
 * the call, as the gateway makes it) taking at least that long. Nothing more about time is asserted (performance is
 * measured in bench/, section W).
 */
const LATENCY_MS = 50;

describe.each(STORE_KINDS)('the simulated acquirer with a latency, on %s', (kind) => {
  let t: TestGateway;
  const authorizations: number[] = [];
  const timed = (acquirer: Acquirer): Acquirer => ({
    ...acquirer,
    authorize: async (request) => {
      const started = performance.now();
      const answer = await acquirer.authorize(request);
      authorizations.push(performance.now() - started);
      return answer;
    },
  });
  beforeAll(async () => {
    t = await startTestGateway(kind, { simulatedAcquirerLatencyMs: LATENCY_MS }, { wrapAcquirer: timed });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers each call no sooner than the latency, and the payment is made as without it', async () => {
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    expect(authorizations).toHaveLength(1);
    // A timer may fire up to a millisecond early by this clock (libuv counts whole milliseconds).
    expect(authorizations[0]).toBeGreaterThanOrEqual(LATENCY_MS - 1);
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
  });
});
