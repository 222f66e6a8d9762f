// The shop's own browser tests: its checkout page, paid with the gateway's test cards through the widget, each
// worker against a gateway of its own (payment-gateway/playwright/test).
import { expect, test } from 'payment-gateway/playwright/test';

test.beforeEach(({ gateway }, testInfo) => {
  // Which gateway served the test (one per worker), in the report.
  testInfo.annotations.push({ type: 'gateway', description: gateway.url });
});

test('pays the order with the test card', async ({ page, payWithCard }) => {
  await page.goto('/');
  await payWithCard();
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
});

test('passes a 3-D Secure challenge', async ({ page, payWithCard, completeChallenge, gateway }) => {
  await page.goto('/');
  await payWithCard({ number: '4200000000000042' });
  await completeChallenge('1234');
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
  // The challenge page the gateway sent the shopper to, and how it ended.
  const paymentId = await page.locator('#payment').textContent();
  const [redirect] = await gateway.sent.list({ paymentId, kind: 'redirect' });
  expect(redirect).toMatchObject({ page: 'threeDSecure', outcome: 'success' });
});

test('a chargeback on a paid order', async ({ page, payWithCard, gateway }) => {
  await page.goto('/');
  await payWithCard();
  const paymentId = await page.locator('#payment').textContent();
  const { caused, events } = await gateway.trigger('chargeback', { paymentId, reasonCode: '000.100.203' });
  expect(caused.chargeback).toMatchObject({ paymentType: 'CB', referencedId: paymentId, amount: '49.00', result: { code: '000.100.203' } });
  expect(events).toContainEqual(expect.objectContaining({ type: 'PAYMENT', action: 'CREATED', resourceId: caused.chargeback.id }));
});

test('shows a decline', async ({ page, payWithCard }) => {
  await page.goto('/');
  await payWithCard({ holder: '800.100.151' });
  await expect(page.locator('h1')).toHaveText('The payment did not go through');
  await expect(page.locator('#code')).toHaveText('800.100.151');
});

test('pays a day later on the gateway’s clock, which only this worker’s gateway moved', async ({ page, payWithCard, gateway }) => {
  const step = await gateway.clock.advance(86_400);
  expect(step).toMatchObject({ steppedSeconds: 86_400 });
  await page.goto('/');
  await payWithCard();
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
  const ahead = (await gateway.clock.now()).getTime() - Date.now();
  expect(ahead).toBeGreaterThan(86_000_000);
  expect((await gateway.clock.reset()).advancedSeconds).toBe(0);
});
