import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WPWL_OPTION_NAMES } from '../../widget/shared/wpwlOptionNames.ts';
import { runCli } from '../cli/index.ts';
import { issueLegacyCredentials } from '../merchants/legacyCredentials.ts';
import { packagePath } from '../paths.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { BROWSER_DATA, cardPayment, readResponse, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { createWebhook } from '../webhooks/service.ts';
import type { IntegrationReport } from './report.ts';

warnIfPostgresSkipped('integration/report.test.ts');

/**
 * Issue 36 point 7: a merchant's integration report — what its integration leans on that a live provider may refuse
 * or has retired, what its tests never tried, what its webhook receiver failed — read through the admin API, the
 * control API, the command line, as JSON and as text. A clean integration gets no finding it does not deserve.
 */

const ADMIN_TOKEN = 'admin-token-for-integration-reports-0123456789';

describe.each(STORE_KINDS)('the integration report on %s', (kind) => {
  let t: TestGateway;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestGateway(kind, { testControlApi: true, adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const adminReport = async (entityId: string) =>
    readResponse(await fetch(`${t.url}/admin/v1/entities/${entityId}/integrationReport`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
  const findingsOf = (report: IntegrationReport) => Object.fromEntries(report.findings.map((finding) => [finding.id, finding]));

  it('lists what a live provider refuses or has retired, what was never tested and the failing receiver, each with its evidence', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const pair = await t.gateway.store.transaction((tx) => issueLegacyCredentials(tx, [merchant.entityId], 'old php client'));
    await createWebhook(t.gateway.webhooks.services, merchant.entityId, { url: `${receiver.url}/failing`, secret: randomBytes(32).toString('hex'), types: ['PAYMENT'] });
    receiver.answer('/failing', 500, 500, 500);
    // The legacy pair, an order number as merchantTransactionId, testMode, a parameter the spec does not have.
    const { entityId = '', ...payment } = cardPayment(merchant.entityId, { merchantTransactionId: '1', testMode: 'EXTERNAL', shoeSize: '42' });
    const legacy = await t.post('/v1/payments', { 'authentication.userId': pair.userId, 'authentication.password': pair.password, 'authentication.entityId': entityId, ...payment }, { token: null });
    expect(legacy.status, JSON.stringify(legacy.body)).toBe(200);
    // 3-D Secure without the browser's data: refused, and remembered.
    const noBrowser = await t.post('/v1/payments', cardPayment(merchant.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/back' }), as);
    expect(noBrowser.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain('customer.browser.userAgent');
    // The deprecated notificationUrl on a checkout, whose page set a misspelt option.
    const checkout = await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', notificationUrl: 'https://shop.example/notify' }, as);
    const beacon = await fetch(`${t.url}/v1/checkouts/${checkout.body.id}/widgetReport`, { method: 'POST', body: JSON.stringify(['style', 'onReady', 'lables', 'not a name']) });
    expect(beacon.status).toBe(204);
    await t.post('/test/v1/clock', { advanceSeconds: '1' }, { token: null });

    const answer = await adminReport(merchant.entityId);
    expect(answer.status).toBe(200);
    const report = answer.body.report as IntegrationReport;
    const findings = findingsOf(report);
    expect(findings.legacyCredentials).toMatchObject({ severity: 'retired', count: 1 });
    expect(findings.shortMerchantTransactionId).toMatchObject({ severity: 'refused', count: 1, examples: [legacy.body.id] });
    expect(findings.testMode).toMatchObject({ severity: 'refused', details: [{ name: 'EXTERNAL', count: 1 }] });
    expect(findings.threeDSecureWithoutBrowserData).toMatchObject({ severity: 'refused', count: 1 });
    expect(findings.deprecatedParameter?.details).toEqual([{ name: 'notificationUrl', count: 1 }]);
    expect(findings.ignoredParameters?.details).toEqual([{ name: 'shoeSize', count: 1 }]);
    expect(findings.ignoredWidgetOptions).toMatchObject({ severity: 'notice', details: [{ name: 'lables', count: 1 }], examples: [checkout.body.id] });
    expect(findings.webhookFailures).toMatchObject({ severity: 'failing', details: [{ name: `${receiver.url}/failing (last: 500)`, count: expect.any(Number) }] });
    expect(report.widgetOptions).toEqual(['lables', 'onReady', 'style']);
    // It paid, but never saw a decline or a challenge.
    expect(findings['untested.declinedPayment']).toMatchObject({ severity: 'untested' });
    expect(findings['untested.threeDSecureChallenge']).toMatchObject({ severity: 'untested' });
    expect(report.coverage).toMatchObject({ approvedPayment: 1, declinedPayment: 0 });
    // Most serious first.
    const order = ['refused', 'retired', 'failing', 'untested', 'notice'];
    const severities = report.findings.map((finding) => order.indexOf(finding.severity));
    expect(severities).toEqual([...severities].sort((a, b) => a - b));
    // Nothing the merchant typed as a value is in it: not the password, not the card.
    const shown = JSON.stringify(report);
    for (const secret of [pair.password, '4200000000000000', 'shop.example/notify']) expect(shown).not.toContain(secret);

    // The same report through the control API (also as text), and from the command line.
    const control = await t.get('/test/v1/report', { entityId: merchant.entityId }, { token: null });
    expect(findingsOf(control.body as IntegrationReport)).toHaveProperty('legacyCredentials');
    const text = await t.get('/test/v1/report', { entityId: merchant.entityId, format: 'text' }, { token: null });
    expect(text.headers.get('content-type')).toContain('text/plain');
    expect(String(text.body)).toContain('[refused] merchantTransactionId shorter than the spec’s 8 characters — 1 time(s)');
    const cli = await runCli(['integration-report', merchant.entityId], { env: { GATEWAY_URL: t.url, ADMIN_TOKEN, DATA_DIR: t.location.dataDir, DATABASE_URL: t.location.databaseUrl ?? '' }, progress: () => undefined });
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('[retired] Requests authenticated with authentication.userId and authentication.password');
  });

  it('names a decline and a challenge once tested, and finds nothing in a clean integration’s requests', async () => {
    const merchant = await t.newMerchant();
    const as = { token: merchant.token };
    const full = {
      merchantTransactionId: 'order-100234',
      'customer.givenName': 'Jane',
      'customer.surname': 'Jones',
      'customer.email': 'jane@example.com',
      'customer.ip': '192.0.2.1',
      'billing.street1': 'Main Street 1',
      'billing.city': 'Berlin',
      'billing.postcode': '10115',
      'billing.country': 'DE',
      'customParameters[SHOP_ORDER]': '100234',
      'cart.items[0].name': 'Socks',
      'cart.items[0].quantity': '1',
      'cart.items[0].price': '92.00',
      shopperResultUrl: 'https://shop.example/back',
      ...BROWSER_DATA,
    };
    expect((await t.post('/v1/payments', cardPayment(merchant.entityId, full), as)).body.result.code).toBe('000.100.110');
    expect((await t.post('/v1/payments', cardPayment(merchant.entityId, { ...full, 'card.holder': '800.100.151' }), as)).body.result.code).toBe('800.100.151');
    const challenged = await t.post('/v1/payments', cardPayment(merchant.entityId, { ...full, 'card.number': '4200000000000042' }), as);
    expect(challenged.body.redirect).toBeDefined();
    await fetch(`${challenged.body.redirect.url}/answer`, { method: 'POST', body: new URLSearchParams({ paymentId: challenged.body.id, action: 'submit', otp: '1234' }), redirect: 'manual' });
    const checkout = await t.post('/v1/checkouts', { entityId: merchant.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' }, as);
    await t.post(`/v1/checkouts/${checkout.body.id}/payment`, testCard({ unknownWidgetField: 'x' }), { token: null });

    const report = (await adminReport(merchant.entityId)).body.report as IntegrationReport;
    expect(report.findings.map((finding) => finding.id)).toEqual(['untested.threeDSecureFailed']);
    expect(report.coverage).toMatchObject({ approvedPayment: 3, declinedPayment: 1, threeDSecureChallenge: 1 });
    expect(await adminReport('0'.repeat(32))).toMatchObject({ status: 404 });
  });

  it('refuses a widget report that is no list of names, and one for no checkout', async () => {
    const send = (id: string, body: string) => fetch(`${t.url}/v1/checkouts/${id}/widgetReport`, { method: 'POST', body });
    const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' });
    for (const body of ['{"style":1}', 'not json', JSON.stringify(Array.from({ length: 61 }, (_, index) => `o${index}`)), '[1]']) expect((await send(checkout.body.id, body)).status).toBe(400);
    expect((await send(`${'A'.repeat(32)}.sbx01-gw01`, '["style"]')).status).toBe(400);
  });
});

describe('the widget’s option names', () => {
  it('are the options widget/types/wpwl.d.ts declares', () => {
    const declared = readFileSync(packagePath('widget/types/wpwl.d.ts'), 'utf8');
    const block = declared.slice(declared.indexOf('interface WpwlOptions {'), declared.indexOf('\n  }\n', declared.indexOf('interface WpwlOptions {')));
    const names = [...block.matchAll(/^ {4}([A-Za-z$]+)\??[:(]/gm)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(40);
    expect([...WPWL_OPTION_NAMES]).toEqual(names);
  });
});
