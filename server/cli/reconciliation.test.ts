import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './index.ts';
import { startGateway } from '../gateway.ts';
import { insertSettlementBatch, type NewSettlementRecord } from '../reports/settlementRecords.ts';
import { openStore } from '../store/index.ts';
import { FTP_PASSWORD, FTP_USER, startTestFtpServer, type TestFtpServer } from '../testing/ftpServer.ts';
import { configAt, createTestClock, freshStoreLocation, type StoreLocation } from '../testing/harness.ts';
import { HEADER_LINE, reconciliationFileName } from '../reconciliation/format.ts';

/**
 * `npm run gateway -- reconciliation ...` as an operator runs it (the embedded store, no gateway running on it): FTP
 * settings set with the password read from a file and sealed, the file re-sent and delivered by a gateway started on
 * the store afterwards (the password opened with the key the command sealed it with), its status shown and listed,
 * the CSV downloaded to standard output and to a file; mistakes explained.
 */

const DAY = '2026-11-26';
const now = () => new Date('2026-11-27T09:00:00.000Z');

describe('the reconciliation commands', () => {
  let location: StoreLocation;
  let ftp: TestFtpServer;
  let directory: string;
  beforeAll(async () => {
    location = await freshStoreLocation('PGlite');
    ftp = await startTestFtpServer({ folders: ['in'] });
    directory = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
  });
  afterAll(async () => {
    await ftp?.close();
    await location?.dispose();
    rmSync(directory, { recursive: true, force: true });
  });

  const gateway = (...args: string[]) => runCli(args, { env: { DATA_DIR: location.dataDir, DATABASE_URL: '' }, progress: () => {}, now });

  it('set the FTP settings from a password file, re-send, show, list and download a day\'s file', async () => {
    const entityId = /^entityId\s+(\S+)$/m.exec((await gateway('entity', 'create', '--name', 'CLI shop')).stdout)?.[1] as string;
    const passwordFile = join(directory, 'ftp-password');
    writeFileSync(passwordFile, `${FTP_PASSWORD}\n`);
    const set = await gateway('reconciliation', 'ftp', 'set', entityId, '--host', '127.0.0.1', '--port', String(ftp.port), '--user', FTP_USER, '--password-file', passwordFile, '--folder', 'in', '--tls', 'false');
    expect(set.stderr).toBe('');
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(set.stdout.slice(0, set.stdout.lastIndexOf('}') + 1))).toMatchObject({ entityId, host: '127.0.0.1', port: ftp.port, username: FTP_USER, passwordSet: true, folder: 'in', explicitTls: false });
    expect(set.stdout).not.toContain(FTP_PASSWORD);
    expect((await gateway('reconciliation', 'ftp', 'show', entityId)).stdout).toContain('"passwordSet": true');

    const store = await openStore(configAt(location));
    try {
      const record: NewSettlementRecord = {
        recordType: 'SETTLED', transactionType: 'DEBIT', cashflow: 'POS', clearingMerchantId: 'SIM-000123', settlementTxId: null, paymentId: null, shortId: null,
        connectorTxIds: [null, null, null], merchantTransactionId: 'order-1', merchantInvoiceId: null, amountMinor: 9200, currency: 'EUR', brand: 'VISA',
        presentmentAt: null, settlementAmountMinor: 9175, settlementCurrency: 'EUR', settlementFeeMinor: 25, fxRate: '1', settlementDate: DAY,
        settlementStatus: 'SUCCESS', descriptor: 'line one\nline two', accountLast4: null, bankCode: null, accountHolder: null, reasonCode: null, reasonDesc: null,
        settlementFormat: 'SIMULATOR', matchingStatus: 'NOT_MATCHED', matchedPaymentIds: [], chargebackId: null,
      };
      await store.transaction((tx) =>
        insertSettlementBatch(tx, { entityId, clearingInstitute: 'simulator', settlementDate: DAY, settlementCurrency: 'EUR', settlementAmountMinor: 9175, transactionCount: 1, test: true, createdAt: now() }, [record]),
      );
    } finally {
      await store.close();
    }

    const resent = await gateway('reconciliation', 'resend', entityId, DAY);
    expect(resent.stdout).toMatch(new RegExp(`^${DAY}  ${entityId}  pending  0 attempt\\(s\\)  next attempt ${now().toISOString()}\\n\\(a running gateway uploads it now\\)\\n$`));

    const clock = createTestClock(now());
    const running = await startGateway(configAt(location, { logLevel: 'silent' }), { jobPollMs: 0, now: clock.now });
    try {
      await running.reconciliation.uploads.runDueJobs();
    } finally {
      await running.close();
    }
    const name = reconciliationFileName(entityId, DAY);
    const delivered = ftp.read(`in/${name}`) as Buffer;
    expect(delivered.toString('utf8').startsWith(HEADER_LINE)).toBe(true);

    const shown = (await gateway('reconciliation', 'show', entityId, DAY)).stdout;
    expect(shown).toBe(`${DAY}  ${entityId}  uploaded  1 attempt(s)  ${delivered.length} bytes  1 records  in/${name}  uploaded ${now().toISOString()}\n`);
    expect((await gateway('reconciliation', 'files', entityId, '--from', '2026-11-01', '--to', '2026-11-30')).stdout).toBe(shown);
    expect((await gateway('reconciliation', 'day', DAY)).stdout).toBe(shown);
    expect((await gateway('reconciliation', 'day', DAY, '--status', 'failed')).stdout).toBe(`(no reconciliation files for ${DAY})\n`);

    const printed = await gateway('reconciliation', 'download', entityId, DAY);
    expect(Buffer.from(printed.stdout, 'utf8').equals(delivered)).toBe(true);
    const out = join(directory, name);
    expect((await gateway('reconciliation', 'download', entityId, DAY, '--out', out)).stdout).toBe(`wrote ${name} to ${out}: 1 records, ${delivered.length} bytes\n`);
    expect(readFileSync(out).equals(delivered)).toBe(true);

    expect((await gateway('reconciliation', 'ftp', 'remove', entityId)).stdout).toBe(`${entityId}: FTP settings removed; its reconciliation files are no longer sent\n`);
    expect((await gateway('reconciliation', 'ftp', 'show', entityId)).stdout).toBe(`${entityId} has no FTP settings: its reconciliation files are not sent\n`);
  }, 60_000);

  it('explain what they need', async () => {
    const entityId = /^entityId\s+(\S+)$/m.exec((await gateway('entity', 'create')).stdout)?.[1] as string;
    const fails = async (args: string[], message: string) => {
      const result = await gateway(...args);
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(message);
    };
    await fails(['reconciliation'], 'unknown command: reconciliation');
    await fails(['reconciliation', 'ftp', 'set'], 'reconciliation ftp needs the ENTITY_ID');
    await fails(['reconciliation', 'ftp', 'set', entityId, '--host', 'h', '--port', 'abc'], '--port must be an integer between 1 and 65535');
    await fails(['reconciliation', 'ftp', 'set', entityId, '--host', 'h', '--tls', 'yes'], '--tls must be true or false');
    await fails(['reconciliation', 'ftp', 'set', entityId, '--host', 'h', '--user', 'u', '--password-file', join(directory, 'missing')], '--password-file: cannot read');
    await fails(['reconciliation', 'ftp', 'set', entityId, '--host', 'bad host', '--user', 'u'], 'FTP settings refused: host must be a host name or an IP address; password is required');
    await fails(['reconciliation', 'ftp', 'set', entityId, '--password', 'x'], "Unknown option '--password'");
    await fails(['reconciliation', 'ftp', 'frobnicate', entityId], 'unknown command: reconciliation ftp frobnicate');
    await fails(['reconciliation', 'show', entityId, '2026-02-30'], 'DATE must be a date yyyy-MM-dd');
    await fails(['reconciliation', 'files', entityId, '--from', 'monday'], '--from must be a date yyyy-MM-dd');
    await fails(['reconciliation', 'day', DAY, '--status', 'done'], '--status must be pending, retrying, uploaded or failed');
    await fails(['reconciliation', 'resend', entityId, DAY], 'the entity has no FTP settings: set them first');
    await fails(['reconciliation', 'download', '0123456789abcdef0123456789abcdef', DAY], 'no entity 0123456789abcdef0123456789abcdef');
    expect((await gateway('reconciliation', 'show', entityId, DAY)).stdout).toContain('no reconciliation file of');
  });
});
