import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod, completeChallenge } from '../ci/playwright.ts';
import { useLiveMerchantSiteAndBrowser } from './support/liveSite.ts';
import { fillCard, resultOf } from './support/shopper.ts';

/**
 * A live gateway in front of a provider, in Chromium (issue 33): the merchant's page, the widget and the result page
 * as ever, but the payment is made by the provider behind the `opp` connector (this gateway in test mode, a process of
 * its own). The provider's 3-D Secure challenge and an asynchronous brand's provider page open in the widget's frame
 * from the provider's own address; the shopper comes back through the gateway's return address, and lands on the
 * merchant's result page, whose server reads what the provider decided.
 */

const env = useLiveMerchantSiteAndBrowser();

/** A page of its own, recording the addresses its frames were shown. */
async function open(pageName: string): Promise<{ page: Page; framed: string[] }> {
  const page = env.track(await (await env.browser.newContext()).newPage());
  const framed: string[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) framed.push(frame.url());
  });
  await page.goto(env.site.pageUrl(pageName));
  return { page, framed };
}

describe('the widget on a live gateway in front of a provider', () => {
  it('shows the provider’s 3-D Secure challenge in the widget’s frame, and lands on the result page with the provider’s approval', async () => {
    const { page, framed } = await open('plain');
    await page.locator('.wpwl-form-card').waitFor();
    await fillCard(page, { number: '4200000000000042' });
    await page.locator('button.wpwl-button-pay').click();
    await completeChallenge(page, '1234');
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.threeDSecure).toMatchObject({ authenticationStatus: 'Y' });
    // The challenge was the provider's page; the shopper came back through the gateway's return address.
    expect(framed.some((url) => url.startsWith(`${env.upstream.url}/v1/redirects/`))).toBe(true);
    expect(framed.some((url) => url.startsWith(`${env.site.gatewayUrl}/v1/acquirers/hyperpay/returns/`))).toBe(true);
  });

  it('takes the shopper to the provider’s page for an asynchronous brand, and back to the result page with its approval', async () => {
    const { page, framed } = await open('redirect-brands');
    await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
    await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
    await page.locator('.wpwl-form-onlineTransfer-SOFORTUEBERWEISUNG select.wpwl-control-country').selectOption('DE');
    await page.locator('.wpwl-form-onlineTransfer-SOFORTUEBERWEISUNG button.wpwl-button-pay').click();
    await page.frameLocator('.wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG iframe.wpwl-target').locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.paymentBrand).toBe('SOFORTUEBERWEISUNG');
    expect(framed.some((url) => url.startsWith(`${env.upstream.url}/v1/redirects/`))).toBe(true);
  });

  it('brings the provider’s decline to the merchant’s result page', async () => {
    const { page } = await open('plain');
    await page.locator('.wpwl-form-card').waitFor();
    await fillCard(page, { holder: '800.100.203' });
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('800.100.203');
  });
});
