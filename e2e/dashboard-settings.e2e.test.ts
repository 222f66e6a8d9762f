import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../server/dashboard/operators.ts';
import { showOfferedBrands } from '../server/merchants/brands.ts';
import { findRoutingRules } from '../server/merchants/routingRules.ts';
import { findSmartRetry } from '../server/merchants/smartRetrySettings.ts';
import { HEADER_LINE, reconciliationFileName } from '../server/reconciliation/format.ts';
import { findFile, findFtpSettings } from '../server/reconciliation/repository.ts';
import { saveFtpSettings } from '../server/reconciliation/settings.ts';
import { insertSettlementBatch } from '../server/reports/settlementRecords.ts';
import { FTP_PASSWORD, FTP_USER, startTestFtpServer, type TestFtpServer } from '../server/testing/ftpServer.ts';
import { cardPayment, createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../server/testing/harness.ts';
import { settlementRecord } from '../server/testing/settlements.ts';
import { launchBrowser } from './support/browser.ts';
import { focusedText, seriousViolations, signInAsMerchant } from './support/dashboard.ts';

/**
 * The back office's Settings and Settlements pages (issue 26) in Chromium, against a real gateway on each store and a
 * real FTP server (ftp-srv on loopback): an operator changes an entity's smart retry, offered brands and FTP server
 * through the forms — the gateway's refusals shown with their result code and what to correct, removals asked first,
 * the FTP password never on the page — and a merchant reads its own settings without forms; the merchant sees its
 * settlement summary, downloads a day's reconciliation file and sends it again to its FTP server, with the keyboard
 * where natural. Each page is axe-clean, with answers showing.
 */

warnIfPostgresSkipped('the dashboard settings browser test');

const PASSWORD = 'correct horse battery staple';
const DAY = '2026-11-26';
const TODAY = '2026-11-27';
/** A browser test of a whole page's actions, on a machine other suites share. */
const TIMEOUT_MS = 120_000;

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

/** Polls until the assertion holds: generous, for a machine other suites share. */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

describe.each(STORE_KINDS)('the dashboard settings and settlements pages on %s', (kind) => {
  const clock = createTestClock(new Date(`${TODAY}T10:00:00Z`));
  let t: TestGateway;
  let ftp: TestFtpServer;

  beforeAll(async () => {
    [t, ftp] = await Promise.all([
      startTestGateway(kind, { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator' }, { now: clock.now, outboundTimeoutMs: 5_000 }),
      startTestFtpServer({ folders: ['in'] }),
    ]);
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
  });
  afterAll(async () => {
    await t?.close();
    await ftp?.close();
  });

  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-GB', acceptDownloads: true });
    const page = await context.newPage();
    opened.push(page);
    const problems: string[] = [];
    page.on('console', (message) => {
      // A resource's 4xx is logged too: GET /dashboard/api/session is 401 before sign-in, and the refusals shown.
      if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return;
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${t.url}${path}`);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    return { page, problems };
  }

  async function signInAsOperator(page: Page, landing: string): Promise<void> {
    await page.getByLabel('Operator name').fill('olivia');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: landing }).waitFor();
  }

  async function signInWithToken(page: Page, token: string, landing: string): Promise<void> {
    await signInAsMerchant(page, t.gateway.store, token);
    await page.getByRole('heading', { level: 1, name: landing }).waitFor();
  }

  /** The answer shown in a section (its status or alert), once it is there. */
  async function answerIn(page: Page, section: string, role: 'status' | 'alert'): Promise<string> {
    const message = page.getByRole('region', { name: section }).locator('.outcome').getByRole(role);
    await message.waitFor();
    return message.innerText();
  }

  it("lets an operator change an entity's smart retry, shows the gateway's refusals, and switches it off after asking", async () => {
    const { entityId } = await t.newMerchant();
    const { page, problems } = await open('/dashboard/settings');
    await signInAsOperator(page, 'Settings');
    await page.getByLabel('Entity', { exact: true }).selectOption(entityId);
    const section = page.getByRole('region', { name: 'Smart retry' });
    await section.getByRole('button', { name: 'Save smart retry' }).waitFor();
    expect(await section.locator('dl').innerText()).toContain('smart retry is not set up for this entity');

    // No fallback acquirer chosen: the gateway says what to correct.
    await section.getByRole('button', { name: 'Save smart retry' }).click();
    const refused = await answerIn(page, 'Smart retry', 'alert');
    expect(refused).toContain('Result code 200.300.404');
    expect(refused).toContain('fallbackAcquirer');
    await eventually(() => page.evaluate(() => document.activeElement?.className)).toBe('outcome');
    expect(await findSmartRetry(t.gateway.store, entityId)).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);

    await section.getByLabel('Fallback acquirer').selectOption('fallback');
    await section.getByLabel('Result codes to retry').fill('800.100.151\n800.100.152');
    await section.getByLabel('Payments with a stored card').uncheck();
    await section.getByRole('button', { name: 'Save smart retry' }).click();
    expect(await answerIn(page, 'Smart retry', 'status')).toContain('Result code 000.000.000');
    await eventually(() => section.locator('dl').innerText()).toContain('Yes: refused payments are retried');
    expect(await section.locator('dl').innerText()).toContain('800.100.151, 800.100.152');
    expect(await findSmartRetry(t.gateway.store, entityId)).toMatchObject({ enabled: true, fallbackAcquirer: 'fallback', codes: ['800.100.151', '800.100.152'], standalone: true, cardOnFile: false });

    // Switching off asks first (Cancel keeps it), then with the keyboard.
    await section.getByRole('button', { name: 'Switch smart retry off' }).click();
    await section.getByText('Switch smart retry off for Test merchant? Its settings are removed.').waitFor();
    await section.getByRole('button', { name: 'Cancel' }).click();
    expect(await findSmartRetry(t.gateway.store, entityId)).toBeDefined();
    await section.getByRole('button', { name: 'Switch smart retry off' }).click();
    await eventually(() => focusedText(page)).toBe('Confirm');
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await eventually(() => section.locator('dl').innerText()).toContain('smart retry is not set up for this entity');
    expect(await findSmartRetry(t.gateway.store, entityId)).toBeUndefined();
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);

  it('lets an operator choose the brands an entity offers, which payments obey, and restore the default', async () => {
    const { entityId, token } = await t.newMerchant();
    const { page, problems } = await open('/dashboard/settings');
    await signInAsOperator(page, 'Settings');
    await page.getByLabel('Entity', { exact: true }).selectOption(entityId);
    const section = page.getByRole('region', { name: 'Payment brands offered' });
    const choices = section.getByRole('group', { name: 'Brands the entity offers' });
    await choices.getByLabel('VISA', { exact: true }).waitFor();
    expect(await section.locator('dl').innerText()).toContain("The gateway's default for this environment");

    // None chosen: refused, nothing written.
    // Every box clicked off in the page at once (a click each, as the operator's mouse would), not one round trip each.
    await choices.locator('input[type=checkbox]:checked').evaluateAll((boxes) => boxes.forEach((box) => (box as HTMLInputElement).click()));
    expect(await choices.getByRole('checkbox', { checked: true }).count()).toBe(0);
    await section.getByRole('button', { name: 'Save the brands' }).click();
    expect(await answerIn(page, 'Payment brands offered', 'alert')).toContain('must name at least one brand');
    expect((await showOfferedBrands(t.gateway.store, entityId))?.isDefault).toBe(true);

    await choices.getByLabel('MASTER', { exact: true }).check();
    await section.getByRole('button', { name: 'Save the brands' }).press('Enter');
    expect(await answerIn(page, 'Payment brands offered', 'status')).toContain('Result code 000.000.000');
    await eventually(() => section.locator('dl').innerText()).toContain('An operator, for this entity');
    expect((await showOfferedBrands(t.gateway.store, entityId))?.brands).toEqual(['MASTER']);
    expect((await t.post('/v1/payments', cardPayment(entityId), { token })).body.result.code).toBe('600.200.201');
    expect(await seriousViolations(page)).toEqual([]);

    await section.getByRole('button', { name: 'Restore the default brands' }).click();
    await section.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => section.locator('dl').innerText()).toContain("The gateway's default for this environment");
    expect((await showOfferedBrands(t.gateway.store, entityId))?.isDefault).toBe(true);
    expect((await t.post('/v1/payments', cardPayment(entityId), { token })).body.result.code).toMatch(/^000\./);
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);

  it('lets an operator set the FTP server with a write-only password, keep it when left empty, and remove the settings', async () => {
    const { entityId } = await t.newMerchant();
    const { page, problems } = await open('/dashboard/settings');
    await signInAsOperator(page, 'Settings');
    await page.getByLabel('Entity', { exact: true }).selectOption(entityId);
    const section = page.getByRole('region', { name: 'Reconciliation file upload (FTP)' });
    await section.getByText('No FTP server is set: reconciliation files are not sent.').waitFor();

    await section.getByLabel('Host').fill('not a host');
    await section.getByLabel('User name').fill(FTP_USER);
    await section.getByRole('button', { name: 'Save the FTP settings' }).click();
    const refused = await answerIn(page, 'Reconciliation file upload (FTP)', 'alert');
    expect(refused).toContain('host: must be a host name or an IP address');
    expect(refused).toContain('password: is required');
    expect(await findFtpSettings(t.gateway.store, entityId)).toBeUndefined();

    await section.getByLabel('Host').fill('127.0.0.1');
    await section.getByLabel('Port').fill(String(ftp.port));
    await section.getByLabel('Password').fill(FTP_PASSWORD);
    await section.getByLabel('Folder').fill('in');
    await section.getByLabel('Use explicit TLS (AUTH TLS)').uncheck();
    await section.getByRole('button', { name: 'Save the FTP settings' }).click();
    expect(await answerIn(page, 'Reconciliation file upload (FTP)', 'status')).toContain('Answer of the gateway: Save the FTP settings');
    await eventually(() => section.locator('dl').innerText()).toContain('Set (never shown)');
    expect(await findFtpSettings(t.gateway.store, entityId)).toMatchObject({ host: '127.0.0.1', port: ftp.port, username: FTP_USER, folder: 'in', explicitTls: false });
    // The password field is empty again, and the password nowhere on the page.
    expect(await section.getByLabel('Password').inputValue()).toBe('');
    expect(await page.content()).not.toContain(FTP_PASSWORD);
    expect(await seriousViolations(page)).toEqual([]);

    // Left empty, the password is kept.
    const passwordId = (await findFtpSettings(t.gateway.store, entityId))?.passwordId;
    await section.getByLabel('User name').fill('shop2');
    await section.getByRole('button', { name: 'Save the FTP settings' }).click();
    await eventually(() => section.locator('dl').innerText()).toContain('shop2');
    expect((await findFtpSettings(t.gateway.store, entityId))?.passwordId).toBe(passwordId);

    await section.getByRole('button', { name: 'Remove the FTP settings' }).click();
    await section.getByText('Remove the FTP settings of Test merchant? Its reconciliation files are no longer sent.').waitFor();
    await eventually(() => focusedText(page)).toBe('Confirm');
    await page.keyboard.press('Enter');
    await section.getByText('No FTP server is set: reconciliation files are not sent.').waitFor();
    expect(await findFtpSettings(t.gateway.store, entityId)).toBeUndefined();
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);

  it('lets an operator set a routing rule, which payments follow, after the gateway named what to correct', async () => {
    const { entityId, token } = await t.newMerchant();
    const { page, problems } = await open('/dashboard/settings');
    await signInAsOperator(page, 'Settings');
    await page.getByLabel('Entity', { exact: true }).selectOption(entityId);
    const section = page.getByRole('region', { name: 'Routing rules', exact: true });
    await section.getByText('No rules: every payment goes to the default acquirer, simulator.').waitFor();

    await section.getByRole('button', { name: 'Add a rule' }).click();
    const rule = section.getByRole('group', { name: 'Rule 1' });
    await rule.getByLabel('Acquirer').selectOption('fallback');
    await rule.getByLabel('Brands').fill('master');
    await rule.getByLabel('Up to amount').fill('100,00');
    await section.getByRole('button', { name: 'Save the routing rules' }).click();
    const refused = section.locator('.outcome').getByRole('alert');
    await refused.waitFor();
    expect(await refused.innerText()).toContain('rules[0].maxAmount');
    expect(await findRoutingRules(t.gateway.store, entityId)).toBeUndefined();

    await rule.getByLabel('Up to amount').fill('100.00');
    await section.getByRole('button', { name: 'Save the routing rules' }).click();
    await section.locator('.outcome').getByRole('status').waitFor();
    const table = section.getByRole('table', { name: 'Routing rules of Test merchant, in the order they are tried' });
    await eventually(() => table.innerText()).toContain('fallback');
    expect((await findRoutingRules(t.gateway.store, entityId))?.rules).toEqual([{ acquirer: 'fallback', brands: ['MASTER'], maxAmountMinor: 10_000 }]);
    const paid = await t.post('/v1/payments', cardPayment(entityId, { paymentBrand: 'MASTER', 'card.number': '5454545454545454' }), { token });
    const acquirer = await t.gateway.store.query<{ acquirer: string }>('SELECT acquirer FROM payments WHERE id = $1', [paid.body.id]);
    expect(acquirer.rows[0]?.acquirer).toBe('fallback');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);

  it('shows a merchant its own settings to read, without forms', async () => {
    const { page, problems } = await open('/dashboard/settings');
    await signInWithToken(page, t.token, 'Settings');
    await page.getByText('You can see these settings; only an operator of the platform changes them.').waitFor();
    for (const name of ['Smart retry', 'Payment brands offered', 'Reconciliation file upload (FTP)', 'Routing rules', 'Credentials at the providers']) {
      const section = page.getByRole('region', { name, exact: true });
      await section.locator('dl, .empty').first().waitFor();
      expect(await section.getByRole('button').count(), name).toBe(0);
      expect(await section.locator('input, select, textarea').count(), name).toBe(0);
    }
    // One entity: nothing to pick.
    expect(await page.getByLabel('Entity', { exact: true }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);

  it("shows a merchant its settlements, downloads a day's file and sends it again to its FTP server", async () => {
    const { entityId, token } = await t.newMerchant();
    await t.gateway.store.transaction((tx) =>
      insertSettlementBatch(
        tx,
        { entityId, clearingInstitute: 'simulator', settlementDate: DAY, settlementCurrency: 'EUR', settlementAmountMinor: 10_175, transactionCount: 2, test: true, createdAt: clock.now() },
        [settlementRecord({ settlementDate: DAY }), settlementRecord({ settlementDate: DAY, accountHolder: 'Jane "J" Jones; Sr.', amountMinor: 1000 })],
      ),
    );
    await saveFtpSettings({ store: t.gateway.store, vault: t.gateway.payments.vault, now: clock.now, allowPrivateAddresses: true }, entityId, {
      host: '127.0.0.1',
      port: ftp.port,
      username: FTP_USER,
      password: FTP_PASSWORD,
      folder: 'in',
      explicitTls: false,
    });
    const name = reconciliationFileName(entityId, DAY);
    const { page, problems } = await open('/dashboard/settlements');
    await signInWithToken(page, token, 'Settlements');

    // The last 31 days by default; a span chosen in the form goes to the address.
    const summary = page.getByRole('region', { name: 'Settlement summary' });
    await summary.getByText('From 2026-10-28 to 2026-11-27').waitFor();
    await page.getByLabel('From', { exact: true }).fill('2026-11-20');
    await page.getByLabel('To', { exact: true }).fill(DAY);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/\/dashboard\/settlements\?from=2026-11-20&to=2026-11-26$/);
    const table = page.getByRole('table', { name: 'Settlements of Test merchant' });
    await table.waitFor();
    const row = await table.locator('tbody tr').innerText();
    expect(row).toContain(DAY);
    expect(row).toContain('€101.75');
    expect(await page.getByRole('region', { name: 'Reconciliation files' }).getByText('No file was sent in these days.').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // The day's file, downloaded as the upload sends it.
    const [download] = await Promise.all([page.waitForEvent('download'), table.getByRole('link', { name: `File of ${DAY}` }).click()]);
    expect(download.suggestedFilename()).toBe(name);
    const downloaded = readFileSync((await download.path()) as string, 'utf8');
    expect(downloaded.startsWith(HEADER_LINE)).toBe(true);
    expect(downloaded).toContain(';"Jane ""J"" Jones; Sr.";');

    // Today is not over: the gateway says so.
    const files = page.getByRole('region', { name: 'Reconciliation files' });
    await files.getByLabel('Settlement day').fill(TODAY);
    await files.getByRole('button', { name: 'Send the file' }).click();
    await files.getByText(`Send the reconciliation file of ${TODAY} for Test merchant to its FTP server again?`).waitFor();
    // The question takes the focus to its Confirm button once drawn: Enter before that would not confirm.
    await eventually(() => focusedText(page)).toBe('Confirm');
    await page.keyboard.press('Enter');
    expect(await answerIn(page, 'Reconciliation files', 'alert')).toContain(`${TODAY} is not over yet`);

    await files.getByLabel('Settlement day').fill(DAY);
    await files.getByRole('button', { name: 'Send the file' }).click();
    await files.getByText(`Send the reconciliation file of ${DAY} for Test merchant to its FTP server again?`).waitFor();
    await eventually(() => focusedText(page)).toBe('Confirm');
    await page.keyboard.press('Enter');
    await eventually(() => answerIn(page, 'Reconciliation files', 'status')).toContain(`Answer of the gateway: Send ${DAY} again`);
    const filesTable = files.getByRole('table');
    await eventually(() => filesTable.innerText()).toContain('Waiting');
    expect((await findFile(t.gateway.store, entityId, DAY))?.status).toBe('pending');
    expect(await seriousViolations(page)).toEqual([]);

    // The upload job runs: the FTP server has the very file downloaded.
    await t.gateway.reconciliation.uploads.runDueJobs();
    expect(ftp.read(`in/${name}`)?.toString('utf8')).toBe(downloaded);
    await page.reload();
    await eventually(() => page.getByRole('region', { name: 'Reconciliation files' }).getByRole('table').innerText()).toContain('Sent');

    // Sent again from its row, asked first.
    const uploads = ftp.uploads;
    const again = page.getByRole('region', { name: 'Reconciliation files' });
    await again.getByRole('button', { name: `Send ${DAY} again` }).click();
    await again.getByRole('button', { name: 'Confirm' }).click();
    await eventually(() => answerIn(page, 'Reconciliation files', 'status')).toContain('Result code 000.000.000');
    await t.gateway.reconciliation.uploads.runDueJobs();
    expect(ftp.uploads).toBe(uploads + 1);
    // The file's link downloads it too.
    const [fromRow] = await Promise.all([page.waitForEvent('download'), again.getByRole('link', { name }).click()]);
    expect(readFileSync((await fromRow.path()) as string, 'utf8')).toBe(downloaded);
    expect(await page.content()).not.toContain(FTP_PASSWORD);
    expect(problems).toEqual([]);
  }, TIMEOUT_MS);
});
