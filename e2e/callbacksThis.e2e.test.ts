import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { WpwlJquery } from '../widget/types/wpwl.d.ts';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Callbacks' `this` as the platform gives it (issue 35, point 1; COMPAT §5): `this.$form` (and `this.$iframe` in the
 * hosted-field callbacks) is a jQuery object — of the page's own jQuery when it has one, else the widget's jQuery-like
 * wrapper — on a page written like HyperPay's OpenCart extension and PrestaShop template, whose mada rule reads the brand
 * through `this.$form.find('.wpwl-control-brand').val()` and marks the number field.
 */

const env = useMerchantSiteAndBrowser();
const JQUERY = readFileSync(new URL('../node_modules/jquery/dist/jquery.min.js', import.meta.url), 'utf8');

interface Seen {
  blurs: { brand: string; isValid: boolean; jquery: boolean; formIsThis: boolean }[];
  iframes: { classes: string; iframeIsThis: boolean }[];
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen }).seen);

async function openShop(withJquery: boolean): Promise<Page> {
  const page = env.track(await env.browser.newPage());
  // The shop theme's jQuery, in the page's head (or nothing, for a shop without it).
  await page.route('**/vendor/jquery.min.js', (route) => route.fulfill({ contentType: 'text/javascript', body: withJquery ? JQUERY : '' }));
  await page.goto(env.site.pageUrl('shop-callbacks'));
  await page.locator('.wpwl-form-card').waitFor();
  return page;
}

/** Types a number and leaves the field (the number field's blur calls onBlurCardNumber). */
async function typeNumberAndLeave(page: Page, number: string): Promise<void> {
  await page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field').fill(number);
  await page.locator('input.wpwl-control-expiry').focus();
}

describe.each([
  { page: 'without jQuery', withJquery: false },
  { page: 'with its own jQuery', withJquery: true },
])('a shop page $page', ({ withJquery }) => {
  it('gives onBlurCardNumber `this.$form`: the mada rule reads the brand select, marks the number and disables the pay button', async () => {
    const page = await openShop(withJquery);
    await typeNumberAndLeave(page, '4464040000000007');
    await expect.poll(async () => (await seen(page)).blurs.length).toBe(1);
    expect((await seen(page)).blurs[0]).toEqual({ brand: 'MADA', isValid: true, jquery: withJquery, formIsThis: true });
    const hint = page.locator('.wpwl-form-card .wpwl-wrapper-cardNumber .wpwl-hint-cardNumberError');
    await expect.poll(() => hint.textContent()).toContain('mada card is not allowed');
    expect(await page.locator('iframe.wpwl-control-cardNumber').getAttribute('class')).toContain('wpwl-has-error');
    expect(await page.locator('button.wpwl-button-pay').isDisabled()).toBe(true);
  });

  it('gives the hosted-field callbacks `this.$iframe` and onBeforeSubmitCard `this.$form`; a Visa card passes the rule and pays', async () => {
    const page = await openShop(withJquery);
    await expect.poll(async () => (await seen(page)).iframes.length).toBe(2);
    const iframes = (await seen(page)).iframes;
    expect(iframes.map((iframe) => iframe.iframeIsThis)).toEqual([true, true]);
    expect(iframes.map((iframe) => /wpwl-control-(cardNumber|cvv)/.exec(iframe.classes)?.[0]).sort()).toEqual(['wpwl-control-cardNumber', 'wpwl-control-cvv']);
    await typeNumberAndLeave(page, '4200000000000000');
    await expect.poll(async () => (await seen(page)).blurs.at(-1)).toEqual({ brand: 'VISA', isValid: true, jquery: withJquery, formIsThis: true });
    await fillCard(page, { holder: 'Jane Jones' });
    await page.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'VISA' });
    const submit: unknown = await page.evaluate(() => JSON.parse(sessionStorage.getItem('submit') ?? 'null'));
    expect(submit).toEqual({ holder: 'Jane Jones', action: expect.stringMatching(/\/v1\/checkouts\/[^/]+\/payment$/), closest: true });
  });
});

describe('the widget\'s jQuery-like `this.$form` (a page without jQuery)', () => {
  it('has the jQuery methods merchant code calls, with jQuery\'s semantics: getters read the first element, setters write all and chain', async () => {
    const page = await openShop(false);
    await typeNumberAndLeave(page, '5454545454545454');
    await page.waitForFunction(() => 'shopForm' in window);
    const outcome = await page.evaluate(() => {
      const form = (window as unknown as { shopForm: WpwlJquery }).shopForm;
      const clicks: string[] = [];
      const holder = form.find('input[name="card.holder"]');
      holder.val('Ada Lovelace').attr('data-shop', 'yes').addClass('shop-a shop-b').removeClass('shop-a');
      form.on('click', '.wpwl-button-pay', function (this: Element) {
        clicks.push(this.className);
      });
      (form.find('.wpwl-button-pay')[0] as HTMLButtonElement).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      const groups: string[] = [];
      form.find('.wpwl-group').each(function (this: Element, index: number) {
        groups.push(`${index}:${this.className.split(' ')[1]}`);
        return index !== 1;
      });
      form.find('.wpwl-group-cardHolder').hide();
      const hidden = (form.find('.wpwl-group-cardHolder')[0] as HTMLElement).style.display;
      form.find('.wpwl-group-cardHolder').show();
      return {
        value: holder.val(),
        attribute: holder.attr('data-shop'),
        classes: [holder.hasClass('shop-a'), holder.hasClass('shop-b')],
        property: form.find('.wpwl-button-pay').prop('type'),
        empty: [form.find('.no-such-thing').length, form.find('.no-such-thing').val(), form.find('.no-such-thing').attr('id')],
        clicks,
        groups,
        hidden,
        shown: (form.find('.wpwl-group-cardHolder')[0] as HTMLElement).style.display,
        parent: form.parent().is('.wpwl-container-card'),
        text: form.find('.wpwl-button-pay').text().trim().length > 0,
      };
    });
    expect(outcome).toEqual({
      value: 'Ada Lovelace',
      attribute: 'yes',
      classes: [false, true],
      property: 'submit',
      empty: [0, undefined, undefined],
      clicks: [expect.stringContaining('wpwl-button-pay')],
      groups: ['0:wpwl-group-brand', '1:wpwl-group-cardNumber'],
      hidden: 'none',
      shown: '',
      parent: true,
      text: true,
    });
  });
});
