import type { HostedField } from '../hostedField.ts';
import { cancelledByMerchant, formFields, sendPayment, type PaymentContext } from '../payment/flow.ts';
import type { CardModel } from './model.ts';

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
  if (state.busy.value) return;
  state.message.value = undefined;
  if (options.validation) {
    await Promise.all([context.number.validate(), context.cvv?.validate()]);
    model.show('cardNumber', 'expiry', 'cardHolder', 'cvv');
    if (!model.formValid.value) return;
  }
  if (cancelledByMerchant(options, 'onBeforeSubmitCard', form, context.trigger)) return;
  await sendPayment(
    { ...context, errors: { unsent: 'PciIframeSubmitError', failed: 'PciIframeCommunicationError' } },
    formFields(form),
    (fields) => context.number.submit(form.action, fields),
  );
}
