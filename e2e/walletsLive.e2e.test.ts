import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useLiveMerchantSiteAndBrowser } from './support/liveSite.ts';
import { resultOf } from './support/shopper.ts';

/**
 * The wallet buttons' live code paths (issue 35, point 2) in Chromium, on a live gateway in front of a provider (this
 * gateway in test mode behind the `opp` connector, which reads the wallet's token as a test token). Apple's and Google's
 * own APIs cannot run here: each test gives the page a stand-in of the wallet provider's API (`window.ApplePaySession`,
 * `google.payments.api.PaymentsClient`) recording what the widget asks of it — the only mock: the wallet's SDK.
 */

const env = useLiveMerchantSiteAndBrowser();

/** What the stand-ins were asked, as the page records it. */
interface Asked {
  readonly google: { method: string; argument: unknown }[];
  readonly apple: { method: string; argument: unknown }[];
}

/** Google Pay's token for the provider: a test token of a Mastercard device token (COMPAT §16). */
const GOOGLE_TOKEN = JSON.stringify({
  protocolVersion: 'ECv2',
  signature: 'TEST',
  signedMessage: 'TEST',
  paymentMethodDetails: { pan: '5454545454545454', expirationMonth: 12, expirationYear: 2031, authMethod: 'CRYPTOGRAM_3DS' },
});

async function open(standIns: { google?: { ready: boolean }; apple?: { canMakePayments: boolean }; sheetCallbacks?: boolean }): Promise<{ page: Page; posts: URLSearchParams[]; callbacks: string[]; logged: Asked }> {
  const page = env.track(await (await env.browser.newContext()).newPage());
  const posts: URLSearchParams[] = [];
  const callbacks: string[] = [];
  const logged: Asked = { google: [], apple: [] };
  page.on('console', (message) => {
    if (message.text().startsWith('callback ')) callbacks.push(message.text().slice('callback '.length));
    if (message.text().startsWith('asked ')) {
      const call = JSON.parse(message.text().slice('asked '.length)) as { method: string; argument: unknown };
      (/^(ApplePaySession|begin|abort|complete)/.test(call.method) ? logged.apple : logged.google).push(call);
    }
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) posts.push(new URLSearchParams(request.postData() ?? ''));
  });
  await page.addInitScript(
    ({ google, apple, token, sheetCallbacks }) => {
      if (sheetCallbacks) {
        // The platform's sheet callbacks, as a shop with shipping writes them: a shipping fee by the shopper's country.
        const fee = (country: unknown) => (country === 'DE' ? '4.90' : '9.90');
        (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
          googlePay: {
            gatewayMerchantId: 'e2e-entity',
            merchantName: 'E2E shop',
            shippingAddressRequired: true,
            onPaymentDataChanged(data: { shippingAddress?: { countryCode?: string } }) {
              console.info(`callback onPaymentDataChanged ${JSON.stringify(data)}`);
              return Promise.resolve({ newTransactionInfo: { totalPriceStatus: 'FINAL', totalPrice: '92.00', currencyCode: 'EUR', displayItems: [{ label: 'Shipping', type: 'LINE_ITEM', price: fee(data.shippingAddress?.countryCode) }] } });
            },
          },
          applePay: {
            displayName: 'E2E shop',
            countryCode: 'DE',
            requiredShippingContactFields: ['postalAddress'],
            onShippingContactSelected(contact: { countryCode?: string }) {
              console.info(`callback onShippingContactSelected ${JSON.stringify(contact)}`);
              return { newTotal: { label: 'E2E shop', amount: '92.00' }, newLineItems: [{ label: 'Shipping', amount: fee(contact.countryCode) }] };
            },
            onShippingMethodSelected() {
              throw new Error('no shipping methods here');
            },
            onCancel() {
              console.info('callback applePay.onCancel');
            },
          },
        };
      }
      // Each call is logged too: the result page the payment ends on no longer has the page's records.
      const record = (list: unknown[]) => ({
        push(call: { method: string; argument: unknown }) {
          list.push(call);
          console.info(`asked ${JSON.stringify(call)}`);
        },
      });
      const lists = { google: [] as unknown[], apple: [] as unknown[] };
      (window as unknown as { asked: unknown }).asked = lists;
      const asked = { google: record(lists.google), apple: record(lists.apple) };
      if (google) {
        class PaymentsClient {
          callbacks: { onPaymentDataChanged?: (data: unknown) => Promise<unknown> } | undefined;
          constructor(options: { paymentDataCallbacks?: { onPaymentDataChanged?: (data: unknown) => Promise<unknown> } }) {
            asked.google.push({ method: 'PaymentsClient', argument: options });
            this.callbacks = options.paymentDataCallbacks;
          }
          isReadyToPay(request: unknown) {
            asked.google.push({ method: 'isReadyToPay', argument: request });
            return Promise.resolve({ result: google!.ready });
          }
          createButton(options: { onClick: () => void; buttonColor: string; buttonType: string }) {
            asked.google.push({ method: 'createButton', argument: { buttonColor: options.buttonColor, buttonType: options.buttonType } });
            const button = document.createElement('button');
            button.type = 'button';
            button.className = 'gpay-button';
            button.textContent = 'Buy with GPay';
            button.addEventListener('click', () => options.onClick());
            return button;
          }
          async loadPaymentData(request: unknown) {
            asked.google.push({ method: 'loadPaymentData', argument: request });
            // The shopper's address in the sheet: Google asks the page's callback and shows its update.
            if (this.callbacks?.onPaymentDataChanged) {
              const update = await this.callbacks.onPaymentDataChanged({ callbackTrigger: 'INITIALIZE', shippingAddress: { countryCode: 'DE', postalCode: '10115' } });
              asked.google.push({ method: 'paymentDataChanged', argument: update });
            }
            return Promise.resolve({ paymentMethodData: { type: 'CARD', info: { cardNetwork: 'MASTERCARD' }, tokenizationData: { type: 'PAYMENT_GATEWAY', token } } });
          }
        }
        (window as unknown as { google: unknown }).google = { payments: { api: { PaymentsClient } } };
      }
      if (apple) {
        class ApplePaySession {
          static STATUS_SUCCESS = 0;
          static STATUS_FAILURE = 1;
          static canMakePayments() {
            return apple!.canMakePayments;
          }
          onvalidatemerchant: ((event: { validationURL: string }) => void) | null = null;
          onshippingcontactselected: ((event: { shippingContact: unknown }) => void) | null = null;
          onshippingmethodselected: ((event: { shippingMethod: unknown }) => void) | null = null;
          onpaymentauthorized: unknown = null;
          oncancel: unknown = null;
          constructor(version: number, request: unknown) {
            asked.apple.push({ method: 'ApplePaySession', argument: { version, request } });
          }
          begin() {
            asked.apple.push({ method: 'begin', argument: null });
            // The shopper's contact and a shipping method chosen in the sheet, when the page answers them.
            this.onshippingcontactselected?.({ shippingContact: { countryCode: 'FR', postalCode: '75001' } });
            this.onshippingmethodselected?.({ shippingMethod: { identifier: 'express' } });
            setTimeout(() => this.onvalidatemerchant?.({ validationURL: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession' }), 0);
          }
          completeMerchantValidation(session: unknown) {
            asked.apple.push({ method: 'completeMerchantValidation', argument: session });
          }
          completeShippingContactSelection(update: unknown) {
            asked.apple.push({ method: 'completeShippingContactSelection', argument: update });
          }
          completeShippingMethodSelection(update: unknown) {
            asked.apple.push({ method: 'completeShippingMethodSelection', argument: update });
          }
          completePayment(status: number) {
            asked.apple.push({ method: 'completePayment', argument: status });
          }
          abort() {
            asked.apple.push({ method: 'abort', argument: null });
          }
        }
        (window as unknown as { ApplePaySession: unknown }).ApplePaySession = ApplePaySession;
      }
    },
    { google: standIns.google, apple: standIns.apple, token: GOOGLE_TOKEN, sheetCallbacks: standIns.sheetCallbacks === true },
  );
  await page.goto(env.site.pageUrl('wallets'));
  await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
  return { page, posts, callbacks, logged };
}

const askedOf = (page: Page) => page.evaluate(() => (window as unknown as { asked: Asked }).asked);
const readyContainers = (page: Page) => page.evaluate(() => (window as unknown as { readyForms: { container: string }[] }).readyForms.map((form) => form.container));

describe('wallet buttons in the live environment (the wallets’ APIs stood in for)', () => {
  it('pays with Google Pay: isReadyToPay, Google’s own button, loadPaymentData with the gateway’s name and the merchant’s id, the token posted with the payment', async () => {
    const { page, posts, logged } = await open({ google: { ready: true } });
    expect(await readyContainers(page)).toEqual(['wpwl-container-card', 'wpwl-container-virtualAccount-GOOGLEPAY']);
    // No ApplePaySession in this browser: no Apple Pay button, as on the platform.
    expect(await page.locator('.wpwl-apple-pay-button').count()).toBe(0);
    await page.locator('.wpwl-form-virtualAccount-GOOGLEPAY .wpwl-google-pay-button button.gpay-button').click();
    await page.waitForURL(/\/result\?/);
    const result = await resultOf(page);
    expect([result.paymentBrand, result.result.code.startsWith('000.')]).toEqual(['GOOGLEPAY', true]);
    const asked = logged;
    expect(asked.google.map((call) => call.method)).toEqual(['PaymentsClient', 'isReadyToPay', 'createButton', 'loadPaymentData']);
    expect(asked.google[0]?.argument).toEqual({ environment: 'PRODUCTION' });
    expect(asked.google[2]?.argument).toEqual({ buttonColor: 'black', buttonType: 'pay' });
    expect(asked.google[3]?.argument).toMatchObject({
      apiVersion: 2,
      merchantInfo: { merchantName: 'E2E shop' },
      allowedPaymentMethods: [
        {
          type: 'CARD',
          parameters: { allowedAuthMethods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'], allowedCardNetworks: ['VISA', 'MASTERCARD', 'AMEX'] },
          tokenizationSpecification: { type: 'PAYMENT_GATEWAY', parameters: { gateway: 'wpwlgateway', gatewayMerchantId: 'e2e-entity' } },
        },
      ],
      transactionInfo: { totalPriceStatus: 'FINAL', totalPrice: '92.00', currencyCode: 'EUR' },
    });
    expect(posts.map((post) => [post.get('paymentBrand'), post.get('googlePay.paymentToken'), post.get('googlePay.source')])).toEqual([['GOOGLEPAY', GOOGLE_TOKEN, 'web']]);
  });

  it('shows no Google Pay button where isReadyToPay says the browser cannot pay', async () => {
    const { page, callbacks } = await open({ google: { ready: false } });
    expect(await readyContainers(page)).toEqual(['wpwl-container-card']);
    expect(await page.locator('.wpwl-google-pay-button').count()).toBe(0);
    expect(callbacks.filter((line) => line.startsWith('onError'))).toEqual([]);
  });

  it('shows the Apple Pay button only where ApplePaySession.canMakePayments(), and opens Apple’s sheet with the platform’s request in the shopper’s click', async () => {
    const cannot = await open({ apple: { canMakePayments: false } });
    expect(await readyContainers(cannot.page)).toEqual(['wpwl-container-card']);
    const { page, callbacks, posts } = await open({ apple: { canMakePayments: true } });
    expect(await readyContainers(page)).toEqual(['wpwl-container-card', 'wpwl-container-virtualAccount-APPLEPAY']);
    const validation = page.waitForRequest((request) => request.url().endsWith('/v1/wallets/applepay/session'));
    await page.locator('button.wpwl-apple-pay-button').click();
    expect(JSON.parse((await validation).postData() ?? '{}')).toMatchObject({
      validationUrl: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession',
      displayName: 'E2E shop',
      domain: '127.0.0.1',
    });
    const asked = await askedOf(page);
    expect(asked.apple[0]).toEqual({
      method: 'ApplePaySession',
      argument: {
        version: 3,
        request: {
          countryCode: 'DE',
          currencyCode: 'EUR',
          supportedNetworks: ['visa', 'masterCard', 'amex'],
          merchantCapabilities: ['supports3DS'],
          total: { label: 'E2E shop', amount: '92.00' },
        },
      },
    });
    expect(asked.apple[1]?.method).toBe('begin');
    // The demo entity has no Apple Pay identity (and 127.0.0.1 is no domain Apple registers): the gateway refuses the
    // validation (server/wallets/applePay.test.ts), the sheet is aborted, the merchant told.
    await expect.poll(async () => (await askedOf(page)).apple.map((call) => call.method)).toContain('abort');
    expect(callbacks.filter((line) => line.includes('Apple Pay'))).toEqual([expect.stringContaining('onError WidgetError: Apple Pay merchant validation failed')]);
    expect(posts).toEqual([]);
  });
  it('answers the shopper’s choices in the wallets’ sheets with the page’s callbacks: Google’s onPaymentDataChanged, Apple’s onShippingContactSelected', async () => {
    const google = await open({ google: { ready: true }, sheetCallbacks: true });
    await google.page.locator('.wpwl-form-virtualAccount-GOOGLEPAY .wpwl-google-pay-button button.gpay-button').click();
    await google.page.waitForURL(/\/result\?/);
    const asked = google.logged.google;
    // Google is given the callback and the intents it answers, and shows the page's update.
    expect(Object.keys((asked[0]?.argument ?? {}) as object)).toEqual(['environment', 'paymentDataCallbacks']);
    expect(asked.find((call) => call.method === 'loadPaymentData')?.argument).toMatchObject({ shippingAddressRequired: true, callbackIntents: ['SHIPPING_ADDRESS'] });
    expect(asked.find((call) => call.method === 'paymentDataChanged')?.argument).toEqual({
      newTransactionInfo: { totalPriceStatus: 'FINAL', totalPrice: '92.00', currencyCode: 'EUR', displayItems: [{ label: 'Shipping', type: 'LINE_ITEM', price: '4.90' }] },
    });
    expect(google.callbacks.filter((line) => line.startsWith('onPaymentDataChanged'))).toHaveLength(1);

    const apple = await open({ apple: { canMakePayments: true }, sheetCallbacks: true });
    await apple.page.locator('button.wpwl-apple-pay-button').click();
    await expect.poll(async () => (await askedOf(apple.page)).apple.map((call) => call.method)).toContain('abort');
    const calls = (await askedOf(apple.page)).apple;
    expect(calls.find((call) => call.method === 'completeShippingContactSelection')?.argument).toEqual({
      newTotal: { label: 'E2E shop', amount: '92.00' },
      newLineItems: [{ label: 'Shipping', amount: '9.90' }],
    });
    // A callback that throws is told to onError, and the sheet still answered with the total as it was.
    expect(calls.find((call) => call.method === 'completeShippingMethodSelection')?.argument).toEqual({ newTotal: { label: 'E2E shop', amount: '92.00' } });
    expect(apple.callbacks).toEqual(expect.arrayContaining([expect.stringContaining('onError WidgetError: the Apple Pay sheet callback failed: no shipping methods here')]));
  });
});
