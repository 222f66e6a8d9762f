import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../store/index.ts';
import { filesBelow, keysOf, valuesOf } from '../testing/dataAtRest.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  STORE_KINDS,
  startTestGateway,
  TEST_DATABASE_URL,
  warnIfPostgresSkipped,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('cardData.test.ts');

/** The cards used below, with security codes nothing else in the data could contain by chance. */
const CARDS = [
  { brand: 'VISA', number: '4200000000000000', cvv: '739' },
  { brand: 'MASTER', number: '5454545454545454', cvv: '862' },
  { brand: 'AMEX', number: '377777777777770', cvv: '4917' },
  { brand: 'VISA', number: '4444444444444444', cvv: '615' },
  // 3-D Secure challenge: the card waits (sealed) for the shopper's answer.
  { brand: 'VISA', number: '4200000000000042', cvv: '528' },
];

/**
 * The other instruments' secrets (doc 2 §2.5–2.8, COMPAT §16), sent beside a card so the payment is made: none
 * may be kept or shown in clear. `shown` is what an answer may show of a value (masked), if anything.
 */
const INSTRUMENT_SECRETS: readonly { name: string; value: string; shown?: string }[] = [
  { name: 'tokenAccount.number', value: '4111111111111111', shown: '411111******1111' },
  { name: 'tokenAccount.dtvc', value: '8371' },
  { name: 'tokenAccount.cryptogram', value: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=' },
  { name: 'bankAccount.iban', value: 'DE23100000001234567890', shown: 'DE2310************7890' },
  { name: 'bankAccount.number', value: '0532013000' },
  { name: 'virtualAccount.password', value: 'vap-Secr3t-99' },
  { name: 'virtualAccount.paymentToken', value: 'vaTokenSecretValue77' },
  { name: 'applePay.paymentToken', value: '{"data":"walletSecretBlob42"}' },
  { name: 'giftCard.number', value: 'GC9988776655443', shown: 'GC9988*****5443' },
  { name: 'giftCard.pin', value: '90817' },
];
const INSTRUMENT_GROUPS: Readonly<Record<string, string>> = {
  'tokenAccount.type': 'NETWORK',
  'bankAccount.holder': 'Jane Jones',
  'bankAccount.bic': 'MARKDEF1100',
  'virtualAccount.accountId': 'jane@example.com',
  'giftCard.type': 'OTHER',
};

/** What a browser reports for 3-D Secure, and where the shopper returns: needed by the challenge card. */
const REDIRECT_FIELDS = { shopperResultUrl: 'https://shop.example/result', ...BROWSER_DATA };

/**
 * The bytes at rest, as someone with the data files or a backup would see them: PGlite's data directory (read
 * after the gateway closed), or for PostgreSQL a pg_dump of the schema plus the heap and TOAST files of its
 * tables (after a checkpoint), when this process may read the server's data directory.
 */
async function bytesAtRest(t: TestGateway): Promise<Buffer[]> {
  if (t.kind === 'PGlite') return filesBelow(t.location.dataDir).map((file) => readFileSync(file));
  const schema = t.location.schema as string;
  const dump = execFileSync('pg_dump', ['--schema', schema, '--dbname', TEST_DATABASE_URL as string], { maxBuffer: 256 * 1024 * 1024 });
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query('CHECKPOINT');
    const dataDir = (await admin.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir")).rows[0]?.dir as string;
    const relations = await admin.query<{ path: string }>(
      `SELECT pg_relation_filepath(c.oid) AS path FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r'
       UNION ALL
       SELECT pg_relation_filepath(c.reltoastrelid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r' AND c.reltoastrelid <> 0`,
      [schema],
    );
    const heap: Buffer[] = [];
    for (const { path } of relations.rows) {
      for (const file of [join(dataDir, path), ...[1, 2, 3].map((segment) => join(dataDir, `${path}.${segment}`))]) {
        if (existsSync(file)) {
          try {
            heap.push(readFileSync(file));
          } catch {
            // Not the server's user nor root: the dump still shows every value.
          }
        }
      }
    }
    return [dump, ...heap];
  } finally {
    await admin.end();
  }
}

/** Every row of every table of the current schema, as JSON text. */
async function dumpTables(db: Queryable): Promise<string[]> {
  const tables = await db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  );
  expect(tables.rows.map((row) => row.table_name)).toContain('payments');
  const rows: string[] = [];
  for (const { table_name } of tables.rows) {
    const dumped = await db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
    rows.push(...dumped.rows.map((row) => row.row));
  }
  return rows;
}

describe.each(STORE_KINDS)('card data never at rest or in logs, on %s', (kind) => {
  it('keeps full card numbers and security codes out of the database, its files, the logs and the responses', async () => {
    const t = await startTestGateway(kind);
    const responses: string[] = [];
    /** The gateway's HTML pages the shopper saw. */
    const pages: string[] = [];
    let tableRows: string[];
    try {
      for (const card of CARDS) {
        // createRegistration: approved cards are stored too (sealed), and searched like everything else.
        const params = cardPayment(t.entityId, {
          paymentBrand: card.brand,
          'card.number': card.number,
          'card.cvv': card.cvv,
          createRegistration: 'true',
          ...REDIRECT_FIELDS,
        });
        const debit = await t.post('/v1/payments', params);
        if (debit.body.redirect) {
          // The debit's challenge is answered (the card is authorized from its sealed copy); the PA's stays open.
          const answered = await answerRedirect(debit);
          pages.push(await answered.text());
        }
        const auth = await t.post('/v1/payments', { ...params, paymentType: 'PA' });
        const failedValidation = await t.post('/v1/payments', { ...params, 'card.expiryMonth': '13' });
        const grouped = await t.post('/v1/payments', { ...params, 'card.number': card.number.replace(/(\d{4})/g, '$1 ').trim() });
        responses.push(...[debit, auth, failedValidation, grouped].map((response) => JSON.stringify(response.body)));
        if (debit.status === 200) {
          const refund = await t.post(`/v1/payments/${debit.body.id}`, {
            entityId: t.entityId,
            paymentType: 'RF',
            amount: '1.00',
            currency: 'EUR',
          });
          const capture = await t.post(`/v1/payments/${auth.body.id}`, {
            entityId: t.entityId,
            paymentType: 'CP',
            amount: '1.00',
            currency: 'EUR',
          });
          responses.push(JSON.stringify(refund.body), JSON.stringify(capture.body));
          expect(refund.status).toBe(200);
        }
        // The registrations API: stored, read, paid with (a CVV added), updated and deleted.
        const registration = await t.post('/v1/registrations', {
          entityId: t.entityId,
          paymentBrand: card.brand,
          'card.number': card.number,
          'card.cvv': card.cvv,
          'card.holder': 'Jane Jones',
          'card.expiryMonth': '05',
          'card.expiryYear': '2034',
        });
        responses.push(JSON.stringify(registration.body));
        // A number that fails the gateway's checks is refused (the answer still shows its masked card).
        if (registration.status !== 200) continue;
        const path = `/v1/registrations/${registration.body.id}`;
        const readBack = await t.get(path, { entityId: t.entityId });
        const paidWith = await t.post(`${path}/payments`, { entityId: t.entityId, amount: '3.00', currency: 'EUR', paymentType: 'DB', 'card.cvv': card.cvv, ...REDIRECT_FIELDS });
        const updated = await t.post(path, { entityId: t.entityId, 'card.expiryYear': '2035' });
        const refusedUpdate = await t.post(path, { entityId: t.entityId, 'card.number': card.number, 'card.cvv': card.cvv });
        expect(refusedUpdate.status).toBe(400);
        const deleted = await t.delete(path, { entityId: t.entityId });
        expect(deleted.status).toBe(200);
        responses.push(...[readBack, paidWith, updated, refusedUpdate, deleted].map((response) => JSON.stringify(response.body)));
      }
      tableRows = await dumpTables(t.gateway.store);
      expect(tableRows.length).toBeGreaterThan(CARDS.length * 2);
    } finally {
      // Closing flushes PGlite's files to disk before they are searched below.
      await t.gateway.close();
    }

    try {
      const storedFiles = await bytesAtRest(t);
      expect(storedFiles.length).toBeGreaterThan(kind === 'PGlite' ? 10 : 0);
      const logs = t.logLines.map((line) => JSON.parse(line) as unknown);
      expect(logs.length).toBeGreaterThan(CARDS.length * 4);

      for (const card of CARDS) {
        for (const row of tableRows) expect(row).not.toContain(card.number);
        for (const file of storedFiles) expect(file.includes(card.number)).toBe(false);
        for (const line of t.logLines) expect(line).not.toContain(card.number);
        for (const response of responses) expect(response).not.toContain(card.number);

        for (const row of tableRows) expect(valuesOf(JSON.parse(row))).not.toContain(card.cvv);
        for (const log of logs) expect(valuesOf(log)).not.toContain(card.cvv);
        for (const response of responses) expect(valuesOf(JSON.parse(response))).not.toContain(card.cvv);
        for (const page of pages) expect(page).not.toContain(card.number);
      }
      for (const row of tableRows) expect(keysOf(JSON.parse(row)).filter((key) => /cvv|number/i.test(key))).toEqual([]);
      // What is stored of a card: bin and last four digits.
      const storedCards = tableRows.map((row) => (JSON.parse(row) as { card?: unknown }).card).filter(Boolean);
      expect(storedCards).toContainEqual(expect.objectContaining({ bin: '420000', last4Digits: '0000' }));
      expect(pages).toHaveLength(1);
      // Stored cards and the open challenge's card, each sealed in the vault.
      expect(tableRows.filter((row) => row.includes('"key_id"') && row.includes('"iv"')).length).toBeGreaterThan(3);
    } finally {
      await t.location.dispose();
    }
  });

  it('keeps the other instruments\' account numbers, codes, passwords and tokens out of every place a card number is kept out of', async () => {
    const t = await startTestGateway(kind);
    const responses: string[] = [];
    let tableRows: string[];
    try {
      const secrets = Object.fromEntries(INSTRUMENT_SECRETS.map(({ name, value }) => [name, value]));
      const params = cardPayment(t.entityId, { ...INSTRUMENT_GROUPS, ...secrets });
      const paid = await t.post('/v1/payments', params);
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      // Masked where an answer may show an account number at all; secrets not at all.
      expect(paid.body.tokenAccount).toEqual({ number: '411111******1111', type: 'NETWORK' });
      expect(paid.body.bankAccount).toEqual({ holder: 'Jane Jones', iban: 'DE2310************7890', number: '********', bic: 'MARKDEF1100' });
      const read = await t.get(`/v1/payments/${paid.body.id}`, { entityId: t.entityId });
      const refund = await t.post(`/v1/payments/${paid.body.id}`, { entityId: t.entityId, paymentType: 'RF', amount: '1.00', currency: 'EUR', ...secrets });
      const refused = await t.post('/v1/payments', { ...params, 'card.expiryMonth': '13', 'tokenAccount.expiryMonth': '13' });
      expect(refused.status).toBe(400);
      const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', ...secrets });
      expect(checkout.status).toBe(400);
      const open = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' });
      const submitted = await t.post(`/v1/checkouts/${open.body.id}/payment`, { ...params, entityId: t.entityId }, { token: null });
      expect(submitted.status).toBe(400);
      responses.push(...[paid, read, refund, refused, checkout, submitted].map((response) => JSON.stringify(response.body)));
      tableRows = await dumpTables(t.gateway.store);
    } finally {
      await t.gateway.close();
    }
    try {
      const atRest = await bytesAtRest(t);
      for (const { name, value } of INSTRUMENT_SECRETS) {
        if (value.length >= 8) {
          for (const row of tableRows) expect(row, name).not.toContain(value);
          for (const bytes of atRest) expect(bytes.includes(value), `${name} at rest`).toBe(false);
          for (const line of t.logLines) expect(line, name).not.toContain(value);
          for (const response of responses) expect(response, name).not.toContain(value);
        } else {
          // A code of four or five digits turns up by chance in ids, timestamps and data files: look for it as a
          // value, and for its name as a key, wherever it could have been kept or shown.
          const key = name.split('.').pop() as string;
          for (const text of [...tableRows, ...t.logLines, ...responses]) {
            const parsed = JSON.parse(text) as unknown;
            expect(valuesOf(parsed), name).not.toContain(value);
            expect(keysOf(parsed), name).not.toContain(key);
          }
        }
      }
    } finally {
      await t.location.dispose();
    }
  });
});
