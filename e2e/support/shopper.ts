import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { fillTestCard, type TestCard } from '../../ci/playwright.ts';
import { launchBrowser } from './browser.ts';
import { startMerchantSite, type MerchantSite, type MerchantSiteOptions } from './merchantSite.ts';

export interface BrowserTestEnvironment {
  /** Available inside tests and hooks (started in beforeAll). */
  readonly site: MerchantSite;
  readonly browser: Browser;
  /** Closes the page (and its context) after the current test. */
  track(page: Page): Page;
}

/**
 * What every browser test file needs: one merchant site (with its gateway) and one Chromium for the file,
 * and pages that are closed after each test. `siteOptions`, asked in the file's beforeAll, configures the gateway (a
 * live one: support/liveSite.ts); `startTimeoutMs` gives that start longer than the suite's hook timeout.
 */
export function useMerchantSiteAndBrowser(siteOptions: () => MerchantSiteOptions = () => ({}), startTimeoutMs?: number): BrowserTestEnvironment {
  let site: MerchantSite | undefined;
  let browser: Browser | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    [site, browser] = await Promise.all([startMerchantSite(siteOptions()), launchBrowser()]);
  }, startTimeoutMs);
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

export type { TestCard as CardEntry } from '../../ci/playwright.ts';

/**
 * Types a card the way a shopper does: number and CVV into the hosted fields, expiry and holder into the form. The
 * helper the repository ships for CI users' own tests (ci/playwright.ts), which this suite uses so it stays right.
 */
export async function fillCard(page: Page, card: TestCard = {}, scope = 'body'): Promise<void> {
  await fillTestCard(page, { ...card, within: scope });
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

/**
 * The brand logos shown in `scope` (img.wpwl-brand-logo): each one's brand and text alternative, after checking that
 * the gateway serves its file as an SVG image from the widget's versioned static path.
 */
export async function brandLogos(scope: Locator): Promise<{ brand: string; alt: string }[]> {
  const images = await scope.locator('img.wpwl-brand-logo').evaluateAll((elements) =>
    elements.map((element) => ({ src: (element as HTMLImageElement).src, alt: element.getAttribute('alt') ?? '', lazy: element.getAttribute('loading') === 'lazy' })),
  );
  const logos: { brand: string; alt: string }[] = [];
  for (const { src, alt, lazy } of images) {
    const match = /\/v1\/static\/[0-9a-f]{16}\/img\/brands\/(\w+)\.svg$/.exec(src);
    expect(match, src).not.toBeNull();
    expect(lazy, src).toBe(true);
    const served = await scope.page().request.get(src);
    expect([served.status(), served.headers()['content-type']], src).toEqual([200, 'image/svg+xml']);
    logos.push({ brand: match?.[1] ?? '', alt });
  }
  return logos;
}
