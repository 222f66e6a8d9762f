import { reportError } from '../callbacks.ts';
import { readOptions } from '../options.ts';
import type { CheckoutInfo } from '../types.ts';

/**
 * Fast checkout (wpwlOptions.createCheckout on a page loaded without a checkout id, as the platform documents it for
 * wallet buttons on a product or cart page): when the shopper pays — a wallet approved its sheet, the card form was
 * submitted — the merchant's function is called with what the payment knows (`paymentBrand`, and a wallet's contact and
 * shipping data the merchant asked for) and gives the checkout's id, or a promise (any thenable: a jQuery one too) of
 * it. The id then fills the widget's checkout (shared by every form of the page: a second try pays the same checkout),
 * `wpwl.checkout`, and the action of every form still posting to none. A function that throws, rejects or gives no id
 * reaches onError as a WidgetError saying so, and nothing is paid.
 */

/** A checkout id as the gateway makes them (32 hex and a cluster suffix); anything id-like is let through to it. */
const CHECKOUT_ID = /^[0-9A-Za-z.-]{1,64}$/;

let creating: Promise<string | undefined> | undefined;

async function createdId(json: Record<string, unknown>): Promise<string | undefined> {
  const options = readOptions();
  const create = options.raw.createCheckout;
  const fail = (why: string) => {
    reportError(options, { name: 'WidgetError', message: `createCheckout ${why}: nothing was paid` });
    return undefined;
  };
  if (typeof create !== 'function') return fail('is not a function');
  let id: unknown;
  try {
    id = await Promise.resolve((create as (json: Record<string, unknown>) => unknown)(json));
  } catch (error) {
    return fail(`failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof id !== 'string' || !CHECKOUT_ID.test(id)) return fail('gave no checkout id');
  return id;
}

export async function ensureCheckout(checkout: CheckoutInfo, form: HTMLFormElement, json: Record<string, unknown>): Promise<boolean> {
  if (checkout.id !== '') return true;
  // Two forms paid at once (a double click on a wallet and the card form) wait for one checkout.
  // The form's brand unless the caller knows more (a wallet: its brand and the shopper's data).
  creating ??= createdId({ paymentBrand: new FormData(form).get('paymentBrand') ?? undefined, ...json }).finally(() => (creating = undefined));
  const id = await creating;
  if (id === undefined) return checkout.id !== '';
  if (checkout.id === '') {
    const resourcePath = `/v1/checkouts/${id}/payment`;
    Object.assign(checkout as { id: string; resourcePath: string }, { id, resourcePath });
    const wpwl = (window as { wpwl?: { checkout?: unknown } }).wpwl;
    if (wpwl && !wpwl.checkout) wpwl.checkout = { id, resourcePath };
    // Every form of the widget posted to the gateway's bare URL until now (index.tsx: the placeholder's empty path).
    for (const other of document.querySelectorAll<HTMLFormElement>('form.wpwl-form')) {
      if (other === form || other.getAttribute('action') === checkout.gatewayUrl) other.setAttribute('action', `${checkout.gatewayUrl}${resourcePath}`);
    }
  }
  return true;
}
