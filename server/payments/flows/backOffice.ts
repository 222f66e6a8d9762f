import type { BackOfficeCommand } from '../../domain/commands.ts';
import { checkBackOffice } from '../../domain/backOffice.ts';
import { GatewayError, invalidParameters, withReason } from '../../domain/errors.ts';
import { newResourceId, RESOURCE_ID } from '../../domain/ids.ts';
import type { BackOfficeType, PaymentRecord } from '../../domain/payment.ts';
import { statusOfResult } from '../../domain/paymentState.ts';
import { RESULTS, type Result } from '../../domain/resultCodes.ts';
import type { GatewayEnvironment } from '../../config.ts';
import { callAcquirer, type CallOutcome } from '../acquirerCalls.ts';
import { awaitingWrite, newPayment, withAnswer, withOutcome } from '../authorize.ts';
import type { LedgerWrite } from '../ledger.ts';
import type { PaymentServices } from '../services.ts';
import { familyTotals, lockPayment } from '../store/payments.ts';

/**
 * POST /v1/payments/{id}: capture, refund or reverse. Decided under the parent's row lock: the rules of
 * domain/backOffice.ts against the totals of its approved children and of the operations on it still waiting for
 * their acquirer (an open attempt holds its amount), so concurrent requests are decided one after another and the
 * totals can never be exceeded. The acquirer is asked after the lock is released: the acquirer that handled the
 * parent, whatever the default is now (spec doc 1 §3 rule 5).
 */

/** What the platform answers for an operation on a payment it does not find (ActiveMerchant and PHP clients test these). */
const UNKNOWN_REFERENCE: Readonly<Record<BackOfficeType, Result>> = {
  CP: RESULTS.captureWithoutPreauthorization,
  RV: RESULTS.reversalWithoutPayment,
  RF: RESULTS.invalidPaymentData,
  CB: RESULTS.chargebackWithoutPayment,
  CR: RESULTS.chargebackReversalWithoutChargeback,
};

export function unknownReference(type: BackOfficeType): GatewayError {
  return new GatewayError(UNKNOWN_REFERENCE[type], 400);
}

/**
 * What an operation is refused with before its payment is looked up, if anything: a live chargeback, whatever it
 * names (COMPAT §15: it comes from the acquirer's feed, never from the merchant), and an id that can name no payment.
 */
export function refusalBeforeLookup(command: Pick<BackOfficeCommand, 'paymentType' | 'referencedId'>, environment: GatewayEnvironment): GatewayError | undefined {
  const { paymentType } = command;
  if ((paymentType === 'CB' || paymentType === 'CR') && environment === 'live') return new GatewayError(RESULTS.chargebackInternalOnly, 400);
  return RESOURCE_ID.test(command.referencedId) ? undefined : unknownReference(paymentType);
}

interface Options {
  /**
   * PA.CP: capture only if nothing has been captured (or is being captured) yet; undefined when something has.
   * The automatic capture runs from the request and, as a safety net, from a job: whichever comes second stands down.
   */
  readonly onlyIfUncaptured?: boolean;
}

type Decision =
  | { readonly kind: 'recorded'; readonly payment: PaymentRecord }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'ask'; readonly child: PaymentRecord; readonly attemptId: string; readonly referencedReference: string | null };

export async function processBackOffice(services: PaymentServices, command: BackOfficeCommand, options: Options = {}): Promise<PaymentRecord | undefined> {
  const { entityId, paymentType } = command;
  const refused = refusalBeforeLookup(command, services.environment);
  if (refused) throw refused;

  const decision = await services.store.transaction(async (tx): Promise<Decision> => {
    const parent = await lockPayment(tx, entityId, command.referencedId);
    if (!parent) throw unknownReference(paymentType);
    const amountMinor = command.amountMinor ?? parent.amountMinor;
    const currency = command.currency ?? parent.currency;
    if (currency !== parent.currency) {
      throw invalidParameters([{ name: 'currency', value: currency, message: `must be ${parent.currency}, the currency of the referenced payment` }]);
    }
    if (amountMinor === 0 && paymentType !== 'RV') {
      throw invalidParameters([{ name: 'amount', value: '0.00', message: 'must be greater than 0.00' }]);
    }
    const totals = (await familyTotals(tx, parent.id)).held;
    if (options.onlyIfUncaptured && totals.captureCount > 0) return { kind: 'skipped' };
    const child = newPayment(
      {
        id: command.paymentId,
        entityId,
        parentId: parent.id,
        paymentType,
        paymentBrand: parent.paymentBrand,
        amountMinor,
        currency,
        finalInSequence: command.finalInSequence,
        maxCaptures: null,
        acquirer: parent.acquirer,
        testMode: command.testMode ?? null,
        merchantTransactionId: command.merchantTransactionId ?? null,
        card: parent.card,
        requestEcho: command.echo,
        source: parent.source === 'SYSTEM' ? 'SYSTEM' : 'API',
        checkoutId: null,
      },
      services.now(),
    );
    const refusal = checkBackOffice(paymentType, amountMinor, parent, totals);
    if (refusal) return { kind: 'recorded', payment: await services.ledger.refuseIn(tx, child, withReason(refusal.result, refusal.reason)) };
    if (!services.acquirers.get(parent.acquirer)) {
      const unavailable = withReason(RESULTS.systemError, `the acquirer ${parent.acquirer} of this payment is not configured`);
      return { kind: 'recorded', payment: await services.ledger.refuseIn(tx, child, unavailable) };
    }
    // The attempt holds the amount against the parent's totals until the acquirer's answer is recorded.
    const attemptId = newResourceId();
    await services.ledger.openIn(tx, { id: attemptId, acquirer: parent.acquirer, plan: { kind: 'backOffice', payment: child }, createdAt: child.createdAt });
    return { kind: 'ask', child, attemptId, referencedReference: parent.acquirerReference };
  });

  switch (decision.kind) {
    case 'recorded':
      return decision.payment;
    case 'skipped':
      return undefined;
    case 'ask': {
      const { child, attemptId } = decision;
      const acquirer = services.acquirers.get(child.acquirer);
      if (!acquirer) throw new Error(`acquirer ${child.acquirer} disappeared`);
      const attempt = { id: attemptId, plan: { kind: 'backOffice' as const, payment: child } };
      const outcome = await callAcquirer(services, attempt, () =>
        acquirer.backOffice({
          attemptId,
          entityId,
          paymentId: child.id,
          paymentType,
          amountMinor: child.amountMinor,
          currency: child.currency,
          referencedReference: decision.referencedReference,
          testMode: command.testMode,
          ...(command.chargebackResultCode !== undefined ? { chargebackResultCode: command.chargebackResultCode } : {}),
        }),
      );
      const [recorded] = await services.ledger.record(backOfficeOutcome(services, attempt, outcome));
      return recorded;
    }
  }
}

/**
 * What an operation's outcome writes: the child with the acquirer's answer, or declined when the acquirer could not be
 * reached (its amount no longer held); pending while the acquirer's final word is awaited (its attempt still holding
 * the amount against the parent's totals).
 */
function backOfficeOutcome(services: PaymentServices, attempt: { readonly id: string; readonly plan: { readonly payment: PaymentRecord } }, outcome: CallOutcome): LedgerWrite {
  const child = attempt.plan.payment;
  if ('unreachable' in outcome) return { payments: [withOutcome(child, outcome)], attemptId: attempt.id };
  const answer = 'answer' in outcome ? outcome.answer : undefined;
  if (answer && statusOfResult(answer.code) !== 'pending') return { payments: [withAnswer(child, answer)], attemptId: attempt.id };
  return awaitingWrite(child, attempt.id, answer, services.now());
}
