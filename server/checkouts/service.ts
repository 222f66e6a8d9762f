import { createHash } from 'node:crypto';
import type { GatewayEnvironment, RequestLimits } from '../config.ts';
import type { Throttling } from '../throttling/service.ts';
import { formatAmount, parseAmount } from '../domain/money.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { ParameterError } from '../domain/errors.ts';
import { validateParameters } from '../params/validate.ts';
import { isTrue } from '../params/values.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { paymentsInFlight, type PaymentInFlight } from '../payments/inFlight.ts';
import { findPayment } from '../payments/store/payments.ts';
import { resolveTestMode } from '../params/testMode.ts';
import type { PaymentServices } from '../payments/services.ts';
import type { Queryable, Store } from '../store/index.ts';
import { renderBootstrap, type BootstrapSnapshot } from './bootstrap.ts';
import { findRegistration, type RegistrationRecord } from '../registrations/repository.ts';
import { storedCardsFor, type StoredCardView } from '../registrations/storedCards.ts';
import { offeredRegistrationsOf, shopperOnlyErrors, storedParameters } from './parameters.ts';
import {
  findCheckout,
  insertCheckout,
  deleteAttempt,
  listAttempts,
  markCheckoutDeleted,
  markResultRead,
  updateCheckoutParameters,
  type CheckoutRecord,
} from './repository.ts';
import { alreadyPaid, noSession, paymentInProgress, REASONS } from './results.ts';
import {
  CHECKOUT_LIFETIME_MS,
  checkoutKindOf,
  checkoutState,
  newCheckoutId,
  resultPathOf,
  type CheckoutAttempt,
  type CheckoutKind,
  type CheckoutState,
} from './state.ts';

/** Checkout use-cases of the merchant's server: create, update, delete, read the result. HTTP-free. */

export interface CheckoutContext {
  readonly store: Store;
  readonly payments: PaymentServices;
  readonly environment: GatewayEnvironment;
  /** PUBLIC_URL, as handed out to browsers. */
  readonly gatewayUrl: string;
  readonly staticBaseUrl: string;
  readonly now: () => Date;
  readonly logger: Logger;
  /** Declined payments per checkout. */
  readonly limits: Pick<RequestLimits, 'checkoutMaxDeclines'>;
  /** Status reads per checkout (COMPAT §8, the entity's checkoutReadsPerMinute); none: not limited. */
  readonly throttling: Throttling | undefined;
  /** Spends a Click to Pay correlation id for the submit (clickToPay/service.ts); none: Click to Pay is refused. */
  readonly clickToPay?: ClickToPayRedemption;
}

/** A Click to Pay card the shopper chose in the SRC system, as the payment gets it: a network token (COMPAT §16). */
export interface ClickToPayCard {
  readonly brand: string;
  readonly number: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly cryptogram: string;
}

/**
 * The port through which a checkout's submit redeems `clickToPay.correlationId` (implemented by clickToPay/, which
 * stands on the checkouts: told, not called): in the submit's transaction, under the checkout's lock; throws the
 * refusal for an id that is unknown, spent, expired or another checkout's.
 */
export type ClickToPayRedemption = (tx: Queryable, checkoutId: string, correlationId: string, now: Date) => Promise<ClickToPayCard>;

/** The SRI value of the exact bytes paymentWidgets.js serves for the snapshot (UTF-8). */
export function integrityOf(snapshot: BootstrapSnapshot): string {
  const script = renderBootstrap(snapshot, { gatewayUrl: snapshot.gatewayUrl, staticBaseUrl: snapshot.staticBaseUrl });
  return `sha384-${createHash('sha384').update(script, 'utf8').digest('base64')}`;
}

function snapshotOf(
  context: CheckoutContext,
  id: string,
  params: ReadonlyMap<string, string>,
  registrations: readonly StoredCardView[],
): BootstrapSnapshot {
  const amount = params.get('amount');
  const amountMinor = amount === undefined ? undefined : parseAmount(amount);
  const paymentType = params.get('paymentType') ?? null;
  return {
    checkoutId: id,
    amount: amountMinor === undefined ? null : formatAmount(amountMinor),
    currency: params.get('currency') ?? null,
    paymentType,
    // Without a paymentType the validator has required createRegistration=true: a registration-only checkout.
    resourcePath: resultPathOf(id, paymentType === null ? 'registration' : 'payment'),
    registrations,
    gatewayUrl: context.gatewayUrl,
    staticBaseUrl: context.staticBaseUrl,
  };
}

/** POST /v1/checkouts. testMode is checked first, as for payments (its own result codes). */
export async function createCheckout(
  context: CheckoutContext,
  entityId: string,
  params: ReadonlyMap<string, string>,
  /** The checkout's id when it was chosen before (an idempotency key). */
  presetId: string = newCheckoutId(context.environment),
): Promise<{ readonly checkout: CheckoutRecord; readonly integrity: string | undefined }> {
  resolveTestMode(params, context.environment);
  const errors = [...validateParameters(params, 'checkout'), ...shopperOnlyErrors(params)];
  if (errors.length > 0) throw invalidParameters(errors);
  const registrations = await storedCardsFor(context.payments, entityId, offeredRegistrationsOf(params));
  const now = context.now();
  const id = presetId;
  const checkout: CheckoutRecord = {
    id,
    entityId,
    parameters: storedParameters(params),
    bootstrap: snapshotOf(context, id, params, registrations),
    createdAt: now,
    expiresAt: new Date(now.getTime() + CHECKOUT_LIFETIME_MS),
    updatedAt: now,
    deletedAt: null,
    resultReadAt: null,
  };
  await insertCheckout(context.store, checkout);
  const integrity = isTrue(params.get('integrity')) ? integrityOf(checkout.bootstrap) : undefined;
  return { checkout, integrity };
}

/** A checkout's attempts under its row lock. */
export interface LockedAttempts {
  /** Newest first, without those released (below). */
  readonly current: CheckoutAttempt[];
  /** Its payments not recorded yet whose acquirer was asked: their answers are awaited. */
  readonly asked: PaymentInFlight[];
}

/**
 * The checkout's attempts, read once, after releasing any whose payment was being made by a gateway instance that
 * has died since (a crash mid-submit) before it asked an acquirer: no money moved, and the shopper may pay again at
 * once. One whose acquirer was asked stays in progress until that answer is recorded (submit.ts and the recovery job
 * see to it). Call it with the checkout row locked.
 */
export async function lockedAttempts(context: CheckoutContext, tx: Queryable, checkoutId: string): Promise<LockedAttempts> {
  const attempts = await listAttempts(tx, checkoutId);
  const unrecorded = attempts.filter((attempt) => !attempt.recorded).map((attempt) => attempt.paymentId);
  const asked = await paymentsInFlight(tx, unrecorded);
  const askedPayments = new Set(asked.map((payment) => payment.paymentId));
  const current: CheckoutAttempt[] = [];
  for (const attempt of attempts) {
    const orphaned = !attempt.recorded && !askedPayments.has(attempt.paymentId) && attempt.instanceId !== null;
    if (orphaned && !(await context.store.isInstanceAlive(attempt.instanceId as string))) {
      await deleteAttempt(tx, attempt.paymentId);
      context.logger.warn('checkout attempt released: its gateway instance is gone', { checkoutId, paymentId: attempt.paymentId });
    } else {
      current.push(attempt);
    }
  }
  return { current, asked };
}

/** The checkout's attempts (newest first) under its row lock, as lockedAttempts leaves them. */
export async function currentAttempts(context: CheckoutContext, tx: Queryable, checkoutId: string): Promise<CheckoutAttempt[]> {
  return (await lockedAttempts(context, tx, checkoutId)).current;
}

/** Throws the refusal for a checkout that cannot be changed or paid (or take its registration) any more. */
export function refuseUnlessOpen(state: CheckoutState, kind: CheckoutKind): void {
  switch (state.kind) {
    case 'gone':
      throw noSession();
    case 'expired':
      throw noSession(REASONS.expired);
    case 'resultRead':
      throw noSession(REASONS.resultRead);
    case 'paid':
      throw alreadyPaid(kind);
    case 'inProgress':
      throw paymentInProgress(kind);
    case 'open':
      return;
  }
}

/**
 * A checkout's kind is fixed at creation (its widget's bytes, its submit and result paths depend on it): an update
 * may not give a registration-only checkout a paymentType.
 */
function kindChangeErrors(kind: CheckoutKind, params: ReadonlyMap<string, string>): ParameterError[] {
  const paymentType = params.get('paymentType');
  if (kind !== 'registration' || paymentType === undefined) return [];
  return [{ name: 'paymentType', value: paymentType, message: 'cannot be added to a registration-only checkout: create a payment checkout instead' }];
}

/** POST /v1/checkouts/{id}: new values replace the stored ones; the whole result must still be valid. */
export async function updateCheckout(
  context: CheckoutContext,
  entityId: string,
  id: string,
  params: ReadonlyMap<string, string>,
): Promise<CheckoutRecord> {
  resolveTestMode(params, context.environment);
  return context.store.transaction(async (tx) => {
    const checkout = await findCheckout(tx, id, { entityId, forUpdate: true });
    if (!checkout) throw noSession();
    const now = context.now();
    const kind = checkoutKindOf(checkout);
    refuseUnlessOpen(checkoutState(checkout, await currentAttempts(context, tx, id), now), kind);
    const combined = new Map([...checkout.parameters, ...params]);
    const errors = [...validateParameters(combined, 'checkout'), ...shopperOnlyErrors(params), ...kindChangeErrors(kind, params)];
    if (errors.length > 0) throw invalidParameters(errors);
    const parameters = storedParameters(combined);
    await updateCheckoutParameters(tx, id, parameters, now);
    return { ...checkout, parameters, updatedAt: now };
  });
}

/** DELETE /v1/checkouts/{id}: afterwards the checkout answers as an unknown id everywhere. */
export async function deleteCheckout(context: CheckoutContext, entityId: string, id: string): Promise<CheckoutRecord> {
  return context.store.transaction(async (tx) => {
    const checkout = await findCheckout(tx, id, { entityId, forUpdate: true });
    if (!checkout) throw noSession();
    const now = context.now();
    refuseUnlessOpen(checkoutState(checkout, await currentAttempts(context, tx, id), now), checkoutKindOf(checkout));
    await markCheckoutDeleted(tx, id, now);
    return checkout;
  });
}

export type StatusRead =
  | { readonly kind: 'noSession' }
  | { readonly kind: 'throttled'; readonly retryAt: Date }
  /** GET /registration of a checkout that takes a payment. */
  | { readonly kind: 'notRegistrationOnly' }
  /** No payment yet (or one being made, or a verification waiting for the shopper): 000.200.000 without payment fields. */
  | { readonly kind: 'pending' }
  | { readonly kind: 'payment'; readonly payment: PaymentRecord }
  /** A registration-only checkout's final verification, with the registration it made when approved. */
  | { readonly kind: 'registration'; readonly verification: PaymentRecord; readonly registration: RegistrationRecord | undefined };

/**
 * GET /v1/checkouts/{id}/payment (`path` 'payment') or /registration. Decided under the checkout's row lock: the
 * read is counted against the limit (in the database, so every instance shares it), and reading a final result
 * closes the checkout, so its result can never change after the merchant has seen it. Answered, not thrown, so
 * that the transaction commits the counted read even when the answer is a refusal. A registration-only checkout
 * answers the same on both paths (COMPAT §10); a payment checkout has no /registration result.
 */
export async function readCheckoutResult(context: CheckoutContext, entityId: string, id: string, path: CheckoutKind): Promise<StatusRead> {
  return context.store.transaction(async (tx): Promise<StatusRead> => {
    const checkout = await findCheckout(tx, id, { entityId, forUpdate: true });
    if (!checkout) return { kind: 'noSession' };
    const now = context.now();
    const state = checkoutState(checkout, await currentAttempts(context, tx, id), now);
    // A closed session keeps answering the same, however often it is asked: only live sessions count reads.
    if (state.kind === 'gone' || state.kind === 'expired' || state.kind === 'resultRead') return { kind: 'noSession' };
    const kind = checkoutKindOf(checkout);
    if (path === 'registration' && kind === 'payment') return { kind: 'notRegistrationOnly' };
    const read = await context.throttling?.count(entityId, [{ limit: 'checkoutReadsPerMinute', key: id }], { general: false, within: tx });
    if (read && !read.allowed) return { kind: 'throttled', retryAt: read.retryAt };

    let paymentId: string | undefined;
    let closes = true;
    if (state.kind === 'paid') paymentId = state.paymentId;
    else if (state.kind === 'open') paymentId = state.lastResultPaymentId;
    else {
      paymentId = state.pendingPaymentId;
      closes = false;
    }
    if (paymentId === undefined) return { kind: 'pending' };

    const payment = await findPayment(tx, checkout.entityId, paymentId);
    if (!payment) return { kind: 'pending' };
    // A verification waiting for its 3-D Secure challenge has made no registration yet: pending, as for payments.
    if (kind === 'registration' && !closes) return { kind: 'pending' };
    if (closes) await markResultRead(tx, id, now);
    if (kind === 'payment') return { kind: 'payment', payment };
    const registration = payment.registrationId === null ? undefined : await findRegistration(tx, checkout.entityId, payment.registrationId);
    return { kind: 'registration', verification: payment, registration };
  });
}
