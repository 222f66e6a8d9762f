import { describe, expect, it } from 'vitest';
import { startHangingGateway, storeWithMerchant } from '../testing/crashingGateway.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { STORE_KINDS, testCard, warnIfPostgresSkipped, type StoreKind } from '../testing/harness.ts';

/**
 * A gateway process killed (SIGKILL) while it makes a checkout's payment leaves an attempt without a payment.
 * The next submit, on a restarted gateway or on another instance, takes the checkout over at once.
 */

warnIfPostgresSkipped('checkout crash recovery');

async function api(url: string, path: string, init: { token?: string; body?: Record<string, string>; method?: string } = {}) {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: {
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(init.body ? { body: new URLSearchParams(init.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as { id?: string; result: { code: string; description: string } } };
}

describe.each(STORE_KINDS)('a gateway killed in the middle of a checkout submit, on %s', (kind: StoreKind) => {
  it('leaves the checkout payable at once, by the restarted gateway or another instance', async () => {
    const { location, config, entityId, token } = await storeWithMerchant(kind, 'Crash shop');
    const crashing = startHangingGateway(location);
    let survivor: RunningGateway | undefined;
    try {
      const crashingUrl = /Gateway listening on (\S+)/.exec(await crashing.listening)?.[1] as string;
      const checkout = await api(crashingUrl, '/v1/checkouts', {
        token,
        body: { entityId: entityId, amount: '25.00', currency: 'EUR', paymentType: 'DB' },
      });
      const checkoutId = checkout.body.id as string;
      // The submit reaches the acquirer and never comes back: the process dies with the payment unrecorded.
      void api(crashingUrl, `/v1/checkouts/${checkoutId}/payment`, { body: testCard({ 'card.holder': 'HANG' }) }).catch(() => undefined);
      await crashing.printed(/acquirer called for [0-9a-f]{32}/);
      // On PostgreSQL another instance is running all along; the embedded store is reopened after the crash.
      if (kind === 'PostgreSQL') survivor = await startGateway(config, { jobPollMs: 0 });
      await crashing.kill();
      survivor ??= await startGateway(config, { jobPollMs: 0 });
      const orphan = await survivor.store.query<{ instance_id: string }>('SELECT instance_id FROM checkout_payments WHERE checkout_id = $1', [checkoutId]);
      expect(orphan.rows).toHaveLength(1);
      // The server notices the dead process's session closing a moment after the kill.
      await expect.poll(() => survivor?.store.isInstanceAlive(orphan.rows[0]?.instance_id as string), { timeout: 10_000 }).toBe(false);

      const retried = await api(survivor.url, `/v1/checkouts/${checkoutId}/payment`, { body: testCard() });
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.result.code).toBe('000.100.110');
      const result = await api(survivor.url, `/v1/checkouts/${checkoutId}/payment?entityId=${entityId}`, { token });
      expect(result.body.result.code).toBe('000.100.110');
      expect(result.body.id).toBe(retried.body.id);
    } finally {
      await crashing.kill();
      await survivor?.close();
      await location.dispose();
    }
  }, 90_000);
});
