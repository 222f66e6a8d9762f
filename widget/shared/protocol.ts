/**
 * The message schema between the widget on the merchant page (parent) and its hosted-field iframes, which
 * are served from the gateway's origin and are the only place a card number or security code exists.
 *
 * Transport: window.postMessage with one exact target origin both ways (never "*"). The parent accepts a
 * message only if `event.origin` is the gateway's origin, `event.source` is that iframe's window, and the
 * channel matches; the iframe accepts only `event.source === window.parent` from the origin named in its
 * URL. Every widget instance has its own random channel id, passed in the iframe URL's hash, so several
 * forms on one page never cross-talk. The two iframes of one form talk to each other over a
 * BroadcastChannel named after the channel id: same-origin only, the merchant page cannot join it.
 *
 * Versioned: `v` is PROTOCOL_VERSION; a message of another version is ignored. Both sides are built together
 * and served under one versioned path, so a page never mixes versions; the number changes with the schema.
 *   1  card form: the number field posts the payment, asking the CVV field for its code.
 *   2  `form` in the launch data: a field belongs to a card form or to the one-click (stored cards) form. In a
 *      one-click form there is no number field: each stored card's CVV field, launched with
 *      `form: 'registration'`, posts the payment itself (the page's fields + `card.cvv`), and answers `submit`.
 *   3  the number field's `valid` is its Luhn check only: the widget checks brand and length from `bin` and
 *      `length` (the brand table stays out of the hosted-field script, which each card form loads twice).
 *
 * Launch (the iframe URL's hash): {channel, field, parentOrigin, form}   form defaults to `card`
 *
 *   parent → field
 *     configure  {field, label, placeholder, styles, autofocus, mask, cvvLength, required}  after `ready`
 *     brand      {brand, cvvLength}             the selected/detected brand (CVV length rules; 0: the brand has no
 *                                               CVV, the field takes no digits)
 *     focus      {}                             move focus into the field
 *     validate   {}                             answer with a `state` showing errors
 *     submit     {requestId, action, fields}    the field that posts the payment: the number field of a card
 *                                               form, the CVV field of a one-click form. It drops any card
 *                                               number or CVV among `fields`, adds its own card data, and posts
 *                                               only to /v1/checkouts/<id>/payment (or /registration) on its
 *                                               own origin.
 *     clear      {}                             empty the field
 *   field → parent
 *     ready      {field}                        loaded and listening
 *     state      {field, empty, valid, length, bin, showErrors}   after every change; bin only for the number;
 *                                               valid: the number passes Luhn, the CVV has the brand's length
 *     focus / blur {field}
 *     tab        {field, backwards}             Tab pressed inside: the parent moves focus on
 *     enter      {field}                        Enter pressed inside
 *     autofill   {expiryMonth, expiryYear, holder}   values the browser filled into the number frame
 *     result     {requestId, status, body}      the gateway's answer to `submit` (no card number in it)
 */

export const PROTOCOL_VERSION = 3;

/** How many first digits of the card number `state` reports as `bin`: they name the brand (no issuer range is longer). */
export const BIN_DIGITS = 6;

export type HostedFieldName = 'cardNumber' | 'cvv';

/** The form a hosted field belongs to: a card form (number + CVV) or the one-click form of stored cards (CVV alone). */
export type HostedFieldForm = 'card' | 'registration';

/** CSS properties a merchant may set inside the iframes (iframeStyles); anything else is dropped. */
export const ALLOWED_STYLE_PROPERTIES: readonly string[] = [
  'color',
  'font-family',
  'font-size',
  'font-style',
  'font-variant',
  'font-weight',
  'letter-spacing',
  'line-height',
  'text-align',
  'text-shadow',
  'padding',
  'padding-top',
  'padding-right',
  'padding-bottom',
  'padding-left',
  'opacity',
  'transition',
  'direction',
];

export type StyleMap = Readonly<Record<string, string>>;

export interface FieldConfig {
  readonly field: HostedFieldName;
  readonly label: string;
  readonly placeholder: string;
  readonly styles: StyleMap;
  readonly placeholderStyles: StyleMap;
  readonly autofocus: boolean;
  readonly mask: boolean;
  /** The card number in groups as it is typed (`wpwlOptions.numberFormatting`); unset is true. */
  readonly format?: boolean;
  readonly cvvLength: number;
  readonly required: boolean;
}

export type ParentMessage =
  | ({ type: 'configure' } & FieldConfig)
  | { type: 'brand'; brand: string; cvvLength: number }
  | { type: 'focus' }
  | { type: 'validate' }
  | { type: 'submit'; requestId: string; action: string; fields: [string, string][] }
  | { type: 'clear' };

export interface FieldState {
  readonly field: HostedFieldName;
  readonly empty: boolean;
  /** Number: passes Luhn (brand and length are the widget's check, from `bin` and `length`). CVV: the brand's length. */
  readonly valid: boolean;
  readonly length: number;
  /** First six digits of the card number once typed: not sensitive, used for brand detection. */
  readonly bin: string;
  readonly showErrors: boolean;
}

export type FieldMessage =
  | { type: 'ready'; field: HostedFieldName }
  | ({ type: 'state' } & FieldState)
  | { type: 'focus'; field: HostedFieldName }
  | { type: 'blur'; field: HostedFieldName }
  | { type: 'tab'; field: HostedFieldName; backwards: boolean }
  | { type: 'enter'; field: HostedFieldName }
  | { type: 'autofill'; expiryMonth: string; expiryYear: string; holder: string }
  | { type: 'result'; requestId: string; status: number; body: unknown };

export type Envelope<M> = M & { v: typeof PROTOCOL_VERSION; channel: string };

/** Frame → frame over the BroadcastChannel: the number frame asks the CVV frame for its value. */
export type SiblingMessage = { type: 'cvvRequest'; id: string } | { type: 'cvvValue'; id: string; value: string };

export function isEnvelope(data: unknown, channel: string): data is Envelope<{ type: string }> {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { v?: unknown }).v === PROTOCOL_VERSION &&
    (data as { channel?: unknown }).channel === channel &&
    typeof (data as { type?: unknown }).type === 'string'
  );
}

/** What the iframe URL's hash carries: `#<encoded JSON>`. */
export interface FieldLaunch {
  readonly channel: string;
  readonly field: HostedFieldName;
  readonly parentOrigin: string;
  /** Since version 2; absent means `card`. */
  readonly form?: HostedFieldForm;
}

/** The launch data in the iframe URL's hash, or undefined when it is not well-formed. */
export function parseLaunch(hash: string): Required<FieldLaunch> | undefined {
  try {
    const launch = JSON.parse(decodeURIComponent(hash.replace(/^#/, ''))) as Partial<FieldLaunch> | null;
    if (typeof launch !== 'object' || launch === null) return undefined;
    const originOk = typeof launch.parentOrigin === 'string' && /^https?:\/\/[^/]+$/.test(launch.parentOrigin);
    const fieldOk = launch.field === 'cardNumber' || launch.field === 'cvv';
    const form = launch.form ?? 'card';
    // A one-click form has no number field.
    const formOk = form === 'card' || (form === 'registration' && launch.field === 'cvv');
    if (!originOk || !fieldOk || !formOk || typeof launch.channel !== 'string' || launch.channel === '') return undefined;
    return { channel: launch.channel, field: launch.field as HostedFieldName, parentOrigin: launch.parentOrigin as string, form };
  } catch {
    return undefined;
  }
}

/** Whether this field posts the payment on `submit` (see the version notes above). */
export function postsPayment(launch: Required<FieldLaunch>): boolean {
  return launch.form === 'registration' ? launch.field === 'cvv' : launch.field === 'cardNumber';
}

/**
 * A hosted field posts card data only to a checkout's submit endpoint on its own (the gateway's) origin: `/payment`,
 * or `/registration` for a registration-only checkout.
 */
export function isPaymentTarget(action: string, fieldOrigin: string): URL | undefined {
  try {
    const target = new URL(action, fieldOrigin);
    return target.origin === fieldOrigin && /^\/v1\/checkouts\/[^/]+\/(payment|registration)$/.test(target.pathname) ? target : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The body a hosted field posts: the page's fields, without any card number or CVV the page put among them
 * (card data comes only from the fields), then the field's own card data where it is not empty.
 */
export function paymentBody(pageFields: readonly [string, string][], cardData: readonly [string, string][]): URLSearchParams {
  const body = new URLSearchParams(pageFields.filter(([name]) => !name.startsWith('card.number') && name !== 'card.cvv'));
  for (const [name, value] of cardData) if (value !== '') body.set(name, value);
  return body;
}

export function filterStyles(styles: unknown): StyleMap {
  const result: Record<string, string> = {};
  if (typeof styles !== 'object' || styles === null) return result;
  for (const [property, value] of Object.entries(styles)) {
    const name = property.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    // No url(), expression() or escapes: values that could load or run anything are dropped.
    if (ALLOWED_STYLE_PROPERTIES.includes(name) && typeof value === 'string' && !/[\\<>]|url\s*\(|expression\s*\(/i.test(value)) {
      result[name] = value;
    }
  }
  return result;
}

/**
 * What the gateway's own pages (3-D Secure challenge, provider page) post to the page around them when the shopper
 * is done (server/redirects/pages.ts). The widget accepts it only from the gateway's origin and from the window it
 * opened the redirect in (widget/app/redirect/target.ts). `v` is its own version, apart from the hosted fields'.
 */
export const REDIRECT_COMPLETE = { source: 'wpwl-gateway', type: 'redirect-complete', v: 1 } as const;

export function isRedirectComplete(data: unknown): boolean {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { source?: unknown }).source === REDIRECT_COMPLETE.source &&
    (data as { type?: unknown }).type === REDIRECT_COMPLETE.type &&
    (data as { v?: unknown }).v === REDIRECT_COMPLETE.v
  );
}
