import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ASYNC_CHECKOUT_DATA } from './support/asyncBrands.ts';
import { chooseMethod } from '../ci/playwright.ts';
import { brandLogos, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';
import { chooseBrand } from '../ci/playwright.ts';

/**
 * The asynchronous brands in the widget (issue 20, point 3): each renders its own form by the brand's form family
 * (COMPAT §4), with what the shopper is told and, for a brand that needs it, the bank's country; one brand of each
 * asynchronous family is paid through the widget and ends on the merchant's result page with the result the merchant's
 * server reads there — approved or declined on the provider page, pending with a cash voucher or the bank details.
 */

const env = useMerchantSiteAndBrowser();

/** The page's forms in order (its text lists one unknown name too, which gets none). */
const FORMS = [
  { brand: 'SOFORTUEBERWEISUNG', form: 'onlineTransfer', label: 'Sofort', info: 'You will be taken to Sofort to complete the payment.' },
  { brand: 'EPS', form: 'onlineTransfer', label: 'eps', info: 'You will be taken to eps to complete the payment.' },
  { brand: 'GIROPAY', form: 'onlineTransfer', label: 'giropay', info: 'You will be taken to giropay to complete the payment.' },
  { brand: 'PAYPAL', form: 'virtualAccount', label: 'PayPal', info: 'You will be taken to PayPal to complete the payment.' },
  { brand: 'KLARNA_INVOICE', form: 'virtualAccount', label: 'Klarna invoice', info: 'You will be taken to Klarna invoice to complete the payment.' },
  { brand: 'PAYSAFECARD', form: 'virtualAccount', label: 'paysafecard', info: 'You will be taken to paysafecard to complete the payment.' },
  { brand: 'BOLETO', form: 'onlineTransfer', label: 'Boleto Bancário', info: 'You will get a Boleto Bancário voucher to pay in cash.' },
  { brand: 'PREPAYMENT', form: 'prepayment', label: 'Prepayment', info: 'You will get the bank details to transfer the amount to.' },
] as const;

const HOOKS = { onlineTransfer: 'onBeforeSubmitOnlineTransfer', virtualAccount: 'onBeforeSubmitVirtualAccount', prepayment: 'onBeforeSubmitPrepayment' } as const;

interface Opened {
  readonly page: Page;
  readonly submits: URLSearchParams[];
  /** The merchant's callbacks as the page logged them. */
  readonly callbacks: string[];
  close(): Promise<void>;
}

/** A page of its own (the family flows run concurrently), recording what the widget submits. */
async function open(checkout: Readonly<Record<string, string>> = ASYNC_CHECKOUT_DATA, options: Record<string, unknown> = {}): Promise<Opened> {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const submits: URLSearchParams[] = [];
  const callbacks: string[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('console', (message) => {
    if (message.text().startsWith('callback ')) callbacks.push(message.text().slice('callback '.length));
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) submits.push(new URLSearchParams(request.postData() ?? ''));
  });
  await page.addInitScript((value) => {
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
  }, options);
  await page.goto(env.site.pageUrl('async-brands', checkout));
  await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
  return { page, submits, callbacks, close: () => context.close() };
}

const formOf = (form: string, brand: string) => `div.wpwl-container.wpwl-container-${form}.wpwl-container-${form}-${brand} > form.wpwl-form.wpwl-form-${form}.wpwl-form-${form}-${brand}`;
async function pay(page: Page, form: string, brand: string): Promise<void> {
  await chooseMethod(page, `wpwl-container-${form}-${brand}`);
  await page.locator(`${formOf(form, brand)} button.wpwl-button-pay`).click();
}
const frameOf = (page: Page, form: string, brand: string) => page.frameLocator(`.wpwl-container-${form}-${brand} iframe.wpwl-target`);

describe('asynchronous brands in the widget', () => {
  it('renders one form per brand in its family, with its logo, what happens next, the pay button, and the bank\'s country where the brand needs it', async () => {
    const { page, close } = await open();
    try {
      const ready = await page.evaluate(() => (window as unknown as { readyForms: { container: string; brands: string[] }[] }).readyForms);
      expect(ready).toEqual(FORMS.map(({ form, brand }) => ({ container: `wpwl-container-${form}-${brand}`, brands: [brand] })));
      for (const { brand, form, label, info } of FORMS) {
        await chooseMethod(page, `wpwl-container-${form}-${brand}`);
        const selector = formOf(form, brand);
        expect(await page.locator(selector).count(), selector).toBe(1);
        expect(await page.locator(selector).getByRole('img', { name: label, exact: true }).count(), brand).toBe(1);
        // The logo is an image from the gateway (its own, or its family's neutral one), named by the element around it.
        expect(await brandLogos(page.locator(`${selector} .wpwl-brand-${brand}[role="img"]`))).toEqual([{ brand, alt: '' }]);
        expect(await page.locator(`${selector} p.wpwl-text`).innerText(), brand).toBe(info);
        expect(await page.locator(`${selector} button.wpwl-button-pay`).innerText()).toBe('Pay now');
        expect(await page.locator(`${selector} input[name="paymentBrand"]`).inputValue()).toBe(brand);
      }
      expect(await page.locator('.wpwl-text-cashVoucherInfo').count()).toBe(1);
      expect(await page.locator('.wpwl-container-prepayment .wpwl-text-prepaymentInfo').count()).toBe(1);

      // Sofort serves eight countries: the shopper chooses, among their names, the first preselected (locale en).
      await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
      const sofort = formOf('onlineTransfer', 'SOFORTUEBERWEISUNG');
      const country = page.locator(`${sofort} div.wpwl-group.wpwl-group-country select.wpwl-control.wpwl-control-country[name="bankAccount.country"]`);
      expect(await page.locator(`${sofort} .wpwl-group-country .wpwl-label-country`).innerText()).toBe('Country');
      expect(await country.locator('option').allInnerTexts()).toEqual(['Austria', 'Belgium', 'Germany', 'Italy', 'Netherlands', 'Poland', 'Spain', 'Switzerland']);
      expect(await country.inputValue()).toBe('AT');
      // Only a form with inputs says so; EPS serves Austria alone (sent as it is), giropay needs no country.
      const withInputs = await page.locator('form.wpwl-form-has-inputs').evaluateAll((forms) => forms.map((form) => form.className.match(/wpwl-form-\w+-\w+/)?.[0]));
      expect(withInputs).toEqual(['wpwl-form-onlineTransfer-SOFORTUEBERWEISUNG']);
      expect(await page.locator(`${formOf('onlineTransfer', 'EPS')} input[type="hidden"][name="bankAccount.country"]`).inputValue()).toBe('AT');
      expect(await page.locator(`${formOf('onlineTransfer', 'EPS')} select, ${formOf('onlineTransfer', 'EPS')} input:not([type="hidden"])`).count()).toBe(0);
      expect(await page.locator('[name="bankAccount.country"]').count()).toBe(2);
    } finally {
      await close();
    }
  });

  it('speaks the shopper\'s language: country names and texts, the locale\'s country preselected (de-AT)', async () => {
    const { page, close } = await open(ASYNC_CHECKOUT_DATA, { locale: 'de-AT' });
    try {
      const sofort = formOf('onlineTransfer', 'SOFORTUEBERWEISUNG');
      expect(await page.locator(`${sofort} .wpwl-label-country`).innerText()).toBe('Land');
      expect(await page.locator(`${sofort} select.wpwl-control-country`).inputValue()).toBe('AT');
      expect(await page.locator(`${sofort} select.wpwl-control-country option:checked`).innerText()).toBe('Österreich');
      expect(await page.locator(`${formOf('prepayment', 'PREPAYMENT')} p.wpwl-text`).innerText()).toBe('Sie erhalten die Bankverbindung, an die Sie den Betrag überweisen.');
      expect(await page.locator(`${formOf('onlineTransfer', 'BOLETO')} p.wpwl-text`).innerText()).toBe('Sie erhalten einen Boleto Bancário-Zahlschein, den Sie bar bezahlen.');
    } finally {
      await close();
    }
  });

  it('shows what the merchant\'s server left out of the checkout as a message in the form, and stays on it', async () => {
    const { page, submits, close } = await open({});
    try {
      await pay(page, 'virtualAccount', 'KLARNA_INVOICE');
      const message = page.locator(`${formOf('virtualAccount', 'KLARNA_INVOICE')} div.wpwl-message.wpwl-has-error[role="alert"]`);
      await message.waitFor();
      expect(await message.innerText()).toBe('This payment session is not valid.');
      expect(submits).toHaveLength(1);
      expect(await page.locator('iframe.wpwl-target').count()).toBe(0);
      expect(page.url()).not.toContain('/result');
      // The form can be used again.
      expect(await page.locator(`${formOf('virtualAccount', 'KLARNA_INVOICE')} button.wpwl-button-pay`).isEnabled()).toBe(true);
    } finally {
      await close();
    }
  });

  /** One brand per asynchronous family, paid as a shopper pays it, and what the merchant's result page then reads. */
  const FLOWS = [
    {
      title: 'onlineTransfer (SOFORTUEBERWEISUNG): the shopper chooses the bank\'s country with the keyboard and approves',
      brand: 'SOFORTUEBERWEISUNG',
      form: 'onlineTransfer',
      async shop(opened: Opened) {
        const { page } = opened;
        const country = page.locator('select.wpwl-control-country');
        await country.focus();
        // Type-ahead on the closed select, then on to the pay button and Enter.
        await page.keyboard.type('G');
        expect(await country.inputValue()).toBe('DE');
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.className)).toContain('wpwl-button-pay');
        await page.keyboard.press('Enter');
        await frameOf(page, 'onlineTransfer', 'SOFORTUEBERWEISUNG').locator('button#submit').click();
        const result = await resultOf(page);
        expect(result.result.code).toBe('000.100.110');
        expect(opened.submits[0]?.get('bankAccount.country')).toBe('DE');
      },
    },
    {
      title: 'eWallet (PAYPAL): the shopper declines on the provider page, and the result page reads the decline',
      brand: 'PAYPAL',
      form: 'virtualAccount',
      async shop({ page }: Opened) {
        // As a CI user's test chooses the brand (ci/playwright.ts): its form's pay button.
        await chooseBrand(page, 'PAYPAL');
        await frameOf(page, 'virtualAccount', 'PAYPAL').locator('button#decline').click();
        expect((await resultOf(page)).result.code).toBe('800.100.100');
      },
    },
    {
      title: 'invoice (KLARNA_INVOICE): the lender accepts the shopper the merchant named on the checkout',
      brand: 'KLARNA_INVOICE',
      form: 'virtualAccount',
      async shop({ page }: Opened) {
        await pay(page, 'virtualAccount', 'KLARNA_INVOICE');
        await frameOf(page, 'virtualAccount', 'KLARNA_INVOICE').locator('button#submit').click();
        expect((await resultOf(page)).result.code).toBe('000.100.110');
      },
    },
    {
      title: 'voucher (PAYSAFECARD): the shopper enters the prepaid voucher\'s PIN and approves',
      brand: 'PAYSAFECARD',
      form: 'virtualAccount',
      async shop({ page }: Opened) {
        await pay(page, 'virtualAccount', 'PAYSAFECARD');
        const provider = frameOf(page, 'virtualAccount', 'PAYSAFECARD');
        await provider.locator('input#pin').fill('1234 5678 9012 3456');
        await provider.locator('button#submit').click();
        expect((await resultOf(page)).result.code).toBe('000.100.110');
      },
    },
    {
      title: 'cashVoucher (BOLETO): the voucher shows in the widget frame; "continue" goes to the result page, which reads it pending',
      brand: 'BOLETO',
      form: 'onlineTransfer',
      async shop({ page }: Opened) {
        await pay(page, 'onlineTransfer', 'BOLETO');
        const voucher = frameOf(page, 'onlineTransfer', 'BOLETO');
        const number = await voucher.locator('#voucher-number').innerText();
        expect(number).toMatch(/^[0-9]{14}$/);
        expect(await voucher.locator('#voucher-barcode').innerText()).toMatch(/^[0-9. ]{54}$/);
        await voucher.locator('a#continue').click();
        const result = await resultOf(page);
        expect(result.result.code).toBe('000.200.000');
        expect(result.resultDetails).toMatchObject({ VoucherNumber: number, DigitableLine: expect.stringMatching(/^[0-9. ]{54}$/) });
      },
    },
    {
      title: 'prepayment (PREPAYMENT): no provider page; the result page reads it pending, with the bank details',
      brand: 'PREPAYMENT',
      form: 'prepayment',
      async shop({ page }: Opened) {
        await pay(page, 'prepayment', 'PREPAYMENT');
        const result = await resultOf(page);
        expect(result.result.code).toBe('000.200.000');
        expect(result.resultDetails).toMatchObject({
          BankAccountIban: expect.stringMatching(/^[A-Z]{2}[0-9]{2}/),
          BankAccountBic: expect.any(String),
          BankAccountHolder: expect.any(String),
          TransferReference: expect.any(String),
          TransferDeadline: expect.any(String),
        });
      },
    },
  ] as const;

  it.concurrent.each(FLOWS.map((flow) => [flow.title, flow] as const))('%s', async (_title, { brand, form, shop }) => {
    const opened = await open();
    try {
      await shop(opened);
      expect(opened.page.url()).toMatch(/\/result\?id=/);
      // The form's own before-submit callback ran, with the form as `this`; then the payment was sent, once, with no card data.
      expect(opened.callbacks).toEqual([expect.stringMatching(new RegExp(`^${HOOKS[form]} wpwl-form wpwl-form-${form} wpwl-form-${form}-${brand} `)), 'onAfterSubmit']);
      expect(opened.submits).toHaveLength(1);
      expect(opened.submits[0]?.get('paymentBrand')).toBe(brand);
      expect([...(opened.submits[0]?.keys() ?? [])].filter((name) => name.startsWith('card.'))).toEqual([]);
    } finally {
      await opened.close();
    }
  });
});
