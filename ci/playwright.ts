import type { FrameLocator, Locator, Page } from 'playwright-core';

/**
 * Playwright helpers for your own browser tests that pay through the gateway's widget (docs/ci.md). They work with
 * `@playwright/test`'s `page` and with playwright-core's alike, and drive the widget as a shopper does: the card
 * number and CVV are typed into the hosted fields (each an iframe of the gateway), expiry and holder into your page's
 * form. A shop imports them from the installed package (`payment-gateway/playwright`; with fixtures: ci/fixture.ts).
 *
 * The test cards (docs/widget.md): 4200 0000 0000 0000 is approved; a holder naming a result code (e.g. 800.100.151)
 * is declined with it; 4200 0000 0000 0042 asks for a 3-D Secure challenge, which `completeChallenge` answers.
 */

export interface TestCard {
  /** Default: the approved VISA test card, 4200 0000 0000 0000. */
  readonly number?: string;
  /** MM/YY; default 05/34. */
  readonly expiry?: string;
  /** Default: Jane Jones. A result code here (800.100.151) is the simulated acquirer's answer. */
  readonly holder?: string;
  /** Default: 123. */
  readonly cvv?: string;
}

export interface PayOptions extends TestCard {
  /** A card brand to choose first, when the form offers several (`VISA`, `MASTER`, ...): see chooseBrand. */
  readonly brand?: string;
  /** CSS scope of the widget when the page holds several (default: the page's first card form). */
  readonly within?: string;
}

/** The page's card form, in `within` when given. */
function cardForm(page: Page, within?: string): Locator {
  return page.locator(within ?? 'body').locator('form.wpwl-form-card').first();
}

/** The input inside one hosted field (an iframe the gateway serves, where the card data never touches your page). */
function hostedField(form: Locator, field: 'cardNumber' | 'cvv'): Locator {
  return form.frameLocator(`iframe.wpwl-control-${field}`).locator('input.wpwl-field');
}

/** Types a test card into the widget's card form, without paying. */
export async function fillTestCard(page: Page, card: TestCard & { readonly within?: string } = {}): Promise<void> {
  await chooseMethod(page, 'wpwl-container-card', card.within);
  const form = cardForm(page, card.within);
  await hostedField(form, 'cardNumber').fill(card.number ?? '4200000000000000');
  await form.locator('input.wpwl-control-expiry').fill(card.expiry ?? '05/34');
  await form.locator('input.wpwl-control-cardHolder').fill(card.holder ?? 'Jane Jones');
  await hostedField(form, 'cvv').fill(card.cvv ?? '123');
}

/** Types a test card and presses the card form's pay button; the page then goes to your result URL (or a challenge). */
export async function payWithTestCard(page: Page, options: PayOptions = {}): Promise<void> {
  if (options.brand) await chooseBrand(page, options.brand, options.within);
  await fillTestCard(page, options);
  await cardForm(page, options.within).locator('button.wpwl-button-pay').click();
}

/**
 * Chooses a payment method in the widget's chooser (a form offering several: cards, PayPal, Sofort...) by its
 * container (`wpwl-container-card`, `wpwl-container-virtualAccount-PAYPAL`...), so its form shows. A page without a
 * chooser (one method, or the `plain` style) needs nothing.
 */
export async function chooseMethod(page: Page, container: string, within?: string): Promise<void> {
  const scope = page.locator(within ?? 'body');
  await scope.locator(`.${container}`).first().waitFor({ state: 'attached' });
  const option = scope.locator(`.wpwl-chooser-options input[type="radio"][value="${container}"]`).first();
  if ((await option.count()) > 0) await option.check();
}

/**
 * Chooses a payment brand: a card brand in the card form's brand list (when brand detection is off, or the number
 * fits several brands), or an asynchronous brand (`PAYPAL`, `SOFORTUEBERWEISUNG`, ...) by its own form's pay button,
 * which then leads to the simulated provider's page.
 */
export async function chooseBrand(page: Page, brand: string, within?: string): Promise<void> {
  const scope = page.locator(within ?? 'body');
  const select = scope.locator('form.wpwl-form-card select.wpwl-control-brand').first();
  if ((await select.count()) > 0 && (await select.locator(`option[value="${brand}"]`).count()) > 0) {
    await chooseMethod(page, 'wpwl-container-card', within);
    // With brand detection the list stays in the form, hidden, until the number fits several brands.
    await select.selectOption(brand, { force: true });
    return;
  }
  const form = scope.locator(`form.wpwl-form[class*="-${brand}"]`).filter({ has: page.locator(`input[name="paymentBrand"][value="${brand}"]`) }).first();
  if ((await form.count()) === 0) throw new Error(`the widget offers no brand ${brand} here`);
  const container = await form.evaluate((element) => /\bwpwl-container-\S+-\S+/.exec(element.parentElement?.className ?? '')?.[0] ?? '');
  await chooseMethod(page, container, within);
  await form.locator('button.wpwl-button-pay').click();
}

/** Where a 3-D Secure challenge shows: the widget's own frame (the default), or the page itself (`_top`). */
async function challengeFrame(page: Page): Promise<FrameLocator | Page> {
  const framed = page.frameLocator('iframe.wpwl-target').first();
  for (let waited = 0; waited < 30_000; waited += 100) {
    if ((await framed.locator('input#otp').count()) > 0) return framed;
    if ((await page.locator('input#otp').count()) > 0) return page;
    await page.waitForTimeout(100);
  }
  throw new Error('no 3-D Secure challenge showed within 30 s');
}

/**
 * Answers the simulated 3-D Secure challenge: `1234` passes it; another code fails it; `cancel` leaves it (the
 * payment is then declined with the challenge's outcome).
 */
export async function completeChallenge(page: Page, otp: string | 'cancel' = '1234'): Promise<void> {
  const challenge = await challengeFrame(page);
  if (otp === 'cancel') {
    await challenge.locator('button#cancel').click();
    return;
  }
  await challenge.locator('input#otp').fill(otp);
  await challenge.locator('button#submit').click();
}
