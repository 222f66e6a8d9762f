import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * Click to Pay (issue 35 point 6) on a merchant page written like HyperPay's WooCommerce plugin (its wpwlOptions,
 * without jQuery) under the strictest CSP docs/widget.md allows: the shopper's e-mail finds their Click to Pay profile
 * in the gateway's simulated SRC system, the one-time code 123456 opens their card list, and the chosen card is paid
 * on the result page as its network token — which this page never sees. An e-mail without a profile, wrong codes and a
 * cancel reach onError with the platform's event names, and the card form stays usable.
 */

const env = useMerchantSiteAndBrowser();
const CONTAINER = 'wpwl-container-virtualAccount-CLICK_TO_PAY';
const FORM = '.wpwl-form-virtualAccount-CLICK_TO_PAY';
const SECRETS = ['4200000000000000', '5454545454545454', '123456'];

interface Seen {
  name: string;
  event: string;
  brand: string;
}

async function openShop(query: Record<string, string> = {}): Promise<Page> {
  // axe needs a page of an explicit browser context.
  const page = env.track(await (await env.browser.newContext()).newPage());
  const checkoutId = await env.site.createCheckout();
  await page.goto(env.site.pageUrl('csp-click-to-pay', { checkoutId, ...query }));
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  await chooseMethod(page, CONTAINER);
  await page.locator(`${FORM} input.wpwl-control-clickToPayAccessMyCards`).waitFor();
  return page;
}

const errorsOf = (page: Page) => page.evaluate(() => (window as unknown as { errors: Seen[] }).errors);
const violationsOf = (page: Page) => page.evaluate(() => (window as unknown as { violations: string[] }).violations);

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(`.${CONTAINER}`).analyze();
  return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** What the page holds: its DOM and every answer it was given (no card number, token or code may be in them). */
async function expectNothingSensitive(page: Page, answers: string[]): Promise<void> {
  const html = await page.content();
  for (const secret of SECRETS.slice(0, 2)) {
    expect(html).not.toContain(secret);
    for (const answer of answers) expect(answer).not.toContain(secret);
  }
}

async function enterCode(page: Page, code: string): Promise<void> {
  await page.locator(`${FORM} input.wpwl-control-clickToPayOtp`).fill(code);
  await page.locator(`${FORM} button.wpwl-button-clickToPay`).click();
}

describe('Click to Pay on a shop page under a strict CSP', () => {
  it('pays an enrolled shopper: the prefilled e-mail, the code sent to the masked address, the card list, paid on the result page', async () => {
    const page = await openShop({ email: 'jane.jones@example.com' });
    const answers: string[] = [];
    page.on('response', (response) => {
      if (/\/clickToPay\/|\/payment$/.test(response.url())) void response.text().then((text) => answers.push(text), () => undefined);
    });
    const form = page.locator(FORM);
    // The mark with the networks' logos, the platform's e-mail input, prefilled by the page in onReady.
    expect(await form.locator('.wpwl-clickToPay-mark').getAttribute('aria-label')).toBe('Click to Pay: Visa, Mastercard, American Express');
    expect(await form.locator('input.wpwl-control-clickToPayAccessMyCards').inputValue()).toBe('jane.jones@example.com');
    expect(await axeViolations(page)).toEqual([]);

    await form.locator('button.wpwl-button-clickToPay').click();
    const otp = form.locator('input.wpwl-control-clickToPayOtp');
    await otp.waitFor();
    expect(await form.locator('.wpwl-group-clickToPayOtp').innerText()).toContain('We sent a one-time code to ja•••••••@example.com.');
    // The code's screen takes the focus to the code.
    await expect.poll(() => otp.evaluate((input) => input === document.activeElement)).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    await enterCode(page, '123456');
    const cards = form.locator('.wpwl-clickToPay-card');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.allInnerTexts()).toEqual([expect.stringMatching(/Visa Classic ••••\s1111\s+Expires 12\/34/), expect.stringMatching(/Mastercard Gold ••••\s4444\s+Expires 05\/33/)]);
    expect(await form.locator('.wpwl-clickToPay-cards[role="radiogroup"]').count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    await cards.nth(1).click();
    expect(await errorsOf(page)).toEqual([]);
    await form.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'MASTER', tokenAccount: { type: 'NETWORK', number: '545454******5454' } });
    await expectNothingSensitive(page, answers);
  });

  it('tells onError not_enrolled for an e-mail without a profile, says so, and the card form still pays', async () => {
    const page = await openShop();
    const form = page.locator(FORM);
    // An address that is no e-mail is the shopper's mistake, said at the field.
    await form.locator('input.wpwl-control-clickToPayAccessMyCards').fill('jane');
    await form.locator('button.wpwl-button-clickToPay').click();
    await form.locator('.wpwl-hint-clickToPayAccessMyCardsError').waitFor();
    await form.locator('input.wpwl-control-clickToPayAccessMyCards').fill('someone.else@example.com');
    await form.locator('button.wpwl-button-clickToPay').click();
    await expect.poll(() => errorsOf(page)).toEqual([{ name: 'ClickToPayError', event: 'not_enrolled', brand: 'CLICK_TO_PAY' }]);
    expect(await form.locator('.wpwl-clickToPay-notice').innerText()).toContain('No Click to Pay profile was found');
    expect(await axeViolations(page)).toEqual([]);

    await chooseMethod(page, 'wpwl-container-card');
    await fillCard(page, { holder: 'Jane Jones' });
    await page.locator('.wpwl-form-card button.wpwl-button-pay').click();
    expect(await resultOf(page)).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'VISA' });
  });

  it('says how many tries a wrong code leaves, locks Click to Pay at the third (otp_retries_exceeded), and a cancel goes back (cancel)', async () => {
    const page = await openShop({ email: 'jane.jones@example.com' });
    const form = page.locator(FORM);
    await form.locator('button.wpwl-button-clickToPay').click();
    await form.locator('input.wpwl-control-clickToPayOtp').waitFor();
    await enterCode(page, '000000');
    const hint = form.locator('.wpwl-hint-clickToPayOtpError');
    await expect.poll(() => hint.innerText()).toBe('The code is not correct. Tries left: 2.');
    expect(await form.locator('input.wpwl-control-clickToPayOtp').getAttribute('aria-invalid')).toBe('true');
    // The strict CSP held for every screen so far (axe, which injects its own styles, runs after this).
    expect(await violationsOf(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await enterCode(page, '111111');
    await expect.poll(() => hint.innerText()).toBe('The code is not correct. Tries left: 1.');
    await enterCode(page, '222222');
    await expect.poll(() => form.locator('.wpwl-clickToPay-notice').innerText()).toContain('Too many wrong codes');
    expect((await errorsOf(page)).map((error) => error.event)).toEqual(['otp_invalid', 'otp_invalid', 'otp_retries_exceeded']);
    expect(await form.locator('input.wpwl-control-clickToPayOtp').count()).toBe(0);

    // A new lookup, then the shopper cancels on the card list.
    await form.locator('button.wpwl-button-clickToPay').click();
    await enterCode(page, '123456');
    await form.locator('.wpwl-clickToPay-card').first().waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(async () => (await errorsOf(page)).at(-1)?.event).toBe('cancel');
    await form.locator('input.wpwl-control-clickToPayAccessMyCards').waitFor({ state: 'visible' });
    expect(await form.locator('.wpwl-clickToPay-card').count()).toBe(0);
  });

  it('shows the screens in Arabic, right to left, from the language file of its own', async () => {
    const page = await openShop({ email: 'jane.jones@example.com', lang: 'ar' });
    const container = page.locator(`.${CONTAINER}`);
    expect(await container.getAttribute('dir')).toBe('rtl');
    await expect.poll(() => page.locator(`${FORM} .wpwl-text-clickToPay`).innerText()).toContain('ادفع بالبطاقات');
    await page.locator(`${FORM} button.wpwl-button-clickToPay`).click();
    await enterCode(page, '123456');
    await page.locator(`${FORM} .wpwl-clickToPay-card`).first().waitFor();
    expect(await page.locator(`${FORM} .wpwl-clickToPay-header`).innerText()).toBe('بطاقاتك');
    expect(await violationsOf(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  });
});
