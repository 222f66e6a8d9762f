import { RESULTS, type Result } from './resultCodes.ts';

/**
 * The rules for back-office operations (capture, refund, reversal, chargeback and its reversal) on a referenced payment. Pure:
 * the caller loads the parent and the totals of its approved children inside the transaction that
 * locks the parent, and inserts the new child only when this returns no objection.
 */

import type { BackOfficeType, PaymentStatus } from './payment.ts';

export interface ReferencedPayment {
  readonly paymentType: string;
  readonly amountMinor: number;
  readonly status: PaymentStatus;
  /** numberOfCaptures of a PA; null means any number of partial captures up to the amount. */
  readonly maxCaptures: number | null;
  /** The payment an incremental authorization or reauthorization follows (a back-office child's parent otherwise). */
  readonly parentId: string | null;
  readonly requestEcho: Record<string, unknown>;
}

/**
 * COMPAT §11: an incremental authorization (a PA with INCREMENTAL_AUTH naming an earlier PA) raises what may be
 * captured of the original, and is captured through it, never on its own.
 */
export function isIncrementalAuthorization(payment: Pick<ReferencedPayment, 'paymentType' | 'parentId' | 'requestEcho'>): boolean {
  const instruction = payment.requestEcho.standingInstruction as Record<string, unknown> | undefined;
  return payment.paymentType === 'PA' && payment.parentId !== null && instruction?.industryPractice === 'INCREMENTAL_AUTH';
}

/** Sums over the parent's approved children. */
export interface ChildTotals {
  readonly capturedMinor: number;
  readonly captureCount: number;
  readonly finalCaptureDone: boolean;
  readonly refundedMinor: number;
  readonly finalRefundDone: boolean;
  readonly reversed: boolean;
  /** Approved incremental authorizations of a PA: captures may total its amount and these. */
  readonly incrementedMinor: number;
  /** Chargebacks (CB) of the payment, reversed or not. */
  readonly chargebackCount: number;
  /** What its chargebacks not reversed (CR) take back: while above 0, the payment cannot be refunded or reversed. */
  readonly chargebackedMinor: number;
  /** Reversals (CR) of a chargeback (or of a chargeback reversal: a representment). */
  readonly chargebackReversalCount: number;
}

export const NO_CHILDREN: ChildTotals = {
  capturedMinor: 0,
  captureCount: 0,
  finalCaptureDone: false,
  refundedMinor: 0,
  finalRefundDone: false,
  reversed: false,
  incrementedMinor: 0,
  chargebackCount: 0,
  chargebackedMinor: 0,
  chargebackReversalCount: 0,
};

const REFERENCEABLE: Record<BackOfficeType, readonly string[]> = {
  CP: ['PA'],
  RF: ['DB', 'CD', 'CP'],
  RV: ['PA', 'DB', 'CD'],
  // COMPAT §15: a chargeback takes back money that moved (a DB or a CP); its reversal references the chargeback, and
  // a reversal of that reversal is a representment.
  CB: ['DB', 'CP'],
  CR: ['CB', 'CR'],
};

const REFUSAL: Record<BackOfficeType, Result> = {
  CP: RESULTS.cannotCapture,
  RF: RESULTS.cannotRefund,
  RV: RESULTS.cannotReverse,
  CB: RESULTS.cannotChargeback,
  CR: RESULTS.cannotReverseChargeback,
};

/** What a chargeback or its reversal references that it cannot: the platform's codes (COMPAT §15). */
const NOTHING_TO_CHARGE_BACK: Partial<Record<BackOfficeType, Result>> = {
  CB: RESULTS.chargebackWithoutPayment,
  CR: RESULTS.chargebackReversalWithoutChargeback,
};

export interface BackOfficeRefusal {
  readonly result: Result;
  /** Why, in words a merchant's developer can act on; appended to the result description. */
  readonly reason: string;
}

function refuse(type: BackOfficeType, reason: string): BackOfficeRefusal {
  return { result: REFUSAL[type], reason };
}

export function captureAmountLeft(parent: ReferencedPayment, totals: ChildTotals): number {
  return parent.amountMinor + totals.incrementedMinor - totals.capturedMinor;
}

export function refundAmountLeft(parent: ReferencedPayment, totals: ChildTotals): number {
  return parent.amountMinor - totals.refundedMinor - totals.chargebackedMinor;
}

function checkChargeback(type: 'CB' | 'CR', amountMinor: number, parent: ReferencedPayment, totals: ChildTotals): BackOfficeRefusal | undefined {
  if (!REFERENCEABLE[type].includes(parent.paymentType) || parent.status !== 'approved') {
    return {
      result: NOTHING_TO_CHARGE_BACK[type] as Result,
      reason: `${type} references a successful ${REFERENCEABLE[type].join(' or ')}; this is ${parent.status === 'approved' ? 'a' : `a ${parent.status}`} ${parent.paymentType}`,
    };
  }
  if (type === 'CB') {
    if (totals.reversed) return refuse(type, 'the payment has been reversed');
    if (totals.chargebackCount > 0) return { result: RESULTS.multipleChargebacks, reason: 'the payment has been charged back already (one chargeback per transaction)' };
    if (amountMinor > parent.amountMinor - totals.refundedMinor) return refuse(type, 'amount exceeds what is left of the payment after its refunds');
    return undefined;
  }
  if (totals.chargebackReversalCount > 0) return refuse(type, `the ${parent.paymentType === 'CB' ? 'chargeback' : 'chargeback reversal'} has been reversed already`);
  if (amountMinor !== parent.amountMinor) return refuse(type, `a reversal covers the whole ${parent.paymentType === 'CB' ? 'chargeback' : 'chargeback reversal'}`);
  return undefined;
}

/** Undefined when the operation may go to the acquirer; otherwise the result to answer with. */
export function checkBackOffice(
  type: BackOfficeType,
  amountMinor: number,
  parent: ReferencedPayment,
  totals: ChildTotals,
): BackOfficeRefusal | undefined {
  if (type === 'CB' || type === 'CR') return checkChargeback(type, amountMinor, parent, totals);
  if (!REFERENCEABLE[type].includes(parent.paymentType)) {
    return {
      result: RESULTS.referenceInvalidType,
      reason: `${type} cannot reference a ${parent.paymentType}; it references ${REFERENCEABLE[type].join(', ')}`,
    };
  }
  if (isIncrementalAuthorization(parent)) {
    return { result: RESULTS.referenceInvalidType, reason: `an incremental authorization is captured, reversed and refunded through the PA it increments (${parent.parentId})` };
  }
  if (parent.status !== 'approved') return refuse(type, 'the referenced payment was not successful');
  if (totals.reversed) return refuse(type, 'the referenced payment has been reversed');
  if (totals.chargebackedMinor > 0 && type !== 'CP') return { result: RESULTS.chargebacked, reason: 'the payment has been charged back' };

  switch (type) {
    case 'CP':
      if (totals.finalCaptureDone) return refuse(type, 'a final capture has already been made');
      if (parent.maxCaptures !== null && totals.captureCount >= parent.maxCaptures) {
        return refuse(type, `numberOfCaptures (${parent.maxCaptures}) reached`);
      }
      if (amountMinor > captureAmountLeft(parent, totals)) return refuse(type, 'amount exceeds the authorized amount left');
      return undefined;
    case 'RF':
      if (totals.finalRefundDone) return refuse(type, 'a final refund has already been made');
      if (amountMinor > refundAmountLeft(parent, totals)) return refuse(type, 'amount exceeds the amount left to refund');
      return undefined;
    case 'RV':
      if (totals.captureCount > 0) return refuse(type, 'the preauthorization has been captured; refund the capture instead');
      if (totals.refundedMinor > 0) return refuse(type, 'the payment has been partly refunded; refund the rest instead');
      if (amountMinor !== parent.amountMinor) return refuse(type, 'a reversal covers the whole amount of the payment');
      return undefined;
  }
}

/**
 * What happened to a payment, as its back office shows it: its own state while pending or declined, else what its
 * approved children made of it. A chargeback not reversed outranks a reversal, which outranks captures and refunds.
 */
export type LifecycleState =
  | 'pending'
  | 'declined'
  | 'approved'
  | 'partiallyCaptured'
  | 'captured'
  | 'partiallyRefunded'
  | 'refunded'
  | 'reversed'
  | 'chargedBack';

export const LIFECYCLE_STATES: readonly LifecycleState[] = [
  'pending',
  'declined',
  'approved',
  'partiallyCaptured',
  'captured',
  'partiallyRefunded',
  'refunded',
  'reversed',
  'chargedBack',
];

/** A payment's state and what may still be asked of it: the one rule the back office's list, detail and actions read. */
export interface Lifecycle {
  readonly state: LifecycleState;
  /** What a capture may take now (0: no capture is accepted). */
  readonly capturableMinor: number;
  /** What a refund may give back now (0: no refund is accepted). */
  readonly refundableMinor: number;
  /** Whether a reversal (of the whole amount) is accepted now. */
  readonly reversible: boolean;
}

/** A payment's children: those approved (`made`), and with them the operations still awaiting their acquirer (`held`). */
export interface FamilyTotals {
  readonly made: ChildTotals;
  /** What checkBackOffice decides on: an operation in flight holds its amount until its answer. */
  readonly held: ChildTotals;
}

/** Two sets of children's totals as one (the approved ones and those in flight). */
export function addTotals(a: ChildTotals, b: ChildTotals): ChildTotals {
  return {
    capturedMinor: a.capturedMinor + b.capturedMinor,
    captureCount: a.captureCount + b.captureCount,
    finalCaptureDone: a.finalCaptureDone || b.finalCaptureDone,
    refundedMinor: a.refundedMinor + b.refundedMinor,
    finalRefundDone: a.finalRefundDone || b.finalRefundDone,
    reversed: a.reversed || b.reversed,
    incrementedMinor: a.incrementedMinor + b.incrementedMinor,
    chargebackCount: a.chargebackCount + b.chargebackCount,
    chargebackedMinor: a.chargebackedMinor + b.chargebackedMinor,
    chargebackReversalCount: a.chargebackReversalCount + b.chargebackReversalCount,
  };
}

/** The state: from the approved children only (an operation in flight has not happened yet). */
function stateOf(payment: ReferencedPayment, made: ChildTotals): LifecycleState {
  if (payment.status !== 'approved') return payment.status;
  if (made.chargebackedMinor > 0) return 'chargedBack';
  if (made.reversed) return 'reversed';
  if (payment.paymentType === 'PA' && !isIncrementalAuthorization(payment)) {
    if (made.captureCount === 0) return 'approved';
    const captureClosed =
      made.finalCaptureDone || (payment.maxCaptures !== null && made.captureCount >= payment.maxCaptures) || made.capturedMinor >= payment.amountMinor + made.incrementedMinor;
    return captureClosed ? 'captured' : 'partiallyCaptured';
  }
  if (REFERENCEABLE.RF.includes(payment.paymentType)) {
    if (made.refundedMinor === 0) return 'approved';
    return made.finalRefundDone || made.refundedMinor >= payment.amountMinor ? 'refunded' : 'partiallyRefunded';
  }
  return 'approved';
}

/**
 * The payment's lifecycle. What may be asked is checkBackOffice's own answer on the totals it decides on, so the back
 * office never offers what the API refuses nor hides what it accepts.
 */
export function lifecycleOf(payment: ReferencedPayment, totals: FamilyTotals): Lifecycle {
  const { held } = totals;
  const accepts = (type: BackOfficeType, amountMinor: number) => amountMinor > 0 && checkBackOffice(type, amountMinor, payment, held) === undefined;
  const capturable = captureAmountLeft(payment, held);
  const refundable = refundAmountLeft(payment, held);
  return {
    state: stateOf(payment, totals.made),
    capturableMinor: accepts('CP', Math.min(1, capturable)) ? capturable : 0,
    refundableMinor: accepts('RF', Math.min(1, refundable)) ? refundable : 0,
    reversible: checkBackOffice('RV', payment.amountMinor, payment, held) === undefined,
  };
}
