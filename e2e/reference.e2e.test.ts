import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../server/testing/harness.ts';
import { launchBrowser } from './support/browser.ts';

/**
 * The API reference at /docs in a browser (issue 34 §3): its style and its filter run under the page's own
 * Content-Security-Policy without a violation; the sidebar stays beside the reference; typing narrows the operations,
 * in the sidebar and the page, to those with every word typed; an example opens to its curl and answer.
 */

const ADMIN_TOKEN = 'admin-token-of-the-reference-e2e-test-0123456789';

describe('the API reference in a browser', () => {
  let t: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { adminToken: ADMIN_TOKEN });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('runs its style and filter under its CSP, and narrows the operations to what is typed', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => violations.push(error.message));
    const response = await page.goto(`${t.url}/docs`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    // The style applies (the sidebar is fixed beside the page) and the script ran (it shows the filter).
    expect(await page.locator('#sidebar').evaluate((element) => getComputedStyle(element).position)).toBe('fixed');
    const filter = page.locator('#filter');
    await filter.waitFor({ state: 'visible' });

    const visibleOperations = () => page.locator('main section.operation:visible').count();
    const all = await visibleOperations();
    expect(all).toBeGreaterThan(70);
    await filter.fill('webhooks deliveries');
    await expect.poll(visibleOperations).toBe(2);
    expect(await page.locator('#sidebar li[data-search]:visible').allInnerTexts()).toEqual([
      expect.stringContaining('POST /admin/v1/webhooks/deliveries/{deliveryId}/resend'),
      expect.stringContaining('GET /admin/v1/webhooks/{id}/deliveries'),
    ]);
    // A tag none of whose operations match is hidden, in the sidebar and the page.
    expect(await page.locator('#tag-payments').isVisible()).toBe(false);
    await filter.fill('');
    await expect.poll(visibleOperations).toBe(all);

    // A sidebar link leads to its operation; its example opens to the curl and the answer.
    await filter.fill('post /v1/payments make');
    await page.locator('#sidebar a[href="#op-postv1payments"]').click();
    const example = page.locator('#op-postv1payments details.example').first();
    await example.locator('summary').click();
    await expect.poll(() => example.locator('pre').first().innerText()).toContain('curl ');
    expect(await example.locator('pre').nth(1).innerText()).toContain('"customer"');
    await page.screenshot({ path: 'test-results/reference.png' });
    expect(violations).toEqual([]);
    await page.close();
  });
});
