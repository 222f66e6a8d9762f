import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './support/browser.ts';
import { startMerchantSite, type MerchantSite } from './support/merchantSite.ts';

/** A merchant page with a strict Content-Security-Policy pays end to end (issue 4, point 7). */

let site: MerchantSite;
let browser: Browser;

beforeAll(async () => {
  [site, browser] = await Promise.all([startMerchantSite(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function pay(page: Page): Promise<void> {
  await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('4200000000000000');
  await page.locator('input.wpwl-control-expiry').fill('05/34');
  await page.locator('input.wpwl-control-cardHolder').fill('Jane Jones');
  await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').fill('123');
  await page.locator('button.wpwl-button-pay').click();
}

describe('a merchant page with a strict CSP', () => {
  it.each([['en'], ['de']])('renders, pays and reaches the result page with no policy violation (locale %s)', async (locale) => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = { locale: value };
    }, locale);
    const response = await page.goto(site.pageUrl('csp'));
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator('.wpwl-form-card').waitFor();
    // The widget's stylesheet applied (style-src allows the gateway): the form has its styled border.
    await expect.poll(() => page.locator('button.wpwl-button-pay').evaluate((button) => getComputedStyle(button).borderRadius)).toBe('4px');
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    await pay(page);
    await page.waitForURL(/\/result\?id=/);
    expect(JSON.parse(await page.locator('#result').innerText()).result.code).toBe('000.100.110');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('would notice a violation: an inline style the policy forbids is reported', async () => {
    const page = await browser.newPage();
    await page.goto(site.pageUrl('csp'));
    await page.locator('.wpwl-form-card').waitFor();
    await page.evaluate(() => {
      const style = document.createElement('style');
      style.textContent = 'body{color:red}';
      document.head.appendChild(style);
    });
    await expect.poll(() => page.evaluate(() => (window as unknown as { violations: string[] }).violations.length)).toBeGreaterThan(0);
    await page.close();
  });
});
