import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_MERCHANT } from '../server/config.ts';
import { startTestGateway, type TestGateway } from '../server/testing/harness.ts';
import { launchBrowser } from './support/browser.ts';
import { payWithTestCard } from '../ci/playwright.ts';

/** The demo shop of `npm start` pays end to end under its own strict Content-Security-Policy. */

let gateway: TestGateway;
let browser: Browser;
beforeAll(async () => {
  [gateway, browser] = await Promise.all([startTestGateway('PGlite', { demoMerchant: DEFAULT_DEMO_MERCHANT }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('the demo shop', () => {
  it('shows the widget, pays with the test card and shows the result, with no policy violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${gateway.url}/demo`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator('.wpwl-form-card').waitFor();
    // As a CI pipeline's own test pays (the helper the repository ships: ci/playwright.ts).
    await payWithTestCard(page);
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    expect(await page.locator('pre').innerText()).toContain('"code": "000.100.110"');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('shows a declined payment on its result page, and "Try again" pays with a new checkout', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await page.locator('.wpwl-form-card').waitFor();
    const checkoutOf = () => page.evaluate(() => (window as unknown as { wpwl: { checkout: { id: string } } }).wpwl.checkout.id);
    const declinedCheckout = await checkoutOf();
    await payWithTestCard(page, { holder: '800.100.203' });
    await page.waitForURL(/\/demo\/result\?id=/);
    expect(new URL(page.url()).searchParams.get('id')).toBe(declinedCheckout);
    expect(await page.locator('h1').innerText()).toBe('The payment did not go through');
    expect(await page.locator('#result-class').innerText()).toBe('Declined by the bank.');
    expect(await page.locator('#result-description').innerText()).toContain('(800.100.203)');

    await page.locator('a#try-again').click();
    await page.locator('.wpwl-form-card').waitFor();
    expect(await checkoutOf()).not.toBe(declinedCheckout);
    // As a CI pipeline's own test pays (the helper the repository ships: ci/playwright.ts).
    await payWithTestCard(page);
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    await page.close();
  });

  it('takes an order by prepayment: the result page shows it pending, with the bank details to transfer to', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await page.locator('.wpwl-container-prepayment-PREPAYMENT button.wpwl-button-pay').click();
    await page.waitForURL(/\/demo\/result\?id=/);
    expect(await page.locator('h1').innerText()).toBe('Your payment is being processed');
    expect(await page.locator('#result-description').innerText()).toContain('(000.200.000)');
    const transfer = await page.locator('table#transfer').innerText();
    expect(transfer).toContain('92.00 EUR');
    expect(transfer).toMatch(/IBAN\s+[A-Z]{2}[0-9]{2}/);
    await page.close();
  });
});
