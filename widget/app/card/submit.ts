import type { HostedField } from '../hostedField.ts';
import type { PaymentAnswer } from '../payment/answer.ts';
import { cancelledByMerchant, formFields, sendPayment, type PaymentContext } from '../payment/flow.ts';
import type { FieldMessage } from '../../shared/protocol.ts';
import type { CardModel } from './model.ts';

const SUBMIT_TIMEOUT_MS = 60_000;

interface CardSubmitContext extends Omit<PaymentContext, 'errors'> {
  readonly trigger: Event | undefined;
  readonly model: CardModel;
  readonly number: HostedField;
  readonly cvv: HostedField | undefined;
}

/** Asks both hosted fields for their state with errors shown, and waits (briefly) for the answers. */
function validateHostedFields(context: CardSubmitContext): Promise<void> {
  context.number.send({ type: 'validate' });
  context.cvv?.send({ type: 'validate' });
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/** Sends the form's named controls to the number frame, which adds the card data and posts the payment. */
function postThroughNumberFrame(context: CardSubmitContext, fields: [string, string][]): Promise<PaymentAnswer> {
  const requestId = Math.random().toString(36).slice(2);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      window.removeEventListener('message', onMessage);
      reject(new Error('no answer from the card number field'));
    }, SUBMIT_TIMEOUT_MS);
    const onMessage = (event: MessageEvent) => {
      if (event.source !== context.number.iframe.contentWindow) return;
      const message = event.data as FieldMessage;
      if (message?.type === 'result' && message.requestId === requestId) {
        clearTimeout(timer);
        window.removeEventListener('message', onMessage);
        resolve({ status: message.status, body: message.body });
      }
    };
    window.addEventListener('message', onMessage);
    context.number.send({ type: 'submit', requestId, action: context.form.action, fields });
  });
}

export async function submitCard(context: CardSubmitContext): Promise<void> {
  const { model, options, form, state } = context;
  if (state.busy.value) return;
  state.message.value = undefined;
  if (options.validation) {
    await validateHostedFields(context);
    model.show('cardNumber', 'expiry', 'cardHolder', 'cvv');
    if (!model.formValid.value) return;
  }
  if (cancelledByMerchant(options, 'onBeforeSubmitCard', form, context.trigger)) return;
  await sendPayment(
    { ...context, errors: { unsent: 'PciIframeSubmitError', failed: 'PciIframeCommunicationError' } },
    formFields(form),
    (fields) => postThroughNumberFrame(context, fields),
  );
}
