import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The summary page (issue 35, point 4) on a merchant page written as the platform documents it, under the strict
 * Content-Security-Policy: `useSummaryPage` saves the card instead of paying, `onSaveTransactionData(data)` takes the
 * shopper to the shop's summary page, which shows what the callback got; the shop's server then executes the payment
 * (`POST /v1/checkouts/{id}/payment` with its token), and the shopper lands on the result page — through the 3-D Secure
 * challenge for an enrolled card.
 */

const env = useMerchantSiteAndBrowser();

interface Answer {
  readonly status: number;
  readonly body: { id: string; result: { code: string }; redirect?: { url: string; parameters: { name: string; value: string }[] } };
}

/** The shop's server: executes the saved payment with its credentials. */
async function executePayment(checkoutId: string): Promise<Answer> {
  const response = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.site.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ entityId: env.site.entityId }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** The shopper saves a card on the payment page and reaches the shop's summary page. */
async function saveCard(card: { number?: string; holder?: string }): Promise<{ page: Page; checkoutId: string; violations: string[] }> {
  const page = env.track(await env.browser.newPage());
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const checkoutId = await env.site.createCheckout();
  await page.goto(env.site.pageUrl('csp-summary-page', { checkoutId }));
  await page.locator('.wpwl-form-card').waitFor();
  await fillCard(page, card);
  await page.locator('button.wpwl-button-pay').click();
  await page.waitForURL(/\/pages\/summary\?checkoutId=/);
  return { page, checkoutId, violations };
}

describe('the summary page', () => {
  it('saves the card, shows the shop\'s summary with what onSaveTransactionData got, and pays when the shop\'s server executes it', async () => {
    const { page, checkoutId, violations } = await saveCard({});
    expect(violations).toEqual([]);
    const data = JSON.parse((await page.evaluate(() => sessionStorage.getItem('transactionData'))) ?? '{}');
    expect(data).toMatchObject({
      result: { code: '000.200.101' },
      id: checkoutId,
      paymentBrand: 'VISA',
      card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
    });
    expect(JSON.stringify(data)).not.toContain('4200000000000000');
    expect(await page.locator('p').innerText()).toBe('Paid with VISA ending in 0000 (Jane Jones, 05/2034)');
    // Nothing was paid yet: the shop's server reads no payment.
    const before = await fetch(`${env.site.gatewayUrl}/v1/checkouts/${checkoutId}/payment?entityId=${env.site.entityId}`, { headers: { Authorization: `Bearer ${env.site.token}` } });
    expect(((await before.json()) as Answer['body']).result.code).not.toBe('000.100.110');

    await page.locator('#confirm').click();
    const paid = await executePayment(checkoutId);
    expect([paid.status, paid.body.result.code]).toEqual([200, '000.100.110']);
    // The shop sends the shopper to its result page, as after a widget payment.
    await page.goto(`${env.site.merchantUrl}/result?id=${encodeURIComponent(checkoutId)}&resourcePath=${encodeURIComponent(`/v1/checkouts/${checkoutId}/payment`)}`);
    expect(await resultOf(page)).toMatchObject({ id: paid.body.id, result: { code: '000.100.110' }, paymentBrand: 'VISA', card: { last4Digits: '0000' } });
  });

  it('answers a declined card as a declined payment, which the result page shows', async () => {
    const { page, checkoutId } = await saveCard({ holder: '800.100.151' });
    const declined = await executePayment(checkoutId);
    expect([declined.status, declined.body.result.code]).toEqual([400, '800.100.151']);
    await page.goto(`${env.site.merchantUrl}/result?id=${encodeURIComponent(checkoutId)}&resourcePath=${encodeURIComponent(`/v1/checkouts/${checkoutId}/payment`)}`);
    expect((await resultOf(page)).result.code).toBe('800.100.151');
  });

  it('sends the shopper of an enrolled card through the 3-D Secure challenge the answer names, ending on the result page', async () => {
    const { page, checkoutId } = await saveCard({ number: '4200000000000042' });
    const pending = await executePayment(checkoutId);
    expect([pending.status, pending.body.result.code]).toEqual([200, '000.200.000']);
    const redirect = pending.body.redirect;
    expect(redirect?.url).toMatch(/^http/);
    // The shop's summary page posts the shopper to the challenge, as the answer's redirect says.
    await page.evaluate((target) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = target.url;
      for (const { name, value } of target.parameters) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    }, redirect as NonNullable<typeof redirect>);
    await page.locator('input#otp').fill('1234');
    await page.locator('button[type="submit"]').first().click();
    const result = await resultOf(page);
    expect(result.result.code).toBe('000.100.110');
  });
});
