import { describe, expect, it } from 'vitest';
import { fillCard, useMerchantSiteAndBrowser } from './support/shopper.ts';

/** A merchant page with a strict Content-Security-Policy pays end to end (issue 4, point 7). */

const env = useMerchantSiteAndBrowser();

describe('a merchant page with a strict CSP', () => {
  it.each([['en'], ['de']])('renders, pays and reaches the result page with no policy violation (locale %s)', async (locale) => {
    const page = await env.browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = { locale: value };
    }, locale);
    const response = await page.goto(env.site.pageUrl('csp'));
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator('.wpwl-form-card').waitFor();
    // The widget's stylesheet applied (style-src allows the gateway): the form has its styled border.
    await expect.poll(() => page.locator('button.wpwl-button-pay').evaluate((button) => getComputedStyle(button).borderRadius)).toBe('4px');
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    await fillCard(page);
    await page.locator('button.wpwl-button-pay').click();
    await page.waitForURL(/\/result\?id=/);
    expect(JSON.parse(await page.locator('#result').innerText()).result.code).toBe('000.100.110');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('would notice a violation: an inline style the policy forbids is reported', async () => {
    const page = await env.browser.newPage();
    await page.goto(env.site.pageUrl('csp'));
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
