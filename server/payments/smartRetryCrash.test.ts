import { describe, expect, it } from 'vitest';
import type { Acquirer } from '../acquirers/types.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { saveSmartRetry } from '../merchants/smartRetrySettings.ts';
import { startHangingGateway, storeWithMerchant } from '../testing/crashingGateway.ts';
import { cardPayment, createTestClock, readResponse, STORE_KINDS, warnIfPostgresSkipped, type ApiResponse } from '../testing/harness.ts';
import { RECOVERY_INTERVAL_MS } from './recovery.ts';

/**
 * Smart retry (COMPAT §15) across a crash: a gateway process with two acquirers (`simulator`, the default, and
 * `fallback`) is killed (SIGKILL) in the window between a payment's two attempts: after the default acquirer's soft
 * reject was decided but before the switch to the fallback committed, while the fallback's call is on its way (the
 * fallback never receives it), and after the fallback decided but before the gateway recorded its answer
 * (testing/hangingAcquirer.ts: `<code> HANG AFTER ANSWER`, `<code> THEN HANG`, `<code> THEN HANG AFTER ANSWER`).
 * Another instance (PostgreSQL) or the restarted one (PGlite, same data directory) finishes the open attempt from
 * the acquirers' own records (simulator_operations): the fallback authorizes at most once, the rejection is one
 * queryable payment, and the merchant's repeat with the same Idempotency-Key answers the merchant's payment. A record
 * is committed before its answer with SIMULATOR_DURABLE_RECORDS=true; by default it is written with the transaction
 * recording the answer, so a crash before that loses it: the recovery finds an attempt the acquirer never answered.
 */

warnIfPostgresSkipped('payments/smartRetryCrash.test.ts');

const SOFT = '800.100.152';
const ACQUIRERS = { acquirers: ['simulator', 'fallback'], defaultAcquirer: 'simulator' } as const;

/**
 * The acquirers after the crash, reached again: a holder that made them hang is the soft reject it names (the
 * default acquirer answers it, the fallback approves), so a payment made afresh is retried as smart retry says.
 */
function reachable(acquirer: Acquirer): Acquirer {
  return {
    ...acquirer,
    authorize: (request) => {
      const holder = request.card?.holder?.replace(/ (THEN )?HANG( AFTER ANSWER)?$/, '');
      return acquirer.authorize(request.card ? { ...request, card: { ...request.card, holder } } : request);
    },
  };
}

async function post(url: string, token: string, body: Record<string, string>, headers: Record<string, string>): Promise<ApiResponse> {
  return readResponse(
    await fetch(`${url}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body),
    }),
  );
}

interface Case {
  /** Where the process dies. */
  readonly when: string;
  readonly holder: string;
  /** The acquirer whose call hangs (the attempt open after the crash), and how the recovery closes it. */
  readonly openAt: 'simulator' | 'fallback';
  readonly outcome: 'recorded' | 'unknown';
  /** SIMULATOR_DURABLE_RECORDS: an acquirer's record committed before it answers, or with the payment's transaction. */
  readonly durable: boolean;
}

const CASES: readonly Case[] = [
  { when: 'the default acquirer decided its soft reject, the switch to the fallback not committed', holder: `${SOFT} HANG AFTER ANSWER`, openAt: 'simulator', outcome: 'recorded', durable: true },
  { when: 'the switch committed, the fallback’s call on its way but never received', holder: `${SOFT} THEN HANG`, openAt: 'fallback', outcome: 'unknown', durable: false },
  { when: 'the fallback decided (approved), its answer not yet recorded', holder: `${SOFT} THEN HANG AFTER ANSWER`, openAt: 'fallback', outcome: 'recorded', durable: true },
  // By default the fallback's record waits for the payment's transaction and dies with the process (the first's was written with the switch).
  { when: 'the fallback decided (approved), its record not yet written', holder: `${SOFT} THEN HANG AFTER ANSWER`, openAt: 'fallback', outcome: 'unknown', durable: false },
];

describe.each(STORE_KINDS)('smart retry, a gateway killed between the two attempts, on %s', (kind) => {
  it.each(CASES)('$when: the fallback authorizes at most once, the rejection is one payment, a repeat answers the merchant’s payment', async ({ holder, openAt, outcome, durable }) => {
    // The merchant, with smart retry on as the admin API and the command line save it.
    const setup = await storeWithMerchant(kind, 'Smart retry crash shop', {
      config: { ...ACQUIRERS, acquirers: [...ACQUIRERS.acquirers], simulatorDurableRecords: durable },
      prepare: (store, entityId) => saveSmartRetry(store, ACQUIRERS, entityId, { fallbackAcquirer: 'fallback' }, new Date()),
    });
    const crashing = startHangingGateway(setup.location, {
      ACQUIRERS: ACQUIRERS.acquirers.join(','),
      DEFAULT_ACQUIRER: ACQUIRERS.defaultAcquirer,
      SIMULATOR_DURABLE_RECORDS: String(durable),
    });
    const clock = createTestClock();
    let survivor: RunningGateway | undefined;
    try {
      const crashingUrl = /Gateway listening on (\S+)/.exec(await crashing.listening)?.[1] as string;
      const order = `order-${holder.replace(/\W+/g, '-')}`;
      const request = cardPayment(setup.entityId, { 'card.holder': holder, merchantTransactionId: order });
      const key = { 'Idempotency-Key': order };
      void post(crashingUrl, setup.token, request, key).catch(() => undefined);
      const attemptId = /acquirer called for ([0-9a-f]{32})/.exec(await crashing.printed(/acquirer called for [0-9a-f]{32}/))?.[1] as string;
      const start = () => startGateway({ ...setup.config, port: 0 }, { now: clock.now, jobPollMs: 0, wrapAcquirer: reachable });
      // On PostgreSQL another instance runs all along; the embedded store is reopened after the crash.
      if (kind === 'PostgreSQL') survivor = await start();
      await crashing.kill();
      survivor ??= await start();
      const { store } = survivor;
      const rows = async <Row extends object>(sql: string, params: unknown[] = []) => (await store.query<Row>(sql, params)).rows;
      const read = async (id: string) => readResponse(await fetch(`${survivor?.url}/v1/payments/${id}?entityId=${setup.entityId}`, { headers: { Authorization: `Bearer ${setup.token}` } }));

      // The hanging call's attempt is open, at the acquirer the process died waiting for; the merchant's payment is not there.
      const open = await rows<{ payment_id: string; acquirer: string }>('SELECT payment_id, acquirer FROM acquirer_attempts WHERE id = $1 AND finished_at IS NULL', [attemptId]);
      expect(open).toEqual([{ payment_id: expect.any(String), acquirer: openAt }]);
      const paymentId = open[0]?.payment_id as string;
      expect(await rows('SELECT 1 FROM payments WHERE id = $1', [paymentId])).toEqual([]);
      // After the switch, the rejection is committed with the fallback's attempt: a payment of its own, at the default acquirer.
      const rejectedBefore = await rows<{ id: string }>("SELECT id FROM payments WHERE merchant_transaction_id = $1 AND acquirer = 'simulator' AND result_code = $2", [order, SOFT]);
      expect(rejectedBefore).toHaveLength(openAt === 'fallback' ? 1 : 0);

      // The recovery job takes the dead instance's attempt over (once its session is gone) and finishes it from the acquirer's record.
      const dead = (await rows<{ instance_id: string }>('SELECT instance_id FROM acquirer_attempts WHERE id = $1', [attemptId]))[0]?.instance_id as string;
      await expect.poll(() => store.isInstanceAlive(dead)).toBe(false);
      clock.advance(RECOVERY_INTERVAL_MS * 2);
      await expect
        .poll(
          async () => {
            await survivor?.jobs.runDueJobs();
            return (await rows<{ outcome: string | null }>('SELECT outcome FROM acquirer_attempts WHERE id = $1', [attemptId]))[0]?.outcome;
          },
          { timeout: 15_000 },
        )
        .toBe(outcome);
      const operations = async () =>
        (
          await rows<{ acquirer: string; operation: string }>(
            `SELECT o.acquirer, o.operation FROM simulator_operations o JOIN acquirer_attempts a ON a.id = o.attempt_id
              WHERE a.payment_id = $1 ORDER BY o.created_at, o.acquirer`,
            [paymentId],
          )
        ).map((row) => `${row.acquirer} ${row.operation}`);
      const made = () => rows<{ id: string; acquirer: string; result_code: string }>('SELECT id, acquirer, result_code FROM payments WHERE merchant_transaction_id = $1 ORDER BY created_at, acquirer DESC', [order]);
      const repeat = () => post(survivor?.url as string, setup.token, request, key);

      if (openAt === 'simulator') {
        // Before the switch: the first acquirer's rejection is the merchant's payment, and no retry is made from a job.
        expect(await made()).toEqual([{ id: paymentId, acquirer: 'simulator', result_code: SOFT }]);
        expect(await operations()).toEqual(['simulator authorize DB']);
        const repeated = await repeat();
        expect(repeated.status).toBe(400);
        expect(repeated.body).toMatchObject({ id: paymentId, result: { code: SOFT } });
        expect(repeated.body.resultDetails?.SoftDeclineFallback).toBeUndefined();
        expect(await operations()).toEqual(['simulator authorize DB']);
        return;
      }

      const rejectedId = rejectedBefore[0]?.id as string;
      const rejected = await read(rejectedId);
      expect(rejected.status).toBe(400);
      expect(rejected.body).toMatchObject({ id: rejectedId, paymentType: 'DB', merchantTransactionId: order, result: { code: SOFT } });
      if (outcome === 'recorded') {
        // The fallback's approval, recorded under the merchant's id, names the rejection; each acquirer was asked once.
        expect(await made()).toEqual([
          { id: rejectedId, acquirer: 'simulator', result_code: SOFT },
          { id: paymentId, acquirer: 'fallback', result_code: '000.100.110' },
        ]);
        const recovered = await read(paymentId);
        expect(recovered.status).toBe(200);
        expect(recovered.body.resultDetails).toMatchObject({ SoftDeclineFallback: 'true', SoftDeclineTransactionId: rejectedId });
        expect(await operations()).toEqual(['simulator authorize DB', 'fallback authorize DB']);
        const events = await rows<{ resource_id: string; action: string }>("SELECT resource_id, action FROM events WHERE resource_id = ANY($1::char(32)[]) AND type = 'PAYMENT' ORDER BY id", [[rejectedId, paymentId]]);
        expect(events).toEqual([
          { resource_id: rejectedId, action: 'CREATED' },
          { resource_id: paymentId, action: 'CREATED' },
        ]);
        // The merchant's repeat: the same answer, nothing asked again.
        const repeated = await repeat();
        expect(repeated.status).toBe(200);
        expect(repeated.body).toMatchObject({ id: paymentId, result: { code: '000.100.110' }, resultDetails: { SoftDeclineFallback: 'true', SoftDeclineTransactionId: rejectedId } });
        expect(await operations()).toEqual(['simulator authorize DB', 'fallback authorize DB']);
        expect(await made()).toHaveLength(2);
        return;
      }

      // The fallback never received it: nothing moved there, the rejection is all there is.
      expect(await made()).toEqual([{ id: rejectedId, acquirer: 'simulator', result_code: SOFT }]);
      expect(await operations()).toEqual(['simulator authorize DB']);
      // The merchant's repeat pays afresh under the same id (the acquirers reached again): one authorization at the fallback.
      const repeated = await repeat();
      expect(repeated.status).toBe(200);
      expect(repeated.body).toMatchObject({ id: paymentId, result: { code: '000.100.110' }, resultDetails: { SoftDeclineFallback: 'true' } });
      const secondRejectionId = repeated.body.resultDetails.SoftDeclineTransactionId as string;
      expect(secondRejectionId).not.toBe(rejectedId);
      expect(await operations()).toEqual(['simulator authorize DB', 'simulator authorize DB', 'fallback authorize DB']);
      expect((await made()).map((row) => `${row.id === paymentId ? 'P' : row.id === rejectedId ? 'R1' : row.id === secondRejectionId ? 'R2' : row.id} ${row.acquirer} ${row.result_code}`)).toEqual([
        `R1 simulator ${SOFT}`,
        `R2 simulator ${SOFT}`,
        'P fallback 000.100.110',
      ]);
      expect((await repeat()).body.id).toBe(paymentId);
      expect(await operations()).toHaveLength(3);
    } finally {
      await crashing.kill();
      await survivor?.close();
      await setup.location.dispose();
    }
  }, 120_000);
});
