import { fork } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { createEntity } from '../server/merchants/repository.ts';
import { resendFile } from '../server/reconciliation/files.ts';
import { reconciliationFileName } from '../server/reconciliation/format.ts';
import { findFile } from '../server/reconciliation/repository.ts';
import { saveFtpSettings } from '../server/reconciliation/settings.ts';
import { FTP_PASSWORD, FTP_USER } from '../server/testing/ftpServer.ts';
import { freshLocation, postgresSource, type StoreKind } from './locations.ts';
import type { BenchSectionContext } from './section.ts';
import { positiveIntFromEnv } from './env.ts';
import { formatGrowth, MB, sampleMemory, staysFlat, type MemoryGrowth } from './memory.ts';

/**
 * U: the reconciliation file (COMPAT §14) of a day of BENCH_RECONCILIATION_RECORDS (1,000,000) settlement records,
 * seeded with set-based SQL (INSERT ... SELECT FROM generate_series), generated and uploaded by the gateway's own
 * upload job (an operator's re-send, run at once) to an FTP server on loopback in a process of its own (ftp-srv).
 * Target: at most 30 s. Memory (memory.ts: live heap, peak heap, peak RSS over a baseline), for a day of a tenth of
 * the records too: a file built in memory would keep ~400 MiB of live heap.
 */

const RECORDS = positiveIntFromEnv('BENCH_RECONCILIATION_RECORDS', 1_000_000);
const TARGET_SECONDS = 30;
const NOW = new Date('2026-11-27T09:00:00.000Z');
const SERVER = fileURLToPath(new URL('./ftp-server.ts', import.meta.url));
/** `count` records for the entity's settlement day `date`, a batch of them, written by one statement. */
async function seedDay(gateway: RunningGateway, entityId: string, date: string, count: number): Promise<void> {
  const batchId = (await gateway.store.query<{ id: string }>("SELECT replace(gen_random_uuid()::text, '-', '') AS id")).rows[0]?.id as string;
  await gateway.store.query(
    `INSERT INTO settlement_batches (id, entity_id, clearing_institute, settlement_date, settlement_currency, settlement_amount_minor, transaction_count, test, created_at)
     VALUES ($1, $2, 'simulator', $3::date, 'EUR', 0, $4, true, $5::timestamptz)`,
    [batchId, entityId, date, count, NOW.toISOString()],
  );
  // Mostly settled debits, a chargeback in 50, holders with a separator and quotes in one of 10 (quoted fields).
  await gateway.store.query(
    `INSERT INTO settlement_records (id, batch_id, position, record_type, transaction_type, cashflow, clearing_merchant_id, settlement_tx_id,
       payment_id, short_id, connector_tx_id1, merchant_transaction_id, amount_minor, currency, brand, presentment_at, settlement_amount_minor,
       settlement_currency, settlement_fee_minor, fx_rate, settlement_date, settlement_status, descriptor, account_last4, account_holder,
       reason_code, reason_desc, settlement_format, matching_status, matched_payment_ids, chargeback_id)
     SELECT md5($1 || 'r' || g), $1, g, CASE WHEN g % 50 = 0 THEN 'CHARGEBACK' ELSE 'SETTLED' END, 'DEBIT', CASE WHEN g % 50 = 0 THEN 'NEG' ELSE 'POS' END,
            'SIM-000123', 'STX' || g, md5($1 || 'p' || g), lpad((g % 10000)::text, 4, '0') || '.' || lpad((g / 10000 % 10000)::text, 4, '0') || '.0001',
            'ACQ-' || g, 'order-' || g, 100 + g % 100000, 'EUR', 'VISA', $2::timestamptz + g * interval '50 milliseconds', 75 + g % 100000,
            'EUR', 25, 1, $3::date, 'SUCCESS', 'Shop order ' || g, lpad((g % 10000)::text, 4, '0'),
            CASE WHEN g % 10 = 0 THEN 'Jane "J" Doe; Jr.' ELSE 'Jane Doe' END,
            CASE WHEN g % 50 = 0 THEN '4837' END, CASE WHEN g % 50 = 0 THEN 'No cardholder authorization' END, 'SIMULATOR', 'MATCHED',
            ARRAY[md5($1 || 'p' || g)]::char(32)[], CASE WHEN g % 50 = 0 THEN md5($1 || 'c' || g) END
       FROM generate_series(1, $4::integer) AS g`,
    [batchId, new Date(NOW.getTime() - 86_400_000).toISOString(), date, count],
  );
}

interface Upload {
  readonly seconds: number;
  readonly bytes: number;
  readonly growth: MemoryGrowth;
}

/** Re-sends the entity's file of `date` and runs the upload job, sampling this process's memory meanwhile. */
async function upload(gateway: RunningGateway, entityId: string, date: string, count: number, root: string): Promise<Upload> {
  const stopSampling = sampleMemory();
  const started = performance.now();
  let growth: MemoryGrowth;
  try {
    await resendFile(gateway.store, entityId, date, NOW);
    await gateway.reconciliation.uploads.runDueJobs();
  } finally {
    growth = stopSampling();
  }
  const seconds = (performance.now() - started) / 1000;
  const file = await findFile(gateway.store, entityId, date);
  const path = join(root, reconciliationFileName(entityId, date));
  if (file?.status !== 'uploaded') throw new Error(`the file of ${date} was not uploaded: ${file?.status ?? 'no file'} ${file?.lastError ?? ''}`);
  const onServer = statSync(path).size;
  if (file.recordCount !== count || file.sizeBytes !== onServer) throw new Error(`the file of ${date} holds ${file.recordCount} records, ${onServer} bytes on the server of ${file.sizeBytes} sent`);
  rmSync(path);
  return { seconds, bytes: onServer, growth };
}

export async function benchReconciliationFile(kind: StoreKind, context: BenchSectionContext): Promise<void> {
  console.log(`\n[U ${kind}] the reconciliation file of a day of ${RECORDS} settlement records, generated and uploaded over FTP on loopback`);
  const small = Math.max(1, Math.floor(RECORDS / 10));
  try {
    await context.withScope(async (scope) => {
      const location = await freshLocation(kind, postgresSource());
      scope.defer(`remove ${kind} store at ${location.where}`, () => location.dispose());
      const gateway = await startGateway(context.gatewayConfig(location), { logSink: () => undefined, jobPollMs: 0, now: () => NOW });
      scope.defer(`close the gateway over ${kind}`, () => gateway.close());
      const entity = await createEntity(gateway.store, 'Bench merchant with a million settlement records');
      const seeding = performance.now();
      await seedDay(gateway, entity.id, '2026-11-25', small);
      await seedDay(gateway, entity.id, '2026-11-26', RECORDS);
      console.log(`  ${small + RECORDS} settlement records seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

      const child = fork(SERVER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      scope.defer('stop the FTP server process', async () => {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.disconnect();
        await exited;
      });
      const server = await new Promise<{ port: number; root: string }>((resolve) => {
        child.once('message', (message) => resolve(message as { port: number; root: string }));
        child.send({ start: true });
      });
      await saveFtpSettings({ store: gateway.store, vault: gateway.payments.vault, now: () => NOW, allowPrivateAddresses: true }, entity.id, {
        host: '127.0.0.1',
        port: server.port,
        username: FTP_USER,
        password: FTP_PASSWORD,
        explicitTls: false,
      });

      const tenth = await upload(gateway, entity.id, '2026-11-25', small, server.root);
      const full = await upload(gateway, entity.id, '2026-11-26', RECORDS, server.root);
      const mb = (bytes: number) => (bytes / MB).toFixed(1);
      for (const [count, figures] of [[small, tenth], [RECORDS, full]] as const) {
        console.log(
          `  ${count} records: ${figures.seconds.toFixed(1)} s, ${mb(figures.bytes)} MiB (${Math.round(count / figures.seconds)} records/s, ` +
            `${mb(figures.bytes / figures.seconds)} MiB/s); growth over the baseline: ${formatGrowth(figures.growth)}`,
        );
      }
      const meets = full.seconds <= TARGET_SECONDS;
      context.ratio(
        `${kind}: reconciliation file of ${RECORDS} records (${mb(full.bytes)} MiB) generated and uploaded over FTP in ${full.seconds.toFixed(1)} s ` +
          `(target ≤ ${TARGET_SECONDS} s) — ${meets ? 'meets target' : 'BELOW target'}; growth: ${formatGrowth(full.growth)} ` +
          `(for ${small} records: ${formatGrowth(tenth.growth)}) — ${staysFlat(full.growth) ? 'memory flat, not proportional to rows' : 'memory GROWS with the rows'}`,
      );
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    context.fail(`U reconciliation file on ${kind}: ${message}`);
  }
}
