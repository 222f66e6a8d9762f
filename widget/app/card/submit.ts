import { features } from '../features.ts';
import type { HostedField } from '../hostedField.ts';
import type { PaymentContext } from '../payment/flow.ts';
import { loadPaymentFlow } from '../payment/state.ts';
import type { CardFieldName, CardModel } from './model.ts';

interface CardSubmitContext extends Omit<PaymentContext, 'errors'> {
  readonly trigger: Event | undefined;
  readonly model: CardModel;
  readonly number: HostedField;
  readonly cvv: HostedField | undefined;
}

/**
 * Validates (the hosted fields answer with their state, errors shown), asks onBeforeSubmitCard, then sends
 * the form's named controls to the number frame, which adds the card data and posts the payment.
 */
export async function submitCard(context: CardSubmitContext): Promise<void> {
  const { model, options, form, state } = context;
  if (state.busy) return;
  state.update({ message: undefined });
  if (options.validation) {
    await Promise.all([context.number.validate(), context.cvv?.validate()]);
    // Every field the form validates: the card's, and the billing address's when it shows one.
    model.show(...(Object.keys(model.validity.value) as CardFieldName[]));
    if (!model.formValid.value) return;
  }
  const flow = await loadPaymentFlow(state, options, context.texts);
  if (!flow || flow.cancelledByMerchant(options, 'onBeforeSubmitCard', form, context.trigger)) return;
  const fields = flow.formFields(form);
  // The summary page (useSummaryPage): the gateway saves the card for the merchant's server to pay (features.ts).
  if (features.saveTransactionData) fields.push(['useSummaryPage', 'true']);
  await flow.sendPayment(
    { ...context, errors: { unsent: 'PciIframeSubmitError', failed: 'PciIframeCommunicationError' } },
    fields,
    (fields) => context.number.submit(form.action, fields),
  );
}
