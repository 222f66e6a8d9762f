import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../server/dashboard/operators.ts';
import { createEntity, grantToken, newAccessToken } from '../server/merchants/repository.ts';
import { cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../server/testing/harness.ts';
import { launchBrowser } from './support/browser.ts';
import { seriousViolations } from './support/dashboard.ts';

/**
 * An operator in the back office, on both stores, through the UI only: signs in with name and password, sees every
 * entity's payments and narrows them to one entity, captures part of a preauthorization, refunds part of a debit and reverses a preauthorization after
 * confirming each, and finds both in the store, among the payment's transactions and in the record of who did what.
 */

warnIfPostgresSkipped('the dashboard operator e2e test');

const PASSWORD = 'an operator password of length';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe.each(STORE_KINDS)('the dashboard for an operator on %s', (kind) => {
  let t: TestGateway;
  let second: { entityId: string; token: string };
  const made: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestGateway(kind);
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
    const token = newAccessToken();
    const entity = await t.gateway.store.transaction(async (tx) => {
      const created = await createEntity(tx, 'Second shop');
      await grantToken(tx, token, 'second', [created.id]);
      return created;
    });
    second = { entityId: entity.id, token };
    for (const [reference, entityId, paymentType, amount] of [
      ['order-refund-01', t.entityId, 'DB', '20.00'],
      ['order-reverse-01', t.entityId, 'PA', '15.00'],
      ['order-capture-01', t.entityId, 'PA', '30.00'],
      ['order-other-001', second.entityId, 'DB', '7.00'],
    ] as const) {
      const answer = await t.post('/v1/payments', cardPayment(entityId, { paymentType, amount, merchantTransactionId: reference }), entityId === second.entityId ? { token } : {});
      expect(answer.body.result.code).toMatch(/^000\.100\.1/);
      made[reference] = answer.body.id as string;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  async function signedIn(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.goto(`${t.url}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Operator name').fill('olivia');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    return { page, problems };
  }

  const childrenOf = async (id: string) =>
    (await t.gateway.store.query<{ payment_type: string; status: string; amount_minor: string }>('SELECT payment_type, status, amount_minor FROM payments WHERE parent_id = $1 ORDER BY created_at', [id])).rows.map(
      (row) => `${row.payment_type} ${row.status} ${Number(row.amount_minor) / 100}`,
    );

  it("sees every entity's payments and narrows them to one entity", async () => {
    const { page, problems } = await signedIn();
    const table = page.getByRole('table', { name: 'Payments, newest first' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(4);
    expect(await page.getByText('Signed in as olivia').count()).toBeGreaterThan(0);
    await page.getByLabel('Entity').selectOption({ label: 'Second shop' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.innerText()).toContain('order-other-001');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('captures, refunds part of a debit and reverses a preauthorization after confirming, as the store and the record show', async () => {
    const { page, problems } = await signedIn();
    await page.getByRole('row').filter({ hasText: 'order-capture-01' }).getByRole('link').click();
    const capture = page.getByRole('group', { name: 'Capture' });
    await capture.getByLabel('Amount in EUR').fill('12.50');
    await capture.getByRole('button', { name: 'Capture' }).click();
    await capture.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.outcome').getByRole('status').waitFor();
    await expect.poll(() => childrenOf(made['order-capture-01'] as string)).toEqual(['CP approved 12.5']);

    await page.goto(`${t.url}/dashboard/payments`);
    await page.getByRole('row').filter({ hasText: 'order-refund-01' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /^Payment / }).waitFor();
    const refund = page.getByRole('group', { name: 'Refund' });
    await refund.getByLabel('Amount in EUR').fill('5,00');
    await refund.getByRole('button', { name: 'Refund' }).click();
    await refund.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.outcome').getByRole('status').waitFor();
    expect(await page.locator('.outcome').innerText()).toMatch(/Result code 000\.\d{3}\.\d{3}/);
    await expect.poll(() => childrenOf(made['order-refund-01'] as string)).toEqual(['RF approved 5']);
    await expect.poll(() => page.getByRole('table', { name: 'Linked transactions' }).innerText()).toContain('€5.00');
    const record = page.getByRole('table', { name: 'Operator actions' });
    await expect.poll(() => record.innerText()).toContain('refund');
    expect(await record.innerText()).toContain('operator olivia');
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${t.url}/dashboard/payments/${made['order-reverse-01'] as string}`);
    const reverse = page.getByRole('group', { name: 'Reverse' });
    await reverse.getByRole('button', { name: 'Reverse' }).click();
    expect(await childrenOf(made['order-reverse-01'] as string)).toEqual([]);
    await reverse.getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.outcome').getByRole('status').waitFor();
    await expect.poll(() => childrenOf(made['order-reverse-01'] as string)).toEqual(['RV approved 15']);
    await expect.poll(() => page.getByRole('table', { name: 'Operator actions' }).innerText()).toContain('reverse');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
