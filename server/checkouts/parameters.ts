import { formatAmount, parseAmount } from '../domain/money.ts';
import { findSpec } from '../params/validate.ts';
import type { ParameterError } from '../params/types.ts';

/**
 * Which parameters a checkout keeps, and how the shopper's submit is combined with them. The merchant's
 * server decides what is paid (amount, currency, type, references); the payment page contributes only the
 * card, the brand, where the shopper returns to, and SHOPPER_ custom parameters.
 */

type Params = ReadonlyMap<string, string>;

/** Credentials and per-request flags: checked on the request, never kept with the checkout. */
const NOT_STORED = /^(entityId$|authentication\.|integrity$)/;

/** Known parameters only, minus credentials: what the payment will be made with. */
export function storedParameters(params: Params): Map<string, string> {
  const stored = new Map<string, string>();
  for (const [name, value] of params) {
    if (!NOT_STORED.test(name) && findSpec(name)) stored.set(name, value);
  }
  return stored;
}

/**
 * Card data and secrets belong to the shopper's submit from the widget's hosted fields; a merchant sending
 * them to a checkout would make the gateway store them, so they are refused rather than silently dropped.
 */
export function shopperOnlyErrors(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const [name, value] of params) {
    if (name.startsWith('card.') || findSpec(name)?.spec.sensitive) {
      errors.push({ name, value, message: 'is entered by the shopper in the payment widget; it cannot be sent with a checkout' });
    }
  }
  return errors;
}

const REGISTRATION_ID = /^registrations\[(0|[1-9][0-9]*)\]\.id$/;

/** `registrations[n].id` parameters in index order: the stored cards offered as one-click payments. */
export function offeredRegistrationsOf(params: Params): { name: string; id: string }[] {
  const indexed: [number, { name: string; id: string }][] = [];
  for (const [name, value] of params) {
    const match = REGISTRATION_ID.exec(name);
    if (match) indexed.push([Number(match[1]), { name, id: value }]);
  }
  return indexed.sort((a, b) => a[0] - b[0]).map(([, entry]) => entry);
}


const CUSTOM_PARAMETER = /^customParameters\[(.*)\]$/;
/** Doc 3 §2.7: custom parameters sent from the client side of the widget must start with SHOPPER_. */
const SHOPPER_PREFIX = 'SHOPPER_';
/** What the shopper's submit decides, whatever the checkout says. */
const SHOPPER_FIELDS = /^(card\..+|paymentBrand|shopperResultUrl)$/;
/** Only the merchant's server may set these: they decide where the gateway calls, the mode, or the offer. */
const MERCHANT_ONLY = /^(notificationUrl|testMode|registrations\[.*|overridePaymentType\[.*)$/;
/** Credentials the page may repeat (legacy forms) but which never reach the payment. */
const DROPPED = /^(authentication\.(?!entityId$)|integrity$)/;

export interface ShopperSubmit {
  /** The checkout's parameters with the shopper's on top, ready for createPayment. */
  readonly merged: Map<string, string>;
  readonly errors: ParameterError[];
}

/** The payment type of the checkout for this brand (overridePaymentType[BRAND] wins). */
function effectivePaymentType(stored: Params, brand: string | undefined): string | undefined {
  const override = brand === undefined ? undefined : stored.get(`overridePaymentType[${brand}]`);
  return override ?? stored.get('paymentType');
}

function mismatch(name: string, value: string, expected: string | undefined, what: string): ParameterError {
  const message =
    expected === undefined
      ? `cannot be sent from the payment page: the checkout has no ${what}`
      : `must equal the checkout's ${what} (${expected}): it is set by the merchant's server, not by the payment page`;
  return { name, value, message };
}

/**
 * Combines the checkout's parameters with the shopper's submit. Amount, currency, payment type and entity
 * come from the checkout: the page may repeat them but not change them (amount tampering). A checkout
 * parameter the shopper also sends keeps the checkout's value, except the shopper's own fields. Anything
 * else the page sends (a merchant-injected createRegistration checkbox, recurring.numberOfInstallments)
 * is added to the payment.
 */
export function mergeShopperSubmit(stored: Params, entityId: string, submitted: Params): ShopperSubmit {
  const errors: ParameterError[] = [];
  const paymentType = effectivePaymentType(stored, submitted.get('paymentBrand'));
  const merged = new Map<string, string>();
  for (const [name, value] of stored) {
    if (!name.startsWith('overridePaymentType[')) merged.set(name, value);
  }
  if (paymentType !== undefined) merged.set('paymentType', paymentType);

  for (const [name, value] of submitted) {
    if (name === 'entityId' || name === 'authentication.entityId') {
      if (value !== entityId) errors.push(mismatch(name, value, undefined, 'entity'));
      continue;
    }
    if (name === 'amount') {
      const checkoutAmount = stored.get('amount');
      const expected = checkoutAmount === undefined ? undefined : parseAmount(checkoutAmount);
      if (expected === undefined || parseAmount(value) !== expected) {
        errors.push(mismatch(name, value, expected === undefined ? undefined : formatAmount(expected), 'amount'));
      }
      continue;
    }
    if (name === 'currency' || name === 'paymentType') {
      const expected = name === 'currency' ? stored.get('currency') : paymentType;
      if (value !== expected) errors.push(mismatch(name, value, expected, name === 'currency' ? 'currency' : 'payment type'));
      continue;
    }
    if (DROPPED.test(name)) continue;
    if (name === 'registrationId') {
      // The one-click form may pick only a stored card the merchant offered with this checkout.
      if (offeredRegistrationsOf(stored).some((offered) => offered.id === value)) merged.set(name, value);
      else errors.push({ name, value, message: 'must be one of the stored cards this checkout offers (registrations[n].id)' });
      continue;
    }
    if (MERCHANT_ONLY.test(name)) {
      errors.push({ name, value, message: "can only be set by the merchant's server, when creating or updating the checkout" });
      continue;
    }
    const customKey = CUSTOM_PARAMETER.exec(name)?.[1];
    if (customKey !== undefined && !customKey.startsWith(SHOPPER_PREFIX)) {
      errors.push({ name, value, message: `custom parameters sent from the payment page must start with ${SHOPPER_PREFIX}` });
      continue;
    }
    if (customKey !== undefined || SHOPPER_FIELDS.test(name) || !merged.has(name)) merged.set(name, value);
  }
  return { merged, errors };
}
