import type { ErrorKey, Texts } from '../messages.ts';
import type { CheckoutInfo } from '../types.ts';
import { isPendingCode, isSuccessfulCode, RESULT_CLASSES } from '../../shared/resultCodes.ts';

/**
 * Reading the gateway's answer to a submitted payment (the same for every payment method): approved,
 * pending with a redirect to follow, or refused with a text for the shopper.
 */

export interface PaymentAnswer {
  /** HTTP status; 0 when the payment could not be sent. */
  readonly status: number;
  readonly body: unknown;
}

export interface Redirect {
  readonly url: string;
  readonly parameters: readonly { readonly name: string; readonly value: string }[];
}

/**
 * Which of the shopper's texts explains a refused payment: a few codes of their own, then the COMPAT §8 classes
 * (shared/resultCodes.ts). The gateway's own description is English.
 */
const DECLINE_MESSAGES: readonly (readonly [RegExp, ErrorKey])[] = [
  [/^800\.100\.(203|155)/, 'insufficientFunds'],
  [/^100\.100\.303/, 'cardExpired'],
  [/^(100\.100\.|800\.100\.15[137]|800\.100\.1[67])/, 'invalidCard'],
  [RESULT_CLASSES.rejectedAsync, 'cancelled'],
  [RESULT_CLASSES.rejectedThreeDSecureOrRisk, 'authenticationFailed'],
  // Failed or impossible 3-D Secure authentication (100.380.x, 100.390.x).
  [/^(100\.380|100\.390)/, 'authenticationFailed'],
  [RESULT_CLASSES.rejectedCommunication, 'communication'],
];

export function declineMessage(code: string, description: string | undefined, texts: Texts): string {
  if (code === '200.300.404' && /no payment session/i.test(description ?? '')) return texts.error('expiredCheckout');
  const key = DECLINE_MESSAGES.find(([pattern]) => pattern.test(code))?.[1] ?? 'declined';
  return texts.error(key);
}

/** The redirect of a pending answer, if it is one the widget can follow (an http(s) URL, name/value strings). */
export function redirectOf(body: unknown): Redirect | undefined {
  const redirect = (body as { redirect?: unknown } | null)?.redirect as { url?: unknown; parameters?: unknown } | undefined;
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
  return valid ? { url: url.href, parameters: parameters as Redirect['parameters'] } : undefined;
}

export type Outcome =
  | { readonly kind: 'final' }
  | { readonly kind: 'redirect'; readonly redirect: Redirect }
  | { readonly kind: 'refused'; readonly code: string; readonly description: string | undefined }
  | { readonly kind: 'unsent' };

export function outcomeOf(answer: PaymentAnswer): Outcome {
  if (answer.status === 0) return { kind: 'unsent' };
  const result = (answer.body as { result?: { code?: unknown; description?: unknown } } | null)?.result;
  const code = typeof result?.code === 'string' ? result.code : '';
  const description = typeof result?.description === 'string' ? result.description : undefined;
  if (answer.status === 200 && isSuccessfulCode(code)) return { kind: 'final' };
  if (answer.status === 200 && isPendingCode(code)) {
    const redirect = redirectOf(answer.body);
    // Pending without a redirect: the result page tells the shopper (and the merchant reads it later).
    return redirect ? { kind: 'redirect', redirect } : { kind: 'final' };
  }
  return { kind: 'refused', code, description };
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
