import type { TokenAccountInstrument } from '../domain/commands.ts';
import type { MandatedBankAccount } from '../domain/instruments.ts';
import type { BackOfficeType, InitialPaymentType, TestMode } from '../domain/payment.ts';
import type { Queryable } from '../store/index.ts';

/**
 * What the gateway asks of an acquirer. The simulator implements it for test mode; a real connector would implement
 * the same port. Acquirers only decide; the gateway records and enforces amounts. Every request carries the id of
 * the gateway's attempt (payments/store/attempts.ts), which the acquirer treats as an idempotency reference: the same
 * attempt asked twice is one operation, and `inquire` tells what became of an attempt whose answer was lost.
 */

export interface CardDetails {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvv: string | undefined;
  readonly holder: string | undefined;
  readonly brand: string;
}

/** A SEPA direct debit's account and mandate. */
export type BankAccountDetails = MandatedBankAccount;

/** A network or external token as the merchant sent it, with the card brand it pays under. */
export type TokenAccountDetails = Omit<TokenAccountInstrument, 'kind'> & { readonly brand: string };

export interface AuthorizationRequest {
  readonly attemptId: string;
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
  readonly paymentId: string;
  readonly paymentType: InitialPaymentType;
  readonly amountMinor: number;
  readonly currency: string;
  readonly brand: string;
  readonly testMode: TestMode | undefined;
}

export interface BackOfficeRequest {
  readonly attemptId: string;
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
}

export interface Acquirer {
  /** Its name in the registry, recorded on each payment: later operations on the payment go to it. */
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AcquirerAnswer>;
  confirmRedirectPayment(request: RedirectPaymentRequest): Promise<AcquirerAnswer>;
  backOffice(request: BackOfficeRequest): Promise<AcquirerAnswer>;
  /** What the acquirer answered the attempt, or undefined when it never received it. */
  inquire(attemptId: string): Promise<AcquirerAnswer | undefined>;
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
