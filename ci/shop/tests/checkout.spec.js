// The shop's own browser test: its checkout page, paid with the gateway's test cards through the widget.
import { expect, test } from '@playwright/test';
import { completeChallenge, payWithTestCard } from 'payment-gateway/playwright';

test('pays the order with the test card', async ({ page }) => {
  await page.goto('/');
  await payWithTestCard(page);
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
});

test('passes a 3-D Secure challenge', async ({ page }) => {
  await page.goto('/');
  await payWithTestCard(page, { number: '4200000000000042' });
  await completeChallenge(page, '1234');
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
});

test('shows a decline', async ({ page }) => {
  await page.goto('/');
  await payWithTestCard(page, { holder: '800.100.151' });
  await expect(page.locator('h1')).toHaveText('The payment did not go through');
  await expect(page.locator('#code')).toHaveText('800.100.151');
});
