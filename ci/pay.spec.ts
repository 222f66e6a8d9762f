// A Playwright test that pays through the gateway's widget, as your own tests do in CI (docs/ci.md). It opens the
// gateway's demo shop; your tests open your own checkout page instead.
import { expect, test } from '@playwright/test';
import { completeChallenge, payWithTestCard } from './playwright.ts';

const gateway = process.env.GATEWAY_URL ?? 'http://localhost:8080';

test('pays with the test card', async ({ page }) => {
  await page.goto(`${gateway}/demo`);
  await payWithTestCard(page);
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
  await expect(page.locator('pre')).toContainText('"code": "000.100.110"');
});

test('passes a 3-D Secure challenge', async ({ page }) => {
  await page.goto(`${gateway}/demo`);
  await payWithTestCard(page, { number: '4200000000000042' });
  await completeChallenge(page, '1234');
  await expect(page.locator('h1')).toHaveText('Thank you for your order');
});

test('is declined with the code the card holder names', async ({ page }) => {
  await page.goto(`${gateway}/demo`);
  await payWithTestCard(page, { holder: '800.100.151' });
  await expect(page.locator('h1')).toHaveText('The payment did not go through');
  await expect(page.locator('#result-description')).toContainText('800.100.151');
});
