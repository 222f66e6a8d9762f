import {
  isEnvelope,
  PROTOCOL_VERSION,
  type FieldConfig,
  type FieldLaunch,
  type FieldMessage,
  type HostedFieldForm,
  type HostedFieldName,
  type ParentMessage,
  type StyleMap,
} from '../shared/protocol.ts';
import { invoke } from './callbacks.ts';
import { stringValues, type WidgetOptions } from './options.ts';
import type { PaymentAnswer } from './payment/answer.ts';
import { randomChannel } from './random.ts';

/**
 * The merchant-page side of one hosted field: the iframe on the gateway's origin and its message channel
 * (schema in ../shared/protocol.ts). Messages are posted to the gateway's origin only, and accepted only
 * from this iframe's window, from that origin, on this channel. Every form's fields tell the merchant's
 * callbacks alike: readiness, focus and blur (IFRAME_CALLBACKS), and Enter submits the form.
 */

/**
 * A merchant's iframeStyles entry as the field is sent it: its string values only (anything else cannot be posted).
 * The field itself keeps the allowed properties and values (shared/protocol.ts filterStyles): it trusts no page.
 */
export const postableStyles: (styles: unknown) => StyleMap = stringValues;

export interface HostedField {
  readonly field: HostedFieldName;
  readonly iframe: HTMLIFrameElement;
  send(message: ParentMessage): void;
  /** Asks the field for its state with errors shown; resolves once that state has arrived (or after a while). */
  validate(): Promise<void>;
  /**
   * Has the field post the payment (the number field of a card form, the CVV field of a one-click form):
   * it adds its card data to `fields` and answers with the gateway's answer.
   */
  submit(action: string, fields: [string, string][]): Promise<PaymentAnswer>;
  destroy(): void;
}

const VALIDATE_TIMEOUT_MS = 2_000;
const SUBMIT_TIMEOUT_MS = 60_000;

/** The merchant callbacks a hosted field's messages call, whatever the form (`this`: the iframe, with `this.$iframe`). */
const IFRAME_CALLBACKS: Partial<Record<FieldMessage['type'], string>> = {
  ready: 'onReadyIframeCommunication',
  focus: 'onFocusIframeCommunication',
  blur: 'onBlurIframeCommunication',
};

export function attachHostedField(
  iframe: HTMLIFrameElement,
  setup: {
    field: HostedFieldName;
    /** The form the field belongs to; `card` unless given. */
    form?: HostedFieldForm;
    channel: string;
    staticBaseUrl: string;
    config: () => FieldConfig;
    /** The merchant's callbacks (IFRAME_CALLBACKS) and whether Enter in the field submits the form. */
    options: WidgetOptions;
    /** The form's submit: Enter in the field calls it unless wpwlOptions.disableSubmitOnEnter. */
    submit: () => void;
    /** What the form makes of the field's messages, after the merchant's callbacks. */
    onMessage: (message: FieldMessage) => void;
  },
): HostedField {
  const gatewayOrigin = new URL(setup.staticBaseUrl, location.href).origin;
  const launch: FieldLaunch = { channel: setup.channel, field: setup.field, parentOrigin: location.origin, form: setup.form ?? 'card' };
  let ready = false;
  const queue: ParentMessage[] = [];
  /** Waiting for a state with errors shown (validate). */
  const validations = new Set<() => void>();
  /** Waiting for the answer to a submit, by request id. */
  const submits = new Map<string, (answer: PaymentAnswer) => void>();

  const post = (message: ParentMessage) =>
    iframe.contentWindow?.postMessage({ ...message, v: PROTOCOL_VERSION, channel: setup.channel }, gatewayOrigin);
  const send = (message: ParentMessage) => {
    if (ready) post(message);
    else queue.push(message);
  };

  const onWindowMessage = (event: MessageEvent) => {
    if (event.origin !== gatewayOrigin || event.source !== iframe.contentWindow || !isEnvelope(event.data, setup.channel)) return;
    const message = event.data as unknown as FieldMessage;
    if (message.type === 'ready') {
      ready = true;
      post({ type: 'configure', ...setup.config() });
      for (const pending of queue.splice(0)) post(pending);
    }
    if (message.type === 'result') {
      submits.get(message.requestId)?.({ status: message.status, body: message.body });
      return;
    }
    const callback = IFRAME_CALLBACKS[message.type];
    if (callback) invoke(setup.options, callback, iframe);
    if (message.type === 'enter' && !setup.options.disableSubmitOnEnter) setup.submit();
    setup.onMessage(message);
    if (message.type === 'state' && message.showErrors) for (const done of [...validations]) done();
  };
  window.addEventListener('message', onWindowMessage);
  iframe.src = `${setup.staticBaseUrl}/fields.html#${encodeURIComponent(JSON.stringify(launch))}`;

  return {
    field: setup.field,
    iframe,
    send,
    validate() {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          validations.delete(done);
          resolve();
        };
        const timer = setTimeout(done, VALIDATE_TIMEOUT_MS);
        validations.add(done);
        send({ type: 'validate' });
      });
    },
    submit(action, fields) {
      const requestId = randomChannel();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          submits.delete(requestId);
          reject(new Error(`no answer from the ${setup.field} field`));
        }, SUBMIT_TIMEOUT_MS);
        submits.set(requestId, (answer) => {
          clearTimeout(timer);
          submits.delete(requestId);
          resolve(answer);
        });
        send({ type: 'submit', requestId, action, fields });
      });
    },
    destroy() {
      window.removeEventListener('message', onWindowMessage);
    },
  };
}
