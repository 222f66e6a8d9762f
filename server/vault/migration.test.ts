import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startGateway } from '../gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../merchants/repository.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/index.ts';
import { openPGliteStore } from '../store/pglite.ts';
import { configAt, type StoreLocation } from '../testing/harness.ts';
import { createCardVault } from './cardVault.ts';
import { VAULT_COMPACTION_JOB } from './repository.ts';

/** A store from before the vault table: its sealed cards move into the vault and keep working. */
describe('the vault migration (0007)', () => {
  it('moves the sealed cards of stored registrations into the vault, keeps them usable, and schedules the compaction', async () => {
    // An empty directory: the suite's template store is migrated already.
    const key = randomBytes(32);
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-migration-'));
    const location: StoreLocation = { databaseUrl: undefined, dataDir, schema: undefined, cardDataKey: key, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
    const vault = createCardVault(key);
    const card = { number: '4200000000000000', expiryMonth: 5, expiryYear: 2034, holder: 'Jane Jones', brand: 'VISA' };
    try {
      const old = await openPGliteStore(location.dataDir);
      await migrate(old, { stopBefore: '0007' });
      const entity = await createEntity(old, 'Before the vault');
      const token = newAccessToken();
      await grantToken(old, token, 'old', [entity.id]);
      const registrationId = 'a'.repeat(32);
      await old.query(
        `INSERT INTO registrations (id, entity_id, payment_brand, card, sealed_card, created_at)
         VALUES ($1, $2, 'VISA', $3::jsonb, $4::jsonb, now())`,
        [registrationId, entity.id, JSON.stringify({ bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' }), JSON.stringify(vault.seal(card))],
      );
      await old.close();

      const migrated = await openStore({ dataDir: location.dataDir, databaseUrl: undefined });
      const moved = await migrated.query<{ id: string; data: string }>(
        'SELECT v.id, v.data FROM registrations r JOIN vault_items v ON v.id = r.sealed_card_id WHERE r.id = $1',
        [registrationId],
      );
      expect(moved.rows).toHaveLength(1);
      const job = await migrated.query<{ payload: unknown }>('SELECT payload FROM jobs WHERE kind = $1', [VAULT_COMPACTION_JOB]);
      expect(job.rows).toEqual([{ payload: { tables: ['payment_redirects', 'registrations'] } }]);
      await migrated.close();

      // The gateway pays with the moved card.
      const gateway = await startGateway(configAt(location), { jobPollMs: 0 });
      try {
        const paid = await fetch(`${gateway.url}/v1/payments`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ entityId: entity.id, amount: '3.00', currency: 'EUR', paymentType: 'DB', registrationId }),
        });
        expect(((await paid.json()) as { result: { code: string } }).result.code).toBe('000.100.110');
        // The compaction runs (and the payments' lifecycle backfill migration 0027 scheduled, with nothing to fill).
        expect(await gateway.jobs.runDueJobs()).toBe(2);
        const compaction = await gateway.store.query<{ done: boolean }>('SELECT done_at IS NOT NULL AS done FROM jobs WHERE kind = $1', [VAULT_COMPACTION_JOB]);
        expect(compaction.rows).toEqual([{ done: true }]);
      } finally {
        await gateway.close();
      }
    } finally {
      await location.dispose();
    }
  });
});
