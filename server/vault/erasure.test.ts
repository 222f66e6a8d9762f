import { describe, expect, it } from 'vitest';
import {
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type TestGateway,
} from '../testing/harness.ts';
import { containsAny, storeFiles } from '../testing/dataAtRest.ts';
import { VAULT_COMPACTION_INTERVAL_MS } from './repository.ts';

/**
 * Erasing a card is real: after the vault's compaction, its sealed bytes are in no data file (and on the embedded
 * store in no WAL segment either), so not even someone holding the data files and the key could open it.
 */

warnIfPostgresSkipped('vault erasure');


/** The files a value could be read back from: PGlite's whole directory, or the files of the tables that held cards. */
const dataFiles = (t: TestGateway) => storeFiles(t.location, ['vault_items', 'payment_redirects', 'registrations']);


describe.each(STORE_KINDS)('erasing sealed cards on %s', (kind) => {
  it('leaves nothing of an erased card in the data files after the compaction', async () => {
    const clock = createTestClock();
    const t = await startTestGateway(kind, {}, { now: clock.now });
    /** The ciphertexts and IVs of the cards the challenges held. */
    const challenged: string[] = [];
    try {
      for (const action of ['submit', 'cancel']) {
        const pending = await t.post(
          '/v1/payments',
          cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }),
        );
        const redirectPath = new URL(pending.body.redirect.url as string).pathname;
        const held = await t.gateway.store.query<{ data: string; iv: string }>(
          'SELECT v.data, v.iv FROM payment_redirects r JOIN vault_items v ON v.id = r.sealed_card_id WHERE r.payment_id = $1',
          [pending.body.id],
        );
        challenged.push(held.rows[0]?.data as string, held.rows[0]?.iv as string);
        const answered = await fetch(`${t.url}${redirectPath}/answer`, {
          method: 'POST',
          body: new URLSearchParams({ paymentId: pending.body.id, action, otp: '1234' }),
        });
        expect(answered.status).toBe(200);
      }
      // A deleted registration's card, and the card an update sealed anew, are erased the same way.
      const registered = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() });
      const sealedOf = async () =>
        (await t.gateway.store.query<{ data: string; iv: string }>('SELECT v.data, v.iv FROM registrations r JOIN vault_items v ON v.id = r.sealed_card_id WHERE r.id = $1', [registered.body.id])).rows[0];
      const first = await sealedOf();
      expect((await t.post(`/v1/registrations/${registered.body.id}`, { entityId: t.entityId, 'card.expiryYear': '2036' })).status).toBe(200);
      const second = await sealedOf();
      challenged.push(first?.data as string, first?.iv as string, second?.data as string, second?.iv as string);
      const deleted = await fetch(`${t.url}/v1/registrations/${registered.body.id}?entityId=${t.entityId}`, { method: 'DELETE', headers: { Authorization: `Bearer ${t.token}` } });
      expect(deleted.status).toBe(200);
      expect(challenged.every((value) => value.length >= 16)).toBe(true);
      expect((await t.gateway.store.query('SELECT 1 FROM vault_items')).rows).toEqual([]);
      // Deleted is not gone: the rows are dead but their bytes are still in the files (this is what the test guards).
      expect(containsAny(await dataFiles(t), challenged)).toBe(true);

      clock.advance(VAULT_COMPACTION_INTERVAL_MS);
      expect(await t.gateway.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
      if (kind === 'PostgreSQL') expect(containsAny(await dataFiles(t), challenged)).toBe(false);
    } finally {
      await t.gateway.close();
    }
    try {
      if (kind === 'PGlite') expect(containsAny(await dataFiles(t), challenged)).toBe(false);
    } finally {
      await t.location.dispose();
    }
  });
});
