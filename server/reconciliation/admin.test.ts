import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSettlementBatch, type NewSettlementRecord } from '../reports/settlementRecords.ts';
import { selfSignedCertificate } from '../testing/ftpServer.ts';
import { createTestClock, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { findSealed } from '../vault/repository.ts';
import { HEADER_LINE, reconciliationFileName } from './format.ts';
import { FtpSettingsError, saveFtpSettings } from './settings.ts';

warnIfPostgresSkipped('reconciliation/admin.test.ts');

/**
 * The reconciliation file's admin API (COMPAT §14) as an operator uses it: an entity's FTP settings set, shown,
 * replaced and removed — the password sealed in the vault, never shown, logged or stored in clear — and its files
 * listed, shown, re-sent and downloaded as text/csv; every kind of bad input answered 4xx naming what is wrong, with
 * nothing written.
 */

const ADMIN_TOKEN = 'admin-token-for-reconciliation-admin-api-0123456789';
const PASSWORD = 'Sup3r-secret;FTP "pass"';
const DAY = '2026-11-26';

function record(overrides: Partial<NewSettlementRecord> = {}): NewSettlementRecord {
  return {
    recordType: 'SETTLED', transactionType: 'DEBIT', cashflow: 'POS', clearingMerchantId: 'SIM-000123', settlementTxId: 'S1', paymentId: null, shortId: null,
    connectorTxIds: [null, null, null], merchantTransactionId: 'order-1', merchantInvoiceId: null, amountMinor: 9200, currency: 'EUR', brand: 'VISA',
    presentmentAt: null, settlementAmountMinor: 9175, settlementCurrency: 'EUR', settlementFeeMinor: 25, fxRate: '1', settlementDate: DAY,
    settlementStatus: 'SUCCESS', descriptor: null, accountLast4: null, bankCode: null, accountHolder: null, reasonCode: null, reasonDesc: null,
    settlementFormat: 'SIMULATOR', matchingStatus: 'NOT_MATCHED', matchedPaymentIds: [], chargebackId: null, ...overrides,
  };
}

describe.each(STORE_KINDS)('the reconciliation admin API on %s', (kind) => {
  const clock = createTestClock(new Date('2026-11-27T09:00:00.000Z'));
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN }, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = async (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN): Promise<ApiResponse> =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );
  const ftp = (entityId: string) => `/entities/${entityId}/reconciliation/ftp`;
  const settings = { host: 'ftp.shop.example', port: 2121, username: 'shop', password: PASSWORD, folder: '/incoming/reconciliation' };
  const storedRow = async (entityId: string) =>
    (await t.gateway.store.query<Record<string, unknown>>('SELECT * FROM reconciliation_ftp_settings WHERE entity_id = $1', [entityId])).rows[0];
  const errorsOf = (answer: ApiResponse) => (answer.body.result.parameterErrors as { name: string; value: string; message: string }[]).map((error) => error.name);

  it('sets, shows, replaces and removes the FTP settings, the password sealed like card data and never shown', async () => {
    const { entityId } = await t.newMerchant();
    expect((await call('GET', ftp(entityId))).body).toMatchObject({ result: { code: '000.000.100' }, ftp: null });

    const set = await call('PUT', ftp(entityId), settings);
    expect(set.status).toBe(200);
    expect(set.body.ftp).toEqual({
      entityId,
      host: 'ftp.shop.example',
      port: 2121,
      username: 'shop',
      passwordSet: true,
      folder: '/incoming/reconciliation',
      explicitTls: true,
      passive: true,
      tlsCertificate: null,
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    expect((await call('GET', ftp(entityId))).body.ftp).toEqual(set.body.ftp);
    const row = await storedRow(entityId);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
    const sealed = await findSealed(t.gateway.store, row?.password_id as string);
    expect(JSON.stringify(sealed)).not.toContain(PASSWORD);
    expect(t.gateway.payments.vault.open(sealed as NonNullable<typeof sealed>)).toBe(PASSWORD);

    // Replaced: what is left out takes its default, the password is kept when not given.
    clock.advance(1000);
    const certificate = selfSignedCertificate().cert;
    const replaced = await call('PUT', ftp(entityId), { host: 'FTP.Shop.Example', username: 'shop2', tlsCertificate: certificate });
    expect(replaced.status).toBe(200);
    expect(replaced.body.ftp).toMatchObject({ host: 'ftp.shop.example', port: 21, username: 'shop2', folder: '', explicitTls: true, updatedAt: clock.now().toISOString() });
    expect(replaced.body.ftp.tlsCertificate).toEqual({ subject: 'CN=127.0.0.1', validTo: expect.any(String), fingerprint256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/) });
    expect((await storedRow(entityId))?.password_id).toBe(row?.password_id);

    // A new password: sealed anew, the old one erased from the vault.
    const renewed = await call('PUT', ftp(entityId), { host: '[2001:db8::21]', username: 'shop', password: 'an0ther-one', explicitTls: false, passive: true });
    expect(renewed.body.ftp).toMatchObject({ host: '2001:db8::21', explicitTls: false, tlsCertificate: null });
    const renewedId = (await storedRow(entityId))?.password_id as string;
    expect(renewedId).not.toBe(row?.password_id);
    expect(await findSealed(t.gateway.store, row?.password_id as string)).toBeUndefined();

    const removed = await call('DELETE', ftp(entityId));
    expect(removed.body).toMatchObject({ result: { code: '000.000.100' }, ftp: null });
    expect(await storedRow(entityId)).toBeUndefined();
    expect(await findSealed(t.gateway.store, renewedId)).toBeUndefined();
    expect((await call('GET', ftp(entityId))).body.ftp).toBeNull();
    expect(t.logLines.join('\n')).not.toContain(PASSWORD);
  });

  it('refuses bad settings field by field, never quoting the password, and writes nothing', async () => {
    const { entityId } = await t.newMerchant();
    const refused = async (body: unknown, fields: string[]) => {
      const answer = await call('PUT', ftp(entityId), body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.result.code).toBe('200.300.404');
      expect(errorsOf(answer)).toEqual(fields);
      expect(JSON.stringify(answer.body)).not.toContain(PASSWORD);
      return answer;
    };
    await refused({ ...settings, password: undefined }, ['password']);
    await refused({ ...settings, host: 'bad host!' }, ['host']);
    await refused({ ...settings, host: '' }, ['host']);
    await refused({ ...settings, port: 0 }, ['port']);
    await refused({ ...settings, port: 65536 }, ['port']);
    await refused({ ...settings, port: '21' }, ['port']);
    await refused({ ...settings, username: 'shop\r\nDELE x.csv' }, ['username']);
    await refused({ ...settings, password: `${PASSWORD}\r\nDELE x.csv` }, ['password']);
    await refused({ ...settings, folder: 'in\u0000' }, ['folder']);
    await refused({ ...settings, passive: false }, ['passive']);
    await refused({ ...settings, tlsCertificate: 'not a certificate' }, ['tlsCertificate']);
    await refused({ ...settings, explicitTls: false, tlsCertificate: selfSignedCertificate().cert }, ['tlsCertificate']);
    await refused({ ...settings, mode: 'active' }, ['mode']);
    await refused({ host: 'x..y', port: -1 }, ['host', 'port', 'username', 'password']);
    await refused('not json', ['body']);
    expect(await storedRow(entityId)).toBeUndefined();

    expect((await call('PUT', ftp('0123456789abcdef0123456789abcdef'), settings)).status).toBe(404);
    expect((await call('GET', ftp('not-an-entity'))).status).toBe(404);
    expect((await call('GET', ftp(entityId), undefined, null)).status).toBe(401);
    expect((await call('GET', ftp(entityId), undefined, 'not-the-admin-token-0123456789abcdef')).status).toBe(403);
    expect((await call('POST', ftp(entityId), settings)).status).toBe(405);

    // Live rules (OUTBOUND_ALLOW_PRIVATE off): an address that is not public is refused as the host.
    const live = { store: t.gateway.store, vault: t.gateway.payments.vault, now: clock.now, allowPrivateAddresses: false };
    for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '::1', '[fd00:ec2::254]']) {
      const error = await saveFtpSettings(live, entityId, { ...settings, host }).catch((thrown: unknown) => thrown);
      expect(error, host).toBeInstanceOf(FtpSettingsError);
      expect((error as FtpSettingsError).problems).toEqual([{ name: 'host', value: host, message: expect.stringContaining('OUTBOUND_ALLOW_PRIVATE is off') }]);
    }
    expect(await storedRow(entityId)).toBeUndefined();
    expect((await saveFtpSettings(live, entityId, { ...settings, host: '93.184.216.34' })).host).toBe('93.184.216.34');
  });

  it('reads the host as a resolver would (issue 34 §4): in live, no spelling of a private address gets through', async () => {
    const { entityId } = await t.newMerchant();
    const live = { store: t.gateway.store, vault: t.gateway.payments.vault, now: clock.now, allowPrivateAddresses: false };
    const refusal = async (host: string) => {
      const error = await saveFtpSettings(live, entityId, { ...settings, host }).catch((thrown: unknown) => thrown);
      expect(error, host).toBeInstanceOf(FtpSettingsError);
      return (error as FtpSettingsError).problems;
    };
    for (const host of ['2130706433', '0x7f000001', '127.1', '0177.0.0.1', '0x7f.0.0.1', '127.0.0.1.', '[::1]', '::ffff:127.0.0.1', '[::ffff:127.0.0.1]', '::ffff:7f00:1', '0:0:0:0:0:0:0:1', '167772161', '0xa9fea9fe', '0']) {
      expect(await refusal(host), host).toEqual([{ name: 'host', value: host, message: expect.stringContaining('OUTBOUND_ALLOW_PRIVATE is off') }]);
    }
    // Neither an address nor a name a resolver would look up.
    for (const host of ['999999999999', '08.1.1.1', '1.2.3.4.5', '256.1.1.1', '[127.0.0.1]']) {
      expect(await refusal(host), host).toEqual([{ name: 'host', value: host, message: 'must be a host name or an IP address' }]);
    }
    expect(await storedRow(entityId)).toBeUndefined();
    // A public host: a name as it was typed (lowercase), an address as a resolver reads it.
    expect((await saveFtpSettings(live, entityId, { ...settings, host: 'FTP.Shop.Example' })).host).toBe('ftp.shop.example');
    expect((await saveFtpSettings(live, entityId, { ...settings, host: '1572395042' })).host).toBe('93.184.216.34');
    expect((await saveFtpSettings(live, entityId, { ...settings, host: '[2606:4700:0::1111]' })).host).toBe('2606:4700::1111');
    // In test (OUTBOUND_ALLOW_PRIVATE on), loopback is allowed, and kept as the address it is.
    expect((await call('PUT', ftp(entityId), { ...settings, host: '127.1' })).body.ftp.host).toBe('127.0.0.1');
  });

  it('lists, shows, re-sends and downloads files, and refuses bad dates and days not over', async () => {
    const merchants = [await t.newMerchant(), await t.newMerchant(), await t.newMerchant()].sort((a, b) => a.entityId.localeCompare(b.entityId));
    const [first, second, third] = merchants.map((merchant) => merchant.entityId) as [string, string, string];
    for (const entityId of [first, second, third]) expect((await call('PUT', ftp(entityId), settings)).status).toBe(200);
    await t.gateway.store.transaction((tx) =>
      insertSettlementBatch(tx, { entityId: first, clearingInstitute: 'simulator', settlementDate: DAY, settlementCurrency: 'EUR', settlementAmountMinor: 0, transactionCount: 2, test: true, createdAt: clock.now() }, [
        record(),
        record({ accountHolder: 'Zoë "Z" Ångström; Jr.', amountMinor: 150 }),
      ]),
    );

    const resent = await call('POST', `/entities/${first}/reconciliation/files/${DAY}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.file).toEqual({
      entityId: first,
      date: DAY,
      fileName: `${first}_20261126.csv`,
      status: 'pending',
      attempts: 0,
      lastError: null,
      nextAttemptAt: clock.now().toISOString(),
      sizeBytes: null,
      recordCount: null,
      remotePath: null,
      uploadedAt: null,
      createdAt: clock.now().toISOString(),
      updatedAt: clock.now().toISOString(),
    });
    for (const entityId of [second, third]) expect((await call('POST', `/entities/${entityId}/reconciliation/files/${DAY}/resend`)).status).toBe(200);
    expect((await call('GET', `/entities/${first}/reconciliation/files/${DAY}`)).body.file).toEqual(resent.body.file);
    expect((await call('GET', `/entities/${first}/reconciliation/files`)).body).toMatchObject({ from: '2026-10-28', to: '2026-11-27', files: [resent.body.file] });
    expect((await call('GET', `/entities/${first}/reconciliation/files?from=2026-11-27&to=2026-11-30`)).body.files).toEqual([]);

    const page = await call('GET', `/reconciliation/files?date=${DAY}&limit=2&after=${'0'.repeat(32)}`);
    const ours = (files: { entityId: string }[]) => files.map((file) => file.entityId).filter((id) => [first, second, third].includes(id));
    expect(page.body.files).toHaveLength(2);
    const rest = await call('GET', `/reconciliation/files?date=${DAY}&limit=1000&after=${page.body.next as string}`);
    expect([...ours(page.body.files), ...ours(rest.body.files)]).toEqual([first, second, third]);
    expect(rest.body.next).toBeUndefined();
    expect(ours((await call('GET', `/reconciliation/files?date=${DAY}&status=pending`)).body.files)).toEqual([first, second, third]);
    expect(ours((await call('GET', `/reconciliation/files?date=${DAY}&status=uploaded`)).body.files)).toEqual([]);

    const csv = await t.gateway.app.request(`/admin/v1/entities/${first}/reconciliation/files/${DAY}/csv`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="${reconciliationFileName(first, DAY)}"`);
    const text = await csv.text();
    expect(text.startsWith(HEADER_LINE)).toBe(true);
    expect(text.split('\r\n')).toHaveLength(4);
    expect(text).toContain(';"Zoë ""Z"" Ångström; Jr.";');
    const empty = await t.gateway.app.request(`/admin/v1/entities/${second}/reconciliation/files/2026-11-01/csv`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(await empty.text()).toBe(HEADER_LINE);

    // Bad input.
    const badDate = async (path: string, name = 'date') => {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(400);
      expect(errorsOf(answer), path).toEqual([name]);
    };
    await badDate(`/entities/${first}/reconciliation/files/2026-02-30`);
    await badDate(`/entities/${first}/reconciliation/files/2026-13-01/csv`);
    await badDate(`/entities/${first}/reconciliation/files/26-11-2026`);
    await badDate(`/entities/${first}/reconciliation/files?from=2026-11-27&to=2026-11-26`, 'from');
    await badDate(`/entities/${first}/reconciliation/files?from=2025-01-01&to=2026-11-26`, 'from');
    await badDate(`/entities/${first}/reconciliation/files?to=yesterday`, 'to');
    await badDate('/reconciliation/files');
    await badDate(`/reconciliation/files?date=${DAY}&status=done`, 'status');
    await badDate(`/reconciliation/files?date=${DAY}&limit=0`, 'limit');
    await badDate(`/reconciliation/files?date=${DAY}&after=xyz`, 'after');
    const notOver = await call('POST', `/entities/${first}/reconciliation/files/2026-11-27/resend`);
    expect([notOver.status, notOver.body.result.code, notOver.body.result.description]).toEqual([400, '200.300.404', expect.stringContaining('2026-11-27 is not over yet')]);
    const { entityId: withoutFtp } = await t.newMerchant();
    const noSettings = await call('POST', `/entities/${withoutFtp}/reconciliation/files/${DAY}/resend`);
    expect([noSettings.status, noSettings.body.result.description]).toEqual([400, expect.stringContaining('no FTP settings')]);
    expect((await call('POST', `/entities/${'0'.repeat(32)}/reconciliation/files/${DAY}/resend`)).status).toBe(404);
    expect((await call('GET', `/entities/${'0'.repeat(32)}/reconciliation/files/${DAY}/csv`)).status).toBe(404);
    expect((await call('GET', `/entities/${withoutFtp}/reconciliation/files/${DAY}`)).status).toBe(404);
    expect((await call('DELETE', `/entities/${first}/reconciliation/files/${DAY}`)).status).toBe(405);
    expect((await call('GET', `/entities/${first}/reconciliation/files/${DAY}/resend`)).status).toBe(405);
  });
});
