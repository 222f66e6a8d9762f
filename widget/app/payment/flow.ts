import { invoke, reportError, type WidgetErrorInfo } from '../callbacks.ts';
import { features } from '../features.ts';
import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import type { CheckoutInfo, PaymentState } from '../types.ts';
import { navigate, outcomeOf, refusalMessage, resultUrl, type PaymentAnswer } from './answer.ts';
import { withBrowserData } from './browser.ts';

/**
 * What every payment form does once its fields are ready, whatever the method: ask the merchant's
 * onBeforeSubmit* callback, send the payment (each form has its own transport: the card-number frame for cards,
 * a plain fetch for redirect brands and direct debit), call onAfterSubmit, then go to the result page (approved
 * or declined), follow the redirect (3-D Secure, provider page) or show why the submit was refused.
 *
 * A chunk of its own, loaded after the forms are shown (state.ts paymentFlow): no form needs it to render.
 */

export interface PaymentContext {
  readonly form: HTMLFormElement;
  readonly options: WidgetOptions;
  readonly texts: Texts;
  readonly checkout: CheckoutInfo;
  readonly shopperResultUrl: string;
  readonly state: PaymentState;
  /** onError names for a payment that could not be sent, and for a transport that failed. */
  readonly errors: { readonly unsent: WidgetErrorInfo['name']; readonly failed: WidgetErrorInfo['name'] };
}

/** The event merchants' onBeforeSubmit* callbacks receive: jQuery-like, so `return false` and preventDefault() both cancel. */
export function beforeSubmitEvent(form: HTMLFormElement, original: Event | undefined) {
  let cancelled = false;
  return {
    event: {
      type: 'submit',
      target: form,
      currentTarget: form,
      originalEvent: original,
      preventDefault() {
        cancelled = true;
      },
      isDefaultPrevented: () => cancelled,
      stopPropagation() {},
    },
    cancelled: () => cancelled,
  };
}

/** Calls the form's onBeforeSubmit* callback; true when the merchant cancelled the submit. */
export function cancelledByMerchant(options: WidgetOptions, callback: string, form: HTMLFormElement, trigger: Event | undefined): boolean {
  const before = beforeSubmitEvent(form, trigger);
  return invoke(options, callback, form, before.event) === false || before.cancelled();
}

/** Every named control of the form with a text value (merchant-injected ones too). */
export function formFields(form: HTMLFormElement): [string, string][] {
  return [...new FormData(form).entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

export async function sendPayment(
  context: PaymentContext,
  fields: readonly [string, string][],
  send: (fields: [string, string][]) => Promise<PaymentAnswer>,
): Promise<void> {
  const { state, options, texts } = context;
  if (state.busy) return;
  state.update({ busy: true, message: undefined });
  let redirecting = false;
  try {
    // Fast checkout: a page loaded without a checkout creates it now (features.ensureCheckout; false: nothing is paid).
    if (!context.checkout.id && !(await features.ensureCheckout?.(context.checkout, context.form, {}))) return;
    const answer = await send(withBrowserData(fields));
    invoke(options, 'onAfterSubmit', context.form);
    // The summary page (features.saveTransactionData): the card was saved, not paid; the merchant takes it from here.
    if (answer.status === 200 && features.saveTransactionData?.(answer.body, options)) return;
    const outcome = outcomeOf(answer);
    const toResult = () => navigate(resultUrl(context.shopperResultUrl, context.checkout), options.shopperResultTarget);
    switch (outcome.kind) {
      case 'final':
        toResult();
        break;
      case 'redirect':
        // The redirect code (3-D Secure frame, provider page) is a chunk of its own, loaded when a payment needs it.
        (await import('../redirect/target.ts')).openRedirect({ options, texts, checkout: context.checkout, state }, outcome.redirect, toResult);
        // The form stays busy while the shopper is on the challenge or provider page.
        redirecting = true;
        break;
      case 'refused':
        state.update({ message: refusalMessage(outcome, texts) });
        break;
      case 'unsent':
        state.update({ message: texts.error('communication') });
        reportError(options, { name: context.errors.unsent, message: 'the payment could not be sent' });
        break;
    }
  } catch (error) {
    state.update({ message: texts.error('communication') });
    reportError(options, { name: context.errors.failed, message: String(error) });
  } finally {
    if (!redirecting) state.update({ busy: false });
  }
}
