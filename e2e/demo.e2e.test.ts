import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_MERCHANT } from '../server/config.ts';
import { startTestGateway, type TestGateway } from '../server/testing/harness.ts';
import { launchBrowser } from './support/browser.ts';
import { chooseMethod, completeChallenge, payWithTestCard } from '../ci/playwright.ts';
import { DEMO_CHALLENGE, DEMO_TEST_CARDS } from '../server/demo/offer.ts';

/**
 * The demo shop of `npm start` pays end to end under its own strict Content-Security-Policy: its test cards (each row
 * is also paid server to server in server/demo/offer.test.ts), its asynchronous brands, and a card saved on the
 * account page and paid with on the next order.
 */

let gateway: TestGateway;
let browser: Browser;
beforeAll(async () => {
  [gateway, browser] = await Promise.all([startTestGateway('PGlite', { demoMerchant: DEFAULT_DEMO_MERCHANT }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('the demo shop', () => {
  it('shows the widget, pays with the test card and shows the result, with no policy violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const response = await page.goto(`${gateway.url}/demo`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.locator('.wpwl-form-card').waitFor();
    // As a CI pipeline's own test pays (the helper the repository ships: ci/playwright.ts).
    await payWithTestCard(page);
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    expect(await page.locator('pre').innerText()).toContain('"code": "000.100.110"');
    expect(violations).toEqual([]);
    await page.close();
  });

  it('shows a declined payment on its result page, and "Try again" pays with a new checkout', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await page.locator('.wpwl-form-card').waitFor();
    const checkoutOf = () => page.evaluate(() => (window as unknown as { wpwl: { checkout: { id: string } } }).wpwl.checkout.id);
    const declinedCheckout = await checkoutOf();
    await payWithTestCard(page, { holder: '800.100.203' });
    await page.waitForURL(/\/demo\/result\?id=/);
    expect(new URL(page.url()).searchParams.get('id')).toBe(declinedCheckout);
    expect(await page.locator('h1').innerText()).toBe('The payment did not go through');
    expect(await page.locator('#result-class').innerText()).toBe('Declined by the bank.');
    expect(await page.locator('#result-description').innerText()).toContain('(800.100.203)');

    await page.locator('a#try-again').click();
    await page.locator('.wpwl-form-card').waitFor();
    expect(await checkoutOf()).not.toBe(declinedCheckout);
    // As a CI pipeline's own test pays (the helper the repository ships: ci/playwright.ts).
    await payWithTestCard(page);
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    await page.close();
  });

  it('takes an order by prepayment: the result page shows it pending, with the bank details to transfer to', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await chooseMethod(page, 'wpwl-container-prepayment-PREPAYMENT');
    await page.locator('.wpwl-container-prepayment-PREPAYMENT button.wpwl-button-pay').click();
    await page.waitForURL(/\/demo\/result\?id=/);
    expect(await page.locator('h1').innerText()).toBe('Your payment is being processed');
    expect(await page.locator('#result-description').innerText()).toContain('(000.200.000)');
    const transfer = await page.locator('table#transfer').innerText();
    expect(transfer).toContain('92.00 EUR');
    expect(transfer).toMatch(/IBAN\s+[A-Z]{2}[0-9]{2}/);
    await page.close();
  });

  it('refuses in the payment form the number its table says it refuses, and sends nothing', async () => {
    const refused = DEMO_TEST_CARDS.filter((card) => card.outcome === 'refusedByForm');
    expect(refused.length).toBeGreaterThan(0);
    for (const card of refused) {
      const page = await browser.newPage();
      const payments: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) payments.push(request.url());
      });
      await page.goto(`${gateway.url}/demo`);
      await page.locator('.wpwl-form-card').waitFor();
      await payWithTestCard(page, { number: card.number.replace(/ /g, '') });
      await expect.poll(() => page.locator('iframe.wpwl-control-cardNumber.wpwl-has-error').count()).toBe(1);
      expect(await page.locator('.wpwl-hint-cardNumberError').count()).toBe(1);
      await page.waitForTimeout(200);
      expect(payments).toEqual([]);
      expect(page.url()).not.toContain('/result');
      await page.close();
    }
  });

  it('pays with the 3-D Secure challenge card when the challenge is passed with its code', async () => {
    const card = DEMO_TEST_CARDS.find((row) => row.outcome === 'challenge');
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await page.locator('.wpwl-form-card').waitFor();
    await payWithTestCard(page, { number: card?.number.replace(/ /g, '') });
    await completeChallenge(page, DEMO_CHALLENGE.otp);
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    expect(await page.locator('#result-description').innerText()).toContain(`(${card?.code})`);
    await page.close();
  });

  it('takes an order by Klarna (the customer on the checkout) and by Multibanco (a voucher to pay, pending)', async () => {
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/demo`);
    await chooseMethod(page, 'wpwl-container-virtualAccount-KLARNA_PAYMENTS_PAYLATER');
    await page.locator('.wpwl-container-virtualAccount-KLARNA_PAYMENTS_PAYLATER button.wpwl-button-pay').click();
    await page.frameLocator('.wpwl-container-virtualAccount-KLARNA_PAYMENTS_PAYLATER iframe.wpwl-target').locator('button#submit').click();
    await page.waitForURL(/\/demo\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');

    await page.goto(`${gateway.url}/demo`);
    await chooseMethod(page, 'wpwl-container-virtualAccount-SIBS_MULTIBANCO');
    await page.locator('.wpwl-container-virtualAccount-SIBS_MULTIBANCO button.wpwl-button-pay').click();
    await page.frameLocator('.wpwl-container-virtualAccount-SIBS_MULTIBANCO iframe.wpwl-target').locator('a#continue').click();
    await page.waitForURL(/\/demo\/result\?id=/);
    expect(await page.locator('h1').innerText()).toBe('Your payment is being processed');
    expect(await page.locator('table#voucher').innerText()).toMatch(/Voucher\s+[0-9]{14}/);
    await page.close();
  });

  it('saves a card on the account page, offers it on the next order and pays with it, with no policy violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const payments: URLSearchParams[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) payments.push(new URLSearchParams(request.postData() ?? ''));
    });
    const received = async () => JSON.parse(await page.locator('pre').innerText()) as { registrationId?: string; card?: { last4Digits?: string } };

    await page.goto(`${gateway.url}/demo/account`);
    expect(await page.locator('#account-intro').innerText()).toContain('the shop saves it');
    await page.locator('.wpwl-form-card').waitFor();
    expect(await page.locator('#wpwl-registrations').count()).toBe(0);
    await payWithTestCard(page);
    await page.waitForURL(/\/demo\/account\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    expect(await page.locator('#saved-card').innerText()).toContain('VISA ending 0000');
    const { registrationId } = await received();
    expect(registrationId).toMatch(/^[0-9a-f]{32}$/);

    await page.locator('a#pay-with-saved-card').click();
    await page.locator('#wpwl-registrations form.wpwl-form-registrations').waitFor();
    expect(await page.locator('#account-intro').innerText()).toContain('Your saved card is offered first');
    expect(await page.locator('input[name="registrationId"]').first().getAttribute('value')).toBe(registrationId);
    await page.locator('.wpwl-form-registrations button.wpwl-button-pay').click();
    await page.waitForURL(/\/demo\/account\/result\?id=/);
    await expect.poll(() => page.locator('h1').innerText()).toBe('Thank you for your order');
    expect(await received()).toMatchObject({ registrationId, card: { last4Digits: '0000' } });
    // The second payment named the stored card, and no card number travelled.
    expect(payments).toHaveLength(2);
    expect(payments[1]?.get('registrationId')).toBe(registrationId);
    expect([...(payments[1]?.keys() ?? [])].filter((name) => name.startsWith('card.number'))).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  });
});
