import { mkdirSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Screenshots of the card form in five languages and both styles, kept as artifacts (issue 4, point 9); and on a
 * desktop and a 375 px phone in English, German, Arabic and Japanese with a card number typed, its brand detected
 * (issue 25: docs/screenshots/ holds these).
 */

const OUTPUT = new URL('./output/screenshots/', import.meta.url).pathname;
const LOCALES = ['en', 'de', 'ar', 'ja', 'ru'];
const STYLES = ['card', 'plain'];

const env = useMerchantSiteAndBrowser();
beforeAll(() => mkdirSync(OUTPUT, { recursive: true }));

describe('screenshots of the card form', () => {
  it.each(LOCALES.flatMap((locale) => STYLES.map((style) => [locale, style] as const)))('%s, %s style', async (locale, style) => {
    const page = await env.browser.newPage({ viewport: { width: 640, height: 720 } });
    await page.addInitScript((options) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = options;
    }, { locale, style });
    await page.goto(env.site.pageUrl('plain'));
    const container = page.locator('.wpwl-container-card');
    await container.waitFor();
    if (locale !== 'en') await expect.poll(() => page.locator('.wpwl-label-cardNumber').innerText()).not.toBe('Card Number');
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
    const path = `${OUTPUT}card-form-${locale}-${style}.png`;
    await container.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(5_000);
    await page.close();
  });
});

describe('screenshots of the card form as a shopper types, desktop and phone', () => {
  it.each(['en', 'de', 'ar', 'ja'].flatMap((locale) => [[locale, 'desktop', 640] as const, [locale, 'phone', 375] as const]))('%s, %s', async (locale, device, width) => {
    const page = await env.browser.newPage({ viewport: { width, height: 760 }, deviceScaleFactor: device === 'phone' ? 2 : 1 });
    await page.addInitScript((options) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = options;
    }, { locale });
    await page.goto(env.site.pageUrl('plain'));
    const container = page.locator('.wpwl-container-card');
    await container.waitFor();
    if (locale !== 'en') await expect.poll(() => page.locator('.wpwl-label-cardNumber').innerText()).not.toBe('Card Number');
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('4200 0000 0000 0000');
    await page.locator('.wpwl-brand-inline img').waitFor();
    await expect.poll(() => page.locator('.wpwl-brand-inline img').evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const path = `${OUTPUT}card-form-typing-${locale}-${device}.png`;
    await container.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(5_000);
    await page.close();
  });
});

describe('screenshots of the card form with a billing address (docs/screenshots/billing-address-*.png)', () => {
  it.each(['en', 'ar'])('%s, desktop, its errors showing after a submit', async (locale) => {
    const page = await env.browser.newPage({ viewport: { width: 640, height: 1100 } });
    await page.addInitScript((options) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = options;
    }, { locale, billingAddress: { country: 'DE', city: 'Berlin', postcode: '10115', street1: 'Invalidenstraße 117' } });
    await page.goto(env.site.pageUrl('plain'));
    const container = page.locator('.wpwl-container-card');
    await container.locator('.wpwl-group-billing').waitFor();
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('4200 0000 0000 0000');
    await page.locator('input.wpwl-control-expiry').fill('05/34');
    await page.locator('input.wpwl-control-cardHolder').fill('Jane Jones');
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').fill('123');
    // The state, left empty, shows its error.
    await page.locator('button.wpwl-button-pay').click();
    await container.locator('.wpwl-hint-stateError').waitFor();
    const path = `${OUTPUT}billing-address-${locale}.png`;
    await container.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(5_000);
    await page.close();
  });
});

describe('screenshots of Click to Pay (docs/screenshots/click-to-pay-*.png)', () => {
  it.each(['en', 'ar'])('%s: the e-mail, the one-time code and the card list', async (locale) => {
    const page = await env.browser.newPage({ viewport: { width: 640, height: 900 } });
    const checkoutId = await env.site.createCheckout();
    await page.goto(env.site.pageUrl('csp-click-to-pay', { checkoutId, lang: locale, email: 'jane.jones@example.com' }));
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    const option = page.locator('.wpwl-chooser-options input[value="wpwl-container-virtualAccount-CLICK_TO_PAY"]');
    if ((await option.count()) > 0) await option.check();
    const container = page.locator('.wpwl-container-virtualAccount-CLICK_TO_PAY');
    const form = container.locator('form');
    if (locale !== 'en') await expect.poll(() => form.locator('.wpwl-text-clickToPay').innerText()).not.toContain('Pay with the cards');
    await expect.poll(() => form.locator('.wpwl-clickToPay-mark img').last().evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const shots: string[] = [];
    const shoot = async (screen: string) => {
      const path = `${OUTPUT}click-to-pay-${screen}-${locale}.png`;
      await container.screenshot({ path });
      expect(statSync(path).size).toBeGreaterThan(5_000);
      shots.push(path);
    };
    await shoot('email');
    await form.locator('button.wpwl-button-clickToPay').click();
    await form.locator('input.wpwl-control-clickToPayOtp').fill('123456');
    await shoot('otp');
    await form.locator('button.wpwl-button-clickToPay').click();
    await form.locator('.wpwl-clickToPay-card img').last().waitFor();
    await expect.poll(() => form.locator('.wpwl-clickToPay-card img').last().evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    await shoot('cards');
    expect(shots).toHaveLength(3);
    await page.close();
  });
});

describe('screenshots of the wallet buttons and the simulated wallet sheet (docs/screenshots/wallet-*.png)', () => {
  it.each(['en', 'ar'])('%s: the buttons above the card form, then the test environment’s Google Pay sheet', async (locale) => {
    const page = await env.browser.newPage({ viewport: { width: 640, height: 820 } });
    await page.addInitScript((options) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = options;
    }, { locale });
    await page.goto(env.site.pageUrl('wallets'));
    const chooser = page.locator('.wpwl-chooser');
    const button = page.locator('.wpwl-google-pay-button > button');
    await button.waitFor();
    if (locale !== 'en') await expect.poll(() => button.innerText()).not.toBe('Pay with Google Pay');
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
    const buttons = `${OUTPUT}wallet-buttons-${locale}.png`;
    await chooser.screenshot({ path: buttons });
    expect(statSync(buttons).size).toBeGreaterThan(5_000);
    await button.click();
    await page.frameLocator('iframe.wpwl-wallet-sheet').locator('button#pay:enabled').waitFor();
    const sheet = `${OUTPUT}wallet-sheet-${locale}.png`;
    await page.screenshot({ path: sheet });
    expect(statSync(sheet).size).toBeGreaterThan(5_000);
    await page.close();
  });
});
