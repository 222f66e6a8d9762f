import type { Texts } from '../messages.ts';
import type { CheckoutInfo } from '../types.ts';
import { isPendingCode, isSuccessfulCode, RESULT_CLASSES, RESULT_CODE_FORMAT } from '../../shared/resultCodes.ts';

/**
 * Reading the gateway's answer to a submitted payment (the same for every payment method): a result (approved
 * or declined) for the merchant's result page, pending with a redirect to follow, or refused before any payment
 * was made, with a text for the shopper.
 */

export interface PaymentAnswer {
  /** HTTP status; 0 when the payment could not be sent. */
  readonly status: number;
  readonly body: unknown;
}

export interface Redirect {
  readonly url: string;
  /** GET when the page asks for it (a provider's page behind a connector); POST otherwise. */
  readonly method: 'GET' | 'POST';
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

/** A payment's id (COMPAT §1): what the gateway's answer carries when it recorded a payment for the submit. */
const PAYMENT_ID = /^[0-9a-f]{32}$/;

/**
 * The shopper's text for a submit the gateway refused without making a payment (COMPAT §4: form-level errors),
 * by what the shopper can still do: start again, retry, or correct the card. A declined payment never gets here:
 * it is a result, shown by the merchant's result page (outcomeOf).
 */
export function refusalMessage(refusal: Extract<Outcome, { kind: 'refused' }>, texts: Texts): string {
  // Unknown, deleted, expired or already read (server/checkouts/results.ts words it so for all of them).
  if (/no payment session/i.test(refusal.description ?? '')) return texts.error('expiredCheckout');
  const { code } = refusal;
  // Throttled, or the gateway (or a proxy before it) failed: the same submit may go through in a moment.
  if (refusal.status >= 500 || code === '800.120.100' || RESULT_CLASSES.rejectedCommunication.test(code) || RESULT_CLASSES.rejectedSystem.test(code)) {
    return texts.error('communication');
  }
  // The card typed or chosen (a stored card the checkout does not offer) was refused before reaching an acquirer.
  const cardRefused = refusal.parameters.some((name) => name.startsWith('card.') || name === 'registrationId');
  if (cardRefused || /^100\.100\./.test(code)) return texts.error('invalidCard');
  // Already paid, a payment in progress, too many declines, a parameter of the merchant's page the gateway refused.
  return texts.error('invalidCheckout');
}

/** The redirect of a pending answer, if it is one the widget can follow (an http(s) URL, name/value strings). */
export function redirectOf(body: unknown): Redirect | undefined {
  const redirect = (body as { redirect?: unknown } | null)?.redirect as { url?: unknown; method?: unknown; parameters?: unknown } | undefined;
  if (typeof redirect !== 'object' || redirect === null || typeof redirect.url !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(redirect.url);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const parameters = Array.isArray(redirect.parameters) ? redirect.parameters : [];
  const valid = parameters.every(
    (parameter: unknown) =>
      typeof parameter === 'object' && parameter !== null && typeof (parameter as { name?: unknown }).name === 'string' && typeof (parameter as { value?: unknown }).value === 'string',
  );
  return valid ? { url: url.href, method: redirect.method === 'GET' ? 'GET' : 'POST', parameters: parameters as Redirect['parameters'] } : undefined;
}

export type Outcome =
  /** The checkout has a result (approved, declined, or pending without a redirect): the merchant's page shows it. */
  | { readonly kind: 'final' }
  | { readonly kind: 'redirect'; readonly redirect: Redirect }
  /** Refused before a payment was made; `parameters` names the parameterErrors. */
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly code: string;
      readonly description: string | undefined;
      readonly parameters: readonly string[];
    }
  | { readonly kind: 'unsent' };

/**
 * How the widget tells a decline from a form-level refusal (COMPAT §4, §6): a declined payment is one the gateway
 * recorded, so its answer carries the payment's `id` (32 lowercase hex) with its rejection code, and it is a final
 * result like an approval: the browser goes to the result URL, where the merchant's server reads that decline.
 * A refusal made before any payment (expired, already paid or in progress checkout, too many declines, invalid
 * parameters: 200.300.404; throttling: 800.120.100; a gateway error) carries no `id` (server/app.ts answers those
 * with the bare envelope): the shopper stays on the form with a message. The `id` decides, not the code's class
 * or the HTTP status: a rejection code of a class the widget does not know, on a recorded payment, is still a
 * result, and a form-level refusal is never taken for one whatever its code.
 */
export function outcomeOf(answer: PaymentAnswer): Outcome {
  if (answer.status === 0) return { kind: 'unsent' };
  const body = answer.body as { id?: unknown; result?: { code?: unknown; description?: unknown; parameterErrors?: unknown } } | null;
  const result = body?.result;
  const code = typeof result?.code === 'string' ? result.code : '';
  const description = typeof result?.description === 'string' ? result.description : undefined;
  if (answer.status === 200 && isSuccessfulCode(code)) return { kind: 'final' };
  if (answer.status === 200 && isPendingCode(code)) {
    const redirect = redirectOf(answer.body);
    // Pending without a redirect: the result page tells the shopper (and the merchant reads it later).
    return redirect ? { kind: 'redirect', redirect } : { kind: 'final' };
  }
  if (typeof body?.id === 'string' && PAYMENT_ID.test(body.id) && RESULT_CODE_FORMAT.test(code)) return { kind: 'final' };
  const parameters = Array.isArray(result?.parameterErrors)
    ? result.parameterErrors.map((error: unknown) => (error as { name?: unknown } | null)?.name).filter((name): name is string => typeof name === 'string')
    : [];
  return { kind: 'refused', status: answer.status, code, description, parameters };
}

/** `<shopperResultUrl>?id=<checkoutId>&resourcePath=<resourcePath>`, where the merchant's server reads the result. */
export function resultUrl(shopperResultUrl: string, checkout: CheckoutInfo): string {
  const separator = shopperResultUrl.includes('?') ? '&' : '?';
  return `${shopperResultUrl}${separator}id=${encodeURIComponent(checkout.id)}&resourcePath=${encodeURIComponent(checkout.resourcePath)}`;
}

/** Sends the browser to `url` in `target` (wpwlOptions.shopperResultTarget; default the top window). */
export function navigate(url: string, target: string | undefined): void {
  if (target && target !== '_top' && target !== '_self') {
    window.open(url, target);
    return;
  }
  try {
    (target === '_self' ? window : window.top ?? window).location.href = url;
  } catch {
    window.location.href = url;
  }
}
