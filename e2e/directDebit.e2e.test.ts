import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The direct-debit form (issue 14): SEPA with holder and IBAN, validated in the page (the IBAN's country length
 * and mod-97 checksum), posted with the IBAN uppercase and without spaces; and the GIROPAY and IDEAL redirect
 * brands. A page without card brands downloads no card code.
 */

const env = useMerchantSiteAndBrowser();
const FORM = 'div.wpwl-container.wpwl-container-directDebit > form.wpwl-form.wpwl-form-directDebit.wpwl-form-directDebit-DIRECTDEBIT_SEPA';

async function open(init?: { locale?: string }): Promise<{ page: Page; submits: URLSearchParams[]; scripts: string[] }> {
  const page = env.track(await env.browser.newPage());
  const submits: URLSearchParams[] = [];
  const scripts: string[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) submits.push(new URLSearchParams(request.postData() ?? ''));
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  if (init?.locale) await page.addInitScript((locale) => ((window as unknown as { testLocale: string }).testLocale = locale), init.locale);
  await page.goto(env.site.pageUrl('direct-debit'));
  await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
  return { page, submits, scripts };
}

describe('the direct-debit form', () => {
  it('renders holder and IBAN in the COMPAT §4 shape, next to giropay and iDEAL, and loads no card code', async () => {
    const { page, scripts } = await open();
    expect(await page.locator(FORM).count()).toBe(1);
    for (const [field, name] of [['accountHolder', 'bankAccount.holder'], ['iban', 'bankAccount.iban']] as const) {
      const group = `${FORM} div.wpwl-group.wpwl-group-${field}.wpwl-clearfix`;
      expect(await page.locator(`${group} > div.wpwl-label.wpwl-label-${field}`).count(), field).toBe(1);
      expect(await page.locator(`${group} > div.wpwl-wrapper.wpwl-wrapper-${field} > input.wpwl-control.wpwl-control-${field}[name="${name}"]`).count(), field).toBe(1);
    }
    expect(await page.locator(`${FORM} input[type="hidden"][name="paymentBrand"]`).inputValue()).toBe('DIRECTDEBIT_SEPA');
    expect(await page.locator(`${FORM} button.wpwl-button-pay`).count()).toBe(1);
    for (const brand of ['GIROPAY', 'IDEAL']) {
      expect(await page.locator(`.wpwl-container-onlineTransfer-${brand} > form.wpwl-form-onlineTransfer-${brand} .wpwl-brand-${brand}[role="img"]`).count(), brand).toBe(1);
    }
    const ready = await page.evaluate(() => (window as unknown as { readyForms: { container: string }[] }).readyForms.map((form) => form.container));
    expect(ready).toEqual(['wpwl-container-directDebit', 'wpwl-container-onlineTransfer-GIROPAY', 'wpwl-container-onlineTransfer-IDEAL']);
    expect(scripts.filter((path) => /\/js\/card-/.test(path))).toEqual([]);
    expect(scripts.some((path) => /\/js\/otherMethods-/.test(path))).toBe(true);
  });

  it('shows errors for a short holder and an IBAN with a wrong checksum, and sends nothing', async () => {
    const { page, submits } = await open();
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.holder"]`).fill('Jo');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('DE23 1000 0000 1234 5678 91');
    await page.locator(`${FORM} button.wpwl-button-pay`).click();
    await page.locator(`${FORM} .wpwl-hint-ibanError`).waitFor();
    expect(await page.locator(`${FORM} input.wpwl-control-iban.wpwl-has-error`).count()).toBe(1);
    expect(await page.locator(`${FORM} input.wpwl-control-accountHolder.wpwl-has-error + .wpwl-hint.wpwl-hint-accountHolderError`).count()).toBe(1);
    expect(await page.locator(`${FORM} .wpwl-hint-ibanError`).innerText()).toBe('Invalid IBAN');
    expect(await page.locator(`${FORM} button.wpwl-button-pay.wpwl-button-error`).count()).toBe(1);
    // Fixing the IBAN clears its error.
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('de23 1000 0000 1234 5678 90');
    await expect.poll(() => page.locator(`${FORM} .wpwl-hint-ibanError`).count()).toBe(0);
    expect(await page.locator(`${FORM} input[name="bankAccount.iban"]`).inputValue()).toBe('DE23 1000 0000 1234 5678 90');
    expect(submits).toEqual([]);
  });

  it('lets onBeforeSubmitDirectDebit cancel the submit', async () => {
    const { page, submits } = await open();
    await page.evaluate(() => ((window as unknown as { cancelSubmit: boolean }).cancelSubmit = true));
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.holder"]`).fill('Jane Jones');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('DE23 1000 0000 1234 5678 90');
    await page.locator(`${FORM} button.wpwl-button-pay`).click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { calls: string[] }).calls)).toEqual([
      expect.stringMatching(/^onBeforeSubmitDirectDebit .*wpwl-form-directDebit-DIRECTDEBIT_SEPA/),
    ]);
    expect(submits).toEqual([]);
  });

  it('pays with SEPA: posts the IBAN uppercase without spaces, calls onAfterSubmit and ends on the result page', async () => {
    const { page, submits } = await open();
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.holder"]`).fill('Jane Jones');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('de23 1000 0000 1234 5678 90');
    await page.locator(`${FORM} button.wpwl-button-pay`).click();
    await expect.poll(() => submits.length).toBe(1);
    expect(submits[0]?.get('paymentBrand')).toBe('DIRECTDEBIT_SEPA');
    expect(submits[0]?.get('bankAccount.iban')).toBe('DE23100000001234567890');
    expect(submits[0]?.get('bankAccount.holder')).toBe('Jane Jones');
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.paymentBrand).toBe('DIRECTDEBIT_SEPA');
  });

  it('ends a debit the simulator declines (holder 800.100.203) on the result page, with the decline', async () => {
    const { page } = await open();
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.holder"]`).fill('800.100.203');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('DE23100000001234567890');
    await page.locator(`${FORM} button.wpwl-button-pay`).click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('800.100.203');
    expect(result.paymentBrand).toBe('DIRECTDEBIT_SEPA');
  });

  it.each([
    ['de', 'Kontoinhaber', 'Ungültige IBAN'],
    ['fr', 'Titulaire du compte', 'IBAN invalide'],
  ])('speaks %s', async (locale, holderLabel, ibanError) => {
    const { page } = await open({ locale });
    expect(await page.locator(`${FORM} .wpwl-label-accountHolder`).innerText()).toBe(holderLabel);
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${FORM} input[name="bankAccount.iban"]`).fill('DE00 1234');
    await page.locator(`${FORM} button.wpwl-button-pay`).click();
    expect(await page.locator(`${FORM} .wpwl-hint-ibanError`).innerText()).toBe(ibanError);
    expect(await page.locator('.wpwl-container-directDebit').getAttribute('lang')).toBe(locale);
  });

  it.each(['GIROPAY', 'IDEAL'])('pays with %s through the simulated provider page', async (brand) => {
    const { page } = await open();
    await chooseMethod(page, `wpwl-container-onlineTransfer-${brand}`);
    await page.locator(`.wpwl-container-onlineTransfer-${brand} button.wpwl-button-pay`).click();
    const provider = page.frameLocator(`.wpwl-container-onlineTransfer-${brand} iframe.wpwl-target`);
    await provider.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(/^000\.100\.1/);
    expect(result.paymentBrand).toBe(brand);
  });
});
