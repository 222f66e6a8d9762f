/**
 * What the dashboard's API answers (server/dashboard/api.ts and the pages' own API files beside it), as the app reads
 * it. Every answer is the gateway's envelope: `result`, `buildNumber`, `timestamp`, `ndc`, and the data fields at the
 * top level. The app reads defensively where the contract leaves a shape open (`{...}`): those are shown as facts.
 */

export interface ParameterError {
  readonly name: string;
  readonly value?: string;
  readonly message: string;
}

export interface ResultInfo {
  readonly code: string;
  readonly description: string;
  readonly parameterErrors?: readonly ParameterError[];
}

export interface Envelope {
  readonly result: ResultInfo;
  readonly buildNumber?: string;
  readonly timestamp?: string;
  readonly ndc?: string;
}

export interface Entity {
  readonly id: string;
  readonly name: string;
}

/** A merchant user's role (server/dashboard/users.ts): viewer reads; refunds moves money; admin manages users and webhooks. */
export type Role = 'viewer' | 'refunds' | 'admin';

export interface Principal {
  readonly kind: 'operator' | 'merchant';
  /** The operator's name, or the merchant user's e-mail address. */
  readonly name: string;
  /** A merchant user's role and merchant (entity) name. */
  readonly role?: Role;
  readonly merchant?: string;
}

/** Between the password and the session: the second factor asked, enrolled at the first sign-in. */
export interface SecondFactorStep {
  readonly step: 'enrol' | 'code';
  readonly challenge: string;
  readonly expiresAt: string;
  /** When enrolling: the new secret, as base32 text and as the otpauth:// URI an authenticator app reads. */
  readonly secret?: string;
  readonly uri?: string;
}

/** What a sign-in (or an invitation's acceptance) answers: the session, or the second factor still to give. */
export type SignInAnswer = { readonly session: Session } | { readonly secondFactor: SecondFactorStep };

export interface Session {
  readonly principal: Principal;
  readonly entities: readonly Entity[];
  readonly csrfToken: string;
  readonly expiresAt: string;
}

export type PaymentStatus = 'approved' | 'pending' | 'declined';

export interface CardShown {
  readonly bin: string;
  readonly last4Digits: string;
}

export interface PaymentRow {
  readonly id: string;
  readonly entityId: string;
  readonly shortId: string;
  readonly createdAt: string;
  readonly paymentType: string;
  readonly paymentBrand?: string;
  readonly amount: string;
  readonly currency: string;
  readonly status: PaymentStatus | string;
  /** What happened to it since (server/domain/backOffice.ts lifecycleOf): approved, partiallyCaptured, refunded, ... */
  readonly state: string;
  readonly result: ResultInfo;
  readonly merchantTransactionId?: string;
  readonly card?: CardShown;
}

/** The facts the contract leaves open (`{...}`): shown as name/value pairs, nested objects flattened. */
export type Facts = Readonly<Record<string, unknown>>;

export interface PaymentDetail extends PaymentRow {
  readonly threeDSecure?: Facts;
  readonly risk?: Facts;
  readonly smartRetry?: Facts;
  readonly resultDetails?: Facts;
  readonly descriptor?: string;
  /** What a capture, and a refund, may still take (0.00: none is accepted). */
  readonly capturableAmount: string;
  readonly refundableAmount: string;
  readonly acquirer?: string;
  readonly source?: string;
}

export interface PaymentEvent {
  readonly type: string;
  readonly action: string;
  readonly at: string;
}

export interface WebhookAttempt {
  readonly at: string;
  readonly httpStatus?: number;
  readonly error?: string;
}

export interface WebhookDelivery {
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly url: string;
  readonly status: string;
  readonly attempts: readonly WebhookAttempt[];
}

export interface OperatorAction {
  readonly who: string;
  readonly action: string;
  readonly at: string;
  readonly detail?: string | Facts;
  /** The result code of the operation it asked for. */
  readonly resultCode?: string;
}

/** An acquirer asked for the payment (more than one: a smart retry at the fallback acquirer). */
export interface AcquirerAttempt {
  readonly acquirer: string;
  readonly at: string;
  /** recorded, refused, unknown (never received), open, or awaiting the acquirer's final word. */
  readonly outcome: string;
  /** While awaiting: how often the acquirer was asked, and when it is asked next. */
  readonly inquiries?: number;
  readonly nextInquiryAt?: string;
}

export type BackOfficeAction = 'capture' | 'refund' | 'reverse';

/** What the gateway sent about a payment (test environment only): GET /test/v1/sent's items. */
export interface SentItem {
  readonly kind: 'webhook' | 'notification' | 'redirect';
  readonly at: string;
  readonly url?: string | null;
  readonly returnUrl?: string;
  readonly notification?: { readonly type: string; readonly action: string; readonly payload: unknown };
  readonly answer?: { readonly httpStatus: number | null; readonly latencyMs: number; readonly error: string | null };
  readonly call?: string;
  readonly page?: string;
  readonly outcome?: string | null;
  readonly attempts?: number;
  readonly lastError?: string | null;
}

export interface PaymentDetailAnswer {
  readonly payment: PaymentDetail;
  readonly transactions: readonly PaymentRow[];
  readonly events: readonly PaymentEvent[];
  readonly webhookAttempts: readonly WebhookDelivery[];
  readonly operatorActions: readonly OperatorAction[];
  /** In the test environment: everything sent about the payment. */
  readonly sent?: readonly SentItem[];
  /** Not in the contract; the API sends it: the smart-retry facts. */
  readonly acquirerAttempts?: readonly AcquirerAttempt[];
  readonly actions: Readonly<Record<BackOfficeAction, boolean>>;
}

export interface PaymentPage {
  readonly payments: readonly PaymentRow[];
  readonly nextCursor?: string;
}

/** How many payments the list's filters select, every page of them. */
export interface PaymentCount {
  readonly total: number;
}

/** The new payment a capture, refund or reversal made, as /v1/payments/{id} answers it. */
export interface ActionAnswer extends Envelope {
  readonly id?: string;
  readonly paymentType?: string;
  readonly amount?: string;
  readonly currency?: string;
}

/** An amount in one currency, with the number of payments it sums. */
export interface Volume {
  readonly currency: string;
  readonly amount: string;
  readonly count: number;
}

export interface PeriodFigures {
  readonly from: string;
  readonly volume: readonly Volume[];
  readonly refunds: readonly Volume[];
  readonly approvalRate: number | null;
  readonly approved: number;
  readonly declined: number;
  readonly declinesByReason: readonly { readonly code: string; readonly description: string; readonly count: number }[];
}

/** GET /dashboard/api/overview (server/dashboard/overview.ts). */
export interface Overview {
  readonly today: PeriodFigures;
  readonly last30Days: PeriodFigures;
  readonly pending: { readonly count: number; readonly oldestAt: string | null };
  readonly openChargebacks: { readonly count: number; readonly byCurrency: readonly Volume[] };
}

export interface ChargebackRow {
  readonly id: string;
  readonly shortId: string;
  readonly entityId: string;
  readonly createdAt: string;
  readonly amount: string;
  readonly currency: string;
  readonly reason: ResultInfo;
  readonly payment: { readonly id: string; readonly shortId: string; readonly merchantTransactionId?: string; readonly paymentBrand?: string };
  readonly reversed: boolean;
}

export interface ChargebackPage {
  readonly chargebacks: readonly ChargebackRow[];
  readonly nextCursor?: string;
}
