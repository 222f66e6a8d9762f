import { invoke, reportError } from '../callbacks.ts';
import type { HostedField } from '../hostedField.ts';
import type { ErrorKey, Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import type { CheckoutInfo } from '../types.ts';
import type { FieldMessage } from '../../shared/protocol.ts';
import type { CardModel } from './model.ts';

const SUCCESS = /^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0|000\.400\.0[^3]|000\.400\.100)/;

/** Which of the shopper's texts explains a refused payment (COMPAT §8 classes); the gateway's own description is English. */
const DECLINE_MESSAGES: readonly (readonly [RegExp, ErrorKey])[] = [
  [/^800\.100\.(203|155)/, 'insufficientFunds'],
  [/^100\.100\.303/, 'cardExpired'],
  [/^(100\.100\.|800\.100\.15[137]|800\.100\.1[67])/, 'invalidCard'],
  [/^(100\.39[765])/, 'cancelled'],
  [/^(000\.400\.[1][0-9][1-9]|000\.400\.2|100\.380|100\.390)/, 'authenticationFailed'],
  [/^(900\.[1234]00|000\.400\.030)/, 'communication'],
];

function declineMessage(code: string, description: string | undefined, texts: Texts): string {
  if (code === '200.300.404' && /no payment session/i.test(description ?? '')) return texts.error('expiredCheckout');
  const key = DECLINE_MESSAGES.find(([pattern]) => pattern.test(code))?.[1] ?? 'declined';
  return texts.error(key);
}
const PENDING = /^000\.200/;
const SUBMIT_TIMEOUT_MS = 60_000;

interface SubmitContext {
  readonly form: HTMLFormElement;
  readonly trigger: Event | undefined;
  readonly model: CardModel;
  readonly options: WidgetOptions;
  readonly texts: Texts;
  readonly checkout: CheckoutInfo;
  readonly number: HostedField;
  readonly cvv: HostedField | undefined;
  readonly shopperResultUrl: string;
}

/** The event merchants' onBeforeSubmitCard receives: jQuery-like, so `return false` and preventDefault() both cancel. */
function beforeSubmitEvent(form: HTMLFormElement, original: Event | undefined) {
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

/** Asks both hosted fields for their state with errors shown, and waits (briefly) for the answers. */
function validateHostedFields(context: SubmitContext): Promise<void> {
  context.number.send({ type: 'validate' });
  context.cvv?.send({ type: 'validate' });
  return new Promise((resolve) => setTimeout(resolve, 50));
}

function resultUrl(context: SubmitContext): string {
  const separator = context.shopperResultUrl.includes('?') ? '&' : '?';
  return `${context.shopperResultUrl}${separator}id=${encodeURIComponent(context.checkout.id)}&resourcePath=${encodeURIComponent(context.checkout.resourcePath)}`;
}

function navigate(url: string, target: string | undefined): void {
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

/** Sends the form's named controls to the number frame, which adds the card data and posts the payment. */
function postThroughNumberFrame(context: SubmitContext, fields: [string, string][]): Promise<{ status: number; body: unknown }> {
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

export async function submitCard(context: SubmitContext): Promise<void> {
  const { model, options, texts, form } = context;
  if (model.busy.value) return;
  model.message.value = undefined;
  if (options.validation) {
    await validateHostedFields(context);
    model.show('cardNumber', 'expiry', 'cardHolder', 'cvv');
    if (!model.formValid.value) return;
  }
  const before = beforeSubmitEvent(form, context.trigger);
  if (invoke(options, 'onBeforeSubmitCard', form, before.event) === false || before.cancelled()) return;

  const fields = [...new FormData(form).entries()].filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  model.busy.value = true;
  try {
    const answer = await postThroughNumberFrame(context, fields);
    invoke(options, 'onAfterSubmit', form);
    const result = (answer.body as { result?: { code?: string; description?: string } } | undefined)?.result;
    const code = result?.code ?? '';
    if (answer.status === 200 && (SUCCESS.test(code) || PENDING.test(code))) {
      navigate(resultUrl(context), options.shopperResultTarget);
      return;
    }
    model.message.value = answer.status === 0 ? texts.error('communication') : declineMessage(code, result?.description, texts);
    if (answer.status === 0) reportError(options, { name: 'PciIframeSubmitError', message: 'the payment could not be sent' });
  } catch (error) {
    model.message.value = texts.error('communication');
    reportError(options, { name: 'PciIframeCommunicationError', message: String(error) });
  } finally {
    model.busy.value = false;
  }
}
