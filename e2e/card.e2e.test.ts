import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseBrand } from '../ci/playwright.ts';
import { brandLogos, fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/** A shopper pays on merchant pages written for this widget API (issue 3, point 9). */

const env = useMerchantSiteAndBrowser();

async function open(pageName: string, checkout: Record<string, string> = {}): Promise<Page> {
  const page = await env.browser.newPage();
  env.track(page);
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(env.site.pageUrl(pageName, checkout));
  await page.locator('.wpwl-form-card').first().waitFor();
  return page;
}

describe('the card widget on a merchant page', () => {
  it('renders the DOM contract and lets a shopper pay; the merchant reads the result', async () => {
    const page = await open('plain');
    for (const selector of [
      'div.wpwl-container.wpwl-container-card > form.wpwl-form.wpwl-form-card',
      'div.wpwl-group.wpwl-group-brand select.wpwl-control.wpwl-control-brand[name="paymentBrand"]',
      'div.wpwl-group.wpwl-group-cardNumber iframe.wpwl-control.wpwl-control-cardNumber',
      'div.wpwl-group.wpwl-group-expiry input.wpwl-control.wpwl-control-expiry[name="card.expiry"]',
      'div.wpwl-group.wpwl-group-cardHolder input.wpwl-control.wpwl-control-cardHolder[name="card.holder"]',
      'div.wpwl-group.wpwl-group-cvv iframe.wpwl-control.wpwl-control-cvv',
      'div.wpwl-group-submit div.wpwl-wrapper-submit button.wpwl-button.wpwl-button-pay[type="submit"]',
      'input[type="hidden"][name="card.expiryMonth"]',
      'input[type="hidden"][name="shopperResultUrl"]',
    ]) {
      expect(await page.locator(selector).count(), selector).toBe(1);
    }
    const action = await page.locator('form.wpwl-form-card').getAttribute('action');
    expect(action).toMatch(new RegExp(`^${env.site.gatewayUrl}/v1/checkouts/[0-9A-F]{32}\\.[a-z0-9-]+/payment$`));

    await fillCard(page);
    await expect.poll(() => page.locator('input[name="card.expiryYear"]').inputValue()).toBe('2034');
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result).toMatchObject({ paymentType: 'DB', paymentBrand: 'VISA', amount: '92.00', currency: 'EUR' });
    expect(result.card).toMatchObject({ bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' });
    expect(page.url()).toMatch(/\/result\?id=[0-9A-F]{32}\.[a-z0-9-]+&resourcePath=%2Fv1%2Fcheckouts%2F/);
  });

  it('shows errors on the invalid fields and does not pay', async () => {
    const page = await open('plain');
    await fillCard(page, { number: '4200000000000001', expiry: '01/20', holder: '' });
    await page.locator('button.wpwl-button-pay').click();
    await expect.poll(() => page.locator('iframe.wpwl-control-cardNumber.wpwl-has-error').count()).toBe(1);
    expect(await page.locator('.wpwl-hint-cardNumberError').count()).toBe(1);
    expect(await page.locator('input.wpwl-control-expiry.wpwl-has-error').count()).toBe(1);
    expect(await page.locator('.wpwl-hint-cardHolderError').count()).toBe(1);
    expect(await page.locator('button.wpwl-button-pay.wpwl-button-error').count()).toBe(1);
    expect(await page.locator('input.wpwl-control-cardHolder').getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).not.toContain('/result');
  });

  it('shows the brands as logos, detects the brand from the number and shows it inline, and keeps the brand select in the form, hidden', async () => {
    const page = await open('plain');
    const select = page.locator('select.wpwl-control-brand[name="paymentBrand"]');
    // Before any digit: the offered brands, each with its name as the text alternative; nothing to choose.
    expect(await brandLogos(page.locator('.wpwl-group-brand .wpwl-brand.wpwl-brand-card'))).toEqual([
      { brand: 'VISA', alt: 'Visa' },
      { brand: 'MASTER', alt: 'Mastercard' },
      { brand: 'AMEX', alt: 'American Express' },
    ]);
    expect([await select.count(), await select.isHidden()]).toEqual([1, true]);
    expect(await page.locator('.wpwl-brand-inline').count()).toBe(0);
    // The number tells the brand: its logo inside the number field and in the brand group, the select following it.
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('5454 5454');
    await expect.poll(() => page.locator('.wpwl-wrapper-cardNumber .wpwl-brand.wpwl-brand-inline.wpwl-brand-MASTER').count()).toBe(1);
    expect(await brandLogos(page.locator('.wpwl-brand-inline'))).toEqual([{ brand: 'MASTER', alt: 'Mastercard' }]);
    expect(await brandLogos(page.locator('.wpwl-group-brand .wpwl-brand'))).toEqual([{ brand: 'MASTER', alt: 'Mastercard' }]);
    expect(await select.inputValue()).toBe('MASTER');
    // Without detection, the shopper chooses the brand in the select.
    const asked = await env.browser.newPage();
    env.track(asked);
    await asked.addInitScript(() => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = { brandDetection: false };
    });
    await asked.goto(env.site.pageUrl('plain'));
    await asked.locator('select.wpwl-control-brand').waitFor({ state: 'visible' });
    await asked.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('5454 5454');
    await asked.waitForTimeout(200);
    expect(await asked.locator('.wpwl-brand-inline').count()).toBe(0);
    expect(await brandLogos(asked.locator('.wpwl-group-brand .wpwl-brand'))).toEqual([{ brand: 'VISA', alt: 'Visa' }]);
  });

  it('keeps errors calm: none for fields tabbed past, one for a field edited and left, all of them on a submit', async () => {
    const page = await open('plain');
    const errors = () => page.locator('.wpwl-container-card .wpwl-has-error, .wpwl-container-card [class*="Error"]').count();
    // Tab from the number field through every field, typing nothing.
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').focus();
    for (let step = 0; step < 4; step += 1) await page.keyboard.press('Tab');
    await page.waitForTimeout(200);
    expect(await errors()).toBe(0);
    // An expiry date typed wrong and left shows its error, and only its own.
    await page.locator('input.wpwl-control-expiry').fill('01/20');
    await page.locator('input.wpwl-control-expiry').blur();
    await expect.poll(() => page.locator('.wpwl-hint-expiryError').count()).toBe(1);
    expect(await page.locator('.wpwl-hint').count()).toBe(1);
    expect(await page.locator('.wpwl-hint-cardHolderError').count()).toBe(0);
    // Announced once: one alert, the same element while the error stands (edited again and left, it is not made anew).
    const hint = page.locator('.wpwl-hint-expiryError');
    expect(await hint.getAttribute('role')).toBe('alert');
    await hint.evaluate((element) => element.setAttribute('data-seen', 'yes'));
    await page.locator('input.wpwl-control-expiry').fill('01/21');
    await page.locator('input.wpwl-control-expiry').blur();
    expect([await page.locator('[role="alert"]').count(), await hint.getAttribute('data-seen')]).toEqual([1, 'yes']);
    // A number typed and left that cannot be a card's.
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('4200000000000001');
    await page.locator('input.wpwl-control-cardHolder').focus();
    await expect.poll(() => page.locator('.wpwl-hint-cardNumberError').count()).toBe(1);
    expect(await page.locator('.wpwl-hint-cardHolderError').count()).toBe(0);
    // The submit shows every field's error, the empty holder's too, and pays nothing.
    await page.locator('button.wpwl-button-pay').click();
    await expect.poll(() => page.locator('.wpwl-hint-cardHolderError').count()).toBe(1);
    expect(page.url()).not.toContain('/result');
  });

  it.each([320, 375])('fits a %i px wide phone: inputs of 16 px, touch targets of 44 px, no sideways scroll, hosted fields aligned with the inputs', async (width) => {
    const page = await env.browser.newPage({ viewport: { width, height: 740 } });
    env.track(page);
    await page.goto(env.site.pageUrl('plain'));
    const field = (name: string) => page.frameLocator(`iframe.wpwl-control-${name}`).locator('input.wpwl-field');
    await field('cvv').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    // iOS Safari zooms into an input under 16 px on focus; a finger needs 44 px.
    const controls = await page.locator('.wpwl-container-card :is(.wpwl-control, .wpwl-button):not([hidden])').evaluateAll((elements) =>
      elements.map((element) => ({ name: `${element.tagName} ${element.className}`, font: parseFloat(getComputedStyle(element).fontSize), height: element.getBoundingClientRect().height })),
    );
    expect(controls.length).toBeGreaterThanOrEqual(5);
    for (const control of controls) {
      expect(control.height, control.name).toBeGreaterThanOrEqual(44);
      if (/^(INPUT|SELECT)/.test(control.name)) expect(control.font, control.name).toBeGreaterThanOrEqual(16);
    }
    for (const name of ['cardNumber', 'cvv']) expect(await field(name).evaluate((input) => parseFloat(getComputedStyle(input).fontSize)), name).toBeGreaterThanOrEqual(16);
    // The hosted number field lines up with the holder's input, the CVV's with the expiry date's, to the pixel.
    const box = async (selector: string) => {
      const found = await page.locator(selector).boundingBox();
      return [found?.x, found?.width, found?.height];
    };
    expect(await box('iframe.wpwl-control-cardNumber')).toEqual(await box('input.wpwl-control-cardHolder'));
    expect(await box('iframe.wpwl-control-cvv')).toEqual(await box('input.wpwl-control-expiry'));
    // And as the shopper sees them: the same pixels at each one's left, right and top border (strips that hold no text).
    const edges = async (selector: string) => {
      const found = await page.locator(selector).boundingBox();
      if (!found) throw new Error(`no ${selector}`);
      const { x, y, width, height } = found;
      const strips = [
        { x: x - 2, y: y + height / 2 - 4, width: 5, height: 8 },
        { x: x + width - 3, y: y + height / 2 - 4, width: 5, height: 8 },
        { x: x + 3, y: y - 2, width: 4, height: 5 },
      ];
      return Promise.all(strips.map(async (clip) => (await page.screenshot({ clip })).toString('base64')));
    };
    expect(await edges('iframe.wpwl-control-cardNumber')).toEqual(await edges('input.wpwl-control-cardHolder'));
    expect(await edges('iframe.wpwl-control-cvv')).toEqual(await edges('input.wpwl-control-expiry'));
    // The browser's saved cards fill every field.
    expect(await field('cardNumber').getAttribute('autocomplete')).toBe('cc-number');
    expect(await field('cvv').getAttribute('autocomplete')).toBe('cc-csc');
    expect(await page.locator('input.wpwl-control-expiry').getAttribute('autocomplete')).toBe('cc-exp');
    expect(await page.locator('input.wpwl-control-cardHolder').getAttribute('autocomplete')).toBe('cc-name');
  });

  it.each([
    ['a Visa prefix at a length no Visa number has', '420000000000002'],
    ['a prefix no brand issues', '9100000000000000'],
  ])('marks a number that passes Luhn with %s as invalid, and does not pay', async (_case, number) => {
    const page = await open('plain');
    await fillCard(page, { number });
    await page.locator('button.wpwl-button-pay').click();
    await expect.poll(() => page.locator('iframe.wpwl-control-cardNumber.wpwl-has-error').count()).toBe(1);
    expect(await page.locator('.wpwl-hint-cardNumberError').count()).toBe(1);
    await page.waitForTimeout(200);
    expect(page.url()).not.toContain('/result');
  });

  it('tells the shopper and onError when the submit path cannot be loaded, and pays once it can', async () => {
    const checkoutId = await env.site.createCheckout();
    const page = await env.browser.newPage();
    env.track(page);
    const submitChunk = /\/js\/flow-[\w-]+\.min\.js$/;
    await page.route(submitChunk, (route) => route.abort('connectionfailed'));
    await page.addInitScript(() => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
        onError: (error: { name: string; message: string }) => ((window as unknown as { widgetErrors: string[] }).widgetErrors ??= []).push(`${error.name}: ${error.message}`),
      };
    });
    await page.goto(env.site.pageUrl('plain', { checkoutId }));
    await page.locator('.wpwl-form-card').waitFor();
    await fillCard(page);
    await page.locator('button.wpwl-button-pay').click();
    const message = page.locator('div.wpwl-message.wpwl-has-error');
    await message.waitFor();
    expect(await message.innerText()).toContain('could not be sent');
    expect(await page.evaluate(() => (window as unknown as { widgetErrors: string[] }).widgetErrors)).toEqual([expect.stringMatching(/^WidgetError: the payment could not be sent/)]);
    const status = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment?entityId=${env.site.entityId}`, {
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(((await status.json()) as { result: { code: string } }).result.code).toBe('000.200.000');

    // The network is back: the next submit loads the submit path and pays.
    await page.unroute(submitChunk);
    await page.locator('button.wpwl-button-pay').click();
    expect((await resultOf(page)).result.code).toBe('000.100.110');
  });

  it('reads brands from the form text and keeps the merchant children of the form', async () => {
    const page = await open('brands-as-text');
    const options = await page.locator('select.wpwl-control-brand option').evaluateAll((nodes) => nodes.map((node) => (node as HTMLOptionElement).value));
    expect(options).toEqual(['VISA', 'MASTER']);
    expect(await page.locator('form.wpwl-form-card input[name="csrf"]').inputValue()).toBe('merchant-csrf-token');
    await fillCard(page, { number: '5454545454545454' });
    await expect.poll(() => page.locator('select.wpwl-control-brand').inputValue()).toBe('MASTER');
    await page.locator('button.wpwl-button-pay').click();
    expect((await resultOf(page)).paymentBrand).toBe('MASTER');
  });

  it('reads wpwlOptions assigned after the script, runs onReady, posts injected inputs, survives throwing callbacks', async () => {
    const page = await open('late-options');
    expect(await page.evaluate(() => (window as unknown as { readyCalls: number }).readyCalls)).toBe(1);
    expect(await page.locator('.wpwl-container-card.wpwl-style-plain').count()).toBe(1);
    // Labels are text, never HTML.
    expect(await page.locator('.wpwl-label-cardHolder').innerText()).toBe('<b>Name on card</b>');
    expect(await page.locator('.wpwl-label-cardHolder b').count()).toBe(0);
    expect(await page.locator('button.wpwl-button-pay').innerText()).toBe('Pay 92.00 EUR');
    expect(await page.locator('.merchant-note').count()).toBe(1);
    const groupOrder = await page.locator('form.wpwl-form-card .wpwl-group').evaluateAll((groups) =>
      groups.map((group) => group.className.match(/wpwl-group-(\w+)/)?.[1]),
    );
    expect(groupOrder.slice(0, 3)).toEqual(['brand', 'cardHolder', 'cardNumber']);
    await fillCard(page);
    await page.locator('input.wpwl-control-cardHolder').blur();
    await expect.poll(() => page.evaluate(() => (window as unknown as { widgetErrors?: string[] }).widgetErrors ?? [])).toContain('WidgetError');
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
    expect(result.customParameters).toEqual({ SHOPPER_note: 'leave at the door' });
  });

  it('makes no payment when onBeforeSubmitCard returns false', async () => {
    const checkoutId = await env.site.createCheckout();
    const page = await open('before-submit', { checkoutId });
    await fillCard(page);
    await page.locator('button.wpwl-button-pay').click();
    await expect.poll(() => page.evaluate(() => (window as unknown as { beforeSubmitCalls?: number }).beforeSubmitCalls)).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { beforeSubmitThis: string }).beforeSubmitThis)).toContain('wpwl-form-card');
    await page.waitForTimeout(300);
    expect(page.url()).not.toContain('/result');
    const status = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment?entityId=${env.site.entityId}`, {
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(((await status.json()) as { result: { code: string } }).result.code).toBe('000.200.000');
  });

  it('ends a declined payment on the result URL, where the merchant reads the decline; no onError (COMPAT §6)', async () => {
    const checkoutId = await env.site.createCheckout();
    const page = env.track(await env.browser.newPage());
    await page.addInitScript(() => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
        onError: (error: { name: string }) => ((window as unknown as { widgetErrors: string[] }).widgetErrors ??= []).push(error.name),
      };
    });
    await page.goto(env.site.pageUrl('plain', { checkoutId }));
    await page.locator('.wpwl-form-card').waitFor();
    await fillCard(page, { holder: '800.100.203' });
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('id')).toBe(checkoutId);
    expect(landed.searchParams.get('resourcePath')).toBe(`/v1/checkouts/${checkoutId}/payment`);
    expect(result).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{32}$/), result: { code: '800.100.203' }, paymentBrand: 'VISA', ndc: checkoutId });
    expect(await page.evaluate(() => (window as unknown as { widgetErrors?: string[] }).widgetErrors ?? [])).toEqual([]);
    // That read was the final one: the checkout is closed, as after an approval.
    const again = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment?entityId=${env.site.entityId}`, {
      headers: { Authorization: `Bearer ${env.site.token}` },
    });
    expect(((await again.json()) as { result: { description: string } }).result.description).toMatch(/No payment session found/);
  });

  it('keeps the shopper on the form with a message when the checkout expired before the submit', async () => {
    const page = await open('plain');
    await fillCard(page);
    env.site.advanceClock(31 * 60_000);
    const refused = page.waitForResponse((response) => /\/payment$/.test(response.url()) && response.request().method() === 'POST');
    await page.locator('button.wpwl-button-pay').click();
    expect((await refused).status()).toBe(400);
    const message = page.locator('form.wpwl-form-card div.wpwl-message.wpwl-has-error[role="alert"]');
    await message.waitFor();
    expect(await message.innerText()).toBe('This payment session has expired. Please start again.');
    expect(page.url()).not.toContain('/result');
  });

  it.each([
    ['an unknown checkout', async () => '0123456789ABCDEF0123456789ABCDEF.sbx01-gw01'],
    [
      'a deleted checkout',
      async () => {
        const id = await env.site.createCheckout();
        const deleted = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${id}?entityId=${env.site.entityId}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${env.site.token}` },
        });
        expect(deleted.status).toBe(200);
        return id;
      },
    ],
  ])('reports %s through onError (InvalidCheckoutIdError) and a message', async (_case, checkoutId) => {
    const page = await env.browser.newPage();
    env.track(page);
    await page.addInitScript(() => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
        onError: (error: { name: string }) => ((window as unknown as { errorName: string }).errorName = error.name),
      };
    });
    await page.goto(env.site.pageUrl('plain', { checkoutId: await checkoutId() }));
    await page.locator('div.wpwl-message.wpwl-has-error').waitFor();
    expect(await page.evaluate(() => (window as unknown as { errorName: string }).errorName)).toBe('InvalidCheckoutIdError');
    expect(await page.locator('form.wpwl-form-card').count()).toBe(0);
  });

  it('renders two forms with their own brands, each able to pay', async () => {
    const page = await open('two-forms');
    const brands = (section: string) =>
      page.locator(`${section} select.wpwl-control-brand option`).evaluateAll((nodes) => nodes.map((node) => (node as HTMLOptionElement).value));
    expect(await brands('#first')).toEqual(['VISA']);
    expect(await brands('#second')).toEqual(['MASTER', 'AMEX']);
    await fillCard(page, { number: '377777777777770', cvv: '1234' }, '#second');
    await page.locator('#second button.wpwl-button-pay').click();
    expect((await resultOf(page)).paymentBrand).toBe('AMEX');
  });

  it('never lets the merchant page read the card number or CVV', async () => {
    const page = await open('snoop');
    await fillCard(page);
    const seen = await page.evaluate(() => (window as unknown as { snoop: () => string }).snoop());
    expect(seen).toContain('blocked: SecurityError');
    expect(seen).not.toContain('4200000000000000');
    expect(seen).not.toContain('4200 0000 0000 0000');
    const messages = await page.evaluate(() => (window as unknown as { snoopedMessages: string[] }).snoopedMessages.join('\n'));
    expect(messages).not.toMatch(/4200\s?0000\s?0000\s?0000/);
    expect(messages).not.toContain('"123"');
  });

  it('loads with an integrity attribute, and refuses a script whose hash does not match', async () => {
    const good = await env.site.createCheckoutWithIntegrity();
    expect(good.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    const loaded = await open('integrity', { checkoutId: good.id, integrity: good.integrity });
    expect(await loaded.locator('form.wpwl-form-card').count()).toBe(1);

    const other = await env.site.createCheckoutWithIntegrity();
    const mismatched = await env.browser.newPage();
    env.track(mismatched);
    await mismatched.goto(env.site.pageUrl('integrity', { checkoutId: other.id, integrity: good.integrity }));
    await mismatched.waitForTimeout(500);
    expect(await mismatched.locator('form.wpwl-form-card').count()).toBe(0);
  });

  it('moves through every control with Tab and back with Shift-Tab, and pays with Enter', async () => {
    const page = await open('plain');
    // Tab moves into and out of the hosted fields once their pages are there (a frame still loading takes the key).
    for (const field of ['cardNumber', 'cvv']) await page.frameLocator(`iframe.wpwl-control-${field}`).locator('input.wpwl-field').waitFor();
    // The brand is detected from the number, not asked for: its select is hidden (see the brand logo tests).
    await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').focus();
    const focused = () =>
      page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return active?.className.match(/wpwl-control-(\w+)|wpwl-button-pay/)?.[0] ?? active?.tagName ?? '';
      });
    const order: string[] = [await focused()];
    for (let step = 0; step < 4; step++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    expect(order).toEqual(['wpwl-control-cardNumber', 'wpwl-control-expiry', 'wpwl-control-cardHolder', 'wpwl-control-cvv', 'wpwl-button-pay']);
    for (let step = 0; step < 4; step++) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('wpwl-control-cardNumber');

    await fillCard(page);
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').press('Enter');
    expect((await resultOf(page)).result.code).toBe('000.100.110');
  });

  it('honours options set before the script: no submit on Enter, masked CVV, iframe styles through the allow-list', async () => {
    const page = await env.browser.newPage();
    env.track(page);
    await page.addInitScript(() => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
        disableSubmitOnEnter: true,
        maskCvv: true,
        showLabels: false,
        iframeStyles: {
          'card-number-placeholder': { color: 'rgb(200, 0, 0)', 'background-image': 'url(https://example.invalid/leak)' },
          'card-number': { fontSize: '18px', position: 'fixed' },
        },
      };
    });
    await page.goto(env.site.pageUrl('plain'));
    await page.locator('.wpwl-form-card').waitFor();
    expect(await page.locator('.wpwl-label').count()).toBe(0);
    expect(await page.locator('input.wpwl-control-cardHolder').getAttribute('aria-label')).toBe('Card holder');
    const number = page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field');
    await expect.poll(() => number.evaluate((input) => getComputedStyle(input).fontSize)).toBe('18px');
    expect(await number.evaluate((input) => getComputedStyle(input, '::placeholder').color)).toBe('rgb(200, 0, 0)');
    expect(await number.evaluate((input) => getComputedStyle(input).position)).not.toBe('fixed');
    expect(await number.evaluate((input) => getComputedStyle(input, '::placeholder').backgroundImage)).toBe('none');
    expect(await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').getAttribute('type')).toBe('password');
    await fillCard(page);
    await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').press('Enter');
    await page.waitForTimeout(300);
    expect(page.url()).not.toContain('/result');
  });

  it('hands the expiry date and holder the browser autofilled in the number frame to the widget inputs', async () => {
    const page = await open('plain');
    const numberFrame = page.frameLocator('iframe.wpwl-control-cardNumber');
    expect(await numberFrame.locator('input.wpwl-field').getAttribute('autocomplete')).toBe('cc-number');
    await numberFrame.locator('input.wpwl-autofill-expiry').fill('07/2031');
    await numberFrame.locator('input.wpwl-autofill-holder').fill('Ada Lovelace');
    await numberFrame.locator('input.wpwl-autofill-holder').dispatchEvent('change');
    await expect.poll(() => page.locator('input.wpwl-control-expiry').inputValue()).toBe('07 / 31');
    expect(await page.locator('input.wpwl-control-cardHolder').inputValue()).toBe('Ada Lovelace');
  });

  describe('with a co-badged card (Visa/Dankort), the brand select kept in the DOM (COMPAT §4, §7)', () => {
    type Detection = { brands: string[]; activeBrand: string };
    const detections = (page: Page) => page.evaluate(() => (window as unknown as { detections?: Detection[] }).detections ?? []);
    const openCoBadged = async (presetOptions: Record<string, unknown> = {}) => {
      const page = await env.browser.newPage();
      env.track(page);
      await page.addInitScript((options) => Object.assign(window, { presetOptions: options }), presetOptions);
      await page.goto(env.site.pageUrl('co-badged'));
      await page.locator('.wpwl-form-card').waitFor();
      return page;
    };
    const finishCard = async (page: Page) => {
      await page.locator('input.wpwl-control-expiry').fill('05/34');
      await page.locator('input.wpwl-control-cardHolder').fill('Jane Jones');
      await page.frameLocator('iframe.wpwl-control-cvv').locator('input.wpwl-field').fill('123');
    };

    it('detects both brands, the local one active; the shopper chooses Visa, which stays chosen while typing on, and pays as Visa', async () => {
      const page = await openCoBadged();
      const number = page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field');
      await number.fill('457100');
      await expect.poll(async () => (await detections(page)).at(-1)).toEqual({ brands: ['DANKORT', 'VISA'], activeBrand: 'DANKORT' });
      expect(await page.locator('select.wpwl-control-brand').inputValue()).toBe('DANKORT');
      await page.locator('select.wpwl-control-brand').selectOption('VISA');
      await number.pressSequentially('0000000001');
      await expect.poll(async () => (await detections(page)).at(-1)?.activeBrand).toBe('VISA');
      expect(await page.locator('select.wpwl-control-brand').inputValue()).toBe('VISA');
      await finishCard(page);
      await page.locator('button.wpwl-button-pay').click();
      const result = await resultOf(page);
      expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'VISA', card: { bin: '457100', last4Digits: '0001' } });
    });

    it('puts the brand of brandDetectionPriority first; the shopper chooses Dankort and pays as Dankort', async () => {
      const page = await openCoBadged({ brandDetectionPriority: ['VISA', 'DANKORT'] });
      await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill('4571000000000001');
      await expect.poll(async () => (await detections(page)).at(-1)).toEqual({ brands: ['VISA', 'DANKORT'], activeBrand: 'VISA' });
      // As a CI user's test chooses it (ci/playwright.ts).
      await chooseBrand(page, 'DANKORT');
      await finishCard(page);
      await page.locator('button.wpwl-button-pay').click();
      const result = await resultOf(page);
      expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'DANKORT', card: { bin: '457100', last4Digits: '0001' } });
    });
  });

  it('unloads, reloads with a new checkout, and pays through executePayment', async () => {
    const page = await open('reload');
    const second = await env.site.createCheckout({ amount: '15.00' });
    await page.evaluate((id) => (window as unknown as { reloadWidget: (id: string) => void }).reloadWidget(id), second);
    await expect.poll(() => page.evaluate(() => (window as unknown as { readyCount: number }).readyCount)).toBe(2);
    expect(await page.locator('form.wpwl-form-card').count()).toBe(1);
    expect(await page.locator('form.wpwl-form-card').getAttribute('action')).toContain(second);
    await fillCard(page);
    await page.evaluate(() => (window as unknown as { wpwl: { executePayment: (c: string) => void } }).wpwl.executePayment('wpwl-container-card'));
    const result = await resultOf(page);
    expect(result).toMatchObject({ amount: '15.00', result: { code: '000.100.110' } });
  });
});
