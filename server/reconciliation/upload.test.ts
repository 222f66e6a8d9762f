import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settlementRecord } from '../testing/settlements.ts';
import { createJobRegistry } from '../jobs/registry.ts';
import { startJobWorker } from '../jobs/worker.ts';
import { insertSettlementBatch, type NewSettlementRecord } from '../reports/settlementRecords.ts';
import { FTP_PASSWORD, FTP_USER, selfSignedCertificate, startSilentServer, startTestFtpServer, type TestFtpServer } from '../testing/ftpServer.ts';
import { createTestClock, freePort, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { HEADER_LINE, reconciliationFileName } from './format.ts';
import { uploadToFtp } from './ftpUpload.ts';
import { reconciliationJobHandlers } from './jobs.ts';

warnIfPostgresSkipped('reconciliation/upload.test.ts');

/**
 * The reconciliation file delivered over FTP (COMPAT §14) to a real FTP server on loopback (ftp-srv), read back from
 * its disk: scheduled the morning after the settlement day, sent once, retried after a refused connection, a full disk
 * (452) and a server that stops mid-upload — never leaving a partial file under the real name — given up at once on a
 * destination the outbound rules refuse, and sent over explicit TLS with the server's certificate checked.
 */

const ADMIN_TOKEN = 'admin-token-for-reconciliation-uploads-0123456789';
const DAY = '2026-11-26';
const MINUTE = 60_000;

const record = (overrides: Partial<NewSettlementRecord> = {}): NewSettlementRecord => settlementRecord({ settlementDate: DAY, ...overrides });

describe.each(STORE_KINDS)('reconciliation files over FTP on %s', (kind) => {
  const clock = createTestClock(new Date('2026-11-27T01:30:00.000Z'));
  let t: TestGateway;
  let ftp: TestFtpServer;

  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN }, { now: clock.now, outboundTimeoutMs: 5_000 });
    ftp = await startTestFtpServer({ folders: ['in'] });
  });
  afterAll(async () => {
    await t?.close();
    await ftp?.close();
  });

  const admin = async (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    readResponse(
      await t.gateway.app.request(`/admin/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const download = async (entityId: string, date: string) =>
    Buffer.from(await (await t.gateway.app.request(`/admin/v1/entities/${entityId}/reconciliation/files/${date}/csv`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).arrayBuffer());
  const fileOf = async (entityId: string, date: string) => (await admin('GET', `/entities/${entityId}/reconciliation/files/${date}`)).body.file;
  const settle = (entityId: string, date: string, records: readonly NewSettlementRecord[], institute = 'simulator') =>
    t.gateway.store.transaction((tx) =>
      insertSettlementBatch(
        tx,
        { entityId, clearingInstitute: institute, settlementDate: date, settlementCurrency: 'EUR', settlementAmountMinor: 0, transactionCount: records.length, test: true, createdAt: clock.now() },
        records.map((entry) => ({ ...entry, settlementDate: date })),
      ),
    );
  const setFtp = async (entityId: string, settings: Record<string, unknown> = {}) => {
    const answer = await admin('PUT', `/entities/${entityId}/reconciliation/ftp`, {
      host: '127.0.0.1',
      port: ftp.port,
      username: FTP_USER,
      password: FTP_PASSWORD,
      folder: 'in',
      explicitTls: false,
      ...settings,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };
  const resend = async (entityId: string, date: string) => expect((await admin('POST', `/entities/${entityId}/reconciliation/files/${date}/resend`)).status).toBe(200);
  const runJobs = async () => {
    // Twice: a schedule run's uploads are due in the same instant, claimed by the next run.
    await t.gateway.reconciliation.uploads.runDueJobs();
    await t.gateway.reconciliation.uploads.runDueJobs();
  };

  it('delivers the day\'s file the next morning from the file hour, once, byte for byte what the operator downloads', async () => {
    const { entityId } = await t.newMerchant();
    await settle(entityId, DAY, [record(), record({ accountHolder: 'Jane "J" Jones; Sr.', amountMinor: 1234 }), record({ recordType: 'FEE', transactionType: 'CAPTURE_FEE', cashflow: 'NEG' })]);
    await settle(entityId, '2026-11-25', [record({ amountMinor: 777 })]);
    await setFtp(entityId);
    const name = reconciliationFileName(entityId, DAY);

    // 01:30: before RECONCILIATION_FILE_HOUR (2), nothing is due.
    await runJobs();
    expect(ftp.uploads).toBe(0);
    expect(ftp.list('in')).toEqual([]);

    // 02:00: due, but the day's settlement run has not finished (a gateway back after the cut-off, before its catch-up).
    clock.advance(30 * MINUTE);
    await runJobs();
    expect(await fileOf(entityId, DAY)).toBeUndefined();
    await t.gateway.store.query('INSERT INTO settlement_runs (settlement_date, first_run_at, last_run_at) VALUES ($1::date, $2, $2)', [DAY, clock.now().toISOString()]);
    clock.advance(60 * MINUTE);
    await runJobs();
    const uploaded = ftp.read(`in/${name}`);
    expect(uploaded).toBeDefined();
    expect(ftp.list('in')).toEqual([name]);
    expect(uploaded?.equals(await download(entityId, DAY))).toBe(true);
    const lines = uploaded?.toString('utf8').split('\r\n') ?? [];
    expect(lines[0]).toBe(HEADER_LINE.trimEnd());
    expect(lines).toHaveLength(5);
    expect(lines[2]).toContain(';12.34;EUR;');
    expect(lines[2]).toContain(';"Jane ""J"" Jones; Sr.";');
    // The day before the settings were made is sent too (yesterday's file comes the morning FTP is set up); not earlier days.
    expect(await fileOf(entityId, '2026-11-25')).toBeUndefined();
    expect(await fileOf(entityId, DAY)).toMatchObject({
      fileName: name,
      status: 'uploaded',
      attempts: 1,
      lastError: null,
      nextAttemptAt: null,
      sizeBytes: uploaded?.length,
      recordCount: 3,
      remotePath: `in/${name}`,
      uploadedAt: clock.now().toISOString(),
    });

    // The next schedule runs send nothing again.
    clock.advance(60 * MINUTE);
    await runJobs();
    clock.advance(60 * MINUTE);
    await runJobs();
    expect(ftp.uploads).toBe(1);

    // A worker that got the file there but died before recording it: the job runs again and finds it delivered.
    await t.gateway.store.query(`UPDATE reconciliation_files SET status = 'pending' WHERE entity_id = $1`, [entityId]);
    await t.gateway.store.query(`UPDATE jobs SET done_at = NULL, run_at = $2 WHERE unique_key = $1`, [`reconciliation.upload:${entityId}:${DAY}`, clock.now().toISOString()]);
    await runJobs();
    expect(ftp.uploads).toBe(1);
    expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'uploaded', sizeBytes: uploaded?.length, recordCount: null });
    expect(t.logLines.join('\n')).not.toContain(FTP_PASSWORD);
  });

  it('sends a day without records as the header alone, and again on an operator\'s re-send', async () => {
    const { entityId } = await t.newMerchant();
    await setFtp(entityId, { folder: '' });
    await resend(entityId, DAY);
    await runJobs();
    const name = reconciliationFileName(entityId, DAY);
    expect(ftp.read(name)?.toString('utf8')).toBe(HEADER_LINE);
    const before = ftp.uploads;
    await settle(entityId, DAY, [record()]);
    await resend(entityId, DAY);
    await runJobs();
    expect(ftp.uploads).toBe(before + 1);
    expect(ftp.read(name)?.toString('utf8').split('\r\n')).toHaveLength(3);
    expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'uploaded', attempts: 1, recordCount: 1 });
  });

  it('retries a refused connection, a full disk and a server stopping mid-upload, with no partial file under the real name', async () => {
    const { entityId } = await t.newMerchant();
    const date = '2026-11-20';
    await settle(entityId, date, Array.from({ length: 4_000 }, (_, index) => record({ amountMinor: index + 1, descriptor: `order ${index} ${'x'.repeat(100)}` })));
    const name = reconciliationFileName(entityId, date);
    const expected = await download(entityId, date);
    expect(expected.length).toBeGreaterThan(1_000_000);

    await setFtp(entityId, { port: await freePort() });
    await resend(entityId, date);
    await runJobs();
    expect(await fileOf(entityId, date)).toMatchObject({ status: 'retrying', attempts: 1, lastError: expect.stringMatching(/ECONNREFUSED/), nextAttemptAt: new Date(clock.now().getTime() + MINUTE).toISOString() });

    // Fixed settings (the password kept), and a full disk at the next attempt.
    const fixed = await admin('PUT', `/entities/${entityId}/reconciliation/ftp`, { host: '127.0.0.1', port: ftp.port, username: FTP_USER, folder: 'in', explicitTls: false });
    expect(fixed.status).toBe(200);
    ftp.failUploadsWithDiskFull(1);
    clock.advance(MINUTE);
    await runJobs();
    expect(await fileOf(entityId, date)).toMatchObject({ status: 'retrying', attempts: 2, lastError: expect.stringMatching(/452/), nextAttemptAt: new Date(clock.now().getTime() + 2 * MINUTE).toISOString() });
    expect(ftp.list('in')).not.toContain(name);

    const stopped = ftp.stopDuringNextUpload(256 * 1024);
    clock.advance(2 * MINUTE);
    await runJobs();
    await stopped;
    expect(await fileOf(entityId, date)).toMatchObject({ status: 'retrying', attempts: 3 });
    expect(ftp.list('in')).not.toContain(name);
    expect(ftp.read(`in/${name}.part`)?.length ?? 0).toBeLessThan(expected.length);

    await ftp.start();
    clock.advance(4 * MINUTE);
    await runJobs();
    expect(await fileOf(entityId, date)).toMatchObject({ status: 'uploaded', attempts: 4, lastError: null, recordCount: 4_000, sizeBytes: expected.length });
    expect(ftp.read(`in/${name}`)?.equals(expected)).toBe(true);
    expect(ftp.list('in').filter((entry) => entry.startsWith(entityId))).toEqual([name]);
    expect(t.logLines.join('\n')).not.toContain(FTP_PASSWORD);
  });

  it('gives up at once on a host the outbound rules refuse (OUTBOUND_ALLOW_PRIVATE off), and on an entity without settings', async () => {
    const { entityId } = await t.newMerchant();
    await setFtp(entityId, { host: 'localhost' });
    await resend(entityId, DAY);
    // A worker of a gateway that keeps outbound calls off loopback and private addresses.
    const strict = startJobWorker({
      store: t.gateway.store,
      logger: t.gateway.logger,
      now: clock.now,
      pollMs: 0,
      handlers: createJobRegistry(
        reconciliationJobHandlers({
          store: t.gateway.store,
          vault: t.gateway.payments.vault,
          logger: t.gateway.logger,
          now: clock.now,
          outbound: { allowPrivateAddresses: false },
          timeoutMs: 5_000,
          pspId: t.gateway.config.pspEntityId,
          fileHour: 2,
          settledDaysOnly: true,
        }),
      ),
    });
    try {
      await strict.runDueJobs();
    } finally {
      await strict.stop();
    }
    expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null, lastError: expect.stringMatching(/ftp:\/\/localhost refused.*OUTBOUND_ALLOW_PRIVATE is off/) });

    const other = await t.newMerchant();
    await setFtp(other.entityId);
    await resend(other.entityId, DAY);
    expect((await admin('DELETE', `/entities/${other.entityId}/reconciliation/ftp`)).status).toBe(200);
    await runJobs();
    expect(await fileOf(other.entityId, DAY)).toMatchObject({ status: 'failed', lastError: 'the entity has no FTP settings' });
  });

  it('sends over explicit TLS, checking the server\'s certificate, and never in clear to a server without TLS', async () => {
    const certificate = selfSignedCertificate();
    const secure = await startTestFtpServer({ tls: certificate });
    try {
      const { entityId } = await t.newMerchant();
      await settle(entityId, DAY, [record()]);
      await setFtp(entityId, { port: secure.port, folder: '', explicitTls: true, tlsCertificate: certificate.cert });
      await resend(entityId, DAY);
      await runJobs();
      expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'uploaded' });
      expect(secure.read(reconciliationFileName(entityId, DAY))?.equals(await download(entityId, DAY))).toBe(true);

      // Without the certificate, a self-signed server is not trusted.
      await setFtp(entityId, { port: secure.port, folder: '', explicitTls: true });
      await resend(entityId, DAY);
      await runJobs();
      expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'retrying', lastError: expect.stringMatching(/self[- ]signed certificate/) });

      // A server that does not speak TLS gets nothing, not the password and not the file.
      const uploads = ftp.uploads;
      await setFtp(entityId, { port: ftp.port, folder: '', explicitTls: true });
      await resend(entityId, DAY);
      await runJobs();
      expect(await fileOf(entityId, DAY)).toMatchObject({ status: 'retrying', lastError: expect.stringMatching(/AUTH TLS|502/) });
      expect(ftp.uploads).toBe(uploads);
    } finally {
      await secure.close();
    }
  });
});

describe('an FTP server that never answers', () => {
  it('fails the upload after the timeout', async () => {
    const silent = await startSilentServer();
    try {
      async function* nothing(): AsyncGenerator<Buffer> {}
      const target = { host: '127.0.0.1', port: silent.port, username: FTP_USER, password: FTP_PASSWORD, folder: '', explicitTls: false, tlsCertificate: null };
      const options = { policy: { allowPrivateAddresses: true }, timeoutMs: 300, deadlineMs: 60_000, keepExisting: false };
      await expect(uploadToFtp(target, 'x.csv', nothing(), options)).rejects.toThrow(/Timeout/);
    } finally {
      await silent.close();
    }
  });
});
