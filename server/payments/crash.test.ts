import { describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { startHangingGateway, storeWithMerchant } from '../testing/crashingGateway.ts';
import { cardPayment, createTestClock, STORE_KINDS, testCard, warnIfPostgresSkipped, type StoreKind } from '../testing/harness.ts';
import { RECOVERY_INTERVAL_MS } from './recovery.ts';

/**
 * A gateway process killed (SIGKILL) while an acquirer holds a payment: after the acquirer decided (and kept its
 * answer) but before the gateway committed it, or before the acquirer received it at all. The attempt row
 * committed before the call lets the recovery job finish it from the acquirer's own record: no payment is lost,
 * none is made twice, and a retry with the same Idempotency-Key answers the recovered payment. The acquirer's record
 * is committed before it answers with SIMULATOR_DURABLE_RECORDS=true; by default it waits for the transaction that
 * records the payment, so the crash loses it with the payment: the recovery finds an attempt the acquirer never
 * answered, and the retry makes the payment (once).
 */

warnIfPostgresSkipped('payment crash recovery');

async function post(url: string, path: string, token: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  return { status: response.status, body: (await response.json()) as { id: string; result: { code: string } } };
}

describe.each(STORE_KINDS)('a gateway killed while an acquirer holds a payment, on %s', (kind: StoreKind) => {
  it.each([
    ['after the acquirer decided and committed its record (SIMULATOR_DURABLE_RECORDS=true)', 'HANG AFTER ANSWER', true, 1, 'recorded'],
    ['after the acquirer decided, its record waiting for the payment’s transaction', 'HANG AFTER ANSWER', false, 0, 'unknown'],
    ['before the acquirer received it', 'HANG', false, 0, 'unknown'],
  ])('%s: the recovery job finishes the attempt, and a retry with the same key changes nothing', async (_when, holder, durable, payments, outcome) => {
    const setup = await storeWithMerchant(kind, 'Crash shop', { config: { simulatorDurableRecords: durable } });
    const crashing = startHangingGateway(setup.location, { SIMULATOR_DURABLE_RECORDS: String(durable) });
    const clock = createTestClock();
    let survivor: RunningGateway | undefined;
    try {
      const crashingUrl = /Gateway listening on (\S+)/.exec(await crashing.listening)?.[1] as string;
      const request = cardPayment(setup.entityId, { 'card.holder': holder, merchantTransactionId: 'order-crash-1' });
      const key = { 'Idempotency-Key': 'order-crash-1' };
      void post(crashingUrl, '/v1/payments', setup.token, request, key).catch(() => undefined);
      const attemptId = /acquirer called for ([0-9a-f]{32})/.exec(await crashing.printed(/acquirer called for [0-9a-f]{32}/))?.[1] as string;
      // On PostgreSQL another instance is running all along; the embedded store is reopened after the crash.
      if (kind === 'PostgreSQL') survivor = await startGateway(setup.config, { now: clock.now, jobPollMs: 0 });
      await crashing.kill();
      survivor ??= await startGateway(setup.config, { now: clock.now, jobPollMs: 0 });
      const store = survivor.store;

      // The attempt is there, open; its payment is not (the process died before recording it).
      const open = await store.query<{ payment_id: string; finished_at: Date | null }>('SELECT payment_id, finished_at FROM acquirer_attempts WHERE id = $1', [attemptId]);
      expect(open.rows).toEqual([{ payment_id: expect.any(String), finished_at: null }]);
      const paymentId = open.rows[0]?.payment_id as string;
      expect((await store.query('SELECT 1 FROM payments WHERE id = $1', [paymentId])).rows).toEqual([]);

      // The dead instance's session goes a moment after the kill; then the recovery finds its attempt.
      const dead = (await store.query<{ instance_id: string }>('SELECT instance_id FROM acquirer_attempts WHERE id = $1', [attemptId])).rows[0]?.instance_id as string;
      await expect.poll(() => store.isInstanceAlive(dead)).toBe(false);
      clock.advance(RECOVERY_INTERVAL_MS * 2);
      await expect
        .poll(async () => {
          await survivor?.jobs.runDueJobs();
          return (await store.query<{ outcome: string | null }>('SELECT outcome FROM acquirer_attempts WHERE id = $1', [attemptId])).rows[0]?.outcome;
        }, { timeout: 15_000 })
        .toBe(outcome);
      const recorded = await store.query<{ id: string; result_code: string }>('SELECT id, result_code FROM payments WHERE merchant_transaction_id = $1', ['order-crash-1']);
      expect(recorded.rows).toHaveLength(payments);
      if (payments === 1) {
        expect(recorded.rows[0]).toEqual({ id: paymentId, result_code: '000.100.110' });
        const events = await store.query<{ action: string }>("SELECT action FROM events WHERE resource_id = $1 AND type = 'PAYMENT'", [paymentId]);
        expect(events.rows.map((row) => row.action)).toEqual(['CREATED']);
      }

      // The merchant's retry with the same key: the recovered payment, or (nothing was charged) the payment made now.
      const retried = await post(survivor.url, '/v1/payments', setup.token, { ...request, 'card.holder': holder }, key);
      expect(retried.body.id).toBe(paymentId);
      const operations = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM simulator_operations');
      expect(operations.rows[0]?.n).toBe(1);
      expect((await store.query('SELECT 1 FROM payments WHERE merchant_transaction_id = $1', ['order-crash-1'])).rows).toHaveLength(1);
    } finally {
      await crashing.kill();
      await survivor?.close();
      await setup.location.dispose();
    }
  }, 120_000);

  it('paying a checkout: the next submit records what the acquirer decided (its record committed), so the checkout is paid once', async () => {
    const setup = await storeWithMerchant(kind, 'Crash shop', { config: { simulatorDurableRecords: true } });
    const crashing = startHangingGateway(setup.location, { SIMULATOR_DURABLE_RECORDS: 'true' });
    let survivor: RunningGateway | undefined;
    try {
      const crashingUrl = /Gateway listening on (\S+)/.exec(await crashing.listening)?.[1] as string;
      const checkout = await post(crashingUrl, '/v1/checkouts', setup.token, { entityId: setup.entityId, amount: '25.00', currency: 'EUR', paymentType: 'DB' });
      const submit = (url: string, card: Record<string, string>) =>
        fetch(`${url}/v1/checkouts/${checkout.body.id}/payment`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(card),
        }).then(async (response) => ({ status: response.status, body: (await response.json()) as { id?: string; result: { code: string; description: string } } }));
      void submit(crashingUrl, testCard({ 'card.holder': 'HANG AFTER ANSWER' })).catch(() => undefined);
      await crashing.printed(/acquirer called for [0-9a-f]{32}/);
      if (kind === 'PostgreSQL') survivor = await startGateway(setup.config, { jobPollMs: 0 });
      await crashing.kill();
      survivor ??= await startGateway(setup.config, { jobPollMs: 0 });
      const url = survivor.url;

      // The shopper tries again: the payment the acquirer made is recorded first, and the checkout is paid by it.
      await expect.poll(async () => (await submit(url, testCard())).body.result.description, { timeout: 15_000 }).toMatch(/^checkout already paid/);
      const result = await fetch(`${url}/v1/checkouts/${checkout.body.id}/payment?entityId=${setup.entityId}`, { headers: { Authorization: `Bearer ${setup.token}` } });
      const payment = (await result.json()) as { id: string; result: { code: string } };
      expect(payment.result.code).toBe('000.100.110');
      const charged = await survivor.store.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE checkout_id = $1 AND status = 'approved'", [checkout.body.id]);
      expect(charged.rows[0]?.n).toBe(1);
    } finally {
      await crashing.kill();
      await survivor?.close();
      await setup.location.dispose();
    }
  }, 120_000);
});
