import type { CreatePaymentCommand } from '../domain/commands.ts';
import { GatewayError } from '../domain/errors.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { exponentialBackoff, PermanentJobError, type JobHandler } from '../jobs/registry.ts';
import type { ClaimedJob } from '../jobs/repository.ts';
import { createPayment } from '../payments/createPayment.ts';
import { paymentsInFlight, recoverOrphans } from '../payments/inFlight.ts';
import type { PaymentServices } from '../payments/services.ts';
import { findPayment } from '../payments/store/payments.ts';
import { cancelLockedSchedule } from './cancellation.ts';
import { SCHEDULE_EXECUTION_JOB } from './firing.ts';
import { findScheduleById, finishExecution, startExecution, type ExecutionOutcome, type ExecutionRecord, type ScheduleRecord } from './repository.ts';

/**
 * A fire time's execution (COMPAT §12): one payment of the schedule's type, amount and currency with its registration's
 * card, merchant-initiated and repeated (no 3-D Secure), `source: "SYSTEM"`, notified by webhook like any payment.
 * The payment's id is derived from the execution's idempotency key, so the job — retried after a failure, or run
 * again on another instance after this one died mid-payment — finds the payment it made instead of making another.
 * A declined payment leaves the schedule as it is; a registration that was deleted or has expired cancels it (DS).
 */

/** The registration answers that mean it can no longer be paid with, and why the schedule is cancelled. */
const GONE_REGISTRATION: Readonly<Record<string, 'registration deleted' | 'registration expired'>> = {
  [RESULTS.registrationNotFound.code]: 'registration deleted',
  [RESULTS.registrationDeleted.code]: 'registration deleted',
  [RESULTS.registrationNotValid.code]: 'registration expired',
};

/** The payment of an execution: what the schedule says, as a merchant-initiated payment with the stored card. */
export function executionCommand(schedule: ScheduleRecord, execution: Pick<ExecutionRecord, 'paymentId'>): CreatePaymentCommand {
  const echo = schedule.requestEcho;
  const standingInstruction = (echo.standingInstruction ?? {}) as Record<string, unknown>;
  return {
    paymentId: execution.paymentId,
    freshPaymentId: false,
    entityId: schedule.entityId,
    paymentType: schedule.paymentType,
    captureAtOnce: false,
    amountMinor: schedule.amountMinor,
    currency: schedule.currency,
    paymentBrand: undefined,
    instrument: { kind: 'storedCard', registrationId: schedule.registrationId, cvv: undefined, holder: undefined, dueDate: undefined },
    testMode: (schedule.testMode ?? undefined) as CreatePaymentCommand['testMode'],
    merchantTransactionId: typeof echo.merchantTransactionId === 'string' ? echo.merchantTransactionId : undefined,
    numberOfCaptures: undefined,
    createRegistration: false,
    overrideHolder: false,
    cardOnFile: {
      source: 'MIT',
      mode: 'REPEATED',
      industryPractice: undefined,
      initialTransactionId: typeof standingInstruction.initialTransactionId === 'string' ? standingInstruction.initialTransactionId : undefined,
    },
    referenceUuid: undefined,
    shopperResultUrl: undefined,
    browser: {},
    threeDSecure: { external: undefined, challengeIndicator: undefined, merchantName: undefined, testEnrolled: false, testFlow: undefined },
    echo,
    source: 'SYSTEM',
    checkout: undefined,
  };
}

function outcomeOf(payment: PaymentRecord): ExecutionOutcome {
  if (payment.status === 'approved') return 'paid';
  return payment.status === 'pending' ? 'pending' : 'declined';
}

/** The payment an earlier run of this execution made, once any attempt a dead instance left open is resolved. */
async function paymentMadeBefore(payments: PaymentServices, schedule: ScheduleRecord, paymentId: string): Promise<PaymentRecord | undefined> {
  const made = await findPayment(payments.store, schedule.entityId, paymentId);
  if (made) return made;
  await recoverOrphans(payments, [paymentId]);
  const recovered = await findPayment(payments.store, schedule.entityId, paymentId);
  if (recovered) return recovered;
  // An instance that is alive still holds the acquirer's call: its answer will be recorded; try again later.
  if ((await paymentsInFlight(payments.store, [paymentId])).length > 0) {
    throw new Error(`the payment ${paymentId} is still being made by a running instance`);
  }
  return undefined;
}

/** Cancels the schedule of a registration that can no longer be paid with (COMPAT §12: DS). */
async function cancelForRegistration(payments: PaymentServices, scheduleId: string, reason: 'registration deleted' | 'registration expired'): Promise<void> {
  await payments.store.transaction(async (tx) => {
    const schedule = await findScheduleById(tx, scheduleId, { forUpdate: true });
    if (schedule?.status === 'active') await cancelLockedSchedule(tx, payments.outbox, schedule, reason, payments.now());
  });
}

export function scheduleJobHandlers(payments: PaymentServices): JobHandler[] {
  const run = async (job: ClaimedJob): Promise<void> => {
    const { scheduleId, fireAt } = job.payload;
    if (typeof scheduleId !== 'string' || typeof fireAt !== 'string') throw new PermanentJobError('malformed schedule execution payload');
    const { store } = payments;
    const started = await startExecution(store, scheduleId, new Date(fireAt), payments.now());
    if (!started) throw new PermanentJobError(`no execution of schedule ${scheduleId} at ${fireAt}`);
    const { execution, schedule, firstRun } = started;
    if (execution.finishedAt !== null) return;
    const finish = (outcome: ExecutionOutcome, resultCode: string | null, reason: string | null) =>
      finishExecution(store, execution, { outcome, resultCode, reason }, payments.now());

    // Only a run after one that started (and was cut short) can find a payment made already.
    let payment = firstRun ? undefined : await paymentMadeBefore(payments, schedule, execution.paymentId);
    if (!payment) {
      // Cancelled after the fire time was taken: no payment any more.
      if (schedule.status === 'cancelled') return finish('skipped', null, `the schedule was cancelled (${schedule.cancelReason})`);
      try {
        payment = await createPayment(payments, executionCommand(schedule, execution));
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        // Refused before any acquirer saw it: nothing was made, and trying again would be refused again.
        const gone = GONE_REGISTRATION[error.result.code];
        if (gone) await cancelForRegistration(payments, schedule.id, gone);
        payments.logger.warn('schedule execution refused', { scheduleId, fireAt, code: error.result.code });
        return finish(gone ? 'skipped' : 'declined', error.result.code, error.result.description);
      }
    }
    await finish(outcomeOf(payment), payment.resultCode, null);
  };
  return [
    {
      kind: SCHEDULE_EXECUTION_JOB,
      maxAttempts: 12,
      retryDelayMs: exponentialBackoff(30_000, 30 * 60_000),
      run,
      // Each payment on its own, their jobs' outcomes recorded together (the execution rows are the record).
      runBatch: (jobs) => jobs.map(run),
    },
  ];
}
