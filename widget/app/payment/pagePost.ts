import type { PaymentFormProps, PaymentState } from '../types.ts';
import type { PaymentAnswer } from './answer.ts';
import { loadPaymentFlow } from './state.ts';

/**
 * The payments whose fields the page posts itself, with no hosted field: redirect brands, direct debit, and one-click
 * payments with a stored card when no CVV is asked for. Not in the submit path's chunk (flow.ts), which a card-only
 * page loads: the chunks of these forms import it.
 */

/** A plain POST to the gateway's checkout payment endpoint (CORS, no credentials): no card data in it. */
export async function postToGateway(action: string, fields: [string, string][]): Promise<PaymentAnswer> {
  try {
    const response = await fetch(action, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: new URLSearchParams(fields).toString(),
      credentials: 'omit',
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  } catch {
    return { status: 0, body: {} };
  }
}

/**
 * A form whose fields the page posts itself (redirect brands, direct debit): the submit path (loaded, or the shopper
 * told it could not be), the merchant's `beforeSubmit` callback, then the payment with the fields as `fieldsOf` reads
 * them from the form (the form's named controls unless given).
 */
export async function postPageForm(
  props: Pick<PaymentFormProps, 'options' | 'texts' | 'checkout' | 'shopperResultUrl'>,
  state: PaymentState,
  form: HTMLFormElement,
  trigger: Event | undefined,
  beforeSubmit: string,
  fieldsOf?: (form: HTMLFormElement, formFields: (form: HTMLFormElement) => [string, string][]) => [string, string][],
): Promise<void> {
  const flow = await loadPaymentFlow(state, props.options, props.texts);
  if (!flow || flow.cancelledByMerchant(props.options, beforeSubmit, form, trigger)) return;
  await flow.sendPayment(
    { form, options: props.options, texts: props.texts, checkout: props.checkout, shopperResultUrl: props.shopperResultUrl, state, errors: { unsent: 'WidgetError', failed: 'WidgetError' } },
    fieldsOf ? fieldsOf(form, flow.formFields) : flow.formFields(form),
    (fields) => postToGateway(form.action, fields),
  );
}
