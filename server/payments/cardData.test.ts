import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../store/index.ts';
import { BROWSER_DATA, cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped } from '../testing/harness.ts';

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

/** What a browser reports for 3-D Secure, and where the shopper returns: needed by the challenge card. */
const REDIRECT_FIELDS = { shopperResultUrl: 'https://shop.example/result', ...BROWSER_DATA };

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
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

/** Every string (and number) value anywhere inside a parsed JSON document. */
function valuesOf(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (typeof node === 'number') return [String(node)];
  if (Array.isArray(node)) return node.flatMap(valuesOf);
  if (node && typeof node === 'object') return Object.values(node).flatMap(valuesOf);
  return [];
}

function keysOf(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(keysOf);
  if (node && typeof node === 'object') {
    return Object.entries(node).flatMap(([key, value]) => [key, ...keysOf(value)]);
  }
  return [];
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
          const answered = await fetch(`${debit.body.redirect.url}/answer`, {
            method: 'POST',
            body: new URLSearchParams({ paymentId: debit.body.id, action: 'submit', otp: '1234' }),
          });
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
      }
      tableRows = await dumpTables(t.gateway.store);
      expect(tableRows.length).toBeGreaterThan(CARDS.length * 2);
    } finally {
      // Closing flushes PGlite's files to disk before they are searched below.
      await t.gateway.close();
    }

    try {
      const storedFiles = kind === 'PGlite' ? filesBelow(t.location.dataDir).map((file) => readFileSync(file)) : [];
      if (kind === 'PGlite') expect(storedFiles.length).toBeGreaterThan(10);
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
      expect(tableRows.filter((row) => row.includes('"sealed_card"') && row.includes('"payment_brand"')).length).toBeGreaterThan(3);
    } finally {
      await t.location.dispose();
    }
  });
});
