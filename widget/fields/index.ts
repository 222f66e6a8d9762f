import './fields.css';
import {
  filterStyles,
  isEnvelope,
  isPaymentTarget,
  parseLaunch,
  paymentBody,
  postsPayment,
  BIN_DIGITS,
  PROTOCOL_VERSION,
  type Envelope,
  type FieldConfig,
  type FieldLaunch,
  type FieldMessage,
  type ParentMessage,
  type SiblingMessage,
  type StyleMap,
} from '../shared/protocol.ts';
import { passesLuhn } from '../shared/luhn.ts';

/**
 * The hosted-field page: one card-number or CVV input living on the gateway's origin. The merchant page
 * only ever learns whether the value is empty/valid and the first six digits. In a card form the number
 * frame posts the payment itself, asking its sibling CVV frame for the code over a same-origin
 * BroadcastChannel; in the one-click form (stored cards) the CVV frame is alone and posts the payment itself.
 * Message schema: ../shared/protocol.ts.
 */

/** Groups of four, or 4-6-5 for 15-digit American Express numbers; the digits alone with `numberFormatting: false`. */
function formatNumber(digits: string, brand: string, config: FieldConfig | undefined): string {
  if (config?.format === false) return digits;
  if (brand === 'AMEX') return [digits.slice(0, 4), digits.slice(4, 10), digits.slice(10, 15)].filter(Boolean).join(' ');
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

function applyStyles(element: HTMLElement, styles: StyleMap): void {
  for (const [property, value] of Object.entries(styles)) element.style.setProperty(property, value);
}

/** Placeholder styles need a ::placeholder rule; CSSOM insertion is allowed under the page's strict CSP. */
function applyPlaceholderStyles(styles: StyleMap): void {
  const sheet = document.styleSheets[0];
  if (!sheet || Object.keys(styles).length === 0) return;
  const declarations = Object.entries(styles)
    .map(([property, value]) => `${property}:${value}`)
    .join(';');
  try {
    sheet.insertRule(`.wpwl-field::placeholder{${declarations}}`, sheet.cssRules.length);
  } catch {
    // A value the CSS parser rejects is simply not applied.
  }
}

function start(launch: Required<FieldLaunch>): void {
  const { channel, field, parentOrigin } = launch;
  const isNumber = field === 'cardNumber';
  // The two frames of a card form talk over this channel; a one-click CVV frame has no sibling.
  const siblings = launch.form === 'card' ? new BroadcastChannel(`wpwl-${channel}`) : undefined;
  const input = document.createElement('input');
  input.type = 'text';
  input.inputMode = 'numeric';
  input.className = `wpwl-field wpwl-field-${field}`;
  input.autocomplete = isNumber ? 'cc-number' : 'cc-csc';
  input.name = isNumber ? 'cardnumber' : 'cvc';
  input.spellcheck = false;
  document.body.appendChild(input);

  let config: FieldConfig | undefined;
  let brand = '';
  let cvvLength = 3;
  let touched = false;

  const send = (message: FieldMessage) =>
    window.parent.postMessage({ ...message, v: PROTOCOL_VERSION, channel } satisfies Envelope<FieldMessage>, parentOrigin);

  const digits = () => input.value.replace(/\D/g, '');
  const state = (showErrors: boolean) => {
    const value = digits();
    const valid = isNumber
      ? // The gateway's Luhn check; the widget checks brand and length from bin and length (protocol version 3).
        passesLuhn(value)
      : value.length === cvvLength || (value.length === 0 && config?.required === false);
    send({ type: 'state', field, empty: value.length === 0, valid, length: value.length, bin: isNumber && value.length >= BIN_DIGITS ? value.slice(0, BIN_DIGITS) : '', showErrors });
  };

  input.addEventListener('input', () => {
    const value = digits().slice(0, isNumber ? 19 : cvvLength);
    input.value = isNumber ? formatNumber(value, brand, config) : value;
    state(false);
  });
  input.addEventListener('focus', () => send({ type: 'focus', field }));
  input.addEventListener('blur', () => {
    touched = true;
    send({ type: 'blur', field });
    state(touched);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      send({ type: 'enter', field });
    }
  });

  if (isNumber) {
    // Browsers fill a whole card at once only into fields of one frame: these hidden companions catch the
    // expiry date and holder name, which are handed to the widget's own inputs.
    const companions = [
      ['cc-exp', 'wpwl-autofill-expiry'],
      ['cc-name', 'wpwl-autofill-holder'],
    ].map(([autocomplete, className]) => {
      const companion = document.createElement('input');
      companion.autocomplete = autocomplete as AutoFill;
      companion.className = `wpwl-autofill ${className}`;
      companion.tabIndex = -1;
      companion.setAttribute('aria-hidden', 'true');
      document.body.appendChild(companion);
      return companion;
    });
    const relayAutofill = () => {
      const [expiry, holder] = companions.map((companion) => companion.value);
      const match = /^\s*(\d{1,2})\s*[/-]?\s*(\d{2}|\d{4})\s*$/.exec(expiry ?? '');
      if (!match && !holder) return;
      send({ type: 'autofill', expiryMonth: match?.[1]?.padStart(2, '0') ?? '', expiryYear: match?.[2] ?? '', holder: holder ?? '' });
    };
    for (const companion of companions) companion.addEventListener('change', relayAutofill);
  }

  const cvvFromSibling = (): Promise<string> =>
    new Promise((resolve) => {
      if (!siblings) return resolve('');
      const id = Math.random().toString(36).slice(2);
      const timer = setTimeout(() => resolve(''), 2000);
      const onMessage = (event: MessageEvent<SiblingMessage>) => {
        if (event.data.type === 'cvvValue' && event.data.id === id) {
          clearTimeout(timer);
          siblings.removeEventListener('message', onMessage);
          resolve(event.data.value);
        }
      };
      siblings.addEventListener('message', onMessage);
      siblings.postMessage({ type: 'cvvRequest', id } satisfies SiblingMessage);
    });

  if (!isNumber && siblings) {
    siblings.addEventListener('message', (event: MessageEvent<SiblingMessage>) => {
      if (event.data.type === 'cvvRequest') siblings.postMessage({ type: 'cvvValue', id: event.data.id, value: digits() } satisfies SiblingMessage);
    });
  }

  const submit = async (message: Extract<ParentMessage, { type: 'submit' }>) => {
    // Card data goes to this gateway's checkout submit endpoint and nowhere else, whatever the page asks.
    const target = isPaymentTarget(message.action, location.origin);
    if (!target) {
      send({ type: 'result', requestId: message.requestId, status: 0, body: { error: 'refused target' } });
      return;
    }
    const cardData: [string, string][] = isNumber ? [['card.number', digits()], ['card.cvv', await cvvFromSibling()]] : [['card.cvv', digits()]];
    try {
      const response = await fetch(target.href, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body: paymentBody(message.fields, cardData),
        credentials: 'omit',
      });
      const answer: unknown = await response.json().catch(() => ({}));
      send({ type: 'result', requestId: message.requestId, status: response.status, body: answer });
    } catch {
      send({ type: 'result', requestId: message.requestId, status: 0, body: {} });
    }
  };

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== window.parent || event.origin !== parentOrigin || !isEnvelope(event.data, channel)) return;
    const message = event.data as unknown as ParentMessage;
    switch (message.type) {
      case 'configure':
        config = message;
        cvvLength = message.cvvLength;
        input.placeholder = message.placeholder;
        input.setAttribute('aria-label', message.label);
        input.type = !isNumber && message.mask ? 'password' : 'text';
        applyStyles(input, filterStyles(message.styles));
        applyPlaceholderStyles(filterStyles(message.placeholderStyles));
        if (message.autofocus) input.focus();
        break;
      case 'brand':
        brand = message.brand;
        cvvLength = message.cvvLength;
        if (isNumber) input.value = formatNumber(digits(), brand, config);
        else input.value = digits().slice(0, cvvLength);
        state(touched);
        break;
      case 'focus':
        input.focus();
        break;
      case 'validate':
        touched = true;
        state(true);
        break;
      case 'clear':
        input.value = '';
        touched = false;
        state(false);
        break;
      case 'submit':
        if (postsPayment(launch)) void submit(message);
        break;
    }
  });
  send({ type: 'ready', field });
}

const launch = parseLaunch(location.hash);
if (launch) start(launch);
