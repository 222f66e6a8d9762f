import type { HostedField } from '../hostedField.ts';
import type { PaymentContext } from '../payment/flow.ts';
import { loadPaymentFlow } from '../payment/state.ts';
import { postToGateway } from '../payment/pagePost.ts';

interface OneClickSubmitContext extends Omit<PaymentContext, 'errors'> {
  readonly trigger: Event | undefined;
  /** The selected card's CVV field, when wpwlOptions.registrations.requireCvv asks for the code. */
  readonly cvv: HostedField | undefined;
  /** Whether the selected card's CVV is valid (read after validation), and showing its error. */
  readonly cvvValid: () => boolean;
  readonly showCvvError: () => void;
}

/**
 * The one-click payment with the selected stored card: the form posts `registrationId` (the checked radio),
 * `paymentBrand`, `shopperResultUrl` and the merchant's children, plus the browser data. With a CVV, the
 * selected card's CVV frame posts it and adds `card.cvv` (the code never reaches this page); without, a
 * plain fetch does, as for redirect brands. The answer is handled like a card payment's.
 */
export async function submitOneClick(context: OneClickSubmitContext): Promise<void> {
  const { options, form, state, cvv } = context;
  if (state.busy) return;
  state.update({ message: undefined });
  if (cvv && options.validation) {
    await cvv.validate();
    context.showCvvError();
    if (!context.cvvValid()) return;
  }
  const flow = await loadPaymentFlow(state, options, context.texts);
  if (!flow || flow.cancelledByMerchant(options, 'onBeforeSubmitOneClickCard', form, context.trigger)) return;
  await flow.sendPayment(
    {
      ...context,
      errors: cvv ? { unsent: 'PciIframeSubmitError', failed: 'PciIframeCommunicationError' } : { unsent: 'WidgetError', failed: 'WidgetError' },
    },
    flow.formFields(form),
    (fields) => (cvv ? cvv.submit(form.action, fields) : postToGateway(form.action, fields)),
  );
}
