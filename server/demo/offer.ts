import type { AsyncFamily } from '../../widget/shared/asyncBrands.ts';
import { RESULTS } from '../domain/resultCodes.ts';

/**
 * What the demo shop offers and tells its visitors: its order, its test cards and its asynchronous brands. One list
 * each, from which the page is written and against which server/demo/offer.test.ts and e2e/demo.e2e.test.ts pay, so
 * what the page promises and what happens cannot part.
 */

/**
 * The order of every demo checkout. The shop knows its customer: the name and country a buy-now-pay-later lender
 * checks (COMPAT §7) travel on the checkout, so the widget asks the shopper for none of it.
 */
export const DEMO_ORDER: Readonly<Record<string, string>> = {
  amount: '92.00',
  currency: 'EUR',
  paymentType: 'DB',
  'cart.items[0].name': 'Wool socks',
  'cart.items[0].quantity': '2',
  'customer.givenName': 'Jane',
  'customer.surname': 'Jones',
  'billing.country': 'DE',
};

/**
 * What a test card leads to: approved (with or without 3-D Secure), declined by the simulated bank (the payment
 * reaches the gateway and ends with the row's code), or refused by the payment form before anything is sent.
 */
export type DemoCardOutcome = 'approved' | 'frictionless' | 'challenge' | 'declinedByBank' | 'refusedByForm';

export interface DemoTestCard {
  /** As the shopper types it (grouped as printed on the card). */
  readonly number: string;
  readonly brand: 'VISA' | 'MASTER' | 'AMEX';
  /** A result code here makes the simulated bank answer it (COMPAT §7); unset: any name. */
  readonly holder?: string;
  readonly outcome: DemoCardOutcome;
  /** The code the payment ends with; none for a number the form refuses. */
  readonly code?: string;
}

const APPROVED = RESULTS.testModeInternalSuccess.code;

export const DEMO_TEST_CARDS: readonly DemoTestCard[] = [
  { number: '4200 0000 0000 0000', brand: 'VISA', outcome: 'approved', code: APPROVED },
  { number: '5454 5454 5454 5454', brand: 'MASTER', outcome: 'approved', code: APPROVED },
  { number: '3777 777777 77770', brand: 'AMEX', outcome: 'approved', code: APPROVED },
  { number: '4200 0000 0000 0091', brand: 'VISA', outcome: 'frictionless', code: APPROVED },
  { number: '4200 0000 0000 0042', brand: 'VISA', outcome: 'challenge', code: APPROVED },
  { number: '4200 0000 0000 0000', brand: 'VISA', holder: '800.100.203', outcome: 'declinedByBank', code: '800.100.203' },
  { number: '4200 0000 0000 0000', brand: 'VISA', holder: '800.100.151', outcome: 'declinedByBank', code: '800.100.151' },
  { number: '4444 4444 4444 4444', brand: 'VISA', outcome: 'refusedByForm' },
];

/** The simulated issuer's challenge (docs/widget.md): this code passes it, any other fails the payment with `failedCode`. */
export const DEMO_CHALLENGE = { otp: '1234', failedCode: RESULTS.authenticationFailed.code } as const;

/** The CVV the shopper types: any, of the brand's length. */
export function cvvOf(card: DemoTestCard): string {
  return card.brand === 'AMEX' ? '1234' : '123';
}

export interface DemoAsyncBrand {
  readonly brand: string;
  readonly family: AsyncFamily;
  /** What the brand does in the simulator, as the page tells it. */
  readonly text: string;
}

/** One well-known brand of each asynchronous family the gateway simulates (widget/shared/asyncBrands.ts). */
export const DEMO_ASYNC_BRANDS: readonly DemoAsyncBrand[] = [
  {
    brand: 'SOFORTUEBERWEISUNG',
    family: 'onlineTransfer',
    text: "Sofort (online bank transfer): choose your bank's country, then approve or decline the transfer on the simulated bank's page.",
  },
  { brand: 'PAYPAL', family: 'eWallet', text: 'PayPal (e-wallet): approve or decline on the simulated PayPal page.' },
  {
    brand: 'KLARNA_PAYMENTS_PAYLATER',
    family: 'invoice',
    text: 'Klarna Pay later (buy now, pay later): the shop names you on the checkout; accept or decline on the simulated Klarna page.',
  },
  { brand: 'PAYSAFECARD', family: 'voucher', text: 'paysafecard (prepaid voucher): type any 16-digit PIN on the simulated page and approve.' },
  {
    brand: 'SIBS_MULTIBANCO',
    family: 'cashVoucher',
    text: 'Multibanco (cash voucher): shows a voucher to pay at an ATM; the result page reads the payment pending until the simulated money arrives.',
  },
  {
    brand: 'PREPAYMENT',
    family: 'prepayment',
    text: 'Prepayment: the result page shows the bank details to transfer to; the payment stays pending until the simulated transfer arrives.',
  },
];
