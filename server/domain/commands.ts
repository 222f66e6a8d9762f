import type { BackOfficeType, InitialPaymentType, PaymentSource, TestMode } from './payment.ts';

/**
 * What the payment use-cases are asked to do (DESIGN principle 10): the edge parses and validates a request once
 * into one of these (payments/request.ts), and everything after it works with typed values, never the wire's
 * name=value map. Checkout submits and (later) schedule executions build the same commands.
 */

/** A card as the shopper typed it (the number and CVV only ever in memory, never stored). */
export interface CardInstrument {
  readonly kind: 'card';
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvv: string | undefined;
  readonly holder: string | undefined;
}

/**
 * A stored card (registrationId), with the CVV a shopper may add; the holder sent fills in one the card lacks. A
 * registration may hold a SEPA bank account instead, debited on the due date sent (transactionDueDate), if any.
 */
export interface StoredCardInstrument {
  readonly kind: 'storedCard';
  readonly registrationId: string;
  readonly cvv: string | undefined;
  readonly holder: string | undefined;
  readonly dueDate: string | undefined;
}

/**
 * An asynchronous brand (COMPAT §7: PAYPAL, SOFORTUEBERWEISUNG, BOLETO, PREPAYMENT, ...): the shopper's account at the
 * provider is chosen on its page, or the shopper pays later (a cash voucher, a transfer); the payment starts pending.
 */
export interface AsynchronousInstrument {
  readonly kind: 'asynchronous';
  readonly brand: string;
  /** bankAccount.* and virtualAccount.* as sent (the country, a bank's BIC, a phone number): what its provider needs. */
  readonly account: Readonly<Record<string, string>>;
}

/** The card of the PA an incremental authorization or reauthorization follows (referenceUuid): nothing sent again. */
export interface ReferencedInstrument {
  readonly kind: 'referenced';
}

/** A bank account to debit (SEPA direct debit, COMPAT §16), with its mandate. */
export interface BankAccountInstrument {
  readonly kind: 'bankAccount';
  readonly brand: string;
  readonly holder: string;
  /** Normalized: upper case, no spaces; its checksum has been checked. */
  readonly iban: string;
  readonly bic: string | undefined;
  /** The IBAN's country. */
  readonly country: string;
  readonly bankName: string | undefined;
  /** The mandate the shopper signed; the gateway makes the id (and dates it today) when the merchant sends none. */
  readonly mandateId: string | undefined;
  readonly mandateDateOfSignature: string | undefined;
  /** transactionDueDate: when the debit is to be collected (yyyy-MM-dd). */
  readonly dueDate: string | undefined;
}

/** A network token (the scheme's DPAN with a cryptogram) or an external provider's token (doc 2 §2.8). */
export interface TokenAccountInstrument {
  readonly kind: 'tokenAccount';
  readonly type: 'NETWORK' | 'EXTERNAL';
  readonly number: string;
  readonly expiryMonth: number | undefined;
  readonly expiryYear: number | undefined;
  readonly cryptogram: string | undefined;
}

/**
 * A mobile wallet (doc 2 §2.5): its encrypted token as the wallet produced it, or the card the merchant decrypted
 * itself (card.* with its source and 3-D Secure data).
 */
export interface WalletInstrument {
  readonly kind: 'wallet';
  readonly brand: 'APPLEPAY' | 'GOOGLEPAY' | 'SAMSUNGPAY';
  /** The token's JSON text; undefined when the merchant sent the decrypted card. */
  readonly token: string | undefined;
  /** The token's fields, read once from its text (a JSON object). */
  readonly tokenData: Readonly<Record<string, unknown>> | undefined;
  /** The parameter that carried the token, for answers that name it. */
  readonly tokenParameter: string;
  readonly decrypted: CardInstrument | undefined;
  /** The card network the wallet named (applePay.cardNetwork). */
  readonly cardNetwork: string | undefined;
}

/** An account at a provider paid without a redirect (MBWAY: the shopper's phone number). */
export interface VirtualAccountInstrument {
  readonly kind: 'virtualAccount';
  readonly brand: string;
  readonly accountId: string;
}

export type Instrument =
  | CardInstrument
  | StoredCardInstrument
  | ReferencedInstrument
  | AsynchronousInstrument
  | BankAccountInstrument
  | TokenAccountInstrument
  | WalletInstrument
  | VirtualAccountInstrument;

/** 3-D Secure as the merchant asks for it (doc 3 §2.6). */
export interface ThreeDSecureRequest {
  /** The merchant's own authentication (eci and verificationId, and any other threeDSecure.* by its own name). */
  readonly external: Readonly<Record<string, string>> | undefined;
  readonly challengeIndicator: string | undefined;
  /** The name the directory server knows the merchant by. */
  readonly merchantName: string | undefined;
  /** Test knobs of the simulated directory (COMPAT §7): customParameters[3DS2_enrolled] and [3DS2_flow]. */
  readonly testEnrolled: boolean;
  readonly testFlow: string | undefined;
}

/** Card on file (doc 3 §2.14, COMPAT §11): the standing instruction a payment is part of. */
export interface CardOnFile {
  readonly source: 'CIT' | 'MIT' | undefined;
  readonly mode: 'INITIAL' | 'REPEATED' | undefined;
  readonly industryPractice: string | undefined;
  /** The scheme reference of the agreement's first payment (or our id of that payment), as the merchant sent it. */
  readonly initialTransactionId: string | undefined;
}

/** A checkout's part in a payment made through it. */
export interface CheckoutContext {
  readonly checkoutId: string;
  /** Where the shopper's browser goes after a redirect: the checkout's own result URL. */
  readonly returnUrl: string | undefined;
}

export interface CreatePaymentCommand {
  /**
   * The payment's id when it was chosen before the payment exists: by a checkout's attempt row, or by an idempotency
   * key (the same key finishes the same payment).
   */
  readonly paymentId: string | undefined;
  /**
   * The payment's id was made for this request and no one else knows it (a request without an Idempotency-Key): no
   * other run can have made the payment meanwhile, so opening its attempt does not look for it.
   */
  readonly freshPaymentId: boolean;
  readonly entityId: string;
  readonly paymentType: InitialPaymentType;
  /** `PA.CP`: a preauthorization the gateway captures in full as soon as it is approved. */
  readonly captureAtOnce: boolean;
  readonly amountMinor: number;
  readonly currency: string;
  /** The brand the merchant named (paymentBrand), if any. */
  readonly paymentBrand: string | undefined;
  readonly instrument: Instrument;
  readonly testMode: TestMode | undefined;
  readonly merchantTransactionId: string | undefined;
  readonly numberOfCaptures: number | undefined;
  readonly createRegistration: boolean;
  /** overrideHolder=true: card.holder fills in the empty holder of the stored card, for this payment only. */
  readonly overrideHolder: boolean;
  /** standingInstruction.* or the legacy recurringType, when sent. */
  readonly cardOnFile: CardOnFile | undefined;
  /**
   * INCREMENTAL_AUTH or REAUTHORIZATION of an earlier PA (referenceUuid, or the path id of POST /v1/payments/{id}):
   * the new PA is linked to it.
   */
  readonly referenceUuid: string | undefined;
  readonly shopperResultUrl: string | undefined;
  /**
   * customer.browser.* by name: sent with the payment, or read from the shopper's own request (a checkout submit) where
   * the payment sent none.
   */
  readonly browser: Readonly<Record<string, string>>;
  readonly threeDSecure: ThreeDSecureRequest;
  /** The request structures the payment echoes, nested and masked (built once, at the edge). */
  readonly echo: Record<string, unknown>;
  readonly source: PaymentSource;
  readonly checkout: CheckoutContext | undefined;
}

export interface BackOfficeCommand {
  /** The operation's id when it was chosen before it exists (an idempotency key). */
  readonly paymentId: string | undefined;
  readonly entityId: string;
  readonly referencedId: string;
  readonly paymentType: BackOfficeType;
  /** Undefined for a reversal without an amount: it covers the whole payment. */
  readonly amountMinor: number | undefined;
  readonly currency: string | undefined;
  readonly finalInSequence: boolean;
  /** A chargeback's reason (COMPAT §15: 000.100.2xx, default 000.100.200); only with paymentType CB. */
  readonly chargebackResultCode: string | undefined;
  readonly testMode: TestMode | undefined;
  readonly merchantTransactionId: string | undefined;
  readonly echo: Record<string, unknown>;
}
