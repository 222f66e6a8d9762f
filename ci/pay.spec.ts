// The gateway's own Playwright test, on the fixtures a shop uses (`payment-gateway/playwright/test`, here from the
// sources): each worker pays through the widget on its own gateway's demo shop (/demo), and makes things happen to
// what it paid.
import { expect, test } from './fixture.ts';

test('pays with the test card, and its chargeback reaches the events', async ({ page, gateway, payWithCard }) => {
  await page.goto(`${gateway.url}/demo`);
  await payWithCard();
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
  await expect(page.locator('pre')).toContainText('"code": "000.100.110"');
  const paymentId = JSON.parse(await page.locator('pre').innerText()).id as string;
  const { caused } = await gateway.trigger('chargeback', { paymentId });
  expect(caused.chargeback).toMatchObject({ paymentType: 'CB', referencedId: paymentId });
});

test('passes a 3-D Secure challenge, and the page it went to is listed as sent', async ({ page, gateway, payWithCard, completeChallenge }) => {
  await page.goto(`${gateway.url}/demo`);
  await payWithCard({ number: '4200000000000042' });
  await completeChallenge('1234');
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
  const redirects = await gateway.sent.list({ kind: 'redirect' });
  expect(redirects[0]).toMatchObject({ page: 'threeDSecure', outcome: 'success' });
});

test('is declined with the code the card holder names', async ({ page, gateway, payWithCard }) => {
  await page.goto(`${gateway.url}/demo`);
  await payWithCard({ holder: '800.100.151' });
  await expect(page.locator('h1')).toHaveText('The payment did not go through');
  await expect(page.locator('#result-description')).toContainText('800.100.151');
});
