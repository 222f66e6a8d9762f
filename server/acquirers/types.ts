import type { TokenAccountInstrument } from '../domain/commands.ts';
import type { MandatedBankAccount } from '../domain/instruments.ts';
import type { BackOfficeType, InitialPaymentType, PaymentRedirect, TestMode } from '../domain/payment.ts';
import type { Queryable } from '../store/index.ts';

/**
 * What the gateway asks of an acquirer. The simulator implements it for test mode; a connector to a real provider
 * (acquirers/opp/) implements the same port (DESIGN principle 13). Acquirers only decide; the gateway records and
 * enforces amounts. Every request carries the id of the gateway's attempt (payments/store/attempts.ts), which the
 * acquirer knows the operation by (a provider: as its merchantTransactionId). An attempt is sent once: `inquire` tells
 * what became of one whose answer was lost, or that is still pending at the acquirer.
 */

export interface CardDetails {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvv: string | undefined;
  readonly holder: string | undefined;
  readonly brand: string;
}

/** A SEPA direct debit's account and mandate, and the brand it is paid under (DIRECTDEBIT_SEPA, SEPA). */
export type BankAccountDetails = MandatedBankAccount & { readonly brand?: string };

/** A network or external token as the merchant sent it, with the card brand it pays under. */
export type TokenAccountDetails = Omit<TokenAccountInstrument, 'kind'> & { readonly brand: string };

/** A mobile wallet's token as the wallet made it, for an acquirer that decrypts tokens itself. */
export interface WalletTokenDetails {
  readonly brand: string;
  /** The parameter it came in (applePay.paymentToken, googlePay.paymentToken, ...). */
  readonly parameter: string;
  readonly token: string;
}

/** The shopper's browser is there: where it comes back to from the acquirer's pages, and what 3-D Secure asks of it. */
export interface ShopperPresence {
  /** The gateway's own address the acquirer sends the shopper back to (providers/routes.ts, payments/shopperReturn.ts). */
  readonly returnUrl: string;
  /** customer.browser.*, by the API's names. */
  readonly browser: Readonly<Record<string, string>>;
}

export interface AuthorizationRequest {
  readonly attemptId: string;
  /** The merchant entity the payment is made for (a connector sends that entity's credentials). */
  readonly entityId: string;
  /** The gateway's id of the payment: the merchant reference the acquirer shows for it. */
  readonly paymentId: string;
  readonly paymentType: InitialPaymentType;
  readonly amountMinor: number;
  readonly currency: string;
  /**
   * The card (a wallet's card too); undefined for another instrument, or an incremental authorization or
   * reauthorization made on the original's authorization alone.
   */
  readonly card: CardDetails | undefined;
  /** A SEPA direct debit's account and mandate. */
  readonly bankAccount?: BankAccountDetails;
  /** A network or external token paid with instead of a card. */
  readonly tokenAccount?: TokenAccountDetails;
  /** An account at a provider paid without a redirect (MBWAY). */
  readonly virtualAccount?: { readonly brand: string; readonly accountId: string };
  /**
   * An asynchronous brand (a provider's page, a voucher, a prepayment) paid at an acquirer that runs it itself, with
   * the account fields the merchant sent for it (bankAccount.*, virtualAccount.*, by the API's names).
   */
  readonly asynchronous?: { readonly brand: string; readonly account: Readonly<Record<string, string>> };
  /** A wallet's encrypted token, for an acquirer that decrypts it (not simulated). */
  readonly walletToken?: WalletTokenDetails;
  /** The shopper's browser, when the shopper is there to be sent to the acquirer's pages (not simulated). */
  readonly shopper?: ShopperPresence;
  /**
   * What the merchant sent that a provider speaking the platform's API takes as it is (customer, billing, shipping,
   * cart, customParameters, descriptor, its references), by the API's names; the simulator reads none of it.
   */
  readonly forwarded?: Readonly<Record<string, string>>;
  /** The result a test instrument asks for (a test wallet token's testResult, COMPAT §16). */
  readonly testResult?: string;
  /** undefined in live mode. */
  readonly testMode: TestMode | undefined;
  /** The 3-D Secure authentication (the gateway's own, or the merchant's external data passed through as sent). */
  readonly threeDSecure: Readonly<Record<string, string>> | undefined;
  /** The standing instruction the payment is part of (COMPAT §11), if any. */
  readonly cardOnFile: CardOnFileRequest | undefined;
  /**
   * The approved card is stored for later payments (createRegistration, a registration checkout's verification): the
   * shopper's first use of a credential on file, which gets a scheme reference like an INITIAL payment (COMPAT §11).
   */
  readonly storesCard?: boolean;
  /** The acquirer's reference of the PA an incremental authorization or reauthorization follows. */
  readonly referencedReference: string | null;
  /**
   * Set on a smart retry (COMPAT §15): the authorization another acquirer rejected (or could not be reached for),
   * which this acquirer is asked to make instead. `reference` is null when the other one was not reached.
   */
  readonly retryOf?: SmartRetryOrigin;
}

export interface SmartRetryOrigin {
  readonly acquirer: string;
  readonly code: string;
  readonly reference: string | null;
}

/**
 * Card on file as an acquirer sees it. An approved INITIAL payment gets a scheme reference
 * (details.CardholderInitiatedTransactionID), which the merchant-initiated payments of the agreement name.
 */
export interface CardOnFileRequest {
  readonly source: 'CIT' | 'MIT' | undefined;
  readonly mode: 'INITIAL' | 'REPEATED' | undefined;
  readonly initialTransactionId: string | undefined;
}

/** An asynchronous payment method's provider reports that the shopper approved the payment on its page. */
export interface RedirectPaymentRequest {
  readonly attemptId: string;
  readonly entityId: string;
  readonly paymentId: string;
  readonly paymentType: InitialPaymentType;
  readonly amountMinor: number;
  readonly currency: string;
  readonly brand: string;
  readonly testMode: TestMode | undefined;
}

export interface BackOfficeRequest {
  readonly attemptId: string;
  readonly entityId: string;
  /** The gateway's id of the operation (the child payment). */
  readonly paymentId: string;
  readonly paymentType: BackOfficeType;
  readonly amountMinor: number;
  readonly currency: string;
  /** The acquirer's own reference of the payment operated on. */
  readonly referencedReference: string | null;
  readonly testMode: TestMode | undefined;
  /** A chargeback's reason code (CB only): the acquirer's record of it answers with it. */
  readonly chargebackResultCode?: string;
}

export interface AcquirerAnswer {
  readonly code: string;
  readonly description: string;
  /** Bank-specific details shown as resultDetails (e.g. the acquirer's own response code). */
  readonly details: Readonly<Record<string, string>>;
  /** The acquirer's reference for the operation, kept with the payment. */
  readonly reference: string;
  /** A pending answer's: where the shopper goes to (the acquirer's 3-D Secure challenge, its provider's page). */
  readonly redirect?: PaymentRedirect;
  /** The 3-D Secure authentication the acquirer ran itself, as the answer shows it. */
  readonly threeDSecure?: Readonly<Record<string, string>>;
}

/** An attempt asked about: by the attempt's id (and the acquirer's reference, once an answer gave one). */
export interface InquiredAttempt {
  readonly attemptId: string;
  readonly entityId: string;
  readonly paymentType: string;
  /** The acquirer's reference, when a pending answer gave it. */
  readonly reference: string | null;
  /** When the request was sent (the attempt opened). */
  readonly sentAt: Date;
}

/** What a provider's notification says, once read as authentic (acquirers/opp/notifications.ts). */
export type ProviderEvent =
  /** The provider's test of its webhook. */
  | { readonly kind: 'test' }
  /** A payment of the provider's: one of ours (its merchantTransactionId our attempt id), or one it made itself (a chargeback). */
  | {
      readonly kind: 'payment';
      readonly merchantTransactionId: string | undefined;
      readonly paymentType: string;
      /** The provider's reference of the payment it operates on (a chargeback's, a refund's). */
      readonly referencedReference: string | undefined;
      readonly amountMinor: number | undefined;
      readonly currency: string | undefined;
      /** The payment's state at the provider, as an answer. */
      readonly answer: AcquirerAnswer;
    }
  /** Anything else (a registration's, a schedule's): nothing for the gateway to do. */
  | { readonly kind: 'other'; readonly type: string };

/**
 * A record of a provider's settlement report, as its reports API lists it (spec doc 3 §2.17 by API field): the
 * provider's own ids (its payment's, its chargeback's), which the gateway maps to its payments when it imports it.
 */
export interface ProviderSettlementRecord {
  readonly recordType: string;
  readonly transactionType: string;
  readonly cashflow: 'POS' | 'NEG';
  readonly clearingMerchantId: string;
  readonly settlementTxId: string | null;
  /** The provider's payment the record settles. */
  readonly providerPaymentId: string | null;
  /** The merchantTransactionId the provider knows it by: the gateway's attempt id. */
  readonly merchantTransactionId: string | null;
  readonly connectorTxIds: readonly [string | null, string | null, string | null];
  readonly merchantInvoiceId: string | null;
  readonly amountMinor: number;
  readonly currency: string;
  readonly brand: string | null;
  readonly presentmentAt: Date | null;
  readonly settlementAmountMinor: number;
  readonly settlementCurrency: string;
  readonly settlementFeeMinor: number | null;
  readonly fxRate: string;
  readonly settlementDate: string;
  readonly settlementStatus: 'SUCCESS' | 'FAILED';
  readonly descriptor: string | null;
  readonly accountLast4: string | null;
  readonly bankCode: string | null;
  readonly accountHolder: string | null;
  readonly reasonCode: string | null;
  readonly reasonDesc: string | null;
  readonly settlementFormat: string;
  /** The provider's chargeback a CHARGEBACK record is. */
  readonly providerChargebackId: string | null;
}

/** One of a provider's settlement batches (its reports' aggregation) of a day, with every record. */
export interface ProviderSettlementBatch {
  readonly id: string;
  readonly clearingInstitute: string;
  readonly settlementCurrency: string;
  readonly records: readonly ProviderSettlementRecord[];
}

export interface Acquirer {
  /** Its name in the registry, recorded on each payment: later operations on the payment go to it. */
  readonly name: string;
  /**
   * A simulated acquirer (test only): the gateway then stands in for what a provider does itself — the 3-D Secure
   * directory, the asynchronous brands' pages, reading test wallet tokens. A connector's provider does all of it.
   */
  readonly simulated: boolean;
  /**
   * May answer pending (with a redirect), and throws AcquirerUnreachableError when the request never left,
   * AcquirerOutcomeUnknownError when it was sent and no answer can be read, a GatewayError when the acquirer refused
   * the request as it stood (nothing made).
   */
  authorize(request: AuthorizationRequest): Promise<AcquirerAnswer>;
  /** The simulated providers' confirmation of a payment on the gateway's own page (simulated acquirers only). */
  confirmRedirectPayment(request: RedirectPaymentRequest): Promise<AcquirerAnswer>;
  backOffice(request: BackOfficeRequest): Promise<AcquirerAnswer>;
  /**
   * What the acquirer answered the attempt (pending still, or final), or undefined when it certainly never received it.
   * Throws AcquirerOutcomeUnknownError when it cannot tell yet (unreachable, or a request that may still be made).
   */
  inquire(attempt: InquiredAttempt): Promise<AcquirerAnswer | undefined>;
  /**
   * A provider's webhook notification read (a connector with a notification key only): undefined when it is not
   * authentic. `header` reads the request's headers by lower-case name.
   */
  readNotification?(body: string, header: (name: string) => string | undefined): ProviderEvent | undefined;
  /**
   * What the provider reports it settled for the entity on a day (yyyy-MM-dd), read from its settlement reports (a
   * connector only). Throws when they cannot be read now.
   */
  settlementsOf?(entityId: string, date: string): Promise<readonly ProviderSettlementBatch[]>;
}

/**
 * The acquirers' records of their answers that wait for the gateway's transaction recording them (the simulator's,
 * unless SIMULATOR_DURABLE_RECORDS: acquirers/simulator.ts). The ledger hands over every transaction that finishes
 * attempts as answered: their records are written in it, durable with the payments they decided, or lost with them.
 */
export interface AcquirerRecords {
  /** Writes in `tx` what the acquirers answered these attempts, for those whose answer is not in the store yet. */
  writeIn(tx: Queryable, attemptIds: readonly string[]): Promise<void>;
}

/**
 * What an acquirer's call throws when its request certainly never reached the acquirer (connection refused, a
 * connect timeout, a host name that does not resolve): nothing can have moved, and smart retry may take the
 * payment elsewhere (as 900.100.100). Any other failure of a call (a timeout once the request was sent) leaves the
 * outcome uncertain: the attempt stays open until its recovery asks the acquirer (payments/recovery.ts).
 */
export class AcquirerUnreachableError extends Error {
  constructor(
    readonly acquirer: string,
    readonly reason: string,
  ) {
    super(`acquirer ${acquirer} unreachable: ${reason}`);
    this.name = 'AcquirerUnreachableError';
  }
}

/**
 * What a call throws when its request was sent (or may have been) and no answer can be read: a timeout, a connection
 * reset, a 5xx, an answer that is not the API's. The acquirer may have made the operation: it is never sent again, only
 * asked about (`inquire`) until the acquirer says what it did. `inquire` throws it too while it cannot tell yet.
 */
export class AcquirerOutcomeUnknownError extends Error {
  constructor(
    readonly acquirer: string,
    readonly reason: string,
  ) {
    super(`the outcome at acquirer ${acquirer} is unknown: ${reason}`);
    this.name = 'AcquirerOutcomeUnknownError';
  }
}
