import { createHash } from 'node:crypto';
import { checkCard } from '../domain/cards.ts';
import { GatewayError, invalidParameters } from '../domain/errors.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import type { JobHandler } from '../jobs/registry.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { createPaymentCommand } from '../payments/request.ts';
import { requestEcho } from '../params/echo.ts';
import type { Queryable } from '../store/index.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';
import { mergeShopperSubmit } from './parameters.ts';
import { findCheckout } from './repository.ts';
import { CHECKOUT_RESULTS, noSession, registrationOnly } from './results.ts';
import { currentAttempts, lockedAttempts, refuseUnlessOpen, type CheckoutContext } from './service.ts';
import { checkoutKindOf, checkoutState } from './state.ts';
import { submitCheckout } from './submit.ts';

/**
 * The summary page (`wpwlOptions.useSummaryPage`, issue 35 point 4): the shopper's card is saved for the checkout
 * instead of paid, the merchant shows its own summary, and its server then executes the payment.
 *
 * 1. The widget posts the card form as for a payment (from the number frame: the card data never passes the merchant's
 *    page) with `useSummaryPage=true`. The submit is checked as a payment's would be — the checkout open, what the page
 *    may send, every parameter, the gateway's own card checks — and what the shopper sent is sealed in the vault for the
 *    checkout, without the CVV (never stored): one saved submit per checkout, a new save replacing it. The answer
 *    (`000.200.101`, the checkout updated) carries what the summary shows: the brand, the card's bin, last four digits,
 *    holder and expiry, the billing address; the widget hands it to `onSaveTransactionData(data)`.
 * 2. The merchant's server executes it: `POST /v1/checkouts/{id}/payment` with its token and entityId, no card data.
 *    The saved submit is opened and paid exactly as the shopper's submit would have been (submit.ts: one payment per
 *    checkout at a time, its attempt and decline rules, 3-D Secure for an enrolled card with the challenge's redirect in
 *    the answer, ending on the result URL), without a CVV, as a stored card is paid.
 * 3. The sealed data is erased once a payment is recorded for it (approved, declined or waiting for its challenge: it
 *    pays once), or when the checkout expires (a job at the checkout's expiry).
 */

/** The widget's flag on the card form's submit: save, do not pay. */
export const SUMMARY_FLAG = 'useSummaryPage';
export const SAVED_SUBMIT_EXPIRY_JOB = 'checkout.savedSubmitExpiry';

/** What is sealed: the shopper's submit (without card.cvv) and the browser's headers 3-D Secure reads. */
interface SavedSubmit {
  readonly submitted: readonly [string, string][];
  readonly browserHeaders: readonly [string, string][];
}

/** The vault item of a checkout's saved submit: named by the checkout, so no column points at it. */
function vaultIdOf(checkoutId: string): string {
  return createHash('sha256').update(`checkout summary ${checkoutId}`).digest('hex').slice(0, 32);
}

function noSavedSubmit(): GatewayError {
  return new GatewayError(
    {
      code: '200.300.404',
      description: 'no payment data saved for this checkout: the shopper submits the payment form with useSummaryPage first (or again, after a payment was made with it)',
    },
    400,
  );
}

async function eraseSaved(db: Queryable, checkoutId: string, now: Date): Promise<void> {
  const id = vaultIdOf(checkoutId);
  if (await findSealed(db, id)) await eraseSealed(db, id, now);
}

/** Step 1: the shopper's submit with `useSummaryPage=true`. Returns the answer's body (beside its result). */
export async function saveTransactionData(
  context: CheckoutContext,
  id: string,
  submitted: ReadonlyMap<string, string>,
  browserHeaders: ReadonlyMap<string, string>,
): Promise<Record<string, unknown>> {
  const shopper = new Map([...submitted].filter(([name]) => name !== SUMMARY_FLAG && name !== 'card.cvv'));
  return context.store.transaction(async (tx) => {
    const checkout = await findCheckout(tx, id, { forUpdate: true });
    if (!checkout || checkout.deletedAt) throw noSession();
    if (checkoutKindOf(checkout) !== 'payment') throw registrationOnly();
    const now = context.now();
    const { current } = await lockedAttempts(context, tx, id);
    refuseUnlessOpen(checkoutState(checkout, current, now), 'payment');
    const { merged, errors } = mergeShopperSubmit(checkout.parameters, checkout.entityId, shopper);
    if (errors.length > 0) throw invalidParameters(errors);
    const command = createPaymentCommand(merged, { entityId: checkout.entityId, environment: context.environment, source: 'OPPUI', browserHeaders, withoutCvv: true });
    const instrument = command.instrument;
    if (instrument.kind !== 'card') {
      throw invalidParameters([
        { name: 'paymentBrand', value: merged.get('paymentBrand') ?? '', message: 'the summary page saves a card the shopper types (card.number and its fields)' },
      ]);
    }
    // A card the gateway would refuse is refused now, while the shopper can still correct it.
    const check = checkCard(instrument, undefined, merged.get('paymentBrand'), now);
    if (check.refusal) throw new GatewayError(check.refusal, 400);

    const saved: SavedSubmit = { submitted: [...shopper], browserHeaders: [...browserHeaders] };
    await eraseSaved(tx, id, now);
    await keepSealed(tx, context.payments.vault.seal(saved), now, vaultIdOf(id));
    await scheduleJob(tx, { kind: SAVED_SUBMIT_EXPIRY_JOB, uniqueKey: `${SAVED_SUBMIT_EXPIRY_JOB}:${id}`, runAt: checkout.expiresAt, payload: { checkoutId: id } }, now);
    const card = instrument;
    const echo = requestEcho(shopper);
    return {
      result: CHECKOUT_RESULTS.updated,
      id,
      paymentBrand: check.brand,
      card: {
        bin: card.number.slice(0, 6),
        last4Digits: card.number.slice(-4),
        ...(card.holder !== undefined ? { holder: card.holder } : {}),
        expiryMonth: String(card.expiryMonth).padStart(2, '0'),
        expiryYear: String(card.expiryYear),
      },
      ...(echo.billing !== undefined ? { billing: echo.billing } : {}),
    };
  });
}

/**
 * Step 2: the merchant's server executes the saved submit (authenticated as `entityId`). Another entity's checkout
 * answers as an unknown one; a paid, expired or busy checkout as for the shopper's submit; one without saved data says so.
 */
export async function executeSavedTransaction(context: CheckoutContext, entityId: string, id: string): Promise<PaymentRecord> {
  const checkout = await findCheckout(context.store, id, { entityId });
  if (!checkout || checkout.deletedAt) throw noSession();
  if (checkoutKindOf(checkout) !== 'payment') throw registrationOnly();
  const sealed = await findSealed(context.store, vaultIdOf(id));
  if (!sealed) {
    refuseUnlessOpen(checkoutState(checkout, await currentAttempts(context, context.store, id), context.now()), 'payment');
    throw noSavedSubmit();
  }
  const saved = context.payments.vault.open<SavedSubmit>(sealed);
  const payment = await submitCheckout(context, id, 'payment', new Map(saved.submitted), new Map(saved.browserHeaders), { withoutCvv: true });
  // A payment was made with it: it pays once.
  await context.store.transaction((tx) => eraseSaved(tx, id, context.now()));
  return payment;
}

/** The expiry of a saved submit: at the checkout's expiry, whatever became of it. */
export function summaryJobHandlers(): JobHandler[] {
  return [
    {
      kind: SAVED_SUBMIT_EXPIRY_JOB,
      maxAttempts: 10,
      retryDelayMs: (attempts) => Math.min(60_000 * 2 ** attempts, 3_600_000),
      run: async (job, context) => {
        const checkoutId = (job.payload as { checkoutId?: unknown }).checkoutId;
        if (typeof checkoutId !== 'string') return;
        await context.store.transaction((tx) => eraseSaved(tx, checkoutId, context.now()));
      },
    },
  ];
}
