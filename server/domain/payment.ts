/**
 * What a payment is, as the gateway records it: one row per transaction, initial (PA, DB, CD) or back office
 * (CP, RV, RF) referencing its parent. Pure types; payments/ledger.ts is the only code that writes them.
 */

export type InitialPaymentType = 'PA' | 'DB' | 'CD';
/** Capture, reversal, refund; chargeback and chargeback reversal (COMPAT §15). */
export type BackOfficeType = 'CP' | 'RV' | 'RF' | 'CB' | 'CR';

/** The state of one transaction (domain/paymentState.ts decides it from the result, once, when it is written). */
export type PaymentStatus = 'pending' | 'approved' | 'declined';

/** Where a payment came from (the notifications' `source`): the widget, the merchant's server, the gateway itself. */
export type PaymentSource = 'OPPUI' | 'API' | 'SYSTEM';

/** What is kept and shown of a card: never more. */
export interface CardSummary {
  readonly bin: string;
  readonly last4Digits: string;
  readonly holder?: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

export interface PaymentRedirect {
  readonly url: string;
  /** How the parameters go to the URL: POST (the gateway's own pages, the default) or GET (a provider's page may ask so). */
  readonly method?: 'GET' | 'POST';
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

export interface PaymentRecord {
  readonly id: string;
  readonly entityId: string;
  /** The payment a back-office operation or a follow-up authorization is made on. */
  readonly parentId: string | null;
  readonly paymentType: string;
  readonly paymentBrand: string | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly resultCode: string;
  readonly resultDescription: string;
  readonly status: PaymentStatus;
  readonly finalInSequence: boolean;
  readonly maxCaptures: number | null;
  /** The acquirer that decided it (its name in the registry), or `gateway` for the gateway's own refusals. */
  readonly acquirer: string;
  /** The acquirer's own reference for it, when an acquirer decided it. */
  readonly acquirerReference: string | null;
  readonly testMode: string | null;
  readonly merchantTransactionId: string | null;
  readonly card: CardSummary | null;
  /** The request structures echoed in responses (customer, billing, cart, customParameters, ...), masked. */
  readonly requestEcho: Record<string, unknown>;
  readonly resultDetails: Record<string, string> | null;
  /** The gateway's own 3-D Secure authentication, shown as threeDSecure (external data stays in requestEcho). */
  readonly threeDSecure: Record<string, string> | null;
  /** Where the shopper must go while the payment is pending; null once it is final. */
  readonly redirect: PaymentRedirect | null;
  /** The registration the payment created (createRegistration=true) or was paid with. */
  readonly registrationId: string | null;
  readonly source: PaymentSource;
  /** The checkout the payment was made for, if any. */
  readonly checkoutId: string | null;
  readonly ndc: string;
  readonly createdAt: Date;
}

/** How a pending payment ends: its result, and what the end brings with it. */
export interface FinalResult {
  readonly resultCode: string;
  readonly resultDescription: string;
  readonly resultDetails: Record<string, string> | null;
  readonly threeDSecure: Record<string, string> | null;
  readonly acquirerReference: string | null;
  /** A registration the final success created (createRegistration=true on a challenged payment). */
  readonly registrationId: string | null;
  /** The acquirer that gave the final answer, when known (a smart retry's fallback, after a challenge). */
  readonly acquirer?: string;
}

/** testMode (COMPAT §7): the simulator (INTERNAL, the default in test) or the connector's test system (EXTERNAL). */
export type TestMode = 'INTERNAL' | 'EXTERNAL';
