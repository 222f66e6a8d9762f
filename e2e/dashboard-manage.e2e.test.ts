import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../server/dashboard/operators.ts';
import { CIT_INITIAL, cardPayment, startTestGateway, testCard, type TestGateway } from '../server/testing/harness.ts';
import { startNodeReceiver, type NodeReceiver } from '../server/testing/webhookReceivers.ts';
import { launchBrowser } from './support/browser.ts';
import { focusedText, seriousViolations, signInAsMerchant } from './support/dashboard.ts';

/**
 * Managing in the back office with Chromium (issue 34), against a real gateway: a merchant's admin
 * changes a webhook's address and types (the new address gets its activation message), switches it off after
 * confirming and on again, and deletes it after confirming, against real receivers on loopback; deletes a stored card
 * after confirming; an operator creates an access token, sees it once, finds the API accepting it, and revokes it
 * after confirming, the API then refusing it. Each answer shown, each change found in the store, every page
 * axe-clean.
 */

const SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const PASSWORD = 'an operator password of length';

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

// The page is the same on both stores; the API under it is tested on both (server/dashboard/recordsManage.test.ts and tokensApi.test.ts).
describe('managing webhooks, stored cards and access tokens in the dashboard on PGlite', () => {
  const kind = 'PGlite';
  let t: TestGateway;
  let first: NodeReceiver;
  let second: NodeReceiver;

  beforeAll(async () => {
    // No token cache: a revoked token is refused by the next request.
    [t, first, second] = await Promise.all([startTestGateway(kind, { tokenCacheSeconds: 0 }), startNodeReceiver(SECRET, 200), startNodeReceiver(SECRET, 200)]);
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await t?.close();
  });

  async function open(path: string, as: 'merchant' | 'operator'): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    opened.push(page);
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('console', (message) => {
      if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${t.url}${path}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    if (as === 'merchant') {
      await signInAsMerchant(page, t.gateway.store, t.token);
    } else {
      await page.getByLabel('Operator name').fill('olivia');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    return { page, problems };
  }

  const answer = (page: Page) => page.locator('.outcome');
  const actions = async (action: string) =>
    (await t.gateway.store.query<{ detail: Record<string, unknown>; result_code: string }>('SELECT detail, result_code FROM dashboard_actions WHERE action = $1 ORDER BY id', [action])).rows;
  const webhookRow = async () => (await t.gateway.store.query<{ id: string; url: string; types: string[]; status: string }>('SELECT id, url, types, status FROM webhooks WHERE entity_id = $1', [t.entityId])).rows;

  it('changes a webhook, switches it off and on, and deletes it, each after confirming where it cannot be undone', async () => {
    const { page, problems } = await open('/dashboard/webhooks', 'merchant');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    // Created with a secret the gateway generates: shown here once.
    await page.getByLabel('Address (URL)').fill(first.url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const once = page.getByRole('group', { name: `Secret of the new webhook ${first.url}` });
    await once.waitFor();
    const generated = (await once.locator('code').innerText()).trim();
    expect(generated).toMatch(/^[0-9a-f]{64}$/i);
    expect(await seriousViolations(page)).toEqual([]);
    await once.getByRole('button', { name: 'Hide it' }).click();
    expect(await page.content()).not.toContain(generated);
    // The receiver knows another secret: the generated one's activation is not accepted, and the webhook waits.
    const [made] = await webhookRow();
    expect(made).toMatchObject({ url: first.url, status: 'pending' });
    await page.reload();
    await page.getByRole('table', { name: 'Webhooks' }).waitFor();
    expect(await page.content()).not.toContain(generated);
    // Deleted, and created again with the receiver's own secret.
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('link', { name: 'Manage' }).click();
    await page.getByRole('heading', { level: 1, name: `Webhook ${first.url}` }).waitFor();
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText(`Delete the webhook to ${first.url}?`).waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await answer(page).getByRole('status').waitFor();
    expect(await answer(page).innerText()).toContain('Result code 000.000.000');
    expect(await webhookRow()).toEqual([]);
    await page.getByRole('link', { name: 'Back to the webhooks' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook.').waitFor();
    await page.getByLabel('Address (URL)').fill(first.url);
    await page.getByLabel('Secret', { exact: true }).fill(SECRET);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect.poll(() => answer(page).innerText()).toContain('Active. The test message was delivered (HTTP 200).');
    expect(await page.getByRole('group', { name: /^Secret of the new webhook/ }).count()).toBe(0);

    // Its settings changed: a new address gets the activation message at once.
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('link', { name: 'Manage' }).click();
    await page.getByRole('heading', { level: 1, name: `Webhook ${first.url}` }).waitFor();
    const change = page.getByRole('region', { name: 'Change its settings' });
    await change.getByLabel('Address (URL)').fill(second.url);
    await change.getByLabel('Registrations', { exact: true }).uncheck();
    await change.getByLabel('Risk checks').uncheck();
    await change.getByLabel('Wrapper').selectOption('JSON');
    await change.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => answer(page).innerText()).toContain(`Changed webhook ${first.url}: Active. The test message was delivered (HTTP 200).`);
    await page.getByRole('heading', { level: 1, name: `Webhook ${second.url}` }).waitFor();
    expect(second.received.map((request) => (request.json as { type: string }).type)).toEqual(['test']);
    expect((await webhookRow())[0]).toMatchObject({ url: second.url, types: ['PAYMENT', 'SCHEDULE'], status: 'active' });
    expect(await seriousViolations(page)).toEqual([]);

    // Off, after confirming (with the keyboard): nothing is sent to it meanwhile.
    await page.getByRole('button', { name: 'Switch off' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText(`Switch off the webhook to ${second.url}?`).waitFor();
    await expect.poll(() => focusedText(page)).toBe('Confirm');
    await page.keyboard.press('Enter');
    await expect.poll(() => answer(page).innerText()).toContain(`Switching off ${second.url}: Inactive.`);
    await expect.poll(async () => (await webhookRow())[0]?.status).toBe('inactive');
    await t.post('/v1/payments', cardPayment(t.entityId));
    await t.gateway.webhooks.deliveries.runDueJobs();
    expect(second.received).toHaveLength(1);
    // On again: its activation message first.
    await page.getByRole('button', { name: 'Switch on' }).click();
    await expect.poll(() => answer(page).innerText()).toContain(`Switching on ${second.url}: Active. The test message was delivered (HTTP 200).`);
    expect(second.received).toHaveLength(2);
    expect(await seriousViolations(page)).toEqual([]);

    // Deleted after confirming; the record of what was done stays in the audit log.
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await webhookRow()).toHaveLength(1);
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => answer(page).innerText()).toContain(`Deleting the webhook to ${second.url}`);
    expect(await answer(page).innerText()).toContain('Result code 000.000.000');
    expect(await webhookRow()).toEqual([]);
    expect((await actions('change webhook')).map((row) => [row.detail.active ?? row.detail.url ?? '', row.result_code])).toEqual([
      [second.url, '000.000.000'],
      [false, '000.000.000'],
      [true, '000.000.000'],
    ]);
    expect(await actions('delete webhook')).toHaveLength(2);
    expect(problems).toEqual([]);
  });

  it('deletes a stored card after confirming: erased, and marked deleted in the list', async () => {
    const initial = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard({ 'card.number': '5454545454545454', paymentBrand: 'MASTER' }), ...CIT_INITIAL });
    expect(initial.status, JSON.stringify(initial.body)).toBe(200);
    const registrationId = initial.body.registrationId as string;
    const { page, problems } = await open('/dashboard/registrations', 'merchant');
    await page.getByRole('heading', { level: 1, name: 'Registrations' }).waitFor();
    const row = page.getByRole('table', { name: 'Registrations, newest first' }).locator('tbody tr').filter({ hasText: registrationId });
    await row.waitFor();
    expect(await row.innerText()).toContain('Active');
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByText('Delete registration BIN 545454, ending 5454?', { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => answer(page).innerText()).toContain(`Deleting registration ${registrationId}`);
    expect(await answer(page).innerText()).toContain('Result code 000.000.000');
    await expect.poll(() => page.getByRole('table', { name: 'Registrations, newest first' }).locator('tbody tr').filter({ hasText: registrationId }).innerText()).toContain('Deleted');
    expect(await page.getByRole('table', { name: 'Registrations, newest first' }).locator('tbody tr').filter({ hasText: registrationId }).getByRole('button').count()).toBe(0);
    const stored = await t.gateway.store.query<{ deleted_at: Date | null; sealed_card_id: string | null }>('SELECT deleted_at, sealed_card_id FROM registrations WHERE id = $1', [registrationId]);
    expect(stored.rows[0]).toMatchObject({ deleted_at: expect.anything(), sealed_card_id: null });
    expect((await actions('delete registration')).map((action) => action.detail.registrationId)).toEqual([registrationId]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('creates an access token shown once, which the API accepts, and revokes it after confirming, which the API then refuses', async () => {
    const { page, problems } = await open('/dashboard', 'operator');
    await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Access tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'Access tokens' }).waitFor();
    const table = page.getByRole('table', { name: 'Access tokens, oldest first' });
    await table.waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    const form = page.getByRole('region', { name: 'Create a token' });
    await form.getByLabel('Label').fill('till in the shop');
    await form.getByLabel('Test merchant').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const once = page.getByRole('group', { name: 'The new token till in the shop' });
    await once.waitFor();
    const token = (await once.locator('code').innerText()).trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(await seriousViolations(page)).toEqual([]);
    const row = table.locator('tbody tr').filter({ hasText: 'till in the shop' });
    await row.waitFor();
    expect(await row.innerText()).toContain('Not used yet');
    expect(await row.innerText()).not.toContain(token);
    expect((await t.post('/v1/payments', cardPayment(t.entityId), { token })).status).toBe(200);
    await once.getByRole('button', { name: 'Hide it' }).click();
    expect(await page.content()).not.toContain(token);
    // Its use shows after a reload (to the minute); the token itself never again.
    await page.reload();
    await expect.poll(() => table.locator('tbody tr').filter({ hasText: 'till in the shop' }).innerText()).not.toContain('Not used yet');
    expect(await page.content()).not.toContain(token);

    await table.locator('tbody tr').filter({ hasText: 'till in the shop' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Revoke the token till in the shop of Test merchant?', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => answer(page).innerText()).toContain('Revoking token till in the shop');
    expect(await answer(page).innerText()).toContain('Result code 000.000.000');
    await expect.poll(() => table.locator('tbody tr').filter({ hasText: 'till in the shop' }).innerText()).toContain('Revoked');
    expect((await t.post('/v1/payments', cardPayment(t.entityId), { token })).status).toBe(403);
    expect((await actions('revoke token')).map((action) => action.result_code)).toEqual(['000.000.000']);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
