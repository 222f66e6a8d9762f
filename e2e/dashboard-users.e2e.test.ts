import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperator } from '../server/dashboard/operators.ts';
import { TOTP_PERIOD_SECONDS, totpCode } from '../server/dashboard/secondFactor.ts';
import { cardPayment, createTestClock, startTestGateway, type TestClock, type TestGateway } from '../server/testing/harness.ts';
import { launchBrowser } from './support/browser.ts';
import { seriousViolations } from './support/dashboard.ts';

/**
 * Merchant users through the UI only, on a gateway that asks for the second factor: the operator enrols an
 * authenticator at the first sign-in (the key read from the page, the code made for the gateway's moved clock) and
 * invites a merchant's admin; the admin opens the one-time link, sets a password, enrols, signs out and signs in with
 * a code, and invites a viewer; the viewer opens their link, is signed in with the password alone, and finds no way
 * to refund a payment — no button, and the API answers 403 to a refund sent anyway.
 */

const PASSWORD = 'an operator password of length';
const ADMIN_PASSWORD = 'the admin chose this password';
const VIEWER_PASSWORD = 'the viewer chose this one';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

// The page is the same on both stores; the API under it is tested on both (server/dashboard/users.test.ts).
describe('merchant users in the dashboard on PGlite', () => {
  const kind = 'PGlite';
  let t: TestGateway;
  let clock: TestClock;
  let paymentId: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    clock = createTestClock(new Date());
    t = await startTestGateway(kind, {}, { now: clock.now, dashboardSecondFactor: 'asked' });
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
    const payment = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'DB', amount: '25.00', merchantTransactionId: 'order-viewer-01' }));
    paymentId = payment.body.id as string;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await t?.close();
  });

  async function newPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ locale: 'en-GB' });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    return { page, problems };
  }

  /** Reads the key the enrolment shows, and gives its code of the gateway's now. */
  async function enrol(page: Page): Promise<void> {
    await page.getByRole('heading', { name: 'Set up your second factor' }).waitFor();
    await page.getByRole('img', { name: 'QR code of the key, for an authenticator app' }).waitFor();
    const secret = (await page.locator('[data-secret]').getAttribute('data-secret')) as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.getByText(`otpauth://totp/`).count()).toBe(1);
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, clock.now()));
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    secrets.set(page, secret);
  }
  const secrets = new Map<Page, string>();

  /** Invites from the Users page; the one-time link shown. */
  async function invite(page: Page, email: string, role: 'Viewer' | 'Refunds' | 'Admin', entityId?: string): Promise<string> {
    await page.getByRole('navigation').getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const form = page.getByRole('region', { name: 'Invite a user' });
    if (entityId) await form.getByLabel('Entity').selectOption(entityId);
    await form.getByLabel('E-mail address').fill(email);
    await form.getByLabel(new RegExp(`^${role} —`)).check();
    await form.getByRole('button', { name: 'Invite' }).click();
    const shown = page.getByRole('group', { name: `Invitation link for ${email}` });
    await shown.waitFor();
    return (await shown.locator('code').innerText()).trim();
  }

  async function accept(page: Page, link: string, password: string): Promise<void> {
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Your invitation' }).waitFor();
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('The password again').fill(password);
    await page.getByRole('button', { name: 'Set the password' }).click();
  }

  it('lets the operator invite an admin, who enrols, signs in with a code and invites a viewer who cannot refund', async () => {
    // The operator: the first sign-in enrols the second factor.
    const operator = await newPage();
    await operator.page.goto(`${t.url}/dashboard`);
    await operator.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await operator.page.getByLabel('Operator name').fill('olivia');
    await operator.page.getByLabel('Password').fill(PASSWORD);
    await operator.page.keyboard.press('Enter');
    await enrol(operator.page);
    await operator.page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    expect(await seriousViolations(operator.page)).toEqual([]);
    const adminLink = await invite(operator.page, 'ada@example.com', 'Admin', t.entityId);
    expect(adminLink).toMatch(new RegExp(`^${t.url}/dashboard/invitation#[A-Za-z0-9_-]{43}$`));
    expect(await operator.page.getByRole('table', { name: 'Merchant users' }).innerText()).toContain('ada@example.com');
    expect(await seriousViolations(operator.page)).toEqual([]);

    // The admin: the link, a password, the enrolment; then out and in again with a code of the next step.
    const admin = await newPage();
    await accept(admin.page, adminLink, ADMIN_PASSWORD);
    await enrol(admin.page);
    await admin.page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await admin.page.getByText('Signed in as ada@example.com (Admin at Test merchant)').waitFor();
    await admin.page.getByRole('button', { name: 'Sign out' }).click();
    await admin.page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    clock.advance(TOTP_PERIOD_SECONDS * 1000);
    await admin.page.getByLabel('Merchant user').check();
    await admin.page.getByLabel('E-mail address').fill('ada@example.com');
    await admin.page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await admin.page.keyboard.press('Enter');
    await admin.page.getByLabel('Code from your authenticator app').fill(totpCode(secrets.get(admin.page) as string, clock.now()));
    await admin.page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await admin.page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    const viewerLink = await invite(admin.page, 'vic@example.com', 'Viewer');

    // The viewer: signed in with the password alone; sees the payment, no way to refund it; the API refuses anyway.
    const viewer = await newPage();
    await accept(viewer.page, viewerLink, VIEWER_PASSWORD);
    await viewer.page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    expect(await viewer.page.getByRole('navigation').getByRole('link', { name: 'Users' }).count()).toBe(0);
    await viewer.page.getByRole('row').filter({ hasText: 'order-viewer-01' }).getByRole('link').click();
    await viewer.page.getByRole('heading', { level: 1, name: /^Payment / }).waitFor();
    expect(await viewer.page.getByRole('heading', { name: 'Back-office actions' }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    const status = await viewer.page.evaluate(async (id) => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { session: { csrfToken: string } };
      const answer = await fetch(`/dashboard/api/payments/${id}/refund`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': session.session.csrfToken }, body: '{"amount":"5.00"}' });
      return answer.status;
    }, paymentId);
    expect(status).toBe(403);
    expect((await t.gateway.store.query('SELECT 1 FROM payments WHERE parent_id = $1', [paymentId])).rows).toEqual([]);

    // Who did what.
    const actions = await t.gateway.store.query<{ actor: string; action: string }>(`SELECT actor, action FROM dashboard_actions WHERE action <> 'sign in' ORDER BY id`);
    expect(actions.rows).toEqual([
      { actor: 'operator olivia', action: 'invite user' },
      { actor: 'user ada@example.com (Test merchant)', action: 'accept invitation' },
      { actor: 'user ada@example.com (Test merchant)', action: 'invite user' },
      { actor: 'user vic@example.com (Test merchant)', action: 'accept invitation' },
    ]);
    for (const { problems } of [operator, admin, viewer]) expect(problems).toEqual([]);
  }, 120_000);
});
