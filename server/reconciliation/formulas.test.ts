import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shopperCard } from '../testing/checkouts.ts';
import { createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { RECONCILIATION_COLUMNS } from './format.ts';
import { readCsv } from '../testing/csvReader.ts';

warnIfPostgresSkipped('reconciliation/formulas.test.ts');

/**
 * Issue 34 §4 (security review, medium): what a shopper types, without credentials, reaches the merchant's
 * spreadsheet. A card holder typed as a formula on a checkout, and a descriptor that is one, end up in the daily
 * reconciliation file as text a spreadsheet shows and never runs (a leading `'`), while amounts stay numbers.
 */

const ADMIN_TOKEN = 'admin-token-of-the-csv-formula-test-0123456789';
const DAY = '2026-11-26';
const HOLDER = '=HYPERLINK("http://x","y")';
const DESCRIPTOR = "+cmd|' /C calc'!A0";

describe.each(STORE_KINDS)('spreadsheet formulas in the reconciliation file on %s', (kind) => {
  const clock = createTestClock(new Date(`${DAY}T10:00:00.000Z`));
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, settlement: { cutoffMinutesUtc: 22 * 60, feePercent: '1.5', feeFixedMinor: 10, fxRates: new Map() } }, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const admin = (method: string, path: string, body?: unknown) =>
    t.gateway.app.request(path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it("neutralises a shopper's card holder and a descriptor that are formulas; amounts stay numbers", async () => {
    const { entityId, token } = await t.newMerchant();
    const checkout = await t.post('/v1/checkouts', { entityId, amount: '12.50', currency: 'EUR', paymentType: 'DB', descriptor: DESCRIPTOR }, { token });
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    clock.advance(1_000);
    const paid = await t.post(`/v1/checkouts/${checkout.body.id}/payment`, shopperCard({ 'card.holder': HOLDER }), { token: null });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const refund = await t.post(`/v1/payments/${paid.body.id}`, { entityId, paymentType: 'RF', amount: '2.50', currency: 'EUR' }, { token });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);

    clock.advance(Date.parse(`${DAY}T22:30:00.000Z`) - clock.now().getTime());
    const run = await admin('POST', '/admin/v1/settlements/runs', { date: DAY });
    expect(run.status, await run.clone().text()).toBe(200);
    clock.advance(12 * 3_600_000);

    const csv = await admin('GET', `/admin/v1/entities/${entityId}/reconciliation/files/${DAY}/csv`);
    expect(csv.status).toBe(200);
    const text = await csv.text();
    const [header, ...rows] = readCsv(text);
    expect(header).toEqual([...RECONCILIATION_COLUMNS]);
    const column = (row: string[], name: (typeof RECONCILIATION_COLUMNS)[number]) => row[RECONCILIATION_COLUMNS.indexOf(name)];
    const debit = rows.find((row) => column(row, 'UniqueID') === paid.body.id) as string[];
    const refunded = rows.find((row) => column(row, 'UniqueID') === refund.body.id) as string[];
    expect(debit).toBeDefined();
    expect(refunded).toBeDefined();
    expect(column(debit, 'AccountHolder')).toBe(`'${HOLDER}`);
    expect(column(debit, 'Descriptor')).toBe(`'${DESCRIPTOR}`);
    expect(column(refunded, 'AccountHolder')).toBe(`'${HOLDER}`);
    expect(column(debit, 'Amount')).toBe('12.50');
    expect(column(refunded, 'Amount')).toBe('2.50');
    // No cell of the file starts a formula.
    for (const row of rows) for (const cell of row) expect(cell, cell).not.toMatch(/^[=+@\t\r]|^-(?!\d+(\.\d+)?$)/);
  });
});
