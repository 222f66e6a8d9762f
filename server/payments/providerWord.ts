import type { Acquirer, AcquirerAnswer, ProviderEvent } from '../acquirers/types.ts';
import { RESOURCE_ID } from '../domain/ids.ts';
import type { PaymentStatus } from '../domain/payment.ts';
import { newPayment, withAnswer } from './authorize.ts';
import { recoverAttempt } from './recovery.ts';
import type { PaymentServices } from './services.ts';
import { findAttempt } from './store/attempts.ts';
import { findPayment, lockPaymentByReference } from './store/payments.ts';

/**
 * What a connector's provider tells the gateway outside a call (issue 33): the shopper is back from its page (its
 * 3-D Secure challenge, an asynchronous brand's page), or its webhook notification arrived. Either finishes an attempt
 * that awaits the provider's word through the same recording as the request and the recovery (recovery.ts), so a
 * payment becomes final once whichever comes first; a notification can also bring a chargeback the provider recorded.
 */

/** Where the shopper goes once back, and what the payment is by then. */
export interface ShopperReturn {
  readonly returnUrl: string;
  /** A server-to-server payment's shopper goes there from wherever the page is; a checkout's widget is told instead. */
  readonly returnInPlace: boolean;
  readonly status: PaymentStatus | undefined;
}

/**
 * The shopper's browser came back from `acquirer`'s page for this attempt: the provider is asked at once what became
 * of the payment (a provider that cannot say now is asked again by the recovery). Undefined for an attempt that is not
 * one of that acquirer's with a shopper.
 */
export async function shopperReturned(services: PaymentServices, acquirer: string, attemptId: string): Promise<ShopperReturn | undefined> {
  const attempt = await findAttempt(services.store, attemptId);
  if (!attempt || attempt.acquirer !== acquirer || attempt.plan.kind !== 'initial' || attempt.plan.shopperReturnUrl === undefined) return undefined;
  if (attempt.finishedAt === null) {
    try {
      await recoverAttempt(services, attempt);
    } catch (error) {
      // The shopper goes back to the shop all the same: the payment is pending there, and the recovery finishes it.
      services.logger.warn('the acquirer could not be asked when the shopper returned', { attemptId, error });
    }
  }
  const payment = await findPayment(services.store, attempt.entityId, attempt.plan.payment.id);
  return { returnUrl: attempt.plan.shopperReturnUrl, returnInPlace: attempt.plan.payment.checkoutId === null, status: payment?.status };
}

export type NotificationOutcome =
  /** The provider's test of its webhook. */
  | 'test'
  /** It named an attempt of ours: recorded, if it was still awaited. */
  | 'attempt'
  /** A chargeback (or its reversal) the provider recorded on one of our payments, recorded now. */
  | 'chargeback'
  /** One recorded before (the same notification again). */
  | 'known'
  /** Nothing of ours. */
  | 'ignored';

/** A provider's notification, read as authentic: the attempt it names finished, or its chargeback recorded. */
export async function providerNotified(services: PaymentServices, acquirer: Acquirer, event: ProviderEvent): Promise<NotificationOutcome> {
  if (event.kind === 'test') return 'test';
  if (event.kind === 'other') return 'ignored';
  const attemptId = event.merchantTransactionId;
  if (attemptId !== undefined && RESOURCE_ID.test(attemptId)) {
    const attempt = await findAttempt(services.store, attemptId);
    if (attempt && attempt.acquirer === acquirer.name && attempt.plan.payment.paymentType === event.paymentType) {
      if (attempt.finishedAt === null) await recoverAttempt(services, attempt, event.answer);
      return 'attempt';
    }
  }
  if ((event.paymentType === 'CB' || event.paymentType === 'CR') && event.referencedReference !== undefined) {
    return recordProviderChargeback(services, acquirer.name, { ...event, paymentType: event.paymentType, referencedReference: event.referencedReference });
  }
  return 'ignored';
}

/** A chargeback (CB) or its reversal (CR) as a provider states it: on which of its payments, with its own reference. */
export interface ProviderChargeback {
  readonly paymentType: 'CB' | 'CR';
  /** The provider's reference of the payment charged back (of the chargeback, for a reversal). */
  readonly referencedReference: string;
  readonly amountMinor: number | undefined;
  readonly currency: string | undefined;
  /** Its result (the reason code) and the provider's reference of the chargeback itself. */
  readonly answer: AcquirerAnswer;
}

/**
 * A chargeback the provider recorded (CB, on the payment it charged back), or its reversal (CR, on the chargeback),
 * told by its notification or listed in its settlement report: a fact, recorded as the provider states it on our
 * payment with that reference, once (told again, it is found recorded by its own reference).
 */
export async function recordProviderChargeback(services: PaymentServices, acquirer: string, event: ProviderChargeback): Promise<NotificationOutcome> {
  const { referencedReference } = event;
  return services.store.transaction(async (tx) => {
    const parent = await lockPaymentByReference(tx, acquirer, referencedReference);
    if (!parent) {
      services.logger.warn('a chargeback notified by an acquirer names no payment of the gateway', { acquirer, paymentType: event.paymentType });
      return 'ignored';
    }
    const known = await tx.query('SELECT 1 FROM payments WHERE parent_id = $1 AND acquirer_reference = $2', [parent.id, event.answer.reference]);
    if (known.rows.length > 0) return 'known';
    const chargeback = newPayment(
      {
        id: undefined,
        entityId: parent.entityId,
        parentId: parent.id,
        paymentType: event.paymentType,
        paymentBrand: parent.paymentBrand,
        amountMinor: event.amountMinor ?? parent.amountMinor,
        currency: event.currency ?? parent.currency,
        finalInSequence: false,
        maxCaptures: null,
        acquirer,
        testMode: parent.testMode,
        merchantTransactionId: null,
        card: parent.card,
        requestEcho: {},
        source: 'SYSTEM',
        checkoutId: null,
      },
      services.now(),
    );
    await services.ledger.recordIn(tx, { payments: [withAnswer(chargeback, event.answer)] });
    services.logger.info('chargeback recorded from the acquirer’s notification', { acquirer, paymentId: parent.id, chargebackId: chargeback.id, code: event.answer.code });
    return 'chargeback';
  });
}
