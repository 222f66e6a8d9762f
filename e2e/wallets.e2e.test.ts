import { AxeBuilder } from '@axe-core/playwright';
import type { FrameLocator, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { completeChallenge } from '../ci/playwright.ts';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The wallet buttons (issue 35, point 2) in the test environment, on merchant pages written as the platform documents
 * them (APPLEPAY and GOOGLEPAY in data-brands, wpwlOptions.applePay / googlePay): the buttons above the card form, the
 * gateway's simulated wallet sheet in an overlay frame, a test card approved or the sheet cancelled, 3-D Secure as the
 * platform applies it to wallets, the sheet in German and Arabic, and a page under the strict Content-Security-Policy.
 */

const env = useMerchantSiteAndBrowser();

interface Opened {
  readonly page: Page;
  /** Payments posted from the merchant's page itself (its main frame), by their fields. */
  readonly pagePosts: URLSearchParams[];
  /** Payments posted from the sheet's frame. */
  readonly sheetPosts: URLSearchParams[];
  readonly callbacks: string[];
  readonly violations: string[];
}

async function open(pageName = 'wallets', options: Record<string, unknown> = {}, query: Record<string, string> = {}): Promise<Opened> {
  const page = env.track(await (await env.browser.newContext()).newPage());
  const pagePosts: URLSearchParams[] = [];
  const sheetPosts: URLSearchParams[] = [];
  const callbacks: string[] = [];
  const violations: string[] = [];
  page.on('pageerror', (error) => callbacks.push(`pageerror ${error.message}`));
  page.on('console', (message) => {
    if (message.text().startsWith('callback ')) callbacks.push(message.text().slice('callback '.length));
  });
  page.on('request', (request: Request) => {
    if (request.method() !== 'POST' || !/\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) return;
    (request.frame() === page.mainFrame() ? pagePosts : sheetPosts).push(new URLSearchParams(request.postData() ?? ''));
  });
  await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
  await page.addInitScript((value) => {
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { reportViolation: (text: string) => void }).reportViolation(`${event.violatedDirective} ${event.blockedURI}`);
    });
  }, options);
  await page.goto(env.site.pageUrl(pageName, query));
  await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
  return { page, pagePosts, sheetPosts, callbacks, violations };
}

const sheetOf = (page: Page): FrameLocator => page.frameLocator('iframe.wpwl-wallet-sheet');

/** Presses the wallet's button, picks the test card and pays in the sheet. */
async function payInSheet(page: Page, brand: 'APPLEPAY' | 'GOOGLEPAY', card: string): Promise<void> {
  await page.locator(`.wpwl-form-virtualAccount-${brand} button`).click();
  const sheet = sheetOf(page);
  await sheet.locator(`input[name="card"][value="${card}"]`).check();
  await sheet.locator('button#pay').click();
}

async function seriousViolations(page: Page, include: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(include).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

describe('wallet buttons in the test environment', () => {
  it('renders a button per wallet in the platform’s DOM, above the card form, with onReady listing them', async () => {
    const { page, callbacks } = await open();
    const ready = await page.evaluate(() => (window as unknown as { readyForms: unknown }).readyForms);
    expect(ready).toEqual([
      { container: 'wpwl-container-card', brands: ['VISA', 'MASTER'] },
      { container: 'wpwl-container-virtualAccount-APPLEPAY', brands: ['APPLEPAY'] },
      { container: 'wpwl-container-virtualAccount-GOOGLEPAY', brands: ['GOOGLEPAY'] },
    ]);
    const apple = page.locator('div.wpwl-container.wpwl-container-virtualAccount-APPLEPAY > form.wpwl-form.wpwl-form-virtualAccount.wpwl-form-virtualAccount-APPLEPAY button.wpwl-apple-pay-button');
    await expect(apple.getAttribute('aria-label')).resolves.toBe('Pay with Apple Pay');
    expect(await apple.getAttribute('class')).toContain('wpwl-apple-pay-button-black');
    const google = page.locator('.wpwl-form-virtualAccount-GOOGLEPAY .wpwl-google-pay-button > button');
    expect(await google.getAttribute('aria-label')).toBe('Pay with Google Pay');
    // Express buttons above the card form, which shows without a choice of method.
    const order = await page.evaluate(() => [...document.querySelectorAll('.wpwl-chooser-express .wpwl-container, .wpwl-chooser-method .wpwl-container')].map((element) => [...element.classList].find((name) => /^wpwl-container-(card|virtualAccount-\w+)$/.test(name))));
    expect(order).toEqual(['wpwl-container-virtualAccount-APPLEPAY', 'wpwl-container-virtualAccount-GOOGLEPAY', 'wpwl-container-card']);
    expect(await page.locator('[role=radiogroup]').count()).toBe(0);
    expect(await page.locator('.wpwl-form-card').isVisible()).toBe(true);
    expect(await seriousViolations(page, '.wpwl-chooser')).toEqual([]);
    expect(callbacks.filter((line) => line.startsWith('onError') || line.startsWith('pageerror'))).toEqual([]);
  });

  it('pays with Apple Pay in the gateway’s sheet: the merchant and amount shown, the token posted by the sheet, never by the page', async () => {
    const { page, pagePosts, sheetPosts, callbacks } = await open();
    await page.locator('.wpwl-apple-pay-button').click();
    const dialog = page.getByRole('dialog', { name: 'Test wallet: Apple Pay' });
    await dialog.waitFor();
    const sheet = sheetOf(page);
    await expect(sheet.locator('dl').innerText()).resolves.toMatch(/Merchant\s+E2E shop\s+Total\s+€92\.00/);
    expect(await sheet.locator('input[name="card"]').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual(['visa', 'master', 'amex', 'declined']);
    expect(await seriousViolations(page, 'iframe.wpwl-wallet-sheet')).toEqual([]);
    await sheet.locator('input[value="master"]').check();
    await sheet.locator('button#pay').click();
    await page.waitForURL(/\/result\?/);
    const result = await resultOf(page);
    expect([result.paymentBrand, result.result.code, (result.card as { last4Digits: string }).last4Digits]).toEqual(['APPLEPAY', '000.100.110', '5454']);
    expect(pagePosts).toEqual([]);
    expect(sheetPosts.map((post) => [post.get('paymentBrand'), post.get('applePay.source'), JSON.parse(post.get('applePay.paymentToken') ?? '{}').paymentMethod.network])).toEqual([['APPLEPAY', 'web', 'MasterCard']]);
    expect(callbacks).toContain('onBeforeSubmitVirtualAccount wpwl-form wpwl-form-virtualAccount wpwl-form-virtualAccount-APPLEPAY wpwl-clearfix');
  });

  it('closes the sheet on Cancel: back on the page, focus on the button, nothing paid', async () => {
    const { page, pagePosts, sheetPosts } = await open();
    await page.locator('.wpwl-google-pay-button > button').click();
    // A modal dialog: the page behind it is inert while it is open.
    await sheetOf(page).locator('button#cancel:enabled').waitFor();
    expect(await page.evaluate(() => document.querySelector('main')?.inert)).toBe(true);
    await sheetOf(page).locator('button#cancel').click();
    await page.locator('iframe.wpwl-wallet-sheet').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.querySelector('main')?.inert)).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.closest('.wpwl-google-pay-button') !== null)).toBe(true);
    expect([pagePosts, sheetPosts]).toEqual([[], []]);
    // The shopper can open it again and pay.
    await payInSheet(page, 'GOOGLEPAY', 'visa');
    await page.waitForURL(/\/result\?/);
    expect((await resultOf(page)).paymentBrand).toBe('GOOGLEPAY');
  });

  it('removes an open sheet with the widget (wpwl.unload), the page usable again', async () => {
    const { page, sheetPosts } = await open();
    await page.locator('.wpwl-apple-pay-button').click();
    await sheetOf(page).locator('button#pay:enabled').waitFor();
    await page.evaluate(() => (window as unknown as { wpwl: { unload(): void } }).wpwl.unload());
    await page.locator('iframe.wpwl-wallet-sheet').waitFor({ state: 'detached' });
    expect([await page.locator('.wpwl-container').count(), await page.evaluate(() => document.querySelector('main')?.inert), sheetPosts]).toEqual([0, false, []]);
  });

  it('authenticates a Google Pay card saved in the account (PAN_ONLY) with the 3-D Secure challenge in the widget’s frame', async () => {
    const { page } = await open();
    await payInSheet(page, 'GOOGLEPAY', 'panChallenge');
    await page.locator('iframe.wpwl-wallet-sheet').waitFor({ state: 'detached' });
    await completeChallenge(page);
    await page.waitForURL(/\/result\?/);
    const result = await resultOf(page);
    expect([result.paymentBrand, result.result.code]).toEqual(['GOOGLEPAY', '000.100.110']);
  });

  it('ends a declined wallet payment on the result page with its decline', async () => {
    const { page } = await open();
    await payInSheet(page, 'APPLEPAY', 'declined');
    await page.waitForURL(/\/result\?/);
    expect((await resultOf(page)).result.code).toBe('800.100.203');
  });

  it.each([
    ['de', 'Test-Wallet: Google Pay', 'ltr', /Gesamt\s+92,00\s€/],
    ['ar', 'محفظة تجريبية: Google Pay', 'rtl', /الإجمالي/],
  ])('shows the sheet in the widget’s language (%s), laid out in its direction, without a serious axe violation', async (locale, title, direction, total) => {
    const { page } = await open('wallets', { locale });
    const button = page.locator('.wpwl-google-pay-button > button');
    expect(await button.getAttribute('aria-label')).not.toBe('Pay with Google Pay');
    await button.click();
    const sheet = sheetOf(page);
    await expect(sheet.locator('h1').innerText()).resolves.toBe(title);
    expect(await sheet.locator('html').getAttribute('dir')).toBe(direction);
    expect(await sheet.locator('dl').innerText()).toMatch(total);
    expect(await seriousViolations(page, 'iframe.wpwl-wallet-sheet')).toEqual([]);
  });

  it('pays on a page under the strict Content-Security-Policy without a violation', async () => {
    const { page, violations } = await open('csp-wallets');
    await payInSheet(page, 'GOOGLEPAY', 'visa');
    await page.waitForURL(/\/result\?/);
    expect((await resultOf(page)).paymentBrand).toBe('GOOGLEPAY');
    expect(violations).toEqual([]);
  });
});

describe('fast checkout on a product page', () => {
  it('creates the checkout only when the shopper approves the sheet, then pays it', async () => {
    const { page, callbacks, sheetPosts } = await open('fast-checkout');
    expect(await page.evaluate(() => (window as unknown as { wpwl: { checkout: unknown } }).wpwl.checkout)).toBeNull();
    await page.locator('.wpwl-apple-pay-button').click();
    await expect(sheetOf(page).locator('#total').innerText()).resolves.toBe('€49.00');
    await sheetOf(page).locator('button#cancel').click();
    await page.locator('iframe.wpwl-wallet-sheet').waitFor({ state: 'detached' });
    expect(callbacks.filter((line) => line.startsWith('createCheckout'))).toEqual([]);
    await payInSheet(page, 'GOOGLEPAY', 'master');
    await page.waitForURL(/\/result\?/);
    const result = await resultOf(page);
    expect([result.paymentBrand, result.result.code, result.amount]).toEqual(['GOOGLEPAY', '000.100.110', '49.00']);
    // The shopper's data the page asked Google Pay for (emailRequired, shippingAddressRequired), in Google's shape.
    const address = { name: 'Jane Jones', address1: 'Invalidenstraße 117', locality: 'Berlin', postalCode: '10115', countryCode: 'DE' };
    expect(callbacks.filter((line) => line.startsWith('createCheckout'))).toEqual([
      `createCheckout ${JSON.stringify({ paymentBrand: 'GOOGLEPAY', email: 'jane.jones@example.com', shippingAddress: address })}`,
    ]);
    expect(sheetPosts).toHaveLength(1);
  });

  it('pays with the card form of the same page after createCheckout', async () => {
    const { page, callbacks } = await open('fast-checkout');
    await fillCard(page);
    await page.locator('.wpwl-form-card button.wpwl-button-pay').click();
    await page.waitForURL(/\/result\?/);
    const result = await resultOf(page);
    expect([result.paymentBrand, result.result.code, result.amount]).toEqual(['VISA', '000.100.110', '49.00']);
    expect(callbacks.filter((line) => line.startsWith('createCheckout'))).toEqual(['createCheckout {"paymentBrand":"VISA"}']);
  });

  it.each([
    ['reject', 'createCheckout failed: the shop is closed: nothing was paid'],
    ['none', 'createCheckout gave no checkout id: nothing was paid'],
  ])('tells onError when createCheckout fails (%s), and pays nothing', async (mode, message) => {
    const { page, callbacks, sheetPosts, pagePosts } = await open('fast-checkout', {}, { createCheckout: mode });
    await payInSheet(page, 'GOOGLEPAY', 'visa');
    await page.locator('iframe.wpwl-wallet-sheet').waitFor({ state: 'detached' });
    await expect.poll(() => callbacks.filter((line) => line.startsWith('onError'))).toEqual([`onError WidgetError: ${message}`]);
    expect([sheetPosts, pagePosts]).toEqual([[], []]);
    expect(page.url()).toContain('/pages/fast-checkout');
  });
});
