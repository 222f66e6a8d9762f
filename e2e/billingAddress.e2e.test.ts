import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The billing address in the card form (issue 35, point 5), on a merchant page written as the platform documents it
 * (`wpwlOptions.billingAddress` prefilling it, `mandatoryBillingFields` requiring all but street2), under the strict
 * Content-Security-Policy: the platform's DOM, validated like the card's fields, localized, and sent with the payment
 * as `billing.*`, which the merchant's server reads back with the payment.
 */

const env = useMerchantSiteAndBrowser();

async function open(checkout: Record<string, string> = {}, locale = 'en'): Promise<{ page: Page; violations: string[] }> {
  const page = env.track(await env.browser.newPage());
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  page.on('pageerror', (error) => violations.push(String(error)));
  const checkoutId = await env.site.createCheckout(checkout);
  const response = await page.goto(env.site.pageUrl('csp-billing-address', { checkoutId, locale }));
  expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
  await page.locator('.wpwl-form-card .wpwl-group-billing').waitFor();
  return { page, violations };
}

const billing = (page: Page) => page.locator('form.wpwl-form-card div.wpwl-group.wpwl-group-billing');
const pageViolations = (page: Page) => page.evaluate(() => (window as unknown as { violations: string[] }).violations);

describe('the billing address in the card form', () => {
  it('shows the platform\'s fields prefilled from billingAddress, before the pay button', async () => {
    const { page, violations } = await open();
    const group = billing(page);
    const controls = await group.locator('.wpwl-control').evaluateAll((elements) =>
      elements.map((element) => ({
        tag: element.tagName.toLowerCase(),
        classes: element.className,
        name: element.getAttribute('name'),
        value: (element as HTMLInputElement).value,
        placeholder: element.getAttribute('placeholder'),
        label: element.getAttribute('aria-label'),
        required: element.getAttribute('aria-required'),
      })),
    );
    expect(controls).toEqual([
      { tag: 'select', classes: 'wpwl-control wpwl-control-country', name: 'billing.country', value: 'DE', placeholder: null, label: 'Country', required: 'true' },
      { tag: 'input', classes: 'wpwl-control wpwl-control-state wpwl-control-stateText', name: 'billing.state', value: '', placeholder: 'State or region', label: 'State or region', required: 'true' },
      { tag: 'input', classes: 'wpwl-control wpwl-control-city', name: 'billing.city', value: 'Berlin', placeholder: 'City', label: 'City', required: 'true' },
      { tag: 'input', classes: 'wpwl-control wpwl-control-postcode', name: 'billing.postcode', value: '10115', placeholder: 'Postcode', label: 'Postcode', required: 'true' },
      { tag: 'input', classes: 'wpwl-control wpwl-control-street1', name: 'billing.street1', value: 'Invalidenstraße 117', placeholder: 'Street and house number', label: 'Street and house number', required: 'true' },
      { tag: 'input', classes: 'wpwl-control wpwl-control-street2', name: 'billing.street2', value: '', placeholder: 'Address line 2 (optional)', label: 'Address line 2', required: null },
    ]);
    expect(await group.locator('.wpwl-label-billing').textContent()).toBe('Billing address');
    expect(await group.locator('select.wpwl-control-country option:checked').textContent()).toBe('Germany');
    // Every country of ISO 3166-1 alpha-2, after the "Select a country" choice.
    expect(await group.locator('select.wpwl-control-country option').count()).toBe(250);
    // In the card form, after the card's fields and before the pay button.
    const order = await page.locator('form.wpwl-form-card > div.wpwl-group').evaluateAll((groups) => groups.map((group) => group.className.split(' ')[1]));
    expect(order).toEqual(['wpwl-group-brand', 'wpwl-group-cardNumber', 'wpwl-group-expiry', 'wpwl-group-cardHolder', 'wpwl-group-cvv', 'wpwl-group-billing', 'wpwl-group-submit']);
    expect(await pageViolations(page)).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('blocks the payment on a missing mandatory field, shows its error like the card\'s, then pays with the address as billing.*', async () => {
    const { page, violations } = await open();
    await fillCard(page);
    await page.locator('button.wpwl-button-pay').click();
    const state = billing(page).locator('input.wpwl-control-state');
    await expect.poll(() => state.getAttribute('class')).toContain('wpwl-has-error');
    expect(await billing(page).locator('.wpwl-hint-stateError').textContent()).toBe('Enter a state or region: letters, digits and dots only');
    expect(await state.getAttribute('aria-invalid')).toBe('true');
    expect(await billing(page).locator('.wpwl-hint').count()).toBe(1);
    expect(await page.locator('button.wpwl-button-pay.wpwl-button-error').count()).toBe(1);
    expect(page.url()).not.toContain('/result');

    // A postcode the gateway would refuse shows its error once the shopper leaves the field.
    const postcode = billing(page).locator('input.wpwl-control-postcode');
    await postcode.fill('10115!');
    await postcode.blur();
    await billing(page).locator('.wpwl-hint-postcodeError').waitFor();
    await postcode.fill('10115');
    await state.fill('BE');
    await expect.poll(() => billing(page).locator('.wpwl-hint').count()).toBe(0);
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    // The optional street2, left empty, is not sent.
    expect(result.billing).toEqual({ country: 'DE', state: 'BE', city: 'Berlin', postcode: '10115', street1: 'Invalidenstraße 117' });
    expect(violations).toEqual([]);
  });

  it('keeps what the merchant\'s server set on the checkout, and fills in what it left empty', async () => {
    const { page } = await open({ 'billing.city': 'Hamburg', 'billing.postcode': '20095' });
    await fillCard(page);
    await billing(page).locator('input.wpwl-control-state').fill('HH');
    await billing(page).locator('input.wpwl-control-street2').fill('Hinterhaus');
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.billing).toEqual({ country: 'DE', state: 'HH', city: 'Hamburg', postcode: '20095', street1: 'Invalidenstraße 117', street2: 'Hinterhaus' });
  });

  it.each([
    { locale: 'ar', title: 'عنوان الفوترة', city: 'المدينة', country: 'ألمانيا', error: 'يُرجى إدخال الولاية أو المنطقة: أحرف وأرقام ونقاط فقط', dir: 'rtl' },
    { locale: 'de', title: 'Rechnungsadresse', city: 'Ort', country: 'Deutschland', error: 'Geben Sie ein Bundesland oder eine Region ein: nur Buchstaben, Ziffern und Punkte', dir: null },
    { locale: 'ja', title: '請求先住所', city: '市区町村', country: 'ドイツ', error: '州・地域を入力してください（文字、数字、ピリオドのみ）', dir: null },
  ])('speaks the widget\'s language ($locale): labels, placeholders, errors and the countries\' names', async ({ locale, title, city, country, error, dir }) => {
    const { page, violations } = await open({}, locale);
    const group = billing(page);
    expect(await group.locator('.wpwl-label-billing').textContent()).toBe(title);
    expect(await group.locator('input.wpwl-control-city').getAttribute('placeholder')).toBe(city);
    expect(await group.locator('select.wpwl-control-country option:checked').textContent()).toBe(country);
    expect(await page.locator('.wpwl-container-card').getAttribute('dir')).toBe(dir);
    await page.locator('button.wpwl-button-pay').click();
    await expect.poll(() => group.locator('.wpwl-hint-stateError').textContent()).toBe(error);
    expect(await pageViolations(page)).toEqual([]);
    expect(violations).toEqual([]);
  });
});
