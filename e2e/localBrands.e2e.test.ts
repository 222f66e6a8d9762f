import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { CARD_TEST_NUMBERS } from '../widget/shared/cardTestNumbers.ts';
import { brandLogos, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The local brands HyperPay's OpenCart extension offers, as the platform presents them (issue 35, point 8): mada among
 * the card brands, co-badged on Visa and told apart by its BIN ranges, with the extensions' own rule on it (their
 * `onBlurCardNumber` reads the brand the widget chose and refuses mada on their card method); STC Pay, Tabby, valU and
 * ZoodPay each in a virtual-account form of its own, Tabby paid through the simulated lender's page to the merchant's
 * result page.
 */

const env = useMerchantSiteAndBrowser();

/** What the extension's server puts on the checkout for Tabby (and ZoodPay): the shopper's name, e-mail and mobile. */
const CHECKOUT = {
  amount: '230.00',
  currency: 'SAR',
  'customer.givenName': 'Noura',
  'customer.surname': 'Alharbi',
  'customer.email': 'noura@example.sa',
  'customer.mobile': '+966500000001',
  'billing.country': 'SA',
};

const OTHER_FORMS = [
  { brand: 'STC_PAY', label: 'STC Pay' },
  { brand: 'TABBY', label: 'Tabby' },
  { brand: 'VALU', label: 'valU' },
  { brand: 'ZOODPAY', label: 'ZoodPay' },
] as const;

/** mada on a Visa card: the platform's co-badged test number. */
const MADA_VISA = CARD_TEST_NUMBERS.MADA.find((number) => number.startsWith('4')) as string;

interface Opened {
  readonly page: Page;
  readonly callbacks: string[];
}

async function open(presetOptions: Record<string, unknown> = {}): Promise<Opened> {
  const page = env.track(await env.browser.newPage());
  const callbacks: string[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('console', (message) => {
    if (message.text().startsWith('callback ')) callbacks.push(message.text().slice('callback '.length));
  });
  await page.addInitScript((options) => Object.assign(window, { presetOptions: options }), presetOptions);
  await page.goto(env.site.pageUrl('local-brands', CHECKOUT));
  await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
  return { page, callbacks };
}

const formOf = (brand: string) => `div.wpwl-container.wpwl-container-virtualAccount.wpwl-container-virtualAccount-${brand} > form.wpwl-form.wpwl-form-virtualAccount.wpwl-form-virtualAccount-${brand}`;
const numberField = (page: Page) => page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field');
type Detection = { brands: string[]; activeBrand: string };
const detections = (page: Page) => page.evaluate(() => (window as unknown as { detections: Detection[] }).detections);
const blurredBrands = (page: Page) => page.evaluate(() => (window as unknown as { blurredBrands: string[] }).blurredBrands);

/** Types a number and leaves the field, as a shopper does (the widget then calls onBlurCardNumber). */
async function typeNumber(page: Page, number: string): Promise<void> {
  await chooseMethod(page, 'wpwl-container-card');
  await numberField(page).fill(number);
  await page.locator('input.wpwl-control-expiry').click();
}

describe("the local brands of HyperPay's OpenCart extension", () => {
  it('renders the card form with mada among the card brands and one form for each of STC Pay, Tabby, valU and ZoodPay, with its logo and text', async () => {
    const { page } = await open();
    const ready = await page.evaluate(() => (window as unknown as { readyForms: { container: string; brands: string[] }[] }).readyForms);
    expect(ready).toEqual([
      { container: 'wpwl-container-card', brands: ['MADA', 'VISA', 'MASTER'] },
      ...OTHER_FORMS.map(({ brand }) => ({ container: `wpwl-container-virtualAccount-${brand}`, brands: [brand] })),
    ]);
    await chooseMethod(page, 'wpwl-container-card');
    expect(await brandLogos(page.locator('.wpwl-group-brand .wpwl-brand.wpwl-brand-card'))).toEqual([
      { brand: 'MADA', alt: 'mada' },
      { brand: 'VISA', alt: 'Visa' },
      { brand: 'MASTER', alt: 'Mastercard' },
    ]);
    expect(await page.locator('select.wpwl-control-brand option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))).toEqual(['MADA', 'VISA', 'MASTER']);
    for (const { brand, label } of OTHER_FORMS) {
      await chooseMethod(page, `wpwl-container-virtualAccount-${brand}`);
      const form = formOf(brand);
      expect(await page.locator(form).count(), form).toBe(1);
      expect(await page.locator(form).getByRole('img', { name: label, exact: true }).count(), brand).toBe(1);
      expect(await brandLogos(page.locator(`${form} .wpwl-brand-${brand}[role="img"]`))).toEqual([{ brand, alt: '' }]);
      expect(await page.locator(`${form} p.wpwl-text`).innerText(), brand).toBe(`You will be taken to ${label} to complete the payment.`);
      expect(await page.locator(`${form} button.wpwl-button-pay`).innerText()).toBe('Pay now');
      expect(await page.locator(`${form} input[name="paymentBrand"]`).inputValue()).toBe(brand);
      // The shopper's data is the merchant's server's, on the checkout: the form asks for nothing.
      expect(await page.locator(`${form} select, ${form} input:not([type="hidden"])`).count(), brand).toBe(0);
    }
  });

  it("speaks Arabic, the language of the brands' shoppers (the text every language has)", async () => {
    const { page } = await open({ locale: 'ar' });
    const arabic = JSON.parse(readFileSync(new URL('../locales/ar.json', import.meta.url), 'utf8')) as { labels: { redirectInfo: string } };
    for (const { brand, label } of OTHER_FORMS) {
      expect(await page.locator(`${formOf(brand)} p.wpwl-text`).innerText(), brand).toBe(arabic.labels.redirectInfo.replace('{{brand}}', label));
    }
  });

  it('pays Tabby through the simulated lender\'s page to the merchant\'s result page, which reads it approved', async () => {
    const { page, callbacks } = await open();
    const submits: URLSearchParams[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) submits.push(new URLSearchParams(request.postData() ?? ''));
    });
    await chooseMethod(page, 'wpwl-container-virtualAccount-TABBY');
    await page.locator(`${formOf('TABBY')} button.wpwl-button-pay`).click();
    const lender = page.frameLocator('.wpwl-container-virtualAccount-TABBY iframe.wpwl-target');
    await lender.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'TABBY', amount: '230.00', currency: 'SAR' });
    expect(result.card).toBeUndefined();
    expect(callbacks).toEqual([expect.stringMatching(/^onBeforeSubmitVirtualAccount wpwl-form wpwl-form-virtualAccount wpwl-form-virtualAccount-TABBY /)]);
    expect(submits).toHaveLength(1);
    expect(submits[0]?.get('paymentBrand')).toBe('TABBY');
    expect([...(submits[0]?.keys() ?? [])].filter((name) => name.startsWith('card.'))).toEqual([]);
  });

  it('detects a mada test number as MADA co-badged on VISA, mada first; the merchant\'s onBlurCardNumber reads MADA from the brand select; it pays as MADA', async () => {
    const { page } = await open();
    await typeNumber(page, MADA_VISA);
    await expect.poll(async () => (await detections(page)).at(-1)).toEqual({ brands: ['MADA', 'VISA'], activeBrand: 'MADA' });
    expect(await page.locator('select.wpwl-control-brand').inputValue()).toBe('MADA');
    await expect.poll(() => blurredBrands(page)).toEqual(['MADA']);
    // Accepted here (the page offers mada): no hint, and it pays as the shopper's scheme.
    expect(await page.locator('.wpwl-hint-cardNumberError').count()).toBe(0);
    await page.locator('input.wpwl-control-expiry').fill('05/34');
    await page.locator('input.wpwl-control-cardHolder').fill('Noura Alharbi');
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').fill('123');
    await page.locator('.wpwl-form-card button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'MADA', card: { bin: MADA_VISA.slice(0, 6), last4Digits: MADA_VISA.slice(-4) } });
  });

  it('runs the extensions\' rule on their card method: a mada card is refused in the form, a Visa card is not', async () => {
    const { page } = await open({ refuseMada: true });
    await typeNumber(page, MADA_VISA);
    await expect.poll(() => blurredBrands(page)).toEqual(['MADA']);
    const hint = page.locator('.wpwl-form-card .wpwl-hint-cardNumberError');
    await hint.waitFor();
    expect(await hint.innerText()).toBe('mada card is not allowed, please choose mada debit card from the payment options');
    expect(await page.locator('.wpwl-form-card iframe.wpwl-control-cardNumber.wpwl-has-error').count()).toBe(1);
    expect(await page.locator('.wpwl-form-card button.wpwl-button-pay').isDisabled()).toBe(true);

    // A Visa card on a fresh page: the callback reads VISA, and nothing is refused.
    const visa = await open({ refuseMada: true });
    await typeNumber(visa.page, CARD_TEST_NUMBERS.VISA[0] as string);
    await expect.poll(() => blurredBrands(visa.page)).toEqual(['VISA']);
    await visa.page.waitForTimeout(50);
    expect(await visa.page.locator('.wpwl-hint-cardNumberError').count()).toBe(0);
    expect(await visa.page.locator('.wpwl-form-card button.wpwl-button-pay').isDisabled()).toBe(false);
  });
});
