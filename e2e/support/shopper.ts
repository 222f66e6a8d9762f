import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { launchBrowser } from './browser.ts';
import { startMerchantSite, type MerchantSite } from './merchantSite.ts';

export interface BrowserTestEnvironment {
  /** Available inside tests and hooks (started in beforeAll). */
  readonly site: MerchantSite;
  readonly browser: Browser;
  /** Closes the page (and its context) after the current test. */
  track(page: Page): Page;
}

/**
 * What every browser test file needs: one merchant site (with its gateway) and one Chromium for the file,
 * and pages that are closed after each test.
 */
export function useMerchantSiteAndBrowser(): BrowserTestEnvironment {
  let site: MerchantSite | undefined;
  let browser: Browser | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    [site, browser] = await Promise.all([startMerchantSite(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.context().close().catch(() => page.close());
  });
  return {
    get site() {
      return site as MerchantSite;
    },
    get browser() {
      return browser as Browser;
    },
    track(page) {
      pages.push(page);
      return page;
    },
  };
}

export interface CardEntry {
  readonly number?: string;
  readonly expiry?: string;
  readonly holder?: string;
  readonly cvv?: string;
}

/** Types a card the way a shopper does: number and CVV into the hosted fields, expiry and holder into the form. */
export async function fillCard(page: Page, card: CardEntry = {}, scope = 'body'): Promise<void> {
  const form = page.locator(scope).locator('form.wpwl-form-card').first();
  await form.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill(card.number ?? '4200000000000000');
  await form.locator('input.wpwl-control-expiry').fill(card.expiry ?? '05/34');
  await form.locator('input.wpwl-control-cardHolder').fill(card.holder ?? 'Jane Jones');
  await form.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').fill(card.cvv ?? '123');
}

/**
 * The payment the merchant's result page shows, once the browser got there (approved or declined alike: COMPAT §6),
 * with the `id` and the `resourcePath` naming that id the merchant's server reads it by: a checkout's
 * `/v1/checkouts/<id>/payment` or `/registration`, or a server-to-server payment's `/v1/payments/<id>`.
 */
export async function resultOf(page: Page): Promise<{ result: { code: string }; [key: string]: unknown }> {
  await page.waitForURL(/\/result\?id=/);
  const landed = new URL(page.url());
  const id = landed.searchParams.get('id') ?? '';
  const paths = [`/v1/checkouts/${id}/payment`, `/v1/checkouts/${id}/registration`, `/v1/payments/${id}`];
  expect(paths, 'the resourcePath of the result URL').toContain(landed.searchParams.get('resourcePath'));
  return JSON.parse(await page.locator('#result').innerText());
}
