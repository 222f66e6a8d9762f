import { successResultOf } from '../domain/resultCodes.ts';
import type { WebhookFields } from './repository.ts';

/**
 * What a webhook notification says (COMPAT §13), before it is encrypted: `{type, action, payload}`, the payload the
 * resource as its event recorded it (payments/view.ts paymentSnapshot, registrations/storedCards.ts), with the fields
 * notifications add, and without customer data for a webhook that asked for NON_CUSTOMER_DATA.
 */

export interface NotificationEvent {
  readonly type: string;
  readonly action: string;
  readonly entityId: string;
  readonly payload: Record<string, unknown>;
}

/** NON_CUSTOMER_DATA drops who the shopper is: customer, billing and shipping data, and the card's holder. */
function withoutCustomerData(payload: Record<string, unknown>): Record<string, unknown> {
  const { customer: _customer, billing: _billing, shipping: _shipping, ...rest } = payload;
  const card = rest.card as Record<string, unknown> | undefined;
  if (card && typeof card === 'object') {
    const { holder: _holder, ...cardWithoutHolder } = card;
    return { ...rest, card: cardWithoutHolder };
  }
  return rest;
}

/** The payload of a notification of `event`: a REGISTRATION names its entity and its transaction type (RG, DR). */
function payloadOf(event: NotificationEvent): Record<string, unknown> {
  if (event.type !== 'REGISTRATION') return event.payload;
  return { ...event.payload, authentication: { entityId: event.entityId }, paymentType: event.action === 'DELETED' ? 'DR' : 'RG' };
}

/** The plaintext of the notification of `event` to a webhook with `fields`. */
export function notificationPlaintext(event: NotificationEvent, fields: WebhookFields): string {
  const payload = payloadOf(event);
  return JSON.stringify({ type: event.type, action: event.action, payload: fields === 'NON_CUSTOMER_DATA' ? withoutCustomerData(payload) : payload });
}

/** COMPAT §13: the message a webhook must answer with a 2xx before it becomes active (and the operator's test). */
export function activationPlaintext(testMode: 'INTERNAL' | undefined): string {
  const result = successResultOf(testMode);
  return JSON.stringify({ type: 'test', action: 'webhook activation', payload: { result: { code: result.code, description: result.description } } });
}
