import { api, segment } from './api.ts';
import type { Envelope } from './types.ts';

/**
 * The endpoints of the registrations, schedules and webhooks pages (server/dashboard/recordsApi.ts), and what they
 * answer. A merchant sees and acts for its own entities only; an operator for every entity. No answer carries a card
 * number (BIN and last 4 only) or an IBAN in clear; a webhook's secret only the answer that generated it.
 */

export interface StoredCard {
  readonly bin: string;
  readonly last4Digits: string;
  readonly holder?: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

export interface StoredBankAccount {
  readonly holder?: string;
  /** Masked: the first 6 and last 4 characters. */
  readonly iban: string;
  readonly bic?: string;
  readonly country?: string;
  readonly mandateId?: string;
}

export type RegistrationStatus = 'active' | 'deleted' | 'expired';

export interface Registration {
  readonly id: string;
  readonly entityId: string;
  readonly paymentBrand: string;
  readonly card?: StoredCard;
  readonly bankAccount?: StoredBankAccount;
  readonly status: RegistrationStatus;
  readonly merchantTransactionId?: string;
  readonly createdAt: string;
  readonly lastUsedAt: string;
  /** When it expires (not deleted ones). */
  readonly expiresAt?: string;
  readonly deletedAt?: string;
}

export interface RegistrationPage extends Envelope {
  readonly registrations: readonly Registration[];
  readonly nextCursor?: string;
}

export type ScheduleStatus = 'active' | 'cancelled' | 'ended';
export const SCHEDULE_STATUSES: readonly ScheduleStatus[] = ['active', 'cancelled', 'ended'];

export interface ScheduleJob {
  readonly second: string;
  readonly minute: string;
  readonly hour: string;
  readonly dayOfMonth: string;
  readonly month: string;
  readonly dayOfWeek: string;
  readonly year: string;
  readonly expression: string;
  /** job.name and the other optional fields, as the merchant sent them. */
  readonly name?: string;
  readonly [extra: string]: string | undefined;
}

export interface Schedule {
  readonly id: string;
  readonly entityId: string;
  readonly registrationId: string;
  readonly registration?: { readonly paymentBrand: string; readonly card?: { readonly bin: string; readonly last4Digits: string }; readonly bankAccount?: { readonly iban: string }; readonly deleted: boolean };
  readonly status: ScheduleStatus;
  readonly paymentType: string;
  readonly amount: string;
  readonly currency: string;
  readonly merchantTransactionId?: string;
  readonly job: ScheduleJob;
  readonly nextFireAt?: string;
  readonly startAt: string;
  readonly endAt?: string;
  readonly createdAt: string;
  readonly cancelledAt?: string;
  readonly cancelReason?: string;
  readonly endedAt?: string;
}

export interface SchedulePage extends Envelope {
  readonly schedules: readonly Schedule[];
  readonly nextCursor?: string;
}

export const NOTIFICATION_TYPES = ['PAYMENT', 'REGISTRATION', 'SCHEDULE', 'RISK'] as const;

export interface Webhook {
  readonly id: string;
  readonly entityId: string;
  readonly url: string;
  readonly types: readonly string[];
  readonly fields: 'ALL' | 'NON_CUSTOMER_DATA';
  readonly wrapper: 'NONE' | 'JSON';
  readonly status: 'pending' | 'active' | 'inactive';
  readonly statusReason: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What sending the activation (test) message gave. */
export interface Activation {
  readonly delivered: boolean;
  readonly httpStatus: number | null;
  readonly error: string | null;
}

export interface WebhookAnswer extends Envelope {
  readonly webhook: Webhook;
  readonly activation: Activation;
}

/** A new webhook: the secret the gateway generated when none was given, answered this once. */
export interface NewWebhookAnswer extends WebhookAnswer {
  readonly secret?: string;
}

/** What can change of a webhook (each left out stays); `active` false switches it off, true on again. */
export interface WebhookChanges {
  readonly url?: string;
  readonly types?: readonly string[];
  readonly fields?: string;
  readonly wrapper?: string;
  readonly active?: boolean;
}

/** A change: the activation message's outcome when one was sent (a new URL, switched on again), else null. */
export interface ChangedWebhookAnswer extends Envelope {
  readonly webhook: Webhook;
  readonly activation: Activation | null;
}

export interface DeliveryAttempt {
  readonly attemptedAt: string;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

export interface Delivery {
  readonly id: string;
  readonly eventId: number;
  readonly type: string;
  readonly action: string;
  readonly resourceId: string;
  readonly state: 'delivered' | 'given up' | 'pending';
  readonly createdAt: string;
  readonly deliveredAt: string | null;
  readonly givenUpAt: string | null;
  readonly attempts: readonly DeliveryAttempt[];
}

export interface RecordedAction {
  readonly who: string;
  readonly action: string;
  readonly at: string;
  readonly detail: Readonly<Record<string, unknown>>;
  readonly resultCode?: string;
}

export interface DeliveriesAnswer extends Envelope {
  readonly webhook: Webhook;
  readonly deliveries: readonly Delivery[];
  readonly actions: readonly RecordedAction[];
}

export interface NewWebhook {
  readonly entityId: string;
  readonly url: string;
  readonly types: readonly string[];
  readonly fields: string;
  readonly wrapper: string;
  /** Write-only: sent, never shown again. Left out: the gateway generates one, answered once (NewWebhookAnswer). */
  readonly secret?: string;
}

type ListQuery = Readonly<Record<string, string | undefined>>;

export const registrationsApi = {
  list: (query: ListQuery, signal?: AbortSignal) => api.get<RegistrationPage>('/registrations', query, signal),
  /** As DELETE /v1/registrations/{id}: the card erased, its schedules cancelled. */
  remove: (id: string) => api.delete<Envelope & { registration: Registration; deregistrationId: string }>(`/registrations/${segment(id)}`),
};

export const schedulesApi = {
  list: (query: ListQuery, signal?: AbortSignal) => api.get<SchedulePage>('/schedules', query, signal),
  cancel: (id: string) => api.post<Envelope & { schedule: Schedule }>(`/schedules/${segment(id)}/cancel`),
};

export const webhooksApi = {
  list: (query: ListQuery, signal?: AbortSignal) => api.get<Envelope & { webhooks: readonly Webhook[] }>('/webhooks', query, signal),
  create: (webhook: NewWebhook) => api.post<NewWebhookAnswer>('/webhooks', webhook),
  change: (id: string, changes: WebhookChanges) => api.patch<ChangedWebhookAnswer>(`/webhooks/${segment(id)}`, changes),
  remove: (id: string) => api.delete<Envelope & { webhook: Webhook }>(`/webhooks/${segment(id)}`),
  test: (id: string) => api.post<WebhookAnswer>(`/webhooks/${segment(id)}/test`),
  deliveries: (id: string, signal?: AbortSignal) => api.get<DeliveriesAnswer>(`/webhooks/${segment(id)}/deliveries`, undefined, signal),
  resend: (deliveryId: string) => api.post<Envelope & { deliveryId: string; webhookId: string; resend: 'scheduled' }>(`/deliveries/${segment(deliveryId)}/resend`),
};
