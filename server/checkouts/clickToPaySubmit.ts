import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { Queryable } from '../store/index.ts';
import type { CheckoutContext } from './service.ts';

/**
 * A Click to Pay submit (issue 35 point 6, decisions.md): the widget posts `paymentBrand=CLICK_TO_PAY` and the
 * correlation id of the card the shopper chose in the SRC system, never a card number, a token or a cryptogram. The
 * gateway redeems the id (once, for this checkout only, before it expires) and pays the card's network token as a
 * NETWORK token account (COMPAT §16) under the card's own brand: the payment core knows no Click to Pay, and the
 * merchant's server reads the payment like any other (paymentBrand, tokenAccount's masked number).
 */

export const CLICK_TO_PAY = 'CLICK_TO_PAY';
const CORRELATION_ID = 'clickToPay.correlationId';

export interface ClickToPaySubmit {
  /** The page's parameters with the card's brand for CLICK_TO_PAY and without the correlation id. */
  readonly submitted: Map<string, string>;
  /** The network token: set on the payment by the gateway, as the merchant's server's parameters are. */
  readonly token: readonly (readonly [string, string])[];
}

/** For a Click to Pay submit, the card the correlation id names (spent now, in `tx`); undefined for any other submit. */
export async function clickToPaySubmit(
  context: CheckoutContext,
  tx: Queryable,
  checkoutId: string,
  submitted: ReadonlyMap<string, string>,
  now: Date,
): Promise<ClickToPaySubmit | undefined> {
  if (submitted.get('paymentBrand') !== CLICK_TO_PAY) return undefined;
  if (!context.clickToPay) throw new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, 'Click to Pay is not available on this gateway'), 400);
  // The card is the SRC system's: a page sending one of its own with CLICK_TO_PAY is refused, not half obeyed.
  const foreign = [...submitted.keys()].filter((name) => name.startsWith('card.') || name === 'registrationId');
  if (foreign.length > 0) throw invalidParameters(foreign.map((name) => ({ name, value: submitted.get(name) ?? '', message: 'cannot be sent with paymentBrand CLICK_TO_PAY: the card is the one chosen in Click to Pay' })));
  const correlationId = submitted.get(CORRELATION_ID);
  if (correlationId === undefined || correlationId === '') {
    throw invalidParameters([{ name: CORRELATION_ID, value: '', message: 'is required with paymentBrand CLICK_TO_PAY: it names the card the shopper chose' }]);
  }
  const card = await context.clickToPay(tx, checkoutId, correlationId, now);
  const page = new Map(submitted);
  page.delete(CORRELATION_ID);
  page.set('paymentBrand', card.brand);
  return {
    submitted: page,
    token: [
      ['tokenAccount.type', 'NETWORK'],
      ['tokenAccount.number', card.number],
      ['tokenAccount.expiryMonth', card.expiryMonth],
      ['tokenAccount.expiryYear', card.expiryYear],
      ['tokenAccount.cryptogram', card.cryptogram],
    ],
  };
}
