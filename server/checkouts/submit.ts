import { newResourceId } from '../domain/ids.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { CreatePaymentCommand } from '../domain/commands.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { createPayment } from '../payments/createPayment.ts';
import { orphansAmong, paymentsInFlight, recoverInFlight, type PaymentInFlight } from '../payments/inFlight.ts';
import { createPaymentCommand } from '../payments/request.ts';
import { findEntity } from '../merchants/repository.ts';
import { scheduleShopperResultCall, shopperResultCallTarget } from './callbacks.ts';
import { clickToPaySubmit } from './clickToPaySubmit.ts';
import { mergeShopperSubmit } from './parameters.ts';
import { deleteAttempt, findCheckout, insertAttempt } from './repository.ts';
import { noSession, notRegistrationOnly, registrationOnly, tooManyDeclines } from './results.ts';
import { lockedAttempts, refuseUnlessOpen, type CheckoutContext } from './service.ts';
import { checkoutKindOf, checkoutState, resultPathOf, type CheckoutKind } from './state.ts';
import { requireTypedCard, verificationOf } from './verification.ts';
import { withQuery } from '../domain/urls.ts';

/**
 * POST /v1/checkouts/{id}/payment (or /registration): the shopper's submit from the widget. No credentials: the
 * checkout id is the capability, so everything that decides the payment's amount, type and owner comes from the
 * checkout. A payment checkout takes only /payment, a registration-only one only /registration, where the submit
 * is an account verification (verification.ts): a zero-amount preauthorization that stores the card, made here
 * exactly like a payment.
 *
 * The submit is decided in two steps. Under the checkout's row lock: the checkout must be open, the page's
 * parameters are checked against it, and an attempt row reserves the payment id (a second submit on this or
 * any instance now sees a payment in progress and is refused: one checkout, at most one payment at a time).
 * Then, outside the lock, the payment is made by the payments service like any other, under that id.
 * The submit body itself is never stored: card data reaches only the payment (which keeps bin and last four).
 */

/** The payment a submit is to make, its attempt row written. */
interface PaymentClaim {
  readonly command: CreatePaymentCommand;
}

/** What the submit decided under the checkout's lock: the payment to make, or orphaned payments to recover first. */
type Claim = PaymentClaim | { readonly orphaned: readonly PaymentInFlight[] };

/**
 * Where the shopper lands after a 3-D Secure challenge or a provider page: the same result URL the widget
 * goes to for a payment that is final at once (COMPAT §6). The validator has checked the URL already.
 */
function returnUrlOf(merged: ReadonlyMap<string, string>, checkoutId: string, kind: CheckoutKind): string | undefined {
  const shopperResultUrl = merged.get('shopperResultUrl');
  if (shopperResultUrl === undefined || !URL.canParse(shopperResultUrl)) return undefined;
  return withQuery(new URL(shopperResultUrl), { id: checkoutId, resourcePath: resultPathOf(checkoutId, kind) }).href;
}

/** `path`: the endpoint the shopper's browser posted to (`/payment` or `/registration`), which must be the checkout's. */
export async function submitCheckout(
  context: CheckoutContext,
  id: string,
  path: CheckoutKind,
  submitted: ReadonlyMap<string, string>,
  browserHeaders: ReadonlyMap<string, string> = new Map(),
  options: { readonly withoutCvv?: boolean } = {},
): Promise<PaymentRecord> {
  const paymentId = newResourceId();
  const submit = { id, path, submitted, browserHeaders, paymentId, withoutCvv: options.withoutCvv };
  const first = await claimCheckout(context, submit, true);
  let command: CreatePaymentCommand;
  if ('orphaned' in first) {
    // A gateway that died while it paid this checkout left its acquirer's answer unrecorded: recorded now, outside the
    // checkout's lock; the checkout then shows that payment (paid, or declined and payable again).
    await recoverInFlight(context.payments, first.orphaned);
    ({ command } = await claimCheckout(context, submit, false));
  } else {
    ({ command } = first);
  }

  try {
    return await createPayment(context.payments, command);
  } catch (error) {
    await releaseUnlessAsked(context, id, paymentId);
    throw error;
  }
}

interface Submit {
  readonly id: string;
  readonly path: CheckoutKind;
  readonly submitted: ReadonlyMap<string, string>;
  readonly browserHeaders: ReadonlyMap<string, string>;
  readonly paymentId: string;
  /** The summary page's saved card (summary.ts), paid without its CVV. */
  readonly withoutCvv?: boolean;
}

/**
 * Decides the submit under the checkout's row lock. With `recover`, a checkout with payments orphaned by a dead
 * gateway instance is left as it is, for the caller to recover them and ask again; without, they count as in progress.
 */
async function claimCheckout(context: CheckoutContext, submit: Submit, recover: true): Promise<Claim>;
async function claimCheckout(context: CheckoutContext, submit: Submit, recover: false): Promise<PaymentClaim>;
async function claimCheckout(context: CheckoutContext, submit: Submit, recover: boolean): Promise<Claim> {
  const { id, path, submitted, browserHeaders, paymentId } = submit;
  return context.store.transaction(async (tx): Promise<Claim> => {
    const checkout = await findCheckout(tx, id, { forUpdate: true });
    // A deleted checkout answers as an unknown id, whichever endpoint was used.
    if (!checkout || checkout.deletedAt) throw noSession();
    const kind = checkoutKindOf(checkout);
    if (path !== kind) throw kind === 'registration' ? registrationOnly() : notRegistrationOnly();
    const now = context.now();
    const { current: attempts, asked } = await lockedAttempts(context, tx, id);
    if (recover) {
      const orphaned = await orphansAmong(context.payments, asked);
      if (orphaned.length > 0) return { orphaned };
    }
    const state = checkoutState(checkout, attempts, now);
    refuseUnlessOpen(state, kind);
    // A card tester tries card after card on one checkout: past the cap, the checkout takes no more submits.
    const maxDeclines = context.limits.checkoutMaxDeclines;
    if (state.kind === 'open' && maxDeclines > 0 && state.declinedPayments >= maxDeclines) throw tooManyDeclines(state.declinedPayments, kind);

    // Click to Pay: the chosen card's correlation id spent now (rolled back with the rest if the submit is refused).
    const clickToPay = await clickToPaySubmit(context, tx, id, submitted, now);
    const { merged, errors } = mergeShopperSubmit(checkout.parameters, checkout.entityId, clickToPay?.submitted ?? submitted);
    // Refused before anything is written: a forged or malformed post leaves no trace on the checkout.
    if (errors.length > 0) throw invalidParameters(errors);
    for (const [name, value] of clickToPay?.token ?? []) merged.set(name, value);
    const command = createPaymentCommand(merged, {
      entityId: checkout.entityId,
      environment: context.environment,
      source: 'OPPUI',
      browserHeaders,
      paymentId,
      checkout: { checkoutId: id, returnUrl: returnUrlOf(merged, id, kind) },
      verification: kind === 'registration' ? verificationOf(merged, id) : undefined,
      withoutCvv: submit.withoutCvv,
    });
    if (kind === 'registration') requireTypedCard(command, merged);

    await insertAttempt(tx, {
      checkoutId: id,
      attempt: (attempts[0]?.attempt ?? 0) + 1,
      paymentId,
      startedAt: now,
      instanceId: context.store.instanceId,
    });
    const pageUrl = submitted.get('shopperResultUrl');
    const checkoutUrl = checkout.parameters.get('shopperResultUrl');
    const base = checkoutUrl === undefined && pageUrl !== undefined ? ((await findEntity(tx, checkout.entityId))?.shopperResultUrlBase ?? null) : null;
    const callTarget = shopperResultCallTarget(checkoutUrl, pageUrl, base);
    if (callTarget !== undefined) await scheduleShopperResultCall(tx, checkout, callTarget, now);
    return { command };
  });
}

/**
 * After a failed payment: refused before an acquirer was asked (a malformed CVV, an unknown stored card), the
 * attempt must not hold the checkout. After an acquirer was asked, the attempt stays until its answer is recorded
 * (recovery.ts). Fails closed: when it cannot tell, the attempt stays (the checkout is in progress until the payment
 * is recorded or the attempt's lease ends, state.ts), since releasing it could let a second payment start while the
 * acquirer holds the first.
 */
async function releaseUnlessAsked(context: CheckoutContext, checkoutId: string, paymentId: string): Promise<void> {
  let asked: boolean;
  try {
    asked = (await paymentsInFlight(context.payments.store, [paymentId])).length > 0;
  } catch (error) {
    context.logger.error('checkout attempt kept: whether its acquirer was asked could not be read', { checkoutId, paymentId, error });
    return;
  }
  if (asked) return;
  await deleteAttempt(context.store, paymentId).catch((error: unknown) => context.logger.error('checkout attempt not released', { checkoutId, error }));
}
