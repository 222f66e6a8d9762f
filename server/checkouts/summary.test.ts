import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerRedirect,
  BROWSER_DATA,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('summary.test.ts');

/**
 * The summary page (wpwlOptions.useSummaryPage, summary.ts): the shopper's submit saves the card for the checkout,
 * sealed and without its CVV; the merchant's server then pays it with its credentials, as the shopper's submit would
 * have been paid, once; the saved card is erased once paid or when the checkout expires.
 */

const MINUTE = 60_000;
const RESULT_URL = 'https://shop.example.com/result';

describe.each(STORE_KINDS)('the summary page on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = async (overrides: Record<string, string> = {}): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB', ...overrides });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** The widget's submit with useSummaryPage: the card form's fields, from the number frame, no credentials. */
  const save = (id: string, overrides: Record<string, string> = {}) =>
    t.post(`/v1/checkouts/${id}/payment`, testCard({ shopperResultUrl: RESULT_URL, useSummaryPage: 'true', ...BROWSER_DATA, ...overrides }), { token: null });
  /** The merchant's server executes the saved payment: its token and entity, no card data. */
  const execute = (id: string, entityId = t.entityId, token?: string) => t.post(`/v1/checkouts/${id}/payment`, { entityId }, token ? { token } : {});
  const read = (id: string) => t.get(`/v1/checkouts/${id}/payment`, { entityId: t.entityId });
  const vaultItems = async () => (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM vault_items')).rows[0]?.n ?? 0;

  it('saves the card without paying, answering what the summary shows; the merchant\'s server pays it once', async () => {
    const id = await create();
    const before = await vaultItems();
    const saved = await save(id, { 'billing.city': 'Berlin', 'billing.country': 'DE' });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      result: { code: '000.200.101', description: 'successfully updated checkout' },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: id,
      id,
      paymentBrand: 'VISA',
      card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
      billing: { city: 'Berlin', country: 'DE' },
    });
    expect(await vaultItems()).toBe(before + 1);
    // Nothing is paid yet.
    expect((await read(id)).body.result.code).not.toMatch(/^000\.(000|100)\./);

    const paid = await execute(id);
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
    expect(paid.body).toMatchObject({ paymentBrand: 'VISA', amount: '12.00', currency: 'EUR', card: { bin: '420000', last4Digits: '0000' }, billing: { city: 'Berlin' } });
    expect(await vaultItems()).toBe(before);
    const again = await execute(id);
    expect(again.status).toBe(400);
    expect(again.body.result.description).toContain('already paid');
    expect((await read(id)).body).toMatchObject({ id: paid.body.id, result: { code: '000.100.110' } });
    // Neither answer nor log carries the card number or the CVV.
    const text = JSON.stringify([saved.body, paid.body, again.body]) + t.logLines.join('\n');
    expect(text).not.toContain('4200000000000000');
    expect(t.logLines.join('\n')).not.toMatch(/"card\.cvv"\s*:\s*"123"/);
  });

  it('pays an enrolled card through 3-D Secure: the answer carries the challenge\'s redirect, ending on the result URL', async () => {
    const id = await create();
    expect((await save(id, { 'card.number': '4200000000000042' })).status).toBe(200);
    const pending = await execute(id);
    expect(pending.status).toBe(200);
    expect(pending.body.result.code).toBe('000.200.000');
    expect(pending.body.redirect.url).toMatch(/^http/);
    const answered = await answerRedirect(pending);
    expect(answered.status).toBeGreaterThanOrEqual(200);
    await expect.poll(async () => (await read(id)).body.result.code).toBe('000.100.110');
  });

  it('records a declined card as the shopper\'s submit would, and the saved card is gone with it', async () => {
    const id = await create();
    expect((await save(id, { 'card.holder': '800.100.151' })).status).toBe(200);
    const declined = await execute(id);
    expect(declined.status).toBe(400);
    expect(declined.body.result.code).toBe('800.100.151');
    const again = await execute(id);
    expect([again.status, again.body.result.code]).toEqual([400, '200.300.404']);
    expect(again.body.result.description).toContain('no payment data saved');
  });

  it('refuses what it cannot save: a card the gateway refuses, a malformed field, what only the merchant sets', async () => {
    const id = await create();
    const invalid = await save(id, { 'card.number': '4200000000000001' });
    expect([invalid.status, invalid.body.result.code]).toEqual([400, '100.100.101']);
    const malformed = await save(id, { 'card.expiryMonth': '13' });
    expect([malformed.status, malformed.body.result.code]).toEqual([400, '200.300.404']);
    expect(malformed.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain('card.expiryMonth');
    const amount = await save(id, { amount: '1.00' });
    expect([amount.status, amount.body.result.code]).toEqual([400, '200.300.404']);
    expect(JSON.stringify([invalid.body, malformed.body, amount.body])).not.toContain('4200000000000001');
  });

  it('answers an execution without saved data, of an unknown id and of another entity\'s checkout as refusals, never a payment', async () => {
    const id = await create();
    const nothing = await execute(id);
    expect([nothing.status, nothing.body.result.code]).toEqual([400, '200.300.404']);
    expect(nothing.body.result.description).toContain('no payment data saved');
    const unknown = await execute('0123456789ABCDEF0123456789ABCDEF.uat01-vm-tx01');
    expect([unknown.status, unknown.body.result.description]).toEqual([400, expect.stringContaining('No payment session found')]);
    expect((await save(id)).status).toBe(200);
    const other = await t.newMerchant();
    const foreign = await execute(id, other.entityId, other.token);
    expect([foreign.status, foreign.body.result.description]).toEqual([400, expect.stringContaining('No payment session found')]);
    const unauthenticated = await t.post(`/v1/checkouts/${id}/payment`, { entityId: t.entityId }, { token: null });
    expect(unauthenticated.status).toBe(400);
    expect((await execute(id)).body.result.code).toBe('000.100.110');
  });

  it('erases the saved card when the checkout expires', async () => {
    const id = await create();
    const before = await vaultItems();
    expect((await save(id)).status).toBe(200);
    expect(await vaultItems()).toBe(before + 1);
    clock.advance(30 * MINUTE + 1000);
    await t.gateway.jobs.runDueJobs();
    expect(await vaultItems()).toBe(before);
    const expired = await execute(id);
    expect([expired.status, expired.body.result.description]).toEqual([400, expect.stringContaining('expired')]);
  });
});
