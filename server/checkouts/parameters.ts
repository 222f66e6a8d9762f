import { formatAmount, parseAmount } from '../domain/money.ts';
import { findSpec } from '../params/validate.ts';
import type { ParameterError } from '../domain/errors.ts';
import { DIRECT_DEBIT_FIELDS, isDirectDebitBrand } from '../../widget/shared/directDebit.ts';
import { isAsyncBrand } from '../../widget/shared/asyncBrands.ts';

/**
 * Which parameters a checkout keeps, and how the shopper's submit is combined with them. The merchant's
 * server decides what is paid (amount, currency, type, references, customer data); the payment page, which
 * the shopper controls, contributes only what mergeShopperSubmit lists.
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
 * them to a checkout would make the gateway store them, so they are refused rather than silently dropped. The
 * merchant's own credentials (legacy clients send authentication.userId and .password with every request) are
 * not kept in the first place, so they are no reason to refuse.
 */
export function shopperOnlyErrors(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const [name, value] of params) {
    if (NOT_STORED.test(name)) continue;
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

/**
 * What the payment page decides, whatever the checkout says: the instrument (card number and CVV come from the
 * hosted fields), the brand, where the shopper returns to (the form action), and the shopper's browser (3-D Secure).
 */
const SHOPPER_DECIDES = /^(card\.(number|cvv|holder|expiryMonth|expiryYear)|paymentBrand|shopperResultUrl|customer\.browser\.[A-Za-z]+)$/;
/**
 * Fields a shopper fills in on the payment page: the merchant's injected createRegistration checkbox and
 * installments input (COMPAT §4), and the billing address the widget asks for. They fill what the checkout left
 * empty; a value the merchant's server set on the checkout stays.
 */
const SHOPPER_FILLS_IN = /^(createRegistration|recurring\.numberOfInstallments|billing\.(street1|street2|houseNumber1|houseNumber2|city|state|postcode|country))$/;
/**
 * The bank account a shopper types into the widget's direct-debit form (holder and IBAN, widget/shared/directDebit.ts):
 * accepted with a direct-debit paymentBrand only, so a card or redirect payment cannot carry a bank account. The rest
 * of a direct debit (BIC, mandate, due date) is the merchant's server's to set on the checkout.
 */
const SHOPPER_BANK_ACCOUNT: ReadonlySet<string> = new Set(DIRECT_DEBIT_FIELDS);
/**
 * What the widget's form of an asynchronous brand asks the shopper (widget/shared/asyncBrands.ts): the bank's
 * country (Sofort, eps, POLi, ...) and, for iDEAL, the bank. Accepted with an asynchronous paymentBrand only; a value
 * the merchant's server set on the checkout stays.
 */
const SHOPPER_ASYNC_FIELDS: ReadonlySet<string> = new Set(['bankAccount.country', 'bankAccount.bankName']);
/**
 * A mobile wallet's token as the shopper's wallet made it (COMPAT §16; the widget's wallet buttons, issue 35), by the
 * wallet brand it belongs to: accepted with that paymentBrand only, so no card, redirect or other wallet's payment
 * carries it.
 */
const SHOPPER_WALLET_FIELDS: Readonly<Record<string, string>> = {
  'applePay.paymentToken': 'APPLEPAY',
  'applePay.source': 'APPLEPAY',
  'applePay.cardNetwork': 'APPLEPAY',
  'googlePay.paymentToken': 'GOOGLEPAY',
  'googlePay.source': 'GOOGLEPAY',
};
/** Checkout values a legacy page repeats: accepted when equal to the checkout's, refused otherwise. */
const REPEATED = new Set(['entityId', 'authentication.entityId', 'amount', 'currency', 'paymentType']);
/** Credentials a legacy page may repeat, which never reach the payment. */
const DROPPED = /^(authentication\.(userId|password)|integrity)$/;

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
 * Combines the checkout's parameters with the shopper's submit. The page is the shopper's, so it may send only
 * what a shopper decides (above, and the bank account of a direct debit): amount, currency, payment type and entity come from the checkout (the page may
 * repeat them, not change them); registrationId must be a stored card the checkout offers; every other parameter
 * the spec knows — references, descriptor, customer data, notificationUrl, external 3-D Secure data — is the
 * merchant's server's to set, and refused. Parameters the spec does not know (a CSRF token the merchant's form
 * carries) are ignored, as on every endpoint.
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
    if (REPEATED.has(name)) {
      const problem = repeatedValueError(name, value, stored, entityId, paymentType);
      if (problem) errors.push(problem);
      continue;
    }
    if (DROPPED.test(name)) continue;
    if (name === 'registrationId') {
      // The one-click form may pick only a stored card the merchant offered with this checkout.
      if (offeredRegistrationsOf(stored).some((offered) => offered.id === value)) merged.set(name, value);
      else errors.push({ name, value, message: 'must be one of the stored cards this checkout offers (registrations[n].id)' });
      continue;
    }
    const customKey = CUSTOM_PARAMETER.exec(name)?.[1];
    if (customKey !== undefined) {
      if (customKey.startsWith(SHOPPER_PREFIX)) merged.set(name, value);
      else errors.push({ name, value, message: `custom parameters sent from the payment page must start with ${SHOPPER_PREFIX}` });
      continue;
    }
    if (SHOPPER_ASYNC_FIELDS.has(name) && isAsyncBrand(submitted.get('paymentBrand'))) {
      if (!merged.has(name)) merged.set(name, value);
      continue;
    }
    const wallet = Object.hasOwn(SHOPPER_WALLET_FIELDS, name) ? SHOPPER_WALLET_FIELDS[name] : undefined;
    if (wallet !== undefined) {
      if (submitted.get('paymentBrand') === wallet) merged.set(name, value);
      else errors.push({ name, value, message: `can be sent from the payment page only with paymentBrand ${wallet}` });
      continue;
    }
    if (SHOPPER_BANK_ACCOUNT.has(name)) {
      if (isDirectDebitBrand(submitted.get('paymentBrand'))) merged.set(name, value);
      else errors.push({ name, value, message: 'can be sent from the payment page only with a direct-debit paymentBrand (DIRECTDEBIT_SEPA)' });
      continue;
    }
    if (SHOPPER_DECIDES.test(name)) merged.set(name, value);
    else if (SHOPPER_FILLS_IN.test(name)) {
      if (!merged.has(name)) merged.set(name, value);
    } else if (findSpec(name)) {
      errors.push({ name, value, message: "cannot be sent from the payment page: only the merchant's server sets it, on the checkout" });
    }
  }
  return { merged, errors };
}

/** A checkout value the page repeated: undefined when it equals the checkout's. */
function repeatedValueError(
  name: string,
  value: string,
  stored: Params,
  entityId: string,
  paymentType: string | undefined,
): ParameterError | undefined {
  switch (name) {
    case 'entityId':
    case 'authentication.entityId':
      return value === entityId ? undefined : mismatch(name, value, undefined, 'entity');
    case 'amount': {
      const checkoutAmount = stored.get('amount');
      const expected = checkoutAmount === undefined ? undefined : parseAmount(checkoutAmount);
      if (expected !== undefined && parseAmount(value) === expected) return undefined;
      return mismatch(name, value, expected === undefined ? undefined : formatAmount(expected), 'amount');
    }
    case 'currency':
      return value === stored.get('currency') ? undefined : mismatch(name, value, stored.get('currency'), 'currency');
    default:
      return value === paymentType ? undefined : mismatch(name, value, paymentType, 'payment type');
  }
}
