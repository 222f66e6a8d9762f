import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../server/dashboard/pages.ts';
import { cardPayment, startTestGateway, type TestGateway } from '../server/testing/harness.ts';
import { seedPayments } from '../server/testing/seedPayments.ts';
import { launchBrowser } from './support/browser.ts';
import { focusedText, seriousViolations, signInAsMerchant } from './support/dashboard.ts';
import { merchantUser } from '../server/testing/dashboardClient.ts';

/**
 * The back office's app at /dashboard (issue 26) in Chromium, against a real gateway: the page loads under its strict
 * CSP with no policy violation, the sign-in page is axe-clean, works with the keyboard alone and speaks German when
 * asked; a merchant user signed in with e-mail address and password finds its payments (list, search, next page), opens one, and
 * captures part of it after confirming, seeing the gateway's answer.
 */

let t: TestGateway;
let browser: Browser;
const opened: Page[] = [];

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestGateway('PGlite'), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close();
});

interface Opened {
  readonly page: Page;
  /** Policy violations and script errors the page reported. */
  readonly problems: string[];
}

async function open(path: string, options: { locale?: string } = {}): Promise<Opened> {
  const context = await browser.newContext({ locale: options.locale ?? 'en-GB' });
  const page = await context.newPage();
  opened.push(page);
  const problems: string[] = [];
  page.on('console', (message) => {
    // A resource's 4xx is logged too: GET /dashboard/api/session is 401 before sign-in, and /favicon.ico is none.
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const response = await page.goto(`${t.url}${path}`);
  expect(response?.headers()['content-security-policy']).toBe(DASHBOARD_CSP);
  return { page, problems };
}

/** Whether the focused element shows a focus ring (an outline of some width). */
const focusVisible = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    if (!active || active === document.body) return false;
    const style = getComputedStyle(active);
    return style.outlineStyle !== 'none' && style.outlineWidth !== '0px';
  });

async function signInWithToken(page: Page, landing: string | RegExp = 'Payments', token = t.token): Promise<void> {
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await signInAsMerchant(page, t.gateway.store, token);
  await page.getByRole('heading', { level: 1, name: landing }).waitFor();
}

describe('the dashboard before sign-in', () => {
  it('loads its page, script and stylesheet under the strict CSP, with no violation, and shows the sign-in page with the focus on its heading', async () => {
    const { page, problems } = await open('/dashboard');
    const heading = page.getByRole('heading', { level: 1, name: 'Sign in' });
    await heading.waitFor();
    await expect.poll(() => focusedText(page)).toBe('Sign in');
    // The stylesheet applied (style-src 'self'): the primary button has the accent colour.
    expect(await page.getByRole('button', { name: 'Sign in' }).evaluate((button) => getComputedStyle(button).backgroundColor)).toBe('rgb(31, 79, 191)');
    expect(await page.locator('[style]').count()).toBe(0);
    expect(await page.title()).toBe('Sign in – Gateway back office');
    expect(problems).toEqual([]);
  });

  it('answers a deep link with the same app (sign-in first)', async () => {
    const { page, problems } = await open('/dashboard/payments/0123456789abcdef0123456789abcdef');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('has no serious or critical axe violation on the sign-in page, in both ways to sign in and with a refusal showing', async () => {
    const { page } = await open('/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Merchant user').check();
    await page.getByLabel('E-mail address').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not a password of this gateway');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Result code 800.900.300');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('marks empty fields invalid and moves the focus to the first of them', async () => {
    const { page } = await open('/dashboard');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const name = page.getByLabel('Operator name');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('operator');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await name.getAttribute('aria-describedby')}`).innerText()).toBe('Fill in this field.');
  });

  it('can be used with the keyboard alone, with the focus always visible, and signs in as a merchant user', async () => {
    const user = await merchantUser(t.gateway.store, t.entityId, 'admin');
    const { page, problems } = await open('/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expect.poll(() => focusedText(page)).toBe('Sign in');
    // From the heading: the choice of how to sign in, the operator's name and password, the button.
    const seen: string[] = [];
    const focused = () =>
      page.evaluate(() => {
        const active = document.activeElement as HTMLInputElement;
        return `${active.tagName.toLowerCase()}:${active.name || active.textContent?.trim()}`;
      });
    for (let step = 0; step < 4; step++) {
      await page.keyboard.press('Tab');
      expect(await focusVisible(page), `focus ring at step ${step}`).toBe(true);
      seen.push(await focused());
    }
    expect(seen).toEqual(['input:method', 'input:operator', 'input:password', 'button:Sign in']);
    // Back to the radio group: the arrow key chooses the merchant user.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('input:method');
    // Before it, the language picker.
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.id && document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent)).toBe('Language');
    expect(await focusVisible(page)).toBe(true);
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('Merchant user').isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).name)).toBe('email');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await expect.poll(() => focusedText(page)).toBe('Payments');
    expect(problems).toEqual([]);
  });

  it('speaks German when German is picked, and keeps it', async () => {
    const { page, problems } = await open('/dashboard');
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    for (const label of ['Betreiber', 'Name des Betreibers', 'Passwort', 'Sprache']) expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('starts in German for a German browser', async () => {
    const { page } = await open('/dashboard', { locale: 'de-DE' });
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
  });
});

describe('the dashboard signed in as a merchant', () => {
  const payments: { id: string; amount: string; reference: string }[] = [];
  beforeAll(async () => {
    for (const [index, amount] of ['12.50', '1234.56', '3.00'].entries()) {
      const reference = `order-00000${index + 1}`;
      const made = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount, merchantTransactionId: reference }));
      expect(made.body.result.code).toMatch(/^000\.100\.1/);
      payments.push({ id: made.body.id as string, amount, reference });
    }
  });

  it('lists the payments, newest first, with amounts for the language, and is axe-clean', async () => {
    const { page, problems } = await open('/dashboard');
    await signInWithToken(page);
    expect(page.url()).toBe(`${t.url}/dashboard/payments`);
    const table = page.getByRole('table', { name: 'Payments, newest first' });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.first().innerText()).toContain('order-000003');
    expect(await table.innerText()).toContain('€1,234.56');
    expect(await table.innerText()).toContain('BIN 420000, ending 0000');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Zahlungen' }).waitFor();
    expect(await page.getByRole('table').innerText()).toContain('1.234,56\u00a0€');
    expect(problems).toEqual([]);
  });

  it('searches by merchant reference and by short id, and opens a payment id directly', async () => {
    const { page } = await open('/dashboard/payments');
    await signInWithToken(page);
    const search = page.getByLabel(/^Payment id, short id/);
    await search.fill('order-000002');
    expect(await page.getByText('Looks for payments with this merchant reference, or a card holder named so.').count()).toBe(1);
    await search.press('Enter');
    await page.waitForURL(/\?q=order-000002$/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    const shortId = await page.locator('tbody tr a').first().innerText();
    expect(shortId).toMatch(/^\d{4}\.\d{4}\.\d{4}$/);
    await page.getByLabel(/^Payment id, short id/).fill(shortId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\?q=\d{4}\.\d{4}\.\d{4}$/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel(/^Payment id, short id/).fill(payments[0]!.id);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(new RegExp(`/dashboard/payments/${payments[0]!.id}$`));
    await page.getByRole('heading', { level: 1, name: /^Payment \d{4}\.\d{4}\.\d{4}$/ }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
  });

  it('refuses an amount filter that is no amount, at the field', async () => {
    const { page } = await open('/dashboard/payments');
    await signInWithToken(page);
    await page.getByLabel('Amount from').fill('12,3,4');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByLabel('Amount from').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('Enter an amount such as 12.50.').count()).toBe(1);
    await page.getByLabel('Amount from').fill('1.000,00');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/amountFrom=1000\.00/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
  });

  it('opens a payment with the keyboard, captures part of it after confirming, and shows the answer and the new transaction', async () => {
    const payment = payments[1]!;
    const { page, problems } = await open('/dashboard/payments');
    await signInWithToken(page);
    const link = page.getByRole('table').getByRole('row').filter({ hasText: payment.reference }).getByRole('link');
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`/dashboard/payments/${payment.id}$`));
    await page.getByRole('heading', { level: 1, name: /^Payment / }).waitFor();
    await expect.poll(() => focusedText(page)).toMatch(/^Payment \d{4}\.\d{4}\.\d{4}$/);
    expect(await page.getByText('BIN 420000, ending 0000').count()).toBeGreaterThan(0);
    // Never more of the card than BIN and last 4.
    expect(await page.locator('main').innerText()).not.toMatch(/Jane Jones|2034/);
    expect(await seriousViolations(page)).toEqual([]);

    const capture = page.getByRole('group', { name: 'Capture' });
    await capture.getByLabel('Amount in EUR').fill('1000,5');
    await capture.getByRole('button', { name: 'Capture' }).click();
    await capture.getByText('Capture €1,000.50 of payment').waitFor();
    await expect.poll(() => focusedText(page)).toBe('Confirm');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    const answer = page.locator('.outcome');
    await answer.getByRole('status').waitFor();
    expect(await answer.innerText()).toMatch(/Result code 000\.\d{3}\.\d{3}/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('outcome');
    // The payment loaded again: the capture among its linked transactions, and in the operator actions.
    const linked = page.getByRole('table', { name: 'Linked transactions' });
    await expect.poll(() => linked.innerText()).toContain('€1,000.50');
    expect(await page.getByRole('table', { name: 'Operator actions' }).innerText()).toContain('capture');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('refuses a zero amount at the field, and shows the gateway’s refusal of too much with its result code', async () => {
    const payment = payments[2]!;
    const { page } = await open(`/dashboard/payments/${payment.id}`);
    // A deep link: after sign-in, the page it named.
    await signInWithToken(page, /^Payment \d{4}\.\d{4}\.\d{4}$/);
    const capture = page.getByRole('group', { name: 'Capture' });
    await capture.getByLabel('Amount in EUR').fill('0');
    await capture.getByRole('button', { name: 'Capture' }).click();
    // Refused at the field: nothing is asked.
    expect(await capture.getByText('Enter an amount above zero.').count()).toBe(1);
    expect(await capture.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    await capture.getByLabel('Amount in EUR').fill('500');
    await capture.getByRole('button', { name: 'Capture' }).click();
    await capture.getByRole('button', { name: 'Confirm' }).click();
    const alert = page.locator('.outcome').getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/Result code \d{3}\.\d{3}\.\d{3}/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('pages through a long list by the API’s cursor, Back going to the page before', async () => {
    const merchant = await t.newMerchant();
    const template = await t.post('/v1/payments', cardPayment(merchant.entityId, { paymentType: 'DB', amount: '1.00', merchantTransactionId: 'template-0001' }), { token: merchant.token });
    await seedPayments(t.gateway.store, { templateId: template.body.id as string, count: 54, idSeed: 'dashboard-pages', firstAt: new Date(Date.now() - 3_600_000), stepMs: 1000, merchantTransactionIdPrefix: 'paged-' });
    const { page, problems } = await open('/dashboard/payments');
    await signInWithToken(page, 'Payments', merchant.token);
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(50);
    // The first page counts them all (54 and the template); a later page counts its own.
    await page.getByText('55 payments', { exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'First page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.waitForURL(/\?cursor=/);
    await expect.poll(() => rows.count()).toBe(5);
    expect(await page.getByText('5 payments on this page').count()).toBe(1);
    await expect.poll(() => focusedText(page)).toBe('Payments');
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    expect(await rows.last().innerText()).toContain('paged-1');
    await page.goBack();
    await expect.poll(() => rows.count()).toBe(50);
    expect(problems).toEqual([]);
  });

  it('goes between the pages by the navigation, marking the current one, and signs out', async () => {
    const { page, problems } = await open('/dashboard');
    await signInWithToken(page);
    const navigation = page.getByRole('navigation', { name: 'Back office' });
    expect(await navigation.getByRole('link', { name: 'Payments' }).getAttribute('aria-current')).toBe('page');
    for (const name of ['Registrations', 'Schedules', 'Webhooks', 'Settings', 'Settlements']) {
      await navigation.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
      await expect.poll(() => focusedText(page)).toBe(name);
      expect(await navigation.getByRole('link', { name }).getAttribute('aria-current')).toBe('page');
    }
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.goto(`${t.url}/dashboard/no-such-page`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
  });
});
