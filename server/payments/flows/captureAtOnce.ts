import type { PaymentRecord, TestMode } from '../../domain/payment.ts';
import { PermanentJobError, type JobHandler } from '../../jobs/registry.ts';
import { CAPTURE_AT_ONCE_JOB } from '../authorize.ts';
import type { PaymentServices } from '../services.ts';
import { findLatestChild, findPayment } from '../store/payments.ts';
import { processBackOffice } from './backOffice.ts';

/**
 * `paymentType=PA.CP`: a preauthorization the gateway captures in full once it is approved, as one request. The
 * capture is made by the request itself when the preauthorization is approved at once; a job, scheduled in the
 * transaction that records the approval, makes it when the approval came later (after a 3-D Secure challenge) or
 * when the process died before capturing. Whichever runs second finds a capture and stands down. The job is scheduled
 * by whatever records the approval (authorize.ts scheduleCaptureAtOnce).
 */

/** Captures an approved preauthorization in full, unless a capture exists already; returns the capture either way. */
export async function captureAtOnce(services: PaymentServices, preauthorization: PaymentRecord): Promise<PaymentRecord> {
  const made = await processBackOffice(
    services,
    {
      paymentId: undefined,
      entityId: preauthorization.entityId,
      referencedId: preauthorization.id,
      paymentType: 'CP',
      amountMinor: preauthorization.amountMinor,
      currency: preauthorization.currency,
      finalInSequence: true,
      chargebackResultCode: undefined,
      testMode: (preauthorization.testMode ?? undefined) as TestMode | undefined,
      merchantTransactionId: preauthorization.merchantTransactionId ?? undefined,
      echo: preauthorization.requestEcho,
    },
    { onlyIfUncaptured: true },
  );
  if (made) return made;
  const capture = await findLatestChild(services.store, preauthorization.id, 'CP');
  // Being captured right now by the other path: its answer is the preauthorization's until the capture is recorded.
  return capture ?? preauthorization;
}

export function captureAtOnceJobHandlers(services: PaymentServices): JobHandler[] {
  return [
    {
      kind: CAPTURE_AT_ONCE_JOB,
      maxAttempts: 20,
      retryDelayMs: () => 60_000,
      run: async (job) => {
        const { entityId, paymentId } = job.payload;
        if (typeof entityId !== 'string' || typeof paymentId !== 'string') throw new PermanentJobError('malformed capture payload');
        const preauthorization = await findPayment(services.store, entityId, paymentId);
        if (!preauthorization || preauthorization.status !== 'approved') return;
        await captureAtOnce(services, preauthorization);
      },
    },
  ];
}
