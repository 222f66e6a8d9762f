import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEntity } from '../merchants/repository.ts';
import { openStore } from '../store/index.ts';
import { migrate } from '../store/migrate.ts';
import { openPGliteStore } from '../store/pglite.ts';
import { createTestClock, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';

warnIfPostgresSkipped('registrations/deletion.test.ts');

/**
 * What a deleted registration leaves behind (issue 34 §4, docs/decisions.md): the brand, the card's BIN and last four
 * digits (a bank account's masked IBAN, BIC and country) and the merchant's reference, which the query API and the
 * back office still show; not the holder's name, the expiry, the mandate or what the request said of the customer —
 * not in its row, nor in its own REGISTRATION events. The sealed card itself is erased from the vault.
 */

const IBAN = 'DE23100000001234567890';
const IBAN_MASKED = 'DE2310************7890';
const MIGRATION = '0029_deleted_registrations_scrubbed.sql';
/** What must be gone: the holders' names, the expiry, the mandate, the customer and the billing address. */
const PERSONAL = ['Jones', 'Johanna', '2034', 'MANDATE-JONES', '2025-06-01', 'jane@shop.example', 'Hauptstr', '10115'];
/** What is kept, as text, without the random ids (32 hex), in which a year like 2034 may appear by chance. */
const keptText = (value: unknown): string => JSON.stringify(value).replace(/[0-9a-f]{32}/g, '<id>');
const CUSTOMER = { 'customer.givenName': 'Johanna', 'customer.surname': 'Jones', 'customer.email': 'jane@shop.example', 'billing.street1': 'Hauptstr. 1', 'billing.postcode': '10115', 'billing.city': 'Berlin', 'billing.country': 'DE' };

describe.each(STORE_KINDS)('a deleted registration on %s', (kind) => {
  const clock = createTestClock(new Date('2026-11-26T10:00:00.000Z'));
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const rowOf = async (id: string) =>
    (await t.gateway.store.query<{ row: Record<string, unknown> }>('SELECT to_jsonb(r) AS row FROM registrations r WHERE id = $1', [id])).rows[0]?.row as Record<string, unknown>;
  const eventsOf = async (id: string) => (await t.gateway.store.query<{ payload: Record<string, unknown> }>('SELECT payload FROM events WHERE resource_id = $1 ORDER BY id', [id])).rows.map((row) => row.payload);
  /** A list query, a minute after anything before it (the query API allows one list a second). */
  const query = (params: Record<string, string>) => {
    clock.advance(60_000);
    return t.get('/v1/query', { entityId: t.entityId, ...params });
  };

  it('keeps the brand, BIN and last four digits of a card; not its holder or expiry, nor the customer', async () => {
    const registered = await t.post('/v1/registrations', { entityId: t.entityId, merchantTransactionId: 'deleted-card-1', ...testCard({ 'card.holder': 'Jane Jones' }), ...CUSTOMER });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const id = registered.body.id as string;
    const paid = await t.post('/v1/payments', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', registrationId: id });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(JSON.stringify(await rowOf(id))).toContain('Jones');

    clock.advance(1_000);
    const deleted = await t.delete(`/v1/registrations/${id}`, { entityId: t.entityId });
    expect(deleted.status).toBe(200);
    const row = await rowOf(id);
    expect(row).toMatchObject({ payment_brand: 'VISA', card: { bin: '420000', last4Digits: '0000' }, bank_account: null, sealed_card_id: null, request_echo: { merchantTransactionId: 'deleted-card-1' } });
    expect(row.card).toEqual({ bin: '420000', last4Digits: '0000' });
    expect(row.request_echo).toEqual({ merchantTransactionId: 'deleted-card-1' });
    for (const text of PERSONAL) expect(keptText(row), text).not.toContain(text);
    const events = await eventsOf(id);
    expect(events.length).toBeGreaterThanOrEqual(2);
    for (const text of PERSONAL) expect(keptText(events), text).not.toContain(text);

    // What the query API shows of it: the brand, BIN and last 4, and the merchant's reference.
    const records = await query({ merchantTransactionId: 'deleted-card-1', paymentTypes: 'RG,DR' });
    expect(records.body.payments).toMatchObject([
      { id, paymentType: 'RG', paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0000' } },
      { id: deleted.body.id, referencedId: id, paymentType: 'DR', paymentBrand: 'VISA' },
    ]);
    for (const text of PERSONAL) expect(keptText(records.body), text).not.toContain(text);
    // The payment made with it is the payment's own record: its card as it was paid.
    expect((await t.get(`/v1/query/${paid.body.id}`, { entityId: t.entityId })).body).toMatchObject({ paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0000' } });
  });

  it("keeps a bank account's masked IBAN, BIC and country; not its holder or mandate", async () => {
    const registered = await t.post('/v1/registrations', {
      entityId: t.entityId,
      merchantTransactionId: 'deleted-sepa-1',
      paymentBrand: 'DIRECTDEBIT_SEPA',
      'bankAccount.holder': 'Jane Jones',
      'bankAccount.iban': IBAN,
      'bankAccount.bic': 'MARKDEF1100',
      'bankAccount.mandate.id': 'MANDATE-JONES',
      'bankAccount.mandate.dateOfSignature': '2025-06-01',
      ...CUSTOMER,
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const id = registered.body.id as string;
    clock.advance(1_000);
    const deleted = await t.delete(`/v1/registrations/${id}`, { entityId: t.entityId });
    expect(deleted.status).toBe(200);

    const row = await rowOf(id);
    expect(row).toMatchObject({ payment_brand: 'DIRECTDEBIT_SEPA', card: null, sealed_card_id: null });
    expect(row.bank_account).toEqual({ iban: IBAN_MASKED, bic: 'MARKDEF1100', country: 'DE' });
    expect(row.request_echo).toEqual({ merchantTransactionId: 'deleted-sepa-1' });
    for (const text of [...PERSONAL, IBAN.slice(4, 18)]) expect(keptText(row), text).not.toContain(text);
    for (const text of PERSONAL) expect(keptText(await eventsOf(id)), text).not.toContain(text);

    const records = await query({ merchantTransactionId: 'deleted-sepa-1', paymentTypes: 'RG,DR' });
    expect(records.status, JSON.stringify(records.body)).toBe(200);
    expect(records.body.payments).toMatchObject([
      { id, paymentType: 'RG', paymentBrand: 'DIRECTDEBIT_SEPA', bankAccount: { iban: IBAN_MASKED, bic: 'MARKDEF1100', country: 'DE' } },
      { id: deleted.body.id, paymentType: 'DR' },
    ]);
    for (const text of PERSONAL) expect(keptText(records.body), text).not.toContain(text);
  });
});

describe(`the migration ${MIGRATION}`, () => {
  it('scrubs the registrations deleted before it, and their events, the same way; live ones are left as they are', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-migration-'));
    try {
      const old = await openPGliteStore(dataDir);
      await migrate(old, { stopBefore: MIGRATION.slice(0, 4) });
      const entity = await createEntity(old, 'Before the scrub');
      const card = { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' };
      const account = { holder: 'Jane Jones', iban: IBAN_MASKED, bic: 'MARKDEF1100', country: 'DE', mandate: { id: 'MANDATE-JONES', dateOfSignature: '2025-06-01' } };
      const echo = { merchantTransactionId: 'old-1', customer: { givenName: 'Johanna', email: 'jane@shop.example' }, billing: { street1: 'Hauptstr. 1', postcode: '10115' } };
      const insert = async (id: string, brand: string, shown: { card?: unknown; bankAccount?: unknown }, deleted: boolean) => {
        // A bank account's request echoes it too (its holder and mandate among it).
        const sent = shown.bankAccount ? { ...echo, bankAccount: shown.bankAccount } : echo;
        if (!deleted) await old.query(`INSERT INTO vault_items (id, key_id, iv, tag, data, created_at) VALUES ($1, 'k', 'iv', 'tag', 'data', now())`, [id]);
        await old.query(
          `INSERT INTO registrations (id, entity_id, payment_brand, card, bank_account, sealed_card_id, request_echo, created_at, last_used_at, deleted_at, deregistration_id)
           VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7::jsonb, now(), now(), $8, $9)`,
          [id, entity.id, brand, shown.card === undefined ? null : JSON.stringify(shown.card), shown.bankAccount === undefined ? null : JSON.stringify(shown.bankAccount), deleted ? null : id, JSON.stringify(sent), deleted ? new Date().toISOString() : null, deleted ? 'f'.repeat(31) + id.slice(0, 1) : null],
        );
        const payload = { id, paymentBrand: brand, ...(shown.card ? { card: shown.card } : {}), ...(shown.bankAccount ? { bankAccount: shown.bankAccount } : {}), ...sent, result: { code: '000.100.110' } };
        await old.query(`INSERT INTO events (type, action, entity_id, resource_id, payload, created_at) VALUES ('REGISTRATION', 'CREATED', $1, $2, $3::jsonb, now())`, [entity.id, id, JSON.stringify(payload)]);
      };
      await insert('a'.repeat(32), 'VISA', { card }, true);
      await insert('b'.repeat(32), 'DIRECTDEBIT_SEPA', { bankAccount: account }, true);
      await insert('c'.repeat(32), 'VISA', { card }, false);
      await old.close();

      const migrated = await openStore({ dataDir, databaseUrl: undefined });
      try {
        const rows = await migrated.query<{ id: string; card: unknown; bank_account: unknown; request_echo: unknown }>('SELECT id, card, bank_account, request_echo FROM registrations ORDER BY id');
        expect(rows.rows).toEqual([
          { id: 'a'.repeat(32), card: { bin: '420000', last4Digits: '0000' }, bank_account: null, request_echo: { merchantTransactionId: 'old-1' } },
          { id: 'b'.repeat(32), card: null, bank_account: { iban: IBAN_MASKED, bic: 'MARKDEF1100', country: 'DE' }, request_echo: { merchantTransactionId: 'old-1' } },
          { id: 'c'.repeat(32), card, bank_account: null, request_echo: echo },
        ]);
        const events = await migrated.query<{ resource_id: string; payload: Record<string, unknown> }>('SELECT resource_id, payload FROM events ORDER BY resource_id');
        expect(events.rows.map((row) => row.payload)).toEqual([
          { id: 'a'.repeat(32), paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0000' }, merchantTransactionId: 'old-1', result: { code: '000.100.110' } },
          { id: 'b'.repeat(32), paymentBrand: 'DIRECTDEBIT_SEPA', bankAccount: { iban: IBAN_MASKED, bic: 'MARKDEF1100', country: 'DE' }, merchantTransactionId: 'old-1', result: { code: '000.100.110' } },
          { id: 'c'.repeat(32), paymentBrand: 'VISA', card, ...echo, result: { code: '000.100.110' } },
        ]);
      } finally {
        await migrated.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // A store made from nothing (initdb in WebAssembly, every migration): slow on a busy machine.
  }, 120_000);
});
