import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useMerchantSiteAndBrowser } from './support/shopper.ts';

/** The card form in the shopper's language (issue 4, points 1–4). */

const env = useMerchantSiteAndBrowser();

interface Loaded {
  readonly page: Page;
  /** Every request the page made that failed (HTTP ≥ 400 or network error). */
  readonly failedRequests: string[];
  readonly consoleErrors: string[];
}

async function openWithOptions(options: Record<string, unknown>): Promise<Loaded> {
  const page = await env.browser.newPage();
  env.track(page);
  const failedRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('requestfailed', (request) => failedRequests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(message.text());
  });
  await page.addInitScript((value) => {
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
  }, options);
  await page.goto(env.site.pageUrl('plain'));
  await page.locator('.wpwl-form-card').waitFor();
  return { page, failedRequests, consoleErrors };
}

const label = (page: Page, field: string) => page.locator(`.wpwl-label-${field}`).innerText();
const languageRequests = (page: Page) => page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name).filter((name) => name.includes('/locales/') || name.includes('i18n.min.js')));

describe('languages', () => {
  it('shows English without loading any language file or the i18n engine', async () => {
    const { page, failedRequests } = await openWithOptions({});
    expect(await label(page, 'cardNumber')).toBe('Card Number');
    expect(await languageRequests(page)).toEqual([]);
    expect(failedRequests).toEqual([]);
  });

  it.each([
    ['de', 'Kartennummer', 'de'],
    ['de-AT', 'Kartennummer', 'de'],
    ['sv', 'Kortnummer', 'se'],
    ['da', 'Kortnummer', 'dk'],
    ['zh-CN', '卡号', 'cn'],
    ['nb', 'Kortnummer', 'no'],
  ])('shows %s from the file of the same language (%s)', async (locale, cardNumber, file) => {
    const { page, failedRequests } = await openWithOptions({ locale });
    await expect.poll(() => label(page, 'cardNumber')).toContain(cardNumber);
    const loaded = await languageRequests(page);
    expect(loaded.some((url) => url.endsWith(`/locales/${file}.json`))).toBe(true);
    expect(failedRequests).toEqual([]);
    // Inside the hosted fields too: their accessible names are translated.
    // (The frame learns its texts by message, after the form has them: polled, not read once.)
    const numberName = () => page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').getAttribute('aria-label');
    await expect.poll(numberName).toBe(await label(page, 'cardNumber'));
  });

  it('falls back to English for an unknown language, with no failed request and no console error', async () => {
    const { page, failedRequests, consoleErrors } = await openWithOptions({ locale: 'xx-YY' });
    expect(await label(page, 'cardNumber')).toBe('Card Number');
    expect(await languageRequests(page)).toEqual([]);
    expect(failedRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('lays Arabic out right to left, keeping card number, expiry and CVV left to right', async () => {
    const { page } = await openWithOptions({ locale: 'ar' });
    await expect.poll(() => page.locator('.wpwl-container-card').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('.wpwl-container-card').getAttribute('lang')).toBe('ar');
    for (const control of ['iframe.wpwl-control-cardNumber', 'input.wpwl-control-expiry', 'iframe.wpwl-control-cvv']) {
      expect(await page.locator(control).getAttribute('dir'), control).toBe('ltr');
    }
    expect(await label(page, 'cardHolder')).not.toBe('Card holder');
  });

  it('lets merchant labels and error messages win over every language, as text', async () => {
    const { page } = await openWithOptions({
      locale: 'de',
      labels: { cardHolder: '<i>Name</i>' },
      errorMessages: { cardHolderError: '<b>Bitte Namen angeben</b>' },
    });
    await expect.poll(() => label(page, 'cardNumber')).toBe('Kartennummer');
    expect(await label(page, 'cardHolder')).toBe('<i>Name</i>');
    // Calm errors: the holder shows its error once the shopper typed in it and left it.
    await page.locator('input.wpwl-control-cardHolder').fill('J');
    await page.locator('input.wpwl-control-cardHolder').blur();
    expect(await page.locator('.wpwl-hint-cardHolderError').innerText()).toBe('<b>Bitte Namen angeben</b>');
    expect(await page.locator('.wpwl-container-card b, .wpwl-container-card i').count()).toBe(0);
  });
});
