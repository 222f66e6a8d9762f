import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASYNC_CHECKOUT_DATA } from './support/asyncBrands.ts';
import { MASTER_CARD, offering, storeCard, VISA_CARD } from './support/registrations.ts';
import { chooseMethod } from '../ci/playwright.ts';
import { fillCard, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Accessibility of the card form (issue 4, point 6), the 3-D Secure frame and the redirect-brand forms (issue 5),
 * the stored cards (one-click) form, the direct-debit, giropay and iDEAL forms next to the card form (issue 14), and
 * the asynchronous brands' forms with a cash voucher in the widget frame (issue 20).
 */

const env = useMerchantSiteAndBrowser();

async function openStyled(style: string, extra: Record<string, unknown> = {}): Promise<Page> {
  // axe needs a page of an explicit browser context.
  const page = await (await env.browser.newContext()).newPage();
  await page.addInitScript((options) => {
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = options;
  }, { style, ...extra });
  await page.goto(env.site.pageUrl('plain'));
  await page.locator('.wpwl-form-card').waitFor();
  await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
  return page;
}

async function seriousViolations(page: Page, ...include: string[]): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  for (const selector of include.length > 0 ? include : ['.wpwl-container']) builder.include(selector);
  const results = await builder.analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

describe('accessibility of the card form', () => {
  it.each([['card'], ['plain']])('has no serious or critical axe violation in the %s style, also with errors showing', async (style) => {
    const page = await openStyled(style);
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('button.wpwl-button-pay').click();
    await page.locator('.wpwl-hint-cardHolderError').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });

  it.each([['card'], ['plain']])('has no serious or critical violation in the 3-D Secure frame and the challenge page in it (%s style)', async (style) => {
    const page = await openStyled(style);
    await fillCard(page, { number: '4200000000000042' });
    await page.locator('button.wpwl-button-pay').click();
    const challenge = page.frameLocator('iframe.wpwl-target');
    await challenge.locator('input#otp').waitFor();
    const results = await new AxeBuilder({ page }).include('.wpwl-container').analyze();
    // axe looked inside the frame: the challenge's code input is among the checked nodes.
    const checkedInFrame = [...results.passes, ...results.violations].flatMap((rule) => rule.nodes).filter((node) => node.target.length > 1);
    expect(checkedInFrame.map((node) => String(node.target[1])).join(' ')).toContain('otp');
    const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
    // The frame has an accessible name and the code input a label.
    expect(await page.locator('iframe.wpwl-target').getAttribute('title')).toBe('Card authentication by your bank');
    expect(await challenge.getByLabel(/code/i).count()).toBe(1);
    await page.context().close();
  });

  it('has no serious or critical violation on the redirect-brand forms, whose logos and buttons have names', async () => {
    const page = await (await env.browser.newContext()).newPage();
    await page.goto(env.site.pageUrl('redirect-brands'));
    await page.locator('.wpwl-container-onlineTransfer').waitFor({ state: 'attached' });
    // The methods' chooser too (card, PayPal, Sofort in one form).
    expect(await seriousViolations(page, '.wpwl-chooser-options', '.wpwl-container-card')).toEqual([]);
    await chooseMethod(page, 'wpwl-container-virtualAccount-PAYPAL');
    expect(await seriousViolations(page, '.wpwl-container-virtualAccount')).toEqual([]);
    const snapshot = await page.locator('.wpwl-container-virtualAccount-PAYPAL').ariaSnapshot();
    expect(snapshot).toContain('img "PayPal"');
    expect(snapshot).toContain('button "Pay now"');
    await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
    expect(await seriousViolations(page, '.wpwl-container-onlineTransfer')).toEqual([]);
    expect(await page.locator('.wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG').ariaSnapshot()).toContain('img "Sofort"');
    await page.context().close();
  });

  it('gives every control an accessible name, inside the hosted fields too', async () => {
    const page = await openStyled('card');
    const snapshot = await page.locator('.wpwl-container').ariaSnapshot();
    for (const name of ['Brand', 'Card Number', 'Expiry Date', 'Card holder', 'CVV', 'Pay now']) expect(snapshot).toContain(name);
    expect(await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').getAttribute('aria-label')).toBe('Card Number');
    expect(await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').getAttribute('aria-label')).toBe('CVV');
    await page.context().close();
  });

  it('marks invalid fields with aria-invalid and aria-describedby pointing at their hint, and announces errors', async () => {
    const page = await openStyled('plain');
    await page.locator('button.wpwl-button-pay').click();
    const holder = page.locator('input.wpwl-control-cardHolder');
    await expect.poll(() => holder.getAttribute('aria-invalid')).toBe('true');
    const hintId = await holder.getAttribute('aria-describedby');
    expect(hintId).toBeTruthy();
    expect(await page.locator(`#${hintId}`).getAttribute('class')).toContain('wpwl-hint-cardHolderError');
    expect(await page.locator(`#${hintId}`).getAttribute('role')).toBe('alert');
    const numberHint = await page.locator('iframe.wpwl-control-cardNumber').getAttribute('aria-describedby');
    expect(await page.locator(`#${numberHint}`).innerText()).toBe('Invalid card number or brand');
    await page.context().close();
  });

  it('can be paid with the keyboard alone, with focus always visible', async () => {
    const page = await openStyled('card');
    await page.locator('select.wpwl-control-brand').focus();
    const outlineOfFocused = () =>
      page.evaluate(() => {
        const active = document.activeElement as HTMLElement;
        const style = getComputedStyle(active);
        return style.outlineStyle !== 'none' && style.outlineWidth !== '0px';
      });
    await page.keyboard.press('Tab');
    await page.keyboard.type('4200000000000000');
    await page.keyboard.press('Tab');
    expect(await outlineOfFocused()).toBe(true);
    await page.keyboard.type('0534');
    await page.keyboard.press('Tab');
    expect(await outlineOfFocused()).toBe(true);
    await page.keyboard.type('Jane Jones');
    await page.keyboard.press('Tab');
    await page.keyboard.type('123');
    await page.keyboard.press('Tab');
    expect(await outlineOfFocused()).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/result\?id=/);
    expect(JSON.parse(await page.locator('#result').innerText()).result.code).toBe('000.100.110');
    await page.context().close();
  });
});

describe('accessibility of the billing address in the card form', () => {
  it.each([['card'], ['plain']])('has no serious or critical axe violation in the %s style, also with its errors showing', async (style) => {
    const page = await openStyled(style, { billingAddress: { city: 'Berlin' } });
    await page.locator('.wpwl-group-billing select.wpwl-control-country').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('button.wpwl-button-pay').click();
    await page.locator('.wpwl-hint-countryError').waitFor();
    expect(await page.locator('.wpwl-group-billing .wpwl-has-error').count()).toBe(4);
    expect(await seriousViolations(page)).toEqual([]);
    await page.context().close();
  });
});

describe('accessibility of the stored cards (one-click)', () => {
  let offered: Record<string, string> = {};
  beforeAll(async () => {
    offered = offering(await storeCard(env.site, VISA_CARD), await storeCard(env.site, MASTER_CARD));
  });

  async function openStoredCards(options: Record<string, unknown>): Promise<Page> {
    const page = await (await env.browser.newContext()).newPage();
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
    }, options);
    await page.goto(env.site.pageUrl('plain', { checkoutId: await env.site.createCheckout(offered) }));
    await page.locator('#wpwl-registrations .wpwl-form-registrations').waitFor();
    return page;
  }
  const cvvField = (page: Page) => page.locator('.wpwl-group-registration.wpwl-selected').frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field');

  it.each([
    ['card', false],
    ['plain', false],
    ['card', true],
    ['plain', true],
  ])('has no serious or critical axe violation in the %s style (requireCvv %s), and with the CVV error showing when asked', async (style, requireCvv) => {
    const page = await openStoredCards({ style, registrations: { requireCvv, hideInitialPaymentForms: true } });
    // The show-other-payment-methods button is part of what is checked.
    await page.locator('button[data-action="show-initial-forms"]').waitFor();
    if (requireCvv) await cvvField(page).waitFor();
    expect(await seriousViolations(page, '#wpwl-registrations')).toEqual([]);
    if (requireCvv) {
      await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
      await page.locator('.wpwl-hint-cvvError').waitFor();
      expect(await seriousViolations(page, '#wpwl-registrations')).toEqual([]);
    }
    await page.context().close();
  });

  it('names the stored cards (as radio buttons), their brands, the CVV field and the buttons', async () => {
    const page = await openStoredCards({ registrations: { requireCvv: true, hideInitialPaymentForms: true } });
    await cvvField(page).waitFor();
    const snapshot = await page.locator('#wpwl-registrations').ariaSnapshot();
    expect(snapshot).toContain('form "Your stored cards"');
    expect(snapshot).toContain('radio "Visa Card ending in 0000 Expires 05/34 Jane Jones" [checked]');
    expect(snapshot).toContain('radio "Mastercard Card ending in 5454 Expires 12/30 John Smith"');
    expect(snapshot).toContain('button "Pay now"');
    expect(snapshot).toContain('button "Show other payment methods"');
    expect(await page.locator('.wpwl-selected iframe.wpwl-control-cvv').getAttribute('title')).toBe('CVV');
    expect(await cvvField(page).getAttribute('aria-label')).toBe('CVV');
    await page.context().close();
  });
});

describe('accessibility of the direct-debit, giropay and iDEAL forms next to the card form', () => {
  const DIRECT_DEBIT = '.wpwl-container-directDebit form.wpwl-form-directDebit-DIRECTDEBIT_SEPA';

  async function openAllFamilies(style: string): Promise<Page> {
    const page = await (await env.browser.newContext()).newPage();
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = { style: value };
    }, style);
    await page.goto(env.site.pageUrl('all-families'));
    await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').waitFor();
    return page;
  }

  /**
   * Rules that judge a whole document (it has one main landmark and a level-one heading, all its content is in
   * landmarks). axe applies them to every frame's document too, and the hosted fields' documents are single
   * controls embedded in the merchant's form: a main landmark or a heading there would only add noise to what a
   * screen reader announces inside the form. These rules still apply to everything of the widget in the
   * merchant's page.
   */
  const DOCUMENT_RULES = new Set(['landmark-one-main', 'page-has-heading-one', 'region']);
  const insideHostedField = (target: unknown[]) => target.length > 1 && /iframe|wpwl-control-(cardNumber|cvv)/.test(String(target[0]));

  /** Every axe violation, whatever its impact, in the widget's containers (the hosted fields' documents as said above). */
  async function allViolations(page: Page): Promise<string[]> {
    const results = await new AxeBuilder({ page }).include('.wpwl-container').analyze();
    // axe did look at the new forms: the IBAN input and the giropay logo are among the nodes it checked.
    const checked = [...results.passes, ...results.violations].flatMap((rule) => rule.nodes.map((node) => node.target.join(' '))).join(' ');
    expect(checked).toContain('wpwl-control-iban');
    expect(checked).toContain('wpwl-brand-GIROPAY');
    return results.violations
      .map((violation) => ({
        ...violation,
        nodes: violation.nodes.filter((node) => !(DOCUMENT_RULES.has(violation.id) && insideHostedField(node.target))),
      }))
      .filter((violation) => violation.nodes.length > 0)
      .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  }

  it.each([['card'], ['plain']])('has no axe violation in the %s style, also with the IBAN and holder errors showing', async (style) => {
    const page = await openAllFamilies(style);
    const containers = await page.evaluate(() => (window as unknown as { readyForms: { container: string }[] }).readyForms.map((form) => form.container));
    expect(containers).toEqual(['wpwl-container-card', 'wpwl-container-directDebit', 'wpwl-container-onlineTransfer-GIROPAY', 'wpwl-container-onlineTransfer-IDEAL']);
    expect(await allViolations(page)).toEqual([]);
    await chooseMethod(page, 'wpwl-container-directDebit');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.holder"]`).fill('Jo');
    await page.locator(`${DIRECT_DEBIT} input[name="bankAccount.iban"]`).fill('DE23 1000 0000 1234 5678 91');
    await page.locator(`${DIRECT_DEBIT} button.wpwl-button-pay`).click();
    await page.locator(`${DIRECT_DEBIT} .wpwl-hint-ibanError`).waitFor();
    await page.locator(`${DIRECT_DEBIT} .wpwl-hint-accountHolderError`).waitFor();
    expect(await allViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('names the direct-debit controls, its logo and the mandate, and ties the IBAN error to its field as an alert', async () => {
    const page = await openAllFamilies('card');
    await chooseMethod(page, 'wpwl-container-directDebit');
    const snapshot = await page.locator('.wpwl-container-directDebit').ariaSnapshot();
    for (const name of ['img "SEPA Direct Debit"', 'textbox "Account holder"', 'textbox "IBAN"', 'button "Pay now"', 'By paying, you authorise the merchant']) {
      expect(snapshot).toContain(name);
    }
    for (const [brand, label] of [['GIROPAY', 'giropay'], ['IDEAL', 'iDEAL']]) {
      await chooseMethod(page, `wpwl-container-onlineTransfer-${brand}`);
      expect(await page.locator(`.wpwl-container-onlineTransfer-${brand}`).ariaSnapshot(), brand).toContain(`img "${label}"`);
    }
    await chooseMethod(page, 'wpwl-container-directDebit');
    const iban = page.locator(`${DIRECT_DEBIT} input[name="bankAccount.iban"]`);
    expect(await iban.getAttribute('aria-invalid')).toBeNull();
    await iban.fill('DE00 1234');
    await iban.blur();
    await expect.poll(() => iban.getAttribute('aria-invalid')).toBe('true');
    const hint = page.locator(`#${await iban.getAttribute('aria-describedby')}`);
    expect(await hint.getAttribute('class')).toContain('wpwl-hint-ibanError');
    expect(await hint.getAttribute('role')).toBe('alert');
    expect(await hint.innerText()).toBe('Invalid IBAN');
    await page.context().close();
  });
});

describe("accessibility of the asynchronous brands' forms", () => {
  async function openAsyncBrands(options: Record<string, unknown>): Promise<Page> {
    const page = await (await env.browser.newContext()).newPage();
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
    }, options);
    await page.goto(env.site.pageUrl('async-brands', { ...ASYNC_CHECKOUT_DATA }));
    await page.waitForFunction(() => Array.isArray((window as unknown as { readyForms?: unknown }).readyForms));
    return page;
  }

  /** Every axe violation, whatever its impact, in the widget's containers (no hosted field on this page). */
  async function violationsIn(page: Page, mustCheck: string): Promise<string[]> {
    const results = await new AxeBuilder({ page }).include('.wpwl-container').analyze();
    const checked = [...results.passes, ...results.violations].flatMap((rule) => rule.nodes.map((node) => node.html)).join(' ');
    expect(checked).toContain(mustCheck);
    return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
  }

  it.each([
    ['card', true],
    ['plain', false],
  ])('has no axe violation in the %s style (labels shown: %s); the country select and every logo have names', async (style, showLabels) => {
    const page = await openAsyncBrands({ style, showLabels });
    await chooseMethod(page, 'wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG');
    expect(await violationsIn(page, 'wpwl-control-country')).toEqual([]);
    expect(await page.locator('.wpwl-container-onlineTransfer-SOFORTUEBERWEISUNG').ariaSnapshot()).toContain('combobox "Country"');
    for (const [container, label] of [
      ['onlineTransfer-SOFORTUEBERWEISUNG', 'Sofort'],
      ['virtualAccount-KLARNA_INVOICE', 'Klarna invoice'],
      ['virtualAccount-PAYSAFECARD', 'paysafecard'],
      ['onlineTransfer-BOLETO', 'Boleto Bancário'],
      ['prepayment-PREPAYMENT', 'Prepayment'],
    ]) {
      await chooseMethod(page, `wpwl-container-${container}`);
      const snapshot = await page.locator(`.wpwl-container-${container}`).ariaSnapshot();
      expect(snapshot, container).toContain(`img "${label}"`);
      expect(snapshot, container).toContain('button "Pay now"');
    }
    await page.context().close();
  });

  it('has no axe violation with a cash voucher shown in the widget frame', async () => {
    const page = await openAsyncBrands({});
    await chooseMethod(page, 'wpwl-container-onlineTransfer-BOLETO');
    await page.locator('.wpwl-container-onlineTransfer-BOLETO button.wpwl-button-pay').click();
    await page.frameLocator('.wpwl-container-onlineTransfer-BOLETO iframe.wpwl-target').locator('a#continue').waitFor();
    expect(await violationsIn(page, 'voucher-number')).toEqual([]);
    await page.context().close();
  });
});
