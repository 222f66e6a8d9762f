import { describe, expect, it } from 'vitest';
import { openStore } from '../store/index.ts';
import { cardPayment, startTestGateway, STORE_KINDS, warnIfPostgresSkipped } from '../testing/harness.ts';

warnIfPostgresSkipped('shutdown.test.ts');

/**
 * A gateway stopping while payments are being made (clients that hung up included) lets them finish before it closes
 * its store: every payment it started is recorded with its event, no attempt is left open, nothing fails.
 */
describe.each(STORE_KINDS)('stopping under load on %s', (kind) => {
  it('records every payment it started before closing the store', async () => {
    const t = await startTestGateway(kind);
    const aborts = Array.from({ length: 30 }, () => new AbortController());
    const sent = aborts.map((abort) =>
      fetch(`${t.url}/v1/payments`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(t.entityId)),
        signal: abort.signal,
      }).catch(() => undefined),
    );
    // Wait until the gateway is working on them, then hang up on every client and stop.
    await expect.poll(async () => Number((await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM acquirer_attempts')).rows[0]?.n), { interval: 2 }).toBeGreaterThan(0);
    for (const abort of aborts) abort.abort();
    await t.gateway.close();
    await Promise.all(sent);

    const store = await openStore(t.location);
    try {
      const counts = await store.query<{ attempts: number; open: number; payments: number; events: number }>(
        `SELECT (SELECT count(*) FROM acquirer_attempts)::int AS attempts,
                (SELECT count(*) FROM acquirer_attempts WHERE finished_at IS NULL)::int AS open,
                (SELECT count(*) FROM payments)::int AS payments,
                (SELECT count(*) FROM events WHERE type = 'PAYMENT')::int AS events`,
      );
      const { attempts, open, payments, events } = counts.rows[0] as { attempts: number; open: number; payments: number; events: number };
      expect(attempts).toBeGreaterThan(0);
      expect(open).toBe(0);
      expect(payments).toBe(attempts);
      expect(events).toBe(payments);
      expect(t.logLines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
    } finally {
      await store.close();
      await t.location.dispose();
    }
  });
});
