import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CIT_INITIAL, cardPayment, MIT_REPEATED, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../server/testing/harness.ts';
import { startNodeReceiver, type NodeReceiver } from '../server/testing/webhookReceivers.ts';
import { launchBrowser } from './support/browser.ts';
import { focusedText, seriousViolations, signInAsMerchant } from './support/dashboard.ts';

/**
 * The back office's registrations, schedules and webhooks pages in Chromium, against a real gateway on each store: a
 * merchant signed in with its token sees its stored cards and bank accounts (never more than BIN and last 4, the IBAN
 * masked), cancels a schedule after confirming (with the keyboard), adds a webhook with its own secret (never shown
 * back) against a real receiver on loopback, sends it a test message, opens its deliveries and sends one again —
 * each answer shown, each change found in the store, and every page axe-clean.
 */

warnIfPostgresSkipped('the dashboard records e2e test');

const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const IBAN = 'DE23100000001234567890';

let browser: Browser;
const opened: Page[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const page of opened.splice(0)) await page.context().close();
});

describe.each(STORE_KINDS)('the dashboard records pages on %s', (kind) => {
  let t: TestGateway;
  let receiver: NodeReceiver;
  const made = { card: '', account: '', deleted: '', schedule: '' };

  beforeAll(async () => {
    [t, receiver] = await Promise.all([startTestGateway(kind), startNodeReceiver(SECRET, 200)]);
    const initial = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard(), ...CIT_INITIAL });
    expect(initial.status).toBe(200);
    made.card = initial.body.registrationId as string;
    const account = await t.post('/v1/registrations', { entityId: t.entityId, paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': IBAN });
    made.account = account.body.id as string;
    const deleted = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' }) });
    made.deleted = deleted.body.id as string;
    expect((await t.delete(`/v1/registrations/${made.deleted}`, { entityId: t.entityId })).status).toBe(200);
    const schedule = await t.post('/scheduling/v1/schedules', {
      entityId: t.entityId,
      registrationId: made.card,
      amount: '12.50',
      currency: 'EUR',
      paymentType: 'DB',
      ...MIT_REPEATED,
      'job.second': '0',
      'job.minute': '0',
      'job.hour': '10',
      'job.dayOfMonth': '1',
      'job.month': '*',
      'job.name': 'gym monthly',
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(200);
    made.schedule = schedule.body.id as string;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    opened.push(page);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${t.url}${path}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await signInAsMerchant(page, t.gateway.store, t.token);
    return { page, problems };
  }

  const actions = async (action: string) =>
    (await t.gateway.store.query<{ actor: string; detail: Record<string, unknown>; result_code: string }>('SELECT actor, detail, result_code FROM dashboard_actions WHERE action = $1 ORDER BY id', [action])).rows;

  it('lists the stored cards and bank accounts, masked, with their status, and is axe-clean', async () => {
    const { page, problems } = await open('/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Registrations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Registrations' }).waitFor();
    const table = page.getByRole('table', { name: 'Registrations, newest first' });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    const deleted = await rows.filter({ hasText: made.deleted }).innerText();
    expect(deleted).toContain('BIN 545454, ending 5454');
    expect(deleted).toContain('Deleted');
    const account = await rows.filter({ hasText: made.account }).innerText();
    expect(account).toContain('IBAN DE2310************7890');
    expect(account).toContain('Active');
    const card = await rows.filter({ hasText: made.card }).innerText();
    expect(card).toContain('BIN 420000, ending 0000');
    expect(card).toContain('Expires 05/2034');
    const shown = await page.locator('main').innerText();
    expect(shown).not.toContain(IBAN);
    expect(shown).not.toMatch(/4200000000000000|5454545454545454/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('heading', { level: 1, name: 'Registrierungen' }).waitFor();
    expect(await page.getByRole('table').innerText()).toContain('Gelöscht');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('cancels a schedule with the keyboard after confirming, shows the answer, and the schedule is cancelled in the store', async () => {
    const { page, problems } = await open('/dashboard/schedules');
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    const table = page.getByRole('table', { name: 'Schedules, newest first' });
    const row = table.locator('tbody tr').filter({ hasText: 'gym monthly' });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('0 0 10 1 * ? *');
    expect(text).toContain('€12.50');
    expect(text).toContain('Active');
    expect(text).toContain('BIN 420000, ending 0000');
    expect(await seriousViolations(page)).toEqual([]);

    await row.getByRole('button', { name: 'Cancel schedule' }).focus();
    await page.keyboard.press('Enter');
    await row.getByText('Cancel the schedule of €12.50 (0 0 10 1 * ? *)?').waitFor();
    await expect.poll(() => focusedText(page)).toBe('Confirm');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    const answer = page.locator('.outcome');
    await answer.getByRole('status').waitFor();
    expect(await answer.innerText()).toContain('Result code 000.000.000');
    await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('outcome');
    await expect.poll(() => table.locator('tbody tr').filter({ hasText: 'gym monthly' }).innerText()).toContain('Cancelled');
    expect(await table.locator('tbody tr').filter({ hasText: 'gym monthly' }).getByRole('button').count()).toBe(0);

    const stored = await t.gateway.store.query<{ status: string; cancel_reason: string }>('SELECT status, cancel_reason FROM schedules WHERE id = $1', [made.schedule]);
    expect(stored.rows).toEqual([{ status: 'cancelled', cancel_reason: 'merchant' }]);
    expect(await actions('cancel schedule')).toEqual([{ actor: `user admin@${t.entityId}.test (Test merchant)`, detail: { scheduleId: made.schedule }, result_code: '000.000.000' }]);

    // The filter by status lives in the address.
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/\/dashboard\/schedules\?status=active$/);
    await page.getByText('No schedule.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('adds a webhook with its own secret (never shown back), tests it, opens its deliveries and sends one again', async () => {
    const { page, problems } = await open('/dashboard/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook.').waitFor();
    expect(await page.getByRole('note').innerText()).toContain('shows it here once');
    expect(await seriousViolations(page)).toEqual([]);

    // A secret that is no secret: refused at its field name, and not shown back.
    await page.getByLabel('Address (URL)').fill(receiver.url);
    await page.getByLabel('Secret', { exact: true }).fill('not-64-hex-characters');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const alert = page.locator('.outcome').getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('Result code 200.300.404');
    expect(await alert.innerText()).toContain('secret: must be 64 hexadecimal characters');
    expect(await page.locator('main').innerText()).not.toContain('not-64-hex-characters');

    await page.getByLabel('Registrations', { exact: true }).uncheck();
    await page.getByLabel('Risk checks').uncheck();
    await page.getByLabel('Wrapper').selectOption('JSON');
    const secret = page.getByLabel('Secret', { exact: true });
    await secret.fill(SECRET);
    await secret.press('Enter');
    const created = page.locator('.outcome').getByRole('status');
    await created.waitFor();
    expect(await created.innerText()).toContain(`New webhook ${receiver.url}: Active. The test message was delivered (HTTP 200).`);
    expect(await secret.inputValue()).toBe('');
    const table = page.getByRole('table', { name: 'Webhooks' });
    await table.waitFor();
    expect(await table.innerText()).toContain('PAYMENT, SCHEDULE');
    expect(await page.content()).not.toContain(SECRET);
    expect(receiver.received.map((request) => (request.json as { type: string }).type)).toEqual(['test']);
    const [webhook] = (await t.gateway.store.query<{ id: string; types: string[]; wrapper: string; status: string }>('SELECT id, types, wrapper, status FROM webhooks WHERE entity_id = $1', [t.entityId])).rows;
    expect(webhook).toMatchObject({ types: ['PAYMENT', 'SCHEDULE'], wrapper: 'JSON', status: 'active' });
    expect(await seriousViolations(page)).toEqual([]);

    await table.getByRole('button', { name: 'Send test message' }).click();
    await expect.poll(() => page.locator('.outcome').innerText()).toContain(`Test message to ${receiver.url}: The test message was delivered (HTTP 200).`);
    expect(receiver.received).toHaveLength(2);

    // A payment: its delivery, sent by the gateway's worker; then the deliveries page.
    const paid = await t.post('/v1/payments', cardPayment(t.entityId));
    await t.gateway.webhooks.deliveries.runDueJobs();
    await receiver.waitFor(3);
    await table.getByRole('link', { name: 'Manage' }).click();
    await page.getByRole('heading', { level: 1, name: `Webhook ${receiver.url}` }).waitFor();
    const deliveries = page.getByRole('table', { name: 'Latest deliveries, newest first' });
    const delivery = deliveries.locator('tbody tr').filter({ hasText: paid.body.id as string });
    await delivery.waitFor();
    expect(await delivery.innerText()).toContain('PAYMENT CREATED');
    expect(await delivery.innerText()).toContain('Delivered');
    expect(await delivery.innerText()).toMatch(/HTTP 200 \(\d+ ms\)/);
    expect(await page.getByText('Never shown').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    await delivery.getByRole('button', { name: 'Send again' }).click();
    await delivery.getByText(`Send the PAYMENT CREATED notification to ${receiver.url} again?`).waitFor();
    await expect.poll(() => focusedText(page)).toBe('Confirm');
    await page.keyboard.press('Enter');
    const resent = page.locator('.outcome').getByRole('status');
    await resent.waitFor();
    expect(await resent.innerText()).toContain('Result code 000.000.000');
    await t.gateway.webhooks.deliveries.runDueJobs();
    await receiver.waitFor(4);
    expect((receiver.received[3]?.json as { payload?: { id?: string } }).payload?.id).toBe(paid.body.id);
    await page.reload();
    await deliveries.waitFor();
    await expect.poll(() => deliveries.locator('tbody tr').filter({ hasText: paid.body.id as string }).locator('li').count()).toBe(2);
    const recorded = await page.getByRole('table', { name: 'Operator actions' }).innerText();
    expect(recorded).toContain('create webhook');
    expect(recorded).toContain('test webhook');
    expect(recorded).toContain('resend delivery');
    expect(await page.content()).not.toContain(SECRET);
    expect(await seriousViolations(page)).toEqual([]);

    const logged = (await actions('create webhook')).map((row) => row.result_code);
    expect(logged).toEqual(['200.300.404', '000.000.000']);
    expect(JSON.stringify(await actions('create webhook'))).not.toContain(SECRET);
    expect(problems).toEqual([]);
  });
});
