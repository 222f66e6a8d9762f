import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMEX_CARD, MASTER_CARD, offering, storeCard, VISA_CARD } from './support/registrations.ts';
import { brandLogos, fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * One-click payments with stored cards (COMPAT §4, wpwlOptions.registrations): the checkout offers the
 * merchant's registrations (registrations[n].id) and the widget shows them above the other forms; the
 * shopper picks one, gives its CVV when asked (in a gateway iframe only), and pays.
 */

const env = useMerchantSiteAndBrowser();

let visaId = '';
let masterId = '';
let amexId = '';

beforeAll(async () => {
  visaId = await storeCard(env.site, VISA_CARD);
  masterId = await storeCard(env.site, MASTER_CARD);
  amexId = await storeCard(env.site, AMEX_CARD);
});

interface SeenRequest {
  readonly frameUrl: string;
  readonly url: string;
  readonly body: string;
}

interface Opened {
  readonly page: Page;
  readonly checkoutId: string;
  /** POSTs to /v1/checkouts/<id>/payment, from whichever frame made them. */
  readonly payments: SeenRequest[];
  /** Every request of the page and its frames. */
  readonly requests: SeenRequest[];
  /** What the page reported from onAfterSubmit, just before it leaves for the result page. */
  readonly reports: AfterSubmitReport[];
}

interface AfterSubmitReport {
  readonly calls: string[];
  readonly submitSnapshot?: PageState['submitSnapshot'];
  readonly messagesSeen?: unknown[];
  readonly html: string;
  /** securitypolicyviolation events (pages named csp*). */
  readonly violations?: string[];
}

interface PageState {
  calls: string[];
  readyForms?: { container: string; brands: string[] }[];
  cancelWith?: 'false' | 'preventDefault';
  submitSnapshot?: { html: string; fields: [string, string][] };
  messagesSeen?: unknown[];
}

async function open(checkout: Record<string, string>, options: Record<string, unknown> = {}, pageName = 'one-click'): Promise<Opened> {
  const checkoutId = await env.site.createCheckout(checkout);
  const page = env.track(await env.browser.newPage());
  page.on('pageerror', (error) => {
    throw error;
  });
  const payments: SeenRequest[] = [];
  const requests: SeenRequest[] = [];
  page.on('request', (request) => {
    const seen = { frameUrl: request.frame().url(), url: request.url(), body: request.postData() ?? '' };
    requests.push(seen);
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) payments.push(seen);
  });
  const reports: AfterSubmitReport[] = [];
  await page.exposeFunction('reportToTest', (json: string) => reports.push(JSON.parse(json) as AfterSubmitReport));
  await page.addInitScript((extra) => {
    if (window.top !== window) return;
    const state = window as unknown as PageState & { wpwlOptions: unknown };
    state.calls = [];
    state.wpwlOptions = {
      onReady(forms: PageState['readyForms']) {
        state.readyForms = forms;
      },
      onBeforeSubmitOneClickCard(this: HTMLFormElement, event: { preventDefault(): void }) {
        state.calls.push(`onBeforeSubmitOneClickCard ${this.className}`);
        // What the merchant page holds at the moment of the submit.
        state.submitSnapshot = {
          html: document.documentElement.outerHTML,
          fields: [...new FormData(this).entries()].map(([name, value]) => [name, String(value)]),
        };
        if (state.cancelWith === 'false') return false;
        if (state.cancelWith === 'preventDefault') event.preventDefault();
        return undefined;
      },
      onBeforeSubmitCard() {
        state.calls.push('onBeforeSubmitCard');
      },
      onAfterSubmit() {
        state.calls.push('onAfterSubmit');
        const { calls, submitSnapshot, messagesSeen, violations } = state as PageState & { violations?: string[] };
        const report = (window as unknown as { reportToTest?: (json: string) => void }).reportToTest;
        report?.(JSON.stringify({ calls, submitSnapshot, messagesSeen, violations, html: document.documentElement.outerHTML }));
      },
      onError(error: { name: string }) {
        state.calls.push(`onError ${error.name}`);
      },
      ...extra,
    };
  }, options);
  await page.goto(env.site.pageUrl(pageName, { checkoutId }));
  await page.locator('#wpwl-registrations form.wpwl-form-registrations').waitFor();
  return { page, checkoutId, payments, requests, reports };
}

const pageState = (page: Page): Promise<PageState> =>
  page.evaluate(() => {
    const { calls, readyForms, submitSnapshot } = window as unknown as PageState;
    return { calls, readyForms, submitSnapshot };
  });
const calls = async (page: Page) => page.evaluate(() => (window as unknown as PageState).calls);
const selectedGroup = '.wpwl-group-registration.wpwl-selected';
const cvvInput = (page: Page) => page.locator(selectedGroup).frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field');

async function checkoutStatus(checkoutId: string): Promise<string> {
  const response = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment?entityId=${env.site.entityId}`, {
    headers: { Authorization: `Bearer ${env.site.token}` },
  });
  return ((await response.json()) as { result: { code: string } }).result.code;
}

/** Every string anywhere in a value (keys included), to search what the merchant page was sent. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item)]);
  return [];
}

describe('stored cards (one-click) in the widget', () => {
  it('shows the stored cards above the card form, in the DOM shape merchants select, the first one chosen', async () => {
    const { page } = await open(offering(visaId, masterId));
    const form = '#wpwl-registrations > div.wpwl-container.wpwl-container-registration > form.wpwl-form.wpwl-form-registrations';
    expect(await page.locator(form).count()).toBe(1);
    const groups = page.locator(`${form} > div.wpwl-group.wpwl-group-registration`);
    expect(await groups.count()).toBe(2);
    const radios = page.locator(`${form} label.wpwl-registration div.wpwl-wrapper-registration-registrationId > input[type="radio"][name="registrationId"]`);
    expect(await radios.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value))).toEqual([visaId, masterId]);
    const texts = (wrapper: string) => page.locator(`${form} label.wpwl-registration .wpwl-wrapper-registration-${wrapper}`).allInnerTexts();
    expect(await texts('number')).toEqual(['Card ending in 0000', 'Card ending in 5454']);
    expect(await texts('expiry')).toEqual(['Expires 05/34', 'Expires 12/30']);
    expect(await texts('holder')).toEqual(['Jane Jones', 'John Smith']);
    // The brands' logos, with an accessible name.
    expect(await groups.nth(0).locator('.wpwl-wrapper-registration-brand .wpwl-brand.wpwl-brand-VISA').count()).toBe(1);
    expect(await groups.nth(1).getByRole('img', { name: 'Mastercard' }).count()).toBe(1);
    expect(await brandLogos(groups.nth(0).locator('.wpwl-brand'))).toEqual([{ brand: 'VISA', alt: '' }]);
    // The first card is chosen.
    expect(await groups.evaluateAll((nodes) => nodes.map((node) => node.classList.contains('wpwl-selected')))).toEqual([true, false]);
    expect(await radios.nth(0).isChecked()).toBe(true);
    expect(await page.locator(`${form} .wpwl-label-registrations`).innerText()).toBe('Your stored cards');
    expect(await page.locator(`${form} button.wpwl-button.wpwl-button-pay`).innerText()).toBe('Pay now');
    // No CVV asked and no form hidden by default: the card form shows below, without the show button.
    expect(await page.locator(`${form} iframe`).count()).toBe(0);
    expect(await page.locator('button[data-action="show-initial-forms"]').count()).toBe(0);
    expect(await page.locator('.wpwl-container-card').isVisible()).toBe(true);
    const registrationsFirst = await page.evaluate(() => {
      const registrations = document.querySelector('#wpwl-registrations') as Element;
      const card = document.querySelector('.wpwl-container-card') as Element;
      return Boolean(registrations.compareDocumentPosition(card) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(registrationsFirst).toBe(true);
    // onReady lists the stored cards first; the merchant's children are in both forms.
    expect((await pageState(page)).readyForms).toEqual([
      { container: 'wpwl-container-registration', brands: ['VISA', 'MASTER'] },
      { container: 'wpwl-container-card', brands: ['VISA', 'MASTER', 'AMEX'] },
    ]);
    expect(await page.locator(`${form} input[name="csrf"]`).inputValue()).toBe('merchant-csrf-token');
    expect(await page.locator('form.wpwl-form-card input[name="csrf"]').inputValue()).toBe('merchant-csrf-token');

    // Clicking anywhere on a card chooses it.
    await groups.nth(1).locator('.wpwl-wrapper-registration-holder').click();
    expect(await groups.evaluateAll((nodes) => nodes.map((node) => node.classList.contains('wpwl-selected')))).toEqual([false, true]);
    expect(await radios.nth(1).isChecked()).toBe(true);

    // wpwl.unload() takes the stored cards away too, and gives the merchant form its children back.
    await page.evaluate(() => (window as unknown as { wpwl: { unload(): void } }).wpwl.unload());
    expect(await page.locator('#wpwl-registrations, .wpwl-container').count()).toBe(0);
    expect(await page.locator('form.paymentWidgets > input[name="csrf"]').count()).toBe(1);
  });

  it('pays with the second stored card: the merchant reads a payment made with that registration', async () => {
    const { page, payments } = await open(offering(visaId, masterId));
    await page.locator('.wpwl-group-registration').nth(1).locator('label.wpwl-registration').click();
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(masterId);
    expect(result).toMatchObject({ paymentType: 'DB', paymentBrand: 'MASTER', amount: '92.00', currency: 'EUR' });
    expect(result.card).toMatchObject({ last4Digits: '5454', expiryMonth: '12', expiryYear: '2030' });
    // Without a CVV, the merchant page posts it directly: the chosen registration, its brand, the result URL,
    // the merchant's children and the browser data.
    expect(payments).toHaveLength(1);
    const sent = new URLSearchParams(payments[0]?.body);
    expect(payments[0]?.frameUrl).toMatch(new RegExp(`^${env.site.merchantUrl}/pages/one-click`));
    expect(sent.getAll('registrationId')).toEqual([masterId]);
    expect(sent.get('paymentBrand')).toBe('MASTER');
    expect(sent.get('shopperResultUrl')).toBe(`${env.site.merchantUrl}/result`);
    expect(sent.get('csrf')).toBe('merchant-csrf-token');
    expect(sent.get('customer.browser.userAgent')).toBeTruthy();
    expect(sent.has('card.cvv')).toBe(false);
  });

  it('is used with the keyboard: arrow keys choose a card, focus is visible, Enter pays', async () => {
    const { page } = await open(offering(visaId, masterId));
    await page.locator('input[name="registrationId"]').first().focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator(`${selectedGroup} input[name="registrationId"]`).inputValue()).toBe(masterId);
    const focusVisible = await page.evaluate(() => {
      const active = document.activeElement as HTMLInputElement;
      const style = getComputedStyle(active);
      return { value: active.value, outline: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
    });
    expect(focusVisible).toEqual({ value: masterId, outline: true });
    await page.keyboard.press('Enter');
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(masterId);
  });

  it('asks the CVV of the chosen card in a gateway iframe, blocks an empty or short one, and pays with a valid one', async () => {
    const { page, payments } = await open(offering(visaId, masterId), { registrations: { requireCvv: true } });
    // One CVV field per card; only the chosen card's shows.
    expect(await page.locator('.wpwl-group-registration iframe.wpwl-control.wpwl-control-cvv').count()).toBe(2);
    expect(await page.locator('.wpwl-form-registrations iframe.wpwl-control-cvv:visible').count()).toBe(1);
    expect(await page.locator(`${selectedGroup} .wpwl-wrapper-registration-cvv iframe.wpwl-control-cvv`).isVisible()).toBe(true);
    const frameSrc = await page.locator(`${selectedGroup} iframe.wpwl-control-cvv`).getAttribute('src');
    expect(frameSrc?.startsWith(`${env.site.gatewayUrl}/v1/static/`)).toBe(true);
    await cvvInput(page).waitFor();
    expect(await cvvInput(page).getAttribute('aria-label')).toBe('CVV');

    // Empty: the error shows and nothing is paid.
    const pay = page.locator('.wpwl-form-registrations button.wpwl-button-pay');
    await pay.click();
    const frame = page.locator(`${selectedGroup} iframe.wpwl-control-cvv`);
    await expect.poll(() => frame.getAttribute('class')).toContain('wpwl-has-error');
    const hint = page.locator(`${selectedGroup} .wpwl-hint.wpwl-hint-cvvError`);
    expect(await hint.innerText()).toBe('Invalid CVV');
    expect(await hint.getAttribute('role')).toBe('alert');
    expect(await frame.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));
    expect(await pay.getAttribute('class')).toContain('wpwl-button-error');

    // Too short: still refused.
    await cvvInput(page).fill('12');
    await pay.click();
    await page.waitForTimeout(300);
    expect(await hint.count()).toBe(1);
    expect(payments).toHaveLength(0);
    expect(await calls(page)).not.toContain(expect.stringContaining('onBeforeSubmitOneClickCard'));

    // A valid code clears the error and pays.
    await cvvInput(page).fill('123');
    await expect.poll(() => hint.count()).toBe(0);
    expect(await frame.getAttribute('class')).not.toContain('wpwl-has-error');
    await pay.click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(visaId);
    expect((result.card as { last4Digits: string }).last4Digits).toBe('0000');
  });

  it('keeps the CVV inside the gateway iframe: never in the merchant page, its messages or its requests', async () => {
    const cvv = '737';
    const { page, payments, requests, reports } = await open(offering(visaId, masterId), { registrations: { requireCvv: true } });
    // The second card: its own CVV field shows.
    await page.locator('.wpwl-group-registration').nth(1).locator('label.wpwl-registration').click();
    expect(await page.locator(`${selectedGroup} input[name="registrationId"]`).inputValue()).toBe(masterId);
    await cvvInput(page).waitFor();
    const occurrences = (html: string) => html.split(cvv).length - 1;
    const before = occurrences(await page.content());
    await cvvInput(page).fill(cvv);
    // The page cannot look into the frame.
    expect(await page.locator(`${selectedGroup} iframe.wpwl-control-cvv`).evaluate((frame) => (frame as HTMLIFrameElement).contentDocument)).toBeNull();
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(masterId);
    expect(JSON.stringify(result)).not.toContain('"cvv"');

    expect(reports).toHaveLength(1);
    const state = reports[0] as AfterSubmitReport;
    // At the submit, the merchant's form holds no CVV, and the page has no more copies of those digits than
    // before they were typed, also once the payment was answered.
    expect(state.submitSnapshot?.fields.map(([name]) => name)).not.toContain('card.cvv');
    expect(state.submitSnapshot?.fields.map(([, value]) => value)).not.toContain(cvv);
    expect(occurrences(state.submitSnapshot?.html ?? '')).toBe(before);
    expect(occurrences(state.html)).toBe(before);
    // Nothing the frames posted to the page carries it (the gateway's answer included).
    const strings = stringsIn(state.messagesSeen);
    expect(strings.length).toBeGreaterThan(0);
    expect(strings).not.toContain(cvv);
    expect(strings.filter((text) => /cvv/i.test(text) && text !== 'cvv')).toEqual([]);
    // Only the gateway's frame sent it, with the payment; no request of the merchant page did.
    expect(payments).toHaveLength(1);
    expect(payments[0]?.frameUrl).toMatch(new RegExp(`^${env.site.gatewayUrl}/v1/static/[^/]+/fields\\.html#`));
    const sent = new URLSearchParams(payments[0]?.body);
    expect(sent.get('card.cvv')).toBe(cvv);
    expect(sent.get('registrationId')).toBe(masterId);
    expect(sent.get('paymentBrand')).toBe('MASTER');
    expect(sent.get('csrf')).toBe('merchant-csrf-token');
    const fromMerchantPage = requests.filter((request) => request.frameUrl.startsWith(env.site.merchantUrl));
    expect(fromMerchantPage.length).toBeGreaterThan(0);
    expect(fromMerchantPage.filter((request) => /cvv/i.test(request.body + request.url))).toEqual([]);
  });

  it('asks 4 digits for a stored American Express card; Tab reaches the CVV field and Enter in it pays', async () => {
    const { page, payments } = await open(offering(amexId), { registrations: { requireCvv: 'true' } });
    await cvvInput(page).waitFor();
    await page.locator('input[name="registrationId"]').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Enter');
    await page.locator(`${selectedGroup} .wpwl-hint-cvvError`).waitFor();
    expect(payments).toHaveLength(0);
    // Focus stays in (is sent back to) the CVV field, where the fourth digit goes.
    await page.keyboard.type('4');
    await page.keyboard.press('Enter');
    const result = await resultOf(page);
    expect(result.registrationId).toBe(amexId);
    expect(result.paymentBrand).toBe('AMEX');
    expect(new URLSearchParams(payments[0]?.body).get('card.cvv')).toBe('1234');
  });

  it('hides the other payment forms until the shopper asks for them (hideInitialPaymentForms)', async () => {
    const { page } = await open(offering(visaId), { registrations: { hideInitialPaymentForms: 'true' } });
    const cardContainer = page.locator('.wpwl-container-card');
    expect(await cardContainer.count()).toBe(1);
    expect(await cardContainer.isVisible()).toBe(false);
    const show = page.locator('button[data-action="show-initial-forms"]');
    expect(await show.innerText()).toBe('Show other payment methods');
    expect(await show.getAttribute('type')).toBe('button');
    await show.click();
    await expect.poll(() => cardContainer.isVisible()).toBe(true);
    expect(await show.count()).toBe(0);
    // Focus goes to the forms that appeared, not to the page.
    expect(await page.evaluate(() => document.activeElement?.className)).toContain('wpwl-control-cardNumber');
    // The shopper can pay with a new card instead.
    await fillCard(page, { number: '5454545454545454' });
    await page.locator('form.wpwl-form-card button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.paymentBrand).toBe('MASTER');
    expect(result.registrationId).toBeUndefined();
  });

  it('shows the stored cards once, above the first of several forms, and holds back every other form', async () => {
    const { page } = await open(offering(visaId), { registrations: { hideInitialPaymentForms: true } }, 'two-forms');
    expect(await page.locator('#wpwl-registrations').count()).toBe(1);
    expect(await page.locator('section#first #wpwl-registrations').count()).toBe(1);
    const cardForms = page.locator('.wpwl-container-card');
    expect(await cardForms.count()).toBe(2);
    expect(await cardForms.evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).offsetParent !== null))).toEqual([false, false]);
    await page.locator('button[data-action="show-initial-forms"]').click();
    await expect.poll(() => cardForms.evaluateAll((nodes) => nodes.map((node) => (node as HTMLElement).offsetParent !== null))).toEqual([true, true]);
  });

  it('stores a new card through the card form (a merchant-injected createRegistration checkbox) and offers it one-click next time', async () => {
    const first = await open(offering(visaId));
    // What merchants do in onReady: a checkbox of their own in the card form.
    await first.page.locator('form.wpwl-form-card').evaluate((form) => {
      const label = document.createElement('label');
      label.innerHTML = '<input type="checkbox" name="createRegistration" value="true" checked> Store payment details for next time';
      form.querySelector('.wpwl-group-submit')?.before(label);
    });
    await fillCard(first.page, { number: '5454545454545454', holder: 'Widget Shopper', expiry: '11/33' });
    await first.page.locator('form.wpwl-form-card button.wpwl-button-pay').click();
    const stored = await resultOf(first.page);
    expect(stored.result.code).toBe('000.100.110');
    expect(stored.registrationId).toMatch(/^[0-9a-f]{32}$/);

    const next = await open(offering(stored.registrationId as string, visaId));
    const group = next.page.locator('.wpwl-group-registration').first();
    expect(await group.locator('.wpwl-wrapper-registration-number').innerText()).toBe('Card ending in 5454');
    expect(await group.locator('.wpwl-wrapper-registration-expiry').innerText()).toBe('Expires 11/33');
    expect(await group.locator('.wpwl-wrapper-registration-holder').innerText()).toBe('Widget Shopper');
    await next.page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const paid = await resultOf(next.page);
    expect(paid.result.code).toBe('000.100.110');
    expect(paid.registrationId).toBe(stored.registrationId);
    expect(paid.card).toMatchObject({ last4Digits: '5454', holder: 'Widget Shopper' });
  });

  it('makes no payment when onBeforeSubmitOneClickCard returns false or calls preventDefault(), with this = the form', async () => {
    const { page, payments, checkoutId, reports } = await open(offering(visaId, masterId));
    const pay = page.locator('.wpwl-form-registrations button.wpwl-button-pay');
    for (const cancelWith of ['false', 'preventDefault'] as const) {
      await page.evaluate((value) => ((window as unknown as PageState).cancelWith = value), cancelWith);
      await pay.click();
    }
    await expect.poll(() => calls(page)).toHaveLength(2);
    expect(await calls(page)).toEqual([
      'onBeforeSubmitOneClickCard wpwl-form wpwl-form-registrations wpwl-clearfix',
      'onBeforeSubmitOneClickCard wpwl-form wpwl-form-registrations wpwl-clearfix',
    ]);
    await page.waitForTimeout(300);
    expect(payments).toHaveLength(0);
    expect(page.url()).not.toContain('/result');
    expect(await checkoutStatus(checkoutId)).toBe('000.200.000');
    // Allowed again, the same form pays, and onAfterSubmit follows.
    await page.evaluate(() => delete (window as unknown as PageState).cancelWith);
    await pay.click();
    expect((await resultOf(page)).registrationId).toBe(visaId);
    expect(reports[0]?.calls.slice(2)).toEqual(['onBeforeSubmitOneClickCard wpwl-form wpwl-form-registrations wpwl-clearfix', 'onAfterSubmit']);
  });

  it("pays through wpwl.executePayment('wpwl-container-registration') with the chosen card", async () => {
    const { page } = await open(offering(visaId, masterId));
    await page.locator('input[name="registrationId"]').nth(1).check();
    await page.evaluate(() => (window as unknown as { wpwl: { executePayment(container: string): void } }).wpwl.executePayment('wpwl-container-registration'));
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(masterId);
  });

  it('shows the refusal of a registration the checkout does not offer, and pays with an offered one after', async () => {
    const { page } = await open(offering(visaId, masterId));
    // A page script swaps in the id of a card this checkout does not offer.
    await page.locator('input[name="registrationId"]').first().evaluate((input, id) => ((input as HTMLInputElement).value = id), amexId);
    const refused = page.waitForResponse((response) => /\/payment$/.test(response.url()) && response.request().method() === 'POST');
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const answer = await refused;
    expect(answer.status()).toBe(400);
    expect(((await answer.json()) as { result: { code: string } }).result.code).toBe('200.300.404');
    const message = page.locator('.wpwl-form-registrations div.wpwl-message.wpwl-has-error');
    await message.waitFor();
    expect(await message.getAttribute('role')).toBe('alert');
    expect(await message.innerText()).toBe('The card was not accepted. Please check the card details.');
    expect(page.url()).not.toContain('/result');
    await page.locator('input[name="registrationId"]').nth(1).check();
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    expect((await resultOf(page)).registrationId).toBe(masterId);
  });

  it('ends a declined one-click payment on the result URL, where the merchant reads the decline', async () => {
    // A stored card whose holder names a decline (COMPAT §7), registered server to server (no issuer asked).
    const registered = await fetch(`${env.site.gatewayUrl}/v1/registrations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.site.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        entityId: env.site.entityId,
        paymentBrand: 'VISA',
        'card.number': VISA_CARD.number,
        'card.holder': '800.100.203',
        'card.expiryMonth': VISA_CARD.expiryMonth,
        'card.expiryYear': VISA_CARD.expiryYear,
        'card.cvv': VISA_CARD.cvv,
      }),
    });
    const declining = ((await registered.json()) as { id: string }).id;
    const { page, checkoutId } = await open(offering(declining));
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(new URL(page.url()).searchParams.get('resourcePath')).toBe(`/v1/checkouts/${checkoutId}/payment`);
    expect(result).toMatchObject({ result: { code: '800.100.203' }, registrationId: declining, ndc: checkoutId });
  });

  it('runs the 3-D Secure challenge of an enrolled stored card in the widget frame and ends on the result page', async () => {
    const { page } = await open({ ...offering(visaId), 'customParameters[3DS2_flow]': 'challenge' });
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const challenge = page.frameLocator('.wpwl-container-registration iframe.wpwl-target');
    await challenge.locator('input#otp').fill('1234');
    // The stored cards wait, hidden, while the challenge runs in their container.
    expect(await page.locator('.wpwl-form-registrations').isVisible()).toBe(false);
    await challenge.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(visaId);
    expect(result.threeDSecure).toMatchObject({ eci: '05' });
  });

  it('pays one-click with a CVV on a page with the strict CSP, with no policy violation', async () => {
    const { page, reports } = await open(offering(visaId, masterId), { registrations: { requireCvv: true } }, 'csp');
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await expect.poll(() => page.locator('.wpwl-form-registrations button.wpwl-button-pay').evaluate((button) => getComputedStyle(button).borderRadius)).toBe('4px');
    await page.locator('input[name="registrationId"]').nth(1).check();
    await cvvInput(page).fill('123');
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    const result = await resultOf(page);
    // The page's own securitypolicyviolation listener saw nothing up to the submit's answer.
    expect(reports[0]?.violations).toEqual([]);
    expect(result.result.code).toBe('000.100.110');
    expect(result.registrationId).toBe(masterId);
    expect(violations).toEqual([]);
  });
});
