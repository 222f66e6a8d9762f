import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardClient } from '../testing/dashboardClient.ts';
import { HEADER_LINE, reconciliationFileName } from '../reconciliation/format.ts';
import { insertSettlementBatch, type NewSettlementRecord } from '../reports/settlementRecords.ts';
import { FTP_PASSWORD, FTP_USER, startTestFtpServer, type TestFtpServer } from '../testing/ftpServer.ts';
import { cardPayment, createTestClock, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { settlementRecord } from '../testing/settlements.ts';
import { createOperator } from './operators.ts';

/**
 * The dashboard's settings and settlements of an entity (settingsApi.ts) over a real socket, as its app calls them:
 * merchants read their own entity's smart retry, brands and FTP settings and only operators change them — with the
 * admin API's rules and refusals (compared with its answers), the FTP password write-only, every change recorded
 * without it — and the settlement summary, the reconciliation files listed, downloaded (text/csv, byte for byte what
 * the admin API gives) and re-sent to a real FTP server (ftp-srv on loopback), by either principal for its own entity.
 */

warnIfPostgresSkipped('the dashboard settings API test');

const PASSWORD = 'correct horse battery staple';
const ADMIN_TOKEN = 'admin-token-for-the-dashboard-settings-test-0123456789';
const DAY = '2026-11-26';
const NOW = new Date('2026-11-27T10:00:00Z');
const ENTITY_PATH = (entityId: string, rest: string) => `/entities/${entityId}/${rest}`;

interface Action {
  actor: string;
  action: string;
  detail: Record<string, unknown>;
  result_code: string | null;
}

describe.each(STORE_KINDS)('the dashboard settings and settlements on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let ftp: TestFtpServer;
  let other: { entityId: string; token: string };

  beforeAll(async () => {
    clock = createTestClock(NOW);
    t = await startTestGateway(kind, { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator', adminToken: ADMIN_TOKEN }, { now: clock.now, outboundTimeoutMs: 5_000 });
    other = await t.newMerchant();
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
    ftp = await startTestFtpServer({ folders: ['in'] });
  });
  afterAll(async () => {
    await t?.close();
    await ftp?.close();
  });

  const { call, signIn, signInMerchant } = dashboardClient(() => t.url);

  const operator = () => signIn({ operator: 'olivia', password: PASSWORD });
  // A merchant's admin (a merchant user of the entity the token acts for).
  const merchant = (token = t.token) => signInMerchant(t.gateway.store, token);

  const admin = async (method: string, path: string, body?: unknown) =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const actionsOf = async (entityId: string): Promise<Action[]> =>
    // What was done to the entity's settings: its users' sign-ins are recorded too, and left out here.
    (await t.gateway.store.query<Action>(`SELECT actor, action, detail, result_code FROM dashboard_actions WHERE entity_id = $1 AND action <> 'sign in' ORDER BY id`, [entityId])).rows;
  const namesOf = (answer: { body: Record<string, any> }) => (answer.body.result.parameterErrors as { name: string }[]).map((error) => error.name);
  const settle = (entityId: string, date: string, records: readonly NewSettlementRecord[], settlementAmountMinor = 0) =>
    t.gateway.store.transaction((tx) =>
      insertSettlementBatch(
        tx,
        { entityId, clearingInstitute: 'simulator', settlementDate: date, settlementCurrency: 'EUR', settlementAmountMinor, transactionCount: records.length, test: true, createdAt: clock.now() },
        records.map((entry) => ({ ...entry, settlementDate: date })),
      ),
    );

  it("shows a merchant its own entity's settings, never another's, and lets only an operator change them", async () => {
    const mine = await merchant();
    for (const setting of ['smart-retry', 'brands', 'ftp']) {
      const shown = await call(mine, 'GET', ENTITY_PATH(t.entityId, setting));
      expect(shown.status, `${setting}: ${shown.text}`).toBe(200);
      expect(shown.body.result.code).toBe('000.000.000');
      expect((await call(mine, 'GET', ENTITY_PATH(other.entityId, setting))).status, setting).toBe(403);
      expect((await call(mine, 'DELETE', ENTITY_PATH(t.entityId, setting))).status, setting).toBe(403);
    }
    const put = async (setting: string, body: unknown) => call(mine, 'PUT', ENTITY_PATH(t.entityId, setting), body);
    expect((await put('smart-retry', { fallbackAcquirer: 'fallback' })).status).toBe(403);
    expect((await put('brands', { brands: ['VISA'] })).status).toBe(403);
    expect((await put('ftp', { host: '127.0.0.1', username: 'me', password: 'secret-1' })).status).toBe(403);
    // Nothing was written, nor recorded.
    expect((await call(mine, 'GET', ENTITY_PATH(t.entityId, 'smart-retry'))).body.smartRetry).toMatchObject({ enabled: false, fallbackAcquirer: null, updatedAt: null });
    expect((await call(mine, 'GET', ENTITY_PATH(t.entityId, 'brands'))).body.offeredBrands).toMatchObject({ default: true });
    expect((await call(mine, 'GET', ENTITY_PATH(t.entityId, 'ftp'))).body.ftp).toBeNull();
    expect(await actionsOf(t.entityId)).toEqual([]);
    // The choice of fallback acquirers is the operator's.
    expect((await call(mine, 'GET', ENTITY_PATH(t.entityId, 'smart-retry'))).body.fallbackAcquirers).toBeUndefined();

    const olivia = await operator();
    expect((await call(olivia, 'GET', ENTITY_PATH(other.entityId, 'smart-retry'))).body.fallbackAcquirers).toEqual(['fallback']);
    expect((await call(olivia, 'GET', ENTITY_PATH('0123456789abcdef0123456789abcdef', 'brands'))).status).toBe(404);
    expect((await call(olivia, 'GET', ENTITY_PATH('not-an-entity', 'ftp'))).status).toBe(404);
    expect((await call(olivia, 'PUT', ENTITY_PATH('0123456789abcdef0123456789abcdef', 'brands'), { brands: ['VISA'] })).status).toBe(404);
    expect((await call(olivia, 'POST', ENTITY_PATH(t.entityId, 'brands'), { brands: ['VISA'] })).status).toBe(405);
    // Without the CSRF token, or signed out.
    expect((await call({ cookie: olivia.cookie }, 'PUT', ENTITY_PATH(t.entityId, 'brands'), { brands: ['VISA'] })).status).toBe(403);
    expect((await call({}, 'GET', ENTITY_PATH(t.entityId, 'brands'))).status).toBe(401);
  });

  it("saves and removes smart retry with the admin API's rules and refusals, and records each change", async () => {
    const { entityId } = await t.newMerchant();
    const olivia = await operator();
    const path = ENTITY_PATH(entityId, 'smart-retry');
    for (const body of [{ fallbackAcquirer: 'simulator' }, { fallbackAcquirer: 'fallback', codes: ['000.000.000', 'nope'], standalone: false, cardOnFile: false }, { fallbackAcquirer: 'fallback', codes: 'all' }, { enabled: 'yes' }]) {
      const refused = await call(olivia, 'PUT', path, body);
      const asAdmin = await admin('PUT', `/entities/${entityId}/smart-retry`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.result.code).toBe('200.300.404');
      expect(refused.body.result.parameterErrors).toEqual(asAdmin.body.result.parameterErrors);
    }
    const saved = await call(olivia, 'PUT', path, { fallbackAcquirer: 'fallback', codes: ['800.100.151'], cardOnFile: false });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.smartRetry).toMatchObject({ entityId, enabled: true, codes: ['800.100.151'], defaultCodes: false, cardOnFile: false, fallbackAcquirer: 'fallback', inEffect: true });
    expect((await admin('GET', `/entities/${entityId}/smart-retry`)).body.smartRetry).toEqual(saved.body.smartRetry);
    const mine = await merchant((await t.newMerchant()).token);
    expect((await call(mine, 'GET', path)).status).toBe(403);

    const removed = await call(olivia, 'DELETE', path);
    expect(removed.body.smartRetry).toMatchObject({ enabled: false, fallbackAcquirer: null, inEffect: false });
    expect((await admin('GET', `/entities/${entityId}/smart-retry`)).body.smartRetry).toMatchObject({ enabled: false, updatedAt: null });

    const actions = await actionsOf(entityId);
    // A body that is no settings at all ('enabled': 'yes') is not a change tried; settings refused are.
    expect(actions.map((action) => [action.actor, action.action, action.result_code])).toEqual([
      ['operator olivia', 'smart-retry.save', '200.300.404'],
      ['operator olivia', 'smart-retry.save', '200.300.404'],
      ['operator olivia', 'smart-retry.save', '200.300.404'],
      ['operator olivia', 'smart-retry.save', '000.000.000'],
      ['operator olivia', 'smart-retry.remove', '000.000.000'],
    ]);
    expect(actions[3]?.detail).toEqual({ fallbackAcquirer: 'fallback', codes: ['800.100.151'], cardOnFile: false });
  });

  it('sets the offered brands, which payments obey at once, refuses unknown ones and restores the default', async () => {
    const { entityId, token } = await t.newMerchant();
    const olivia = await operator();
    const path = ENTITY_PATH(entityId, 'brands');
    const shown = await call(olivia, 'GET', path);
    expect(shown.body.offeredBrands).toMatchObject({ entityId, default: true, updatedAt: null });
    expect(shown.body.offeredBrands.knownBrands).toEqual(expect.arrayContaining(['VISA', 'MASTER']));

    const refused = await call(olivia, 'PUT', path, { brands: ['VISA', 'NOT_A_BRAND'] });
    expect([refused.status, refused.body.result.parameterErrors]).toEqual([400, (await admin('PUT', `/entities/${entityId}/brands`, { brands: ['VISA', 'NOT_A_BRAND'] })).body.result.parameterErrors]);
    expect(namesOf(await call(olivia, 'PUT', path, {}))).toEqual(['brands']);

    const saved = await call(olivia, 'PUT', path, { brands: ['MASTER'] });
    expect(saved.body.offeredBrands).toMatchObject({ brands: ['MASTER'], default: false, updatedAt: NOW.toISOString() });
    const visa = await t.post('/v1/payments', cardPayment(entityId), { token });
    expect(visa.body.result.code).toBe('600.200.201');
    // Read by the merchant as the operator left it.
    expect((await call(await merchant(token), 'GET', path)).body.offeredBrands.brands).toEqual(['MASTER']);

    const restored = await call(olivia, 'DELETE', path);
    expect(restored.body.offeredBrands).toMatchObject({ default: true, updatedAt: null });
    expect((await t.post('/v1/payments', cardPayment(entityId), { token })).body.result.code).toMatch(/^000\./);
    expect((await actionsOf(entityId)).map((action) => [action.action, action.result_code, action.detail])).toEqual([
      ['brands.save', '200.300.404', { brands: ['VISA', 'NOT_A_BRAND'] }],
      ['brands.save', '000.000.000', { brands: ['MASTER'] }],
      ['brands.remove', '000.000.000', {}],
    ]);
  });

  it('keeps the FTP password write-only: set, kept when left out, never answered or recorded', async () => {
    const { entityId, token } = await t.newMerchant();
    const olivia = await operator();
    const path = ENTITY_PATH(entityId, 'ftp');
    const settings = { host: 'ftp.shop.example', port: 2121, username: 'shop', password: FTP_PASSWORD, folder: 'in' };

    const refused = await call(olivia, 'PUT', path, { host: 'not a host', username: 'shop', passive: false });
    expect(refused.status).toBe(400);
    expect(namesOf(refused).sort()).toEqual(['host', 'passive', 'password']);
    expect(refused.body.result.parameterErrors).toEqual((await admin('PUT', `/entities/${entityId}/reconciliation/ftp`, { host: 'not a host', username: 'shop', passive: false })).body.result.parameterErrors);
    const badPassword = await call(olivia, 'PUT', path, { ...settings, password: 'line\r\nbreak' });
    expect(badPassword.body.result.parameterErrors).toEqual([{ name: 'password', value: '', message: expect.any(String) }]);

    const set = await call(olivia, 'PUT', path, settings);
    expect(set.status, set.text).toBe(200);
    expect(set.body.ftp).toMatchObject({ entityId, host: 'ftp.shop.example', port: 2121, username: 'shop', passwordSet: true, folder: 'in', explicitTls: true, passive: true });
    const shown = await call(await merchant(token), 'GET', path);
    expect(shown.body.ftp).toEqual(set.body.ftp);

    // Left out, the password is kept.
    clock.advance(1_000);
    const renamed = await call(olivia, 'PUT', path, { host: 'ftp.shop.example', username: 'shop2', explicitTls: false });
    expect(renamed.body.ftp).toMatchObject({ username: 'shop2', passwordSet: true, port: 21, explicitTls: false });
    const row = (await t.gateway.store.query<{ password_id: string }>('SELECT password_id FROM reconciliation_ftp_settings WHERE entity_id = $1', [entityId])).rows[0];
    expect(row?.password_id).toBeDefined();

    const removed = await call(olivia, 'DELETE', path);
    expect(removed.body.ftp).toBeNull();
    expect((await call(olivia, 'GET', path)).body.ftp).toBeNull();

    const actions = await actionsOf(entityId);
    expect(actions.map((action) => [action.action, action.result_code])).toEqual([
      ['ftp.save', '200.300.404'],
      ['ftp.save', '200.300.404'],
      ['ftp.save', '000.000.000'],
      ['ftp.save', '000.000.000'],
      ['ftp.remove', '000.000.000'],
    ]);
    expect(actions[2]?.detail).toEqual({ host: 'ftp.shop.example', port: 2121, username: 'shop', folder: 'in', passwordChanged: true });
    expect(actions[3]?.detail).toMatchObject({ passwordChanged: false });
    for (const text of [set.text, shown.text, renamed.text, refused.text, badPassword.text, JSON.stringify(actions), t.logLines.join('\n')]) {
      expect(text).not.toContain(FTP_PASSWORD);
      expect(text).not.toContain('line\r\nbreak');
    }
  });

  it("shows the settlement reports' summary of a day or a span, with the reports API's rules", async () => {
    const { entityId, token } = await t.newMerchant();
    await settle(entityId, DAY, [settlementRecord(), settlementRecord({ amountMinor: 1000, settlementAmountMinor: 1000 })], 10_175);
    await settle(entityId, '2026-11-20', [settlementRecord()], 9_175);
    await settle(other.entityId, DAY, [settlementRecord()], 9_175);
    const mine = await merchant(token);
    const path = ENTITY_PATH(entityId, 'settlements');

    const day = await call(mine, 'GET', `${path}?date=${DAY}`);
    expect(day.status, day.text).toBe(200);
    expect(day.body).toMatchObject({ from: DAY, to: DAY });
    expect(day.body.settlements).toEqual([
      { id: expect.any(String), date: DAY, currency: 'EUR', clearingInstituteName: 'simulator', merchantAccountId: entityId, settlementAmount: '101.75', transactionCount: 2 },
    ]);
    // As the reports API answers the merchant.
    const report = await t.get('/reports/v1/reconciliations/aggregations', { entityId, 'date.from': '2026-11-01', 'date.to': DAY }, { token });
    const span = await call(mine, 'GET', `${path}?from=2026-11-01&to=${DAY}`);
    expect(span.body.settlements).toEqual(report.body.aggregations);
    expect(span.body.settlements.map((row: { date: string }) => row.date)).toEqual(['2026-11-20', DAY]);
    // Without dates: the last 31 days up to today.
    expect((await call(mine, 'GET', path)).body).toMatchObject({ from: '2026-10-28', to: '2026-11-27', settlements: span.body.settlements });

    expect(namesOf(await call(mine, 'GET', `${path}?from=2026-09-01&to=${DAY}`))).toEqual(['to']);
    expect(namesOf(await call(mine, 'GET', `${path}?from=2026-11-27&to=2026-11-26`))).toEqual(['to']);
    expect(namesOf(await call(mine, 'GET', `${path}?date=2026-02-30`))).toEqual(['date']);
    expect(namesOf(await call(mine, 'GET', `${path}?from=yesterday&currency=euro&colour=red`)).sort()).toEqual(['colour', 'currency', 'from']);
    expect((await call(mine, 'GET', ENTITY_PATH(other.entityId, 'settlements'))).status).toBe(403);
  });

  it("lists, downloads and re-sends the entity's reconciliation files, for its merchant and the operator", async () => {
    const { entityId, token } = await t.newMerchant();
    await settle(entityId, DAY, [settlementRecord(), settlementRecord({ accountHolder: 'Jane "J" Jones; Sr.', amountMinor: 1234 })]);
    const mine = await merchant(token);
    const olivia = await operator();
    const files = ENTITY_PATH(entityId, 'reconciliation-files');

    // Without FTP settings a re-send is refused with the reason, and recorded as refused.
    const noSettings = await call(mine, 'POST', `${files}/${DAY}/resend`);
    expect([noSettings.status, noSettings.body.result.code, noSettings.body.result.description]).toEqual([400, '200.300.404', expect.stringContaining('no FTP settings')]);
    expect((await call(mine, 'GET', files)).body).toMatchObject({ from: '2026-10-28', to: '2026-11-27', files: [] });

    const setFtp = await call(olivia, 'PUT', ENTITY_PATH(entityId, 'ftp'), { host: '127.0.0.1', port: ftp.port, username: FTP_USER, password: FTP_PASSWORD, folder: 'in', explicitTls: false });
    expect(setFtp.status, setFtp.text).toBe(200);

    // Today is not over: refused with the reason.
    const notOver = await call(mine, 'POST', `${files}/2026-11-27/resend`);
    expect([notOver.status, notOver.body.result.description]).toEqual([400, expect.stringContaining('2026-11-27 is not over yet')]);

    const resent = await call(mine, 'POST', `${files}/${DAY}/resend`);
    expect(resent.status, resent.text).toBe(200);
    const name = reconciliationFileName(entityId, DAY);
    expect(resent.body.file).toMatchObject({ entityId, date: DAY, fileName: name, status: 'pending', attempts: 0, nextAttemptAt: clock.now().toISOString() });
    const job = await t.gateway.store.query<{ kind: string }>(`SELECT kind FROM jobs WHERE payload->>'entityId' = $1 AND done_at IS NULL`, [entityId]);
    expect(job.rows.map((row) => row.kind)).toEqual(['reconciliation.upload']);

    await t.gateway.reconciliation.uploads.runDueJobs();
    const listed = await call(mine, 'GET', files);
    expect(listed.body.files).toEqual([expect.objectContaining({ date: DAY, fileName: name, status: 'uploaded', attempts: 1, recordCount: 2, remotePath: `in/${name}` })]);
    expect((await admin('GET', `/entities/${entityId}/reconciliation/files`)).body.files).toEqual(listed.body.files);

    // The download is what was uploaded, byte for byte, and what the admin API gives.
    const csv = await call(mine, 'GET', `${files}/${DAY}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`);
    expect(csv.text.startsWith(HEADER_LINE)).toBe(true);
    expect(csv.text).toContain(';"Jane ""J"" Jones; Sr.";');
    expect(Buffer.from(csv.text, 'utf8').equals(ftp.read(`in/${name}`) as Buffer)).toBe(true);
    const asAdmin = await t.gateway.app.request(`/admin/v1/entities/${entityId}/reconciliation/files/${DAY}/csv`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await asAdmin.text()).toBe(csv.text);

    // The operator sends it again: a second upload.
    const uploads = ftp.uploads;
    expect((await call(olivia, 'POST', `${files}/${DAY}/resend`)).body.file).toMatchObject({ status: 'pending', attempts: 0 });
    await t.gateway.reconciliation.uploads.runDueJobs();
    expect(ftp.uploads).toBe(uploads + 1);
    expect((await call(olivia, 'GET', `${files}/${DAY}`)).text).toBe(csv.text);

    // A day without a file: 404 in the API's envelope.
    const none = await call(mine, 'GET', `${files}/2026-11-01`);
    expect([none.status, none.headers.get('content-type'), none.body.result.code]).toEqual([404, 'application/json', '200.300.404']);
    expect(namesOf(await call(mine, 'GET', `${files}/2026-02-30`))).toEqual(['date']);
    expect(namesOf(await call(mine, 'GET', `${files}?from=2026-11-27&to=2026-11-26`))).toEqual(['from']);
    expect(namesOf(await call(mine, 'GET', `${files}?from=2025-01-01&to=${DAY}&colour=red`)).sort()).toEqual(['colour', 'from']);
    expect((await call(mine, 'GET', `${files}/${DAY}/resend`)).status).toBe(405);

    // Another entity's files are not the merchant's to see, download or send.
    const theirs = ENTITY_PATH(other.entityId, 'reconciliation-files');
    expect((await call(mine, 'GET', theirs)).status).toBe(403);
    expect((await call(mine, 'GET', `${theirs}/${DAY}`)).status).toBe(403);
    expect((await call(mine, 'POST', `${theirs}/${DAY}/resend`)).status).toBe(403);

    expect((await actionsOf(entityId)).map((action) => [action.actor.replace(/^user .*$/, 'user …'), action.action, action.result_code])).toEqual([
      ['user …', 'reconciliation-file.resend', '200.300.404'],
      ['operator olivia', 'ftp.save', '000.000.000'],
      ['user …', 'reconciliation-file.resend', '200.300.404'],
      ['user …', 'reconciliation-file.resend', '000.000.000'],
      ['user …', 'reconciliation-file.download', '000.000.000'],
      ['operator olivia', 'reconciliation-file.resend', '000.000.000'],
      ['operator olivia', 'reconciliation-file.download', '000.000.000'],
    ]);
    expect(t.logLines.join('\n')).not.toContain(FTP_PASSWORD);
  });
});
