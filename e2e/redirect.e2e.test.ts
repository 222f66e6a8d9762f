import type { FrameLocator, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { brandLogos, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Redirect brands in the widget (issue 5, points 5 and 6): PAYPAL (wallet, virtualAccount) and
 * SOFORTUEBERWEISUNG (bank transfer, onlineTransfer, with the bank's country: issue 20) get their own containers
 * and forms; paying opens the simulated provider's page in the widget's frame, and approving, cancelling or
 * abandoning it ends on the merchant's result page with the final code. Every asynchronous family:
 * asyncBrands.e2e.test.ts.
 */

const env = useMerchantSiteAndBrowser();

const SUCCESS = /^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0)/;
const BRANDS = [
  { brand: 'PAYPAL', family: 'virtualAccount', label: 'PayPal', country: null },
  // Sofort needs the bank's country: the shopper's choice, Austria (the first) unless changed.
  { brand: 'SOFORTUEBERWEISUNG', family: 'onlineTransfer', label: 'Sofort', country: 'AT' },
] as const;

interface Opened {
  readonly page: Page;
  readonly submits: URLSearchParams[];
}

async function open(checkout: Record<string, string> = {}, viewport?: { width: number; height: number }): Promise<Opened> {
  const page = env.track(await env.browser.newPage(viewport ? { viewport } : {}));
  const submits: URLSearchParams[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) submits.push(new URLSearchParams(request.postData() ?? ''));
  });
  await page.goto(env.site.pageUrl('redirect-brands', checkout));
  await page.locator('.wpwl-container-onlineTransfer').waitFor({ state: 'attached' });
  return { page, submits };
}

const container = (family: string, brand: string) => `.wpwl-container-${family}-${brand}`;
const providerPage = (page: Page, family: string, brand: string): FrameLocator => page.frameLocator(`${container(family, brand)} iframe.wpwl-target`);
const calls = (page: Page) => page.evaluate(() => (window as unknown as { calls: string[] }).calls);

describe('redirect brands in the widget', () => {
  it('renders the card container first, then one container and form per redirect brand, each with its logo, text and pay button', async () => {
    const { page } = await open();
    const containers = await page.locator('.wpwl-container').evaluateAll((nodes) => nodes.map((node) => node.className.match(/wpwl-container-(card|\w+-\w+)/)?.[1]));
    expect(containers).toEqual(['card', 'virtualAccount-PAYPAL', 'onlineTransfer-SOFORTUEBERWEISUNG']);
    for (const { brand, family, label } of BRANDS) {
      await chooseMethod(page, `wpwl-container-${family}-${brand}`);
      const form = `div.wpwl-container.wpwl-container-${family}.wpwl-container-${family}-${brand} > form.wpwl-form.wpwl-form-${family}.wpwl-form-${family}-${brand}`;
      expect(await page.locator(form).count(), form).toBe(1);
      expect(await page.locator(`${form} div.wpwl-brand.wpwl-brand-${brand}`).count()).toBe(1);
      expect(await page.locator(form).getByRole('img', { name: label }).count()).toBe(1);
      expect(await page.locator(`${form} .wpwl-text-redirectInfo`).innerText()).toBe(`You will be taken to ${label} to complete the payment.`);
      expect(await page.locator(`${form} button.wpwl-button.wpwl-button-pay`).innerText()).toBe('Pay now');
      // The logo is an image from the gateway, as for card brands.
      expect(await brandLogos(page.locator(`${form} .wpwl-brand`))).toEqual([{ brand, alt: '' }]);
      // No card fields in a redirect brand's form; Sofort's asks for the bank's country, PayPal's for nothing.
      expect(await page.locator(`${form} iframe, ${form} input:not([type="hidden"])`).count()).toBe(0);
      expect(await page.locator(`${form} select`).count()).toBe(brand === 'SOFORTUEBERWEISUNG' ? 1 : 0);
      // The merchant's children (a CSRF input) are posted with every form.
      expect(await page.locator(`${form} input[name="csrf"]`).inputValue()).toBe('merchant-csrf-token');
    }
    const ready = await page.evaluate(() => (window as unknown as { readyForms: { container: string }[] }).readyForms.map((form) => form.container));
    expect(ready).toEqual(['wpwl-container-card', 'wpwl-container-virtualAccount-PAYPAL', 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG']);
  });

  it.each(BRANDS.flatMap((info) => [
    { ...info, action: 'submit', expected: SUCCESS },
    { ...info, action: 'cancel', expected: /^100\.396\.101$/ },
  ]))('$brand: the provider page opens in the widget frame; "$action" ends on the result page with $expected', async ({ brand, family, label, country, action, expected }) => {
    const { page, submits } = await open();
    await chooseMethod(page, `wpwl-container-${family}-${brand}`);
    await page.locator(`${container(family, brand)} button.wpwl-button-pay`).click();
    const provider = providerPage(page, family, brand);
    await provider.locator('form#challenge').waitFor();
    expect(await provider.locator('input#otp').count()).toBe(0);
    expect(await provider.locator('h1').innerText()).toContain(label);
    expect(await page.locator(`form.wpwl-form-${family}-${brand}`).isVisible()).toBe(false);
    const beforeSubmit = family === 'virtualAccount' ? 'onBeforeSubmitVirtualAccount' : 'onBeforeSubmitOnlineTransfer';
    const hasInputs = country ? ' wpwl-form-has-inputs' : '';
    expect(await calls(page)).toEqual([`${beforeSubmit} wpwl-form wpwl-form-${family} wpwl-form-${family}-${brand}${hasInputs} wpwl-clearfix`, 'onAfterSubmit']);
    // What the form posted: the brand, the merchant's form action and children, the browser data; no card.
    expect(submits).toHaveLength(1);
    const sent = submits[0] as URLSearchParams;
    expect(sent.get('paymentBrand')).toBe(brand);
    expect(sent.get('shopperResultUrl')).toBe(`${env.site.merchantUrl}/result`);
    expect(sent.get('csrf')).toBe('merchant-csrf-token');
    expect(sent.get('bankAccount.country')).toBe(country);
    expect(sent.get('customer.browser.userAgent')).toContain('Chrome');
    expect(sent.get('customer.browser.screenWidth')).toMatch(/^\d+$/);
    expect([...sent.keys()].filter((name) => name.startsWith('card.'))).toEqual([]);

    await provider.locator(`button#${action}`).click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(expected);
    expect(result.paymentBrand).toBe(brand);
  });

  it('offers the methods of one form as one chooser: a radio group the keyboard moves through, one form and pay button shown', async () => {
    const { page } = await open();
    const group = page.getByRole('radiogroup', { name: 'Payment method' });
    expect(await group.ariaSnapshot()).toMatch(/radio "Card" \[checked\][\s\S]*radio "PayPal"[\s\S]*radio "Sofort"/);
    expect(await brandLogos(page.locator('.wpwl-chooser-option-card'))).toEqual([
      { brand: 'VISA', alt: '' },
      { brand: 'MASTER', alt: '' },
    ]);
    const shown = () => page.locator('.wpwl-container').evaluateAll((nodes) => nodes.filter((node) => (node as HTMLElement).offsetParent !== null).map((node) => node.className.match(/wpwl-container-(card|\w+-\w+)/)?.[1]));
    expect(await shown()).toEqual(['card']);
    expect(await page.locator('button.wpwl-button-pay:visible').count()).toBe(1);
    // The arrow keys move the choice, as in any radio group; the chosen method's form shows alone.
    await page.getByRole('radio', { name: 'Card' }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await shown()).toEqual(['virtualAccount-PAYPAL']);
    await page.keyboard.press('ArrowDown');
    expect(await shown()).toEqual(['onlineTransfer-SOFORTUEBERWEISUNG']);
    expect(await page.locator('.wpwl-chooser-option.wpwl-selected').innerText()).toBe('Sofort');
    // Every form stays in the DOM, in data-brands order, for merchant CSS and callbacks.
    expect(await page.locator('.wpwl-container').count()).toBe(3);
    // The plain style keeps the forms one after another.
    const plain = env.track(await env.browser.newPage());
    // The page sets its own wpwlOptions: the plain style is added to them as they are set.
    await plain.addInitScript(() => {
      let options: object = {};
      Object.defineProperty(window, 'wpwlOptions', { configurable: true, get: () => options, set: (value: object) => (options = { ...value, style: 'plain' }) });
    });
    await plain.goto(env.site.pageUrl('redirect-brands'));
    await plain.locator('.wpwl-container-onlineTransfer').waitFor();
    expect(await plain.locator('.wpwl-chooser').count()).toBe(0);
    expect(await plain.locator('button.wpwl-button-pay:visible').count()).toBe(3);
  });

  it('fits the provider page in its frame on a 320 px wide phone: no sideways scroll, its buttons in reach', async () => {
    const { page } = await open({}, { width: 320, height: 640 });
    await chooseMethod(page, 'wpwl-container-virtualAccount-PAYPAL');
    await page.locator(`${container('virtualAccount', 'PAYPAL')} button.wpwl-button-pay`).click();
    const provider = providerPage(page, 'virtualAccount', 'PAYPAL');
    await provider.locator('form#challenge').waitFor();
    const frame = await page.locator(`${container('virtualAccount', 'PAYPAL')} iframe.wpwl-target`).boundingBox();
    expect((frame?.x ?? -1) >= 0 && (frame?.x ?? 0) + (frame?.width ?? 0) <= 320).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const inFrame = await provider.locator('html').evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    expect(inFrame.scroll).toBeLessThanOrEqual(inFrame.client);
    for (const button of ['button#submit', 'button#cancel']) {
      const box = await provider.locator(button).boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0), button).toBeLessThanOrEqual(frame?.width ?? 0);
    }
  });

  it('makes no payment when onBeforeSubmitVirtualAccount returns false or onBeforeSubmitOnlineTransfer calls preventDefault()', async () => {
    const { page, submits } = await open();
    await page.evaluate(() => ((window as unknown as { cancelSubmit: boolean }).cancelSubmit = true));
    await chooseMethod(page, 'wpwl-container-virtualAccount-PAYPAL');
    await page.locator(`${container('virtualAccount', 'PAYPAL')} button.wpwl-button-pay`).click();
    await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
    await page.locator(`${container('onlineTransfer', 'SOFORTUEBERWEISUNG')} button.wpwl-button-pay`).click();
    await expect.poll(() => calls(page)).toHaveLength(2);
    await page.waitForTimeout(300);
    expect(submits).toEqual([]);
    expect(await page.locator('iframe.wpwl-target').count()).toBe(0);
    expect(await page.locator('form.wpwl-form-onlineTransfer-SOFORTUEBERWEISUNG').isVisible()).toBe(true);
  });

  it("pays through wpwl.executePayment('wpwl-container-virtualAccount-PAYPAL')", async () => {
    const { page } = await open();
    await page.evaluate(() =>
      (window as unknown as { wpwl: { executePayment: (container: string) => void } }).wpwl.executePayment('wpwl-container-virtualAccount-PAYPAL'),
    );
    const provider = providerPage(page, 'virtualAccount', 'PAYPAL');
    await provider.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(SUCCESS);
    expect(result.paymentBrand).toBe('PAYPAL');
  });

  it('shows why a payment is refused in the form, as an alert (the checkout was deleted meanwhile)', async () => {
    const checkoutId = await env.site.createCheckout();
    const { page } = await open({ checkoutId });
    const deleted = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}?entityId=${env.site.entityId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(deleted.status).toBe(200);
    await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
    await page.locator(`${container('onlineTransfer', 'SOFORTUEBERWEISUNG')} button.wpwl-button-pay`).click();
    const message = page.locator('form.wpwl-form-onlineTransfer-SOFORTUEBERWEISUNG div.wpwl-message.wpwl-has-error[role="alert"]');
    await message.waitFor();
    expect(await message.innerText()).toBe('This payment session has expired. Please start again.');
    expect(await page.locator('iframe.wpwl-target').count()).toBe(0);
    expect(page.url()).not.toContain('/result');
  });

  it('ends a provider page abandoned for more than 10 minutes as failed (async group), and a late approval changes nothing', async () => {
    const { page } = await open();
    await chooseMethod(page, 'wpwl-container-virtualAccount-PAYPAL');
    await page.locator(`${container('virtualAccount', 'PAYPAL')} button.wpwl-button-pay`).click();
    const provider = providerPage(page, 'virtualAccount', 'PAYPAL');
    await provider.locator('button#submit').waitFor();
    env.site.advanceClock(11 * 60_000);
    await env.site.gateway.jobs.runDueJobs();
    await provider.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('100.396.103');
    expect(result.paymentBrand).toBe('PAYPAL');
  });
});
