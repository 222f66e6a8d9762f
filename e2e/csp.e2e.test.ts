import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * A merchant page with a strict Content-Security-Policy pays end to end (issue 4, point 7), also through a
 * 3-D Secure challenge in the widget's frame and a redirect brand's provider page (issue 5), and with the
 * direct-debit form and the GIROPAY and IDEAL forms (issue 14).
 */

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

  /** Opens a strict-CSP page, recording policy reports from the console of every frame. */
  async function openStrict(name: string, shown = '.wpwl-form-card'): Promise<{ page: Page; violations: string[] }> {
    const page = env.track(await env.browser.newPage());
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(env.site.pageUrl(name));
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator(shown).waitFor({ state: 'attached' });
    return { page, violations };
  }
  const pageViolations = (page: Page) => page.evaluate(() => (window as unknown as { violations: string[] }).violations);

  it('runs a 3-D Secure challenge in the widget frame and reaches the result page with no policy violation', async () => {
    const { page, violations } = await openStrict('csp');
    await fillCard(page, { number: '4200000000000042' });
    await page.locator('button.wpwl-button-pay').click();
    const challenge = page.frameLocator('.wpwl-container-card iframe.wpwl-target');
    await challenge.locator('input#otp').fill('1234');
    // The frame got its size through the CSSOM (style attributes are blocked here).
    expect((await page.locator('iframe.wpwl-target').boundingBox())?.height).toBe(580);
    expect(await pageViolations(page)).toEqual([]);
    await challenge.locator('button#submit').click();
    expect((await resultOf(page)).result.code).toMatch(/^000\.100\.1/);
    expect(violations).toEqual([]);
  });

  it('pays with a redirect brand (PayPal) with no policy violation', async () => {
    const { page, violations } = await openStrict('csp-redirect');
    await chooseMethod(page, 'wpwl-container-virtualAccount-PAYPAL');
    await page.locator('.wpwl-container-virtualAccount-PAYPAL button.wpwl-button-pay').click();
    const provider = page.frameLocator('.wpwl-container-virtualAccount-PAYPAL iframe.wpwl-target');
    await provider.locator('button#submit').waitFor();
    expect(await pageViolations(page)).toEqual([]);
    await provider.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(/^000\.100\.1/);
    expect(result.paymentBrand).toBe('PAYPAL');
    expect(violations).toEqual([]);
  });

  const DIRECT_DEBIT = '.wpwl-container-directDebit form.wpwl-form-directDebit-DIRECTDEBIT_SEPA';

  it('renders the direct-debit, giropay and iDEAL forms, validates the IBAN and pays by SEPA direct debit with no policy violation', async () => {
    const { page, violations } = await openStrict('csp-direct-debit', DIRECT_DEBIT);
    for (const brand of ['GIROPAY', 'IDEAL']) await page.locator(`.wpwl-container-onlineTransfer-${brand} .wpwl-brand-${brand}`).waitFor({ state: 'attached' });
    // The widget's stylesheet applied to the new forms (style-src allows the gateway).
    await expect.poll(() => page.locator(`${DIRECT_DEBIT} button.wpwl-button-pay`).evaluate((button) => getComputedStyle(button).borderRadius)).toBe('4px');
    // Validation: a wrong checksum and a short holder show their errors in the page.
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.holder"]`).fill('Jo');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.iban"]`).fill('DE23 1000 0000 1234 5678 91');
    await page.locator(`${DIRECT_DEBIT} button.wpwl-button-pay`).click();
    await page.locator(`${DIRECT_DEBIT} .wpwl-hint-ibanError`).waitFor();
    await page.locator(`${DIRECT_DEBIT} .wpwl-hint-accountHolderError`).waitFor();
    expect(await pageViolations(page)).toEqual([]);
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.holder"]`).fill('Jane Jones');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.iban"]`).fill('DE23 1000 0000 1234 5678 90');
    await page.locator(`${DIRECT_DEBIT} button.wpwl-button-pay`).click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.paymentBrand).toBe('DIRECTDEBIT_SEPA');
    expect(violations).toEqual([]);
  });

  it('shows a form-level refusal (the checkout was deleted meanwhile) in the direct-debit form with no policy violation', async () => {
    const { page, violations } = await openStrict('csp-direct-debit', DIRECT_DEBIT);
    const checkoutId = await page.evaluate(() => (window as unknown as { wpwl: { checkout: { id: string } } }).wpwl.checkout.id);
    const deleted = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}?entityId=${env.site.entityId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(deleted.status).toBe(200);
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.holder"]`).fill('Jane Jones');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.iban"]`).fill('DE23100000001234567890');
    await page.locator(`${DIRECT_DEBIT} button.wpwl-button-pay`).click();
    await page.locator(`${DIRECT_DEBIT} .wpwl-message.wpwl-has-error`).waitFor();
    expect(await pageViolations(page)).toEqual([]);
    expect(violations).toEqual([]);
  });

  it.each(['GIROPAY', 'IDEAL'])('pays with %s through the provider page in the widget frame with no policy violation', async (brand) => {
    const { page, violations } = await openStrict('csp-direct-debit', DIRECT_DEBIT);
    await chooseMethod(page, `wpwl-container-onlineTransfer-${brand}`);
    await page.locator(`.wpwl-container-onlineTransfer-${brand} button.wpwl-button-pay`).click();
    const provider = page.frameLocator(`.wpwl-container-onlineTransfer-${brand} iframe.wpwl-target`);
    await provider.locator('button#submit').waitFor();
    // The frame got its size through the CSSOM (style attributes are blocked here).
    expect((await page.locator(`.wpwl-container-onlineTransfer-${brand} iframe.wpwl-target`).boundingBox())?.height).toBe(580);
    expect(await pageViolations(page)).toEqual([]);
    await provider.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(/^000\.100\.1/);
    expect(result.paymentBrand).toBe(brand);
    expect(violations).toEqual([]);
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
