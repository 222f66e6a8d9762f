import { AxeBuilder } from '@axe-core/playwright';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Registration-only checkouts in the widget (COMPAT §10): `paymentWidgets.js?checkoutId=<id>/registration` renders
 * the card form without an amount, its button says "Register" (labels.register), it keeps the payment form's DOM,
 * callbacks, hosted fields, strict-CSP behaviour and 3-D Secure frame, and the shopper lands on the result URL with
 * `resourcePath=/v1/checkouts/<id>/registration`, where the merchant's server reads the registration.
 */

const env = useMerchantSiteAndBrowser();

const CHALLENGE_CARD = '4200000000000042';
const REGISTRATION_ID = /^[0-9a-f]{32}$/;

interface Opened {
  readonly page: Page;
  readonly checkoutId: string;
  /** Console reports of policy violations, from every frame. */
  readonly violations: string[];
  /** The shopper submits to /registration, with the frame that sent each. */
  readonly submits: { readonly frameUrl: string; readonly body: URLSearchParams }[];
}

/**
 * Opens `pageName` for a new registration-only checkout, with wpwlOptions (`extra`) and callbacks that record
 * into window.calls (functions cannot pass through addInitScript's argument, so they are defined inside it).
 */
async function openRegistration(pageName: string, extra: Record<string, unknown> = {}, context = false): Promise<Opened> {
  const checkoutId = await env.site.createRegistrationCheckout();
  const page = env.track(context ? await (await env.browser.newContext()).newPage() : await env.browser.newPage());
  const violations: string[] = [];
  const submits: Opened['submits'] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/(payment|registration)$/.test(request.url())) {
      submits.push({ frameUrl: request.frame().url(), body: new URLSearchParams(request.postData() ?? '') });
    }
  });
  await page.addInitScript((options) => {
    const calls: string[] = [];
    (window as unknown as { calls: string[] }).calls = calls;
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
      ...options,
      onReady(forms: { container: string }[]) {
        calls.push(`onReady ${forms.map((form) => form.container).join(',')}`);
      },
      onBeforeSubmitCard(this: HTMLElement) {
        calls.push(`onBeforeSubmitCard ${this.className.split(' ').filter((name) => name.startsWith('wpwl-form')).join(' ')}`);
      },
      onAfterSubmit() {
        calls.push('onAfterSubmit');
      },
      onLoadThreeDIframe(this: unknown) {
        calls.push(`onLoadThreeDIframe ${this instanceof HTMLIFrameElement ? this.className : String(this)}`);
      },
    };
  }, extra);
  await page.goto(env.site.pageUrl(pageName, { checkoutId: `${checkoutId}/registration` }));
  await page.locator('.wpwl-form-card').waitFor();
  await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
  return { page, checkoutId, violations, submits };
}

const calls = (page: Page) => page.evaluate(() => (window as unknown as { calls: string[] }).calls);
const pageViolations = (page: Page) => page.evaluate(() => (window as unknown as { violations?: string[] }).violations ?? []);
const registerButton = (page: Page) => page.locator('.wpwl-container-card button.wpwl-button-pay');

/** What the merchant's result page read from the gateway, and the resourcePath it was sent with. */
async function registrationResult(page: Page, checkoutId: string) {
  const result = await resultOf(page);
  const url = new URL(page.url());
  expect(url.searchParams.get('id')).toBe(checkoutId);
  expect(url.searchParams.get('resourcePath')).toBe(`/v1/checkouts/${checkoutId}/registration`);
  return result;
}

/** The merchant's server, reading a checkout's result again with its token. */
async function readAgain(checkoutId: string): Promise<{ result: { code: string } }> {
  const response = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/registration?entityId=${env.site.entityId}`, {
    headers: { Authorization: `Bearer ${env.site.token}` },
  });
  return (await response.json()) as { result: { code: string } };
}

describe('the registration widget', () => {
  it.each([
    ['en', 'Register'],
    ['de', 'Registrieren'],
  ])('registers a card under the strict CSP (locale %s: "%s"), with the payment form DOM and callbacks', async (locale, label) => {
    // Cards, PayPal and Sofort on the page: a registration-only checkout shows the card form alone.
    const { page, checkoutId, violations, submits } = await openRegistration('csp-redirect', { locale });
    await expect.poll(() => registerButton(page).innerText()).toBe(label);
    expect(await page.locator('.wpwl-container').count()).toBe(1);
    expect(await page.locator('.wpwl-container-virtualAccount, .wpwl-container-onlineTransfer, #wpwl-registrations').count()).toBe(0);
    // The payment form's DOM (COMPAT §4), posting to /registration; no amount anywhere.
    const form = page.locator('.wpwl-container-card > form.wpwl-form.wpwl-form-card');
    expect(await form.getAttribute('action')).toBe(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/registration`);
    for (const field of ['brand', 'cardNumber', 'expiry', 'cardHolder', 'cvv', 'submit']) {
      expect(await form.locator(`div.wpwl-group.wpwl-group-${field}.wpwl-clearfix`).count(), field).toBe(1);
    }
    expect(await form.locator('iframe.wpwl-control.wpwl-control-cardNumber').count()).toBe(1);
    expect(await form.locator('iframe.wpwl-control.wpwl-control-cvv').count()).toBe(1);
    expect(await form.locator('input.wpwl-control-cardHolder[name="card.holder"]').count()).toBe(1);
    expect(await form.locator('button.wpwl-button.wpwl-button-pay[type="submit"]').count()).toBe(1);
    expect(await page.locator('.wpwl-container').innerText()).not.toMatch(/EUR|\d[.,]\d\d/);
    // The widget's stylesheet applied (style-src allows the gateway).
    await expect.poll(() => registerButton(page).evaluate((button) => getComputedStyle(button).borderRadius)).toBe('4px');
    expect(await calls(page)).toEqual(['onReady wpwl-container-card']);

    await fillCard(page);
    expect(await pageViolations(page)).toEqual([]);
    await registerButton(page).click();
    const result = await registrationResult(page, checkoutId);
    expect(result).toMatchObject({
      id: expect.stringMatching(REGISTRATION_ID),
      paymentBrand: 'VISA',
      result: { code: '000.100.110' },
      card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
      customParameters: { SHOPPER_EndToEndIdentity: expect.stringMatching(/^[0-9a-f]{64}$/) },
      risk: { score: '0' },
      ndc: checkoutId,
    });
    expect(result.amount).toBeUndefined();
    // The card went from the hosted number field, never from the merchant page.
    expect(submits).toHaveLength(1);
    expect(submits[0]?.frameUrl).toContain('/fields.html');
    expect(submits[0]?.body.get('card.number')).toBe('4200000000000000');
    expect(violations).toEqual([]);
    // The registration is the merchant's, and the result was read once.
    const stored = await fetch(`${env.site.gatewayUrl}/v1/registrations/${result.id}?entityId=${env.site.entityId}`, {
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(stored.status).toBe(200);
    expect((await readAgain(checkoutId)).result.code).toBe('200.300.404');
  });

  it('calls onBeforeSubmitCard and onAfterSubmit, and ends a declined card verification on the result URL, where the merchant reads the decline', async () => {
    const { page, checkoutId } = await openRegistration('plain');
    // The callbacks' record outlives the page in its tab's sessionStorage (the result page has the same origin).
    await page.evaluate(() => {
      const recorded = (window as unknown as { calls: string[] }).calls;
      const push = recorded.push.bind(recorded);
      recorded.push = (...items: string[]) => {
        const length = push(...items);
        sessionStorage.setItem('calls', JSON.stringify(recorded));
        return length;
      };
    });
    await fillCard(page, { holder: '800.100.151' });
    await registerButton(page).click();
    const result = await registrationResult(page, checkoutId);
    // The verification's payment id, its decline, nothing stored (COMPAT §10).
    expect(result).toMatchObject({ id: expect.stringMatching(REGISTRATION_ID), result: { code: '800.100.151' }, ndc: checkoutId });
    expect(result.registrationId).toBeUndefined();
    expect(JSON.parse((await page.evaluate(() => sessionStorage.getItem('calls'))) ?? '[]')).toEqual([
      'onReady wpwl-container-card',
      'onBeforeSubmitCard wpwl-form wpwl-form-card',
      'onAfterSubmit',
    ]);
  });

  it('says what labels.register says, in any language', async () => {
    const { page } = await openRegistration('plain', { locale: 'de', labels: { register: 'Karte speichern' } });
    await expect.poll(() => registerButton(page).innerText()).toBe('Karte speichern');
    // The other labels are still German.
    await expect.poll(() => page.locator('.wpwl-label-cardNumber').innerText()).toContain('Kartennummer');
  });

  it('runs a 3-D Secure challenge in the widget frame under the strict CSP, then the merchant reads the registration', async () => {
    const { page, checkoutId, violations } = await openRegistration('csp');
    await fillCard(page, { number: CHALLENGE_CARD });
    await registerButton(page).click();
    const frame = page.locator('.wpwl-container-card > .wpwl-group-threeDSecure > iframe.wpwl-target');
    const challenge = page.frameLocator('.wpwl-container-card iframe.wpwl-target');
    await challenge.locator('input#otp').waitFor();
    expect(await frame.getAttribute('title')).toBe('Card authentication by your bank');
    expect((await frame.boundingBox())?.height).toBe(580);
    expect(await page.locator('form.wpwl-form-card').isVisible()).toBe(false);
    await expect.poll(() => calls(page)).toContain('onLoadThreeDIframe wpwl-target');
    expect(await pageViolations(page)).toEqual([]);
    await challenge.locator('input#otp').fill('1234');
    await challenge.locator('button#submit').click();
    const result = await registrationResult(page, checkoutId);
    expect(result).toMatchObject({
      id: expect.stringMatching(REGISTRATION_ID),
      paymentBrand: 'VISA',
      result: { code: '000.100.110' },
      card: { last4Digits: '0042' },
      ndc: checkoutId,
    });
    expect(violations).toEqual([]);
    expect((await readAgain(checkoutId)).result.code).toBe('200.300.404');
  });

  it('has no serious or critical axe violation, also with errors showing, and names its button "Register"', async () => {
    const { page } = await openRegistration('plain', { style: 'plain' }, true);
    const serious = async () => {
      const results = await new AxeBuilder({ page }).include('.wpwl-container').analyze();
      return results.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
    };
    expect(await serious()).toEqual([]);
    expect(await page.locator('.wpwl-container').ariaSnapshot()).toContain('button "Register"');
    await registerButton(page).click();
    await page.locator('.wpwl-hint-cardHolderError').waitFor();
    expect(await serious()).toEqual([]);
  });
});
