import type { BackOfficeType, InitialPaymentType } from '../domain/backOffice.ts';

/**
 * What the gateway asks of an acquirer. The simulator implements it for test mode; a real connector
 * would implement the same interface. Acquirers only decide; the gateway records and enforces amounts.
 */

export type TestMode = 'INTERNAL' | 'EXTERNAL';

export interface CardDetails {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly cvv: string | undefined;
  readonly holder: string | undefined;
  readonly brand: string;
}

export interface AuthorizationRequest {
  readonly paymentId: string;
  readonly paymentType: InitialPaymentType;
  readonly amountMinor: number;
  readonly currency: string;
  readonly card: CardDetails;
  /** undefined in live mode. */
  readonly testMode: TestMode | undefined;
  /** The 3-D Secure authentication (the gateway's own, or the merchant's external data passed through as sent). */
  readonly threeDSecure: Readonly<Record<string, string>> | undefined;
}

/** An asynchronous payment method's provider reports that the shopper approved the payment on its page. */
export interface RedirectPaymentRequest {
  readonly paymentId: string;
  readonly paymentType: InitialPaymentType;
  readonly amountMinor: number;
  readonly currency: string;
  readonly brand: string;
  readonly testMode: TestMode | undefined;
}

export interface BackOfficeRequest {
  readonly paymentId: string;
  readonly paymentType: BackOfficeType;
  readonly amountMinor: number;
  readonly currency: string;
  readonly referencedPaymentId: string;
  readonly testMode: TestMode | undefined;
}

export interface AcquirerAnswer {
  readonly code: string;
  readonly description: string;
  /** Bank-specific details shown as resultDetails (e.g. the acquirer's own response code). */
  readonly details: Readonly<Record<string, string>>;
}

export interface Acquirer {
  /** Name recorded on each payment, so back-office work goes to the acquirer that handled the original. */
  readonly name: string;
  authorize(request: AuthorizationRequest): Promise<AcquirerAnswer>;
  confirmRedirectPayment(request: RedirectPaymentRequest): Promise<AcquirerAnswer>;
  backOffice(request: BackOfficeRequest): Promise<AcquirerAnswer>;
}
