import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../server/dashboard/operators.ts';
import { dashboardClient } from '../server/testing/dashboardClient.ts';
import { BROWSER_DATA, cardPayment, startTestGateway, type TestGateway } from '../server/testing/harness.ts';
import { startReceiver } from '../server/testing/receiver.ts';
import { createWebhook } from '../server/webhooks/service.ts';
import { launchBrowser } from './support/browser.ts';
import { seriousViolations } from './support/dashboard.ts';

/**
 * What the back office tells of payments, in Chromium at 1280 × 800 (issue 34 §1, §2): the list with every column
 * in view, its state filter, total and export; a payment's state and what is left of it, offered as the API accepts
 * it (after a partial capture, a partial refund, a reversal); the overview and the chargebacks list.
 */

const PASSWORD = 'correct horse battery staple';
let t: TestGateway;
let browser: Browser;
let cookie: string;
const opened: Page[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestGateway('PGlite'), launchBrowser()]);
  await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
  const signedIn = await dashboardClient(() => t.url).signIn({ operator: 'olivia', password: PASSWORD });
  cookie = signedIn.cookie as string;
  // A second entity, so the operator's list has its entity column too.
  const other = await t.newMerchant();
  await t.post('/v1/payments', cardPayment(other.entityId, { 'card.holder': '800.100.151' }), { token: other.token });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close();
});

/** A page signed in as the operator (the session's cookie, as a sign-in sets it), at a laptop's width. */
async function open(path: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const [name, value] = cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: `${t.url}/dashboard` }]);
  const page = await context.newPage();
  opened.push(page);
  await page.goto(`${t.url}/dashboard${path}`);
  return page;
}

const operate = (id: string, params: Record<string, string>) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });

describe('the payments in the back office', () => {
  it('shows every column of the list within 1280 px, filters it by state, counts it and exports it', async () => {
    const authorized = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '50.00', merchantTransactionId: 'order-with-a-rather-long-reference-4711' }));
    await operate(authorized.body.id as string, { paymentType: 'CP', amount: '20.00' });
    await t.post('/v1/payments', cardPayment(t.entityId, { 'card.holder': '800.100.203' }));
    const page = await open('/payments');
    const table = page.getByRole('table', { name: 'Payments, newest first' });
    await table.waitFor();
    const fit = await table.evaluate((element) => ({ table: element.scrollWidth, room: (element.parentElement as HTMLElement).clientWidth }));
    expect(fit.table).toBeLessThanOrEqual(fit.room);
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['Created', 'Short id', 'Entity', 'Type', 'Brand', 'Amount', 'State', 'Result', 'Merchant reference', 'Card']);
    await expect.poll(() => page.locator('.count').innerText()).toBe('4 payments');

    await page.getByLabel('State', { exact: true }).selectOption('partiallyCaptured');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('.count').innerText()).toBe('1 payment');
    expect(page.url()).toContain('state=partiallyCaptured');
    expect(await table.getByRole('row').nth(1).innerText()).toContain('Partially captured');
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export as CSV' }).click();
    const csv = await (await download).createReadStream();
    let text = '';
    for await (const chunk of csv) text += String(chunk);
    expect(text.split('\r\n').filter((line) => line !== '')).toHaveLength(2);
    expect(text).toContain(authorized.body.id as string);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("offers on a payment only what is left of it, as the API accepts it", async () => {
    const authorized = (await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '50.00' }))).body.id as string;
    await operate(authorized, { paymentType: 'CP', amount: '20.00' });
    let page = await open(`/payments/${authorized}`);
    const capture = page.getByLabel('Amount in EUR');
    await capture.waitFor();
    expect(await capture.inputValue()).toBe('30.00');
    expect(await page.getByRole('region', { name: 'Back-office actions' }).innerText()).toContain('Up to €30.00');
    expect(await page.getByRole('region', { name: 'Back-office actions' }).innerText()).not.toMatch(/Reverse/);

    const reversed = (await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '20.00' }))).body.id as string;
    await operate(reversed, { paymentType: 'RV' });
    page = await open(`/payments/${reversed}`);
    await page.getByText('No capture, refund or reversal is possible on this payment.').waitFor();
    expect(await page.locator('.facts').first().innerText()).toContain('Reversed');

    const debit = (await t.post('/v1/payments', cardPayment(t.entityId, { amount: '30.00' }))).body.id as string;
    await operate(debit, { paymentType: 'RF', amount: '10.00' });
    page = await open(`/payments/${debit}`);
    await page.getByLabel('Amount in EUR').waitFor();
    expect(await page.getByLabel('Amount in EUR').inputValue()).toBe('20.00');
    expect(await page.getByRole('region', { name: 'Back-office actions' }).innerText()).toContain('Up to €20.00');
    expect(await page.locator('.facts').first().innerText()).toContain('Partially refunded');
  });

  it('gives an overview and lists the chargebacks', async () => {
    const debit = (await t.post('/v1/payments', cardPayment(t.entityId, { amount: '12.00' }))).body.id as string;
    const chargeback = await operate(debit, { paymentType: 'CB', amount: '12.00' });
    const page = await open('/overview');
    await page.getByRole('heading', { level: 2, name: 'Today' }).waitFor();
    const chargebacks = page.getByRole('link', { name: /chargebacks? not reversed/ });
    expect(await chargebacks.innerText()).toMatch(/^[1-9]\d* chargebacks? not reversed$/);
    expect(await page.getByRole('table', { name: 'Declines by reason' }).first().innerText()).toContain('800.100.');
    expect(await seriousViolations(page)).toEqual([]);
    await chargebacks.click();
    const list = page.getByRole('table', { name: 'Chargebacks, newest first' });
    await list.waitFor();
    const row = list.getByRole('row').filter({ hasText: '€12.00' });
    expect(await row.innerText()).toContain(String((chargeback.body.result as { code: string }).code));
    expect(await row.innerText()).toContain('Open');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows on a payment’s page, in test, what was sent: the webhook with its notification and the receiver’s answer, the challenge page', async () => {
    const receiver = await startReceiver();
    try {
      await createWebhook(t.gateway.webhooks.services, t.entityId, { url: `${receiver.url}/hook`, secret: randomBytes(32).toString('hex'), types: ['PAYMENT'] });
      const challenged = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: `${receiver.url}/back`, ...BROWSER_DATA }));
      await t.gateway.webhooks.deliveries.runDueJobs();
      const page = await open(`/payments/${challenged.body.id}`);
      const sent = page.getByRole('table', { name: 'Sent (test)' });
      await sent.waitFor();
      const webhook = sent.getByRole('row').filter({ hasText: 'Webhook' });
      expect(await webhook.innerText()).toContain('HTTP 200');
      await webhook.getByText('PAYMENT CREATED').click();
      expect(await webhook.locator('pre').innerText()).toContain(challenged.body.id);
      expect(await sent.getByRole('row').filter({ hasText: "Shopper's page" }).innerText()).toContain(`${receiver.url}/back`);
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('shows the entity’s integration report: what was never tested, what the widget did not know, and the paths taken', async () => {
    const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' });
    await fetch(`${t.url}/v1/checkouts/${checkout.body.id}/widgetReport`, { method: 'POST', body: JSON.stringify(['style', 'brandDetecton']) });
    const page = await open('/integration');
    await page.getByRole('heading', { level: 1, name: 'Integration report' }).waitFor();
    const findings = page.getByRole('table', { name: 'Findings' });
    await findings.waitFor();
    const challenge = findings.getByRole('row').filter({ hasText: 'Never tested: a 3-D Secure challenge passed' });
    expect(await challenge.innerText()).toContain('Never tested');
    expect(await findings.getByRole('row').filter({ hasText: 'brandDetecton' }).innerText()).toContain('Ignored');
    const coverage = page.getByRole('table', { name: 'Paths tested' });
    expect(await coverage.getByRole('row').filter({ hasText: 'A payment declined by the bank' }).innerText()).toMatch(/[1-9]\d*$/);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
