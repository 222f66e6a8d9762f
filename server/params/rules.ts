/**
 * The cross-field rules of the spec: requirements that depend on other parameters or on the operation.
 * Each rule reports the parameters it finds at fault with the value as sent (the validator masks sensitive
 * values). A rule does not re-check formats: the catalogue has done that.
 */
import { isAsyncBrand } from '../../widget/shared/asyncBrands.ts';
import { isCardBrand } from '../../widget/shared/cards.ts';
import { cvvAsked } from '../domain/cards.ts';
import { isWalletBrand, WALLET_TOKEN_PARAMETERS } from '../domain/instrumentBrands.ts';
import { checkHttpUrl } from '../domain/urls.ts';
import { anyWithPrefix, brandCode, isTrue } from './values.ts';
import type { CrossFieldRule, Operation } from './types.ts';
import type { ParameterError } from '../domain/errors.ts';

type Params = ReadonlyMap<string, string>;

function missing(name: string, message: string): ParameterError {
  return { name, value: '', message };
}

/** Both or neither of two parameters. */
function pair(params: Params, first: string, second: string): ParameterError[] {
  const a = params.get(first);
  const b = params.get(second);
  if (a !== undefined && b === undefined) return [missing(second, `is required when ${first} is sent`)];
  if (b !== undefined && a === undefined) return [missing(first, `is required when ${second} is sent`)];
  return [];
}

const ADDRESS_PREFIXES = ['billing', 'shipping', 'merchant.billing', 'merchant.shipping'];
const CUSTOMER_PREFIXES = ['customer', 'shipping.customer'];

// ---------------------------------------------------------------------------------------------------------------

/**
 * Data about the customer as a person, which comes with their name. Technical data about their connection (ip,
 * browser.*, browserFingerprint.*, app.*) and the merchant's own references do not: the widget sends browser data
 * with every payment for 3-D Secure, and real clients send customer.ip alone, which the platform accepts.
 */
const IDENTITY = /^(shipping\.)?customer\.(givenName|surname|middleName|sex|birthDate|phone|mobile|workPhone|email|companyName|identificationDocType|identificationDocId|salutation)$/;

/**
 * Doc 2 §2.9/§2.10: givenName and surname are required when any other customer (or shipping customer) data about
 * the person is sent.
 */
function customerNames(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  const personal = [...params.keys()].filter((name) => IDENTITY.test(name));
  for (const prefix of CUSTOMER_PREFIXES) {
    for (const name of [`${prefix}.givenName`, `${prefix}.surname`]) {
      if (!params.has(name) && personal.some((sent) => sent.startsWith(`${prefix}.`))) {
        errors.push(missing(name, `is required when other ${prefix}.* parameters are sent`));
      }
    }
  }
  return errors;
}

/** Doc 2 §2.9: identificationDocType and identificationDocId are sent together. */
function identificationDocument(params: Params): ParameterError[] {
  return CUSTOMER_PREFIXES.flatMap((prefix) =>
    pair(params, `${prefix}.identificationDocType`, `${prefix}.identificationDocId`),
  );
}

/**
 * An asynchronous brand names the shopper's bank at most (SOFORTUEBERWEISUNG with bankAccount.country alone, as the
 * platform's own examples send it): the account itself is chosen on the provider's page, or is the merchant's.
 */
function paysOnProviderPage(params: Params): boolean {
  return isAsyncBrand(params.get('paymentBrand'));
}

/** Doc 2 §2.7: with bank account data, number or iban is required, and with a number bankCode or bic. */
function bankAccountIdentifiers(params: Params): ParameterError[] {
  if (!anyWithPrefix(params, 'bankAccount.') || paysOnProviderPage(params)) return [];
  const errors: ParameterError[] = [];
  if (!params.has('bankAccount.number') && !params.has('bankAccount.iban')) {
    errors.push(missing('bankAccount.iban', 'bankAccount.iban or bankAccount.number is required'));
  }
  // COMPAT §16: an IBAN names its bank; an account number needs the bank's code or BIC.
  if (!params.has('bankAccount.iban') && !params.has('bankAccount.bankCode') && !params.has('bankAccount.bic')) {
    errors.push(missing('bankAccount.bic', 'bankAccount.bic or bankAccount.bankCode is required with bankAccount.number'));
  }
  return errors;
}

/** Doc 2 §2.11/§2.13: houseNumber2 requires houseNumber1. */
function houseNumbers(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const prefix of ADDRESS_PREFIXES) {
    const second = params.get(`${prefix}.houseNumber2`);
    if (second !== undefined && !params.has(`${prefix}.houseNumber1`)) {
      errors.push({ name: `${prefix}.houseNumber2`, value: second, message: `requires ${prefix}.houseNumber1` });
    }
  }
  return errors;
}

/** Doc 2 §2.11: street1 and street2 together cannot be digits only (applied to every address). */
function streetNotDigitsOnly(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const prefix of ADDRESS_PREFIXES) {
    const street1 = params.get(`${prefix}.street1`);
    const street2 = params.get(`${prefix}.street2`);
    const together = `${street1 ?? ''}${street2 ?? ''}`.replace(/\s/g, '');
    if (together === '' || !/^[0-9]+$/.test(together)) continue;
    const name = street1 !== undefined ? `${prefix}.street1` : `${prefix}.street2`;
    errors.push({
      name,
      value: params.get(name) ?? '',
      message: `${prefix}.street1 and ${prefix}.street2 together must not be digits only`,
    });
  }
  return errors;
}

/** Doc 1 §4, COMPAT §2: the payment types each request accepts (checkouts: PA or DB, also per brand). */
const PAYMENT_TYPES: Partial<Record<Operation, readonly string[]>> = {
  payment: ['PA', 'DB', 'CD', 'PA.CP'],
  backOffice: ['CP', 'RV', 'RF', 'CB', 'CR'],
  checkout: ['PA', 'DB'],
  schedule: ['PA', 'DB', 'CD'],
};

function paymentTypeForOperation(params: Params, operation: Operation): ParameterError[] {
  const allowed = PAYMENT_TYPES[operation];
  if (!allowed) return [];
  const message = `must be one of: ${allowed.join(', ')}`;
  const errors: ParameterError[] = [];
  const paymentType = params.get('paymentType');
  if (paymentType !== undefined && !allowed.includes(paymentType)) {
    errors.push({ name: 'paymentType', value: paymentType, message });
  }
  if (operation === 'checkout') {
    for (const [name, value] of params) {
      if (name.startsWith('overridePaymentType[') && !allowed.includes(value)) errors.push({ name, value, message });
    }
  }
  return errors;
}

/** Doc 1 §4: captures and refunds name their amount and currency; a reversal always covers the whole payment. */
function backOfficeAmount(params: Params, operation: Operation): ParameterError[] {
  if (operation !== 'backOffice' || params.get('paymentType') === 'RV') return [];
  return ['amount', 'currency'].filter((name) => !params.has(name)).map((name) => missing(name, 'is required'));
}

/**
 * COMPAT §2, §10: a checkout needs an amount and a currency unless it is registration-only (createRegistration=true
 * and no paymentType): it stores a card and charges nothing.
 */
function checkoutAmount(params: Params, operation: Operation): ParameterError[] {
  if (operation !== 'checkout' || (!params.has('paymentType') && isTrue(params.get('createRegistration')))) return [];
  return ['amount', 'currency'].filter((name) => !params.has(name)).map((name) => missing(name, 'is required unless the checkout is registration-only'));
}

/** COMPAT §2: a checkout needs paymentType unless createRegistration=true makes it registration-only. */
function checkoutPaymentType(params: Params, operation: Operation): ParameterError[] {
  if (operation !== 'checkout' || params.has('paymentType') || isTrue(params.get('createRegistration'))) return [];
  return [missing('paymentType', 'is required unless createRegistration is true')];
}

/**
 * Parameters that name a payment instrument other than a card. A payment with none of these, and no brand other than
 * a card's, pays by card.
 */
const OTHER_INSTRUMENT_PREFIXES = ['bankAccount.', 'virtualAccount.', 'tokenAccount.'];
const OTHER_INSTRUMENT_NAMES = [
  ...WALLET_TOKEN_PARAMETERS,
  'registrationId',
  'referenceUuid',
  'giftCard.number',
  'pos.encryptedSred.data',
];
const CARD_FIELDS = ['card.number', 'card.expiryMonth', 'card.expiryYear'];

/**
 * Doc 2 §2.4: a card payment needs number, expiryMonth and expiryYear. The card is the instrument when one of
 * them is sent or when no other instrument is.
 */
function cardDetails(params: Params, operation: Operation, supplied: ReadonlySet<string>): ParameterError[] {
  if (operation !== 'payment') return [];
  const cardSent = CARD_FIELDS.some((name) => params.has(name));
  // A brand that is not a card's (an asynchronous brand, a wallet, a brand unknown to the gateway) is never answered
  // with a demand for card data (COMPAT §7): the instrument's own rules name what it lacks (instruments.ts).
  const brand = params.get('paymentBrand');
  if (!cardSent && brand !== undefined && !isCardBrand(brand)) return [];
  const otherInstrument =
    OTHER_INSTRUMENT_PREFIXES.some((prefix) => anyWithPrefix(params, prefix)) ||
    OTHER_INSTRUMENT_NAMES.some((name) => params.has(name) || supplied.has(name));
  if (!cardSent && otherInstrument) return [];
  const message = cardSent ? 'is required for a card payment' : 'is required when no other payment instrument is sent';
  return CARD_FIELDS.filter((name) => !params.has(name)).map((name) => missing(name, message));
}

/**
 * Doc 2 §2.4 and doc 3 §2.14: card.cvv is required with card.number, except on card-on-file payments (COMPAT §11: an
 * INITIAL payment without a CVV is accepted too; REPEATED and MIT payments have none to send), and on the payment of a
 * card the shopper saved on a summary page (its CVV was never kept: `supplied` names it).
 */
function cardCvv(params: Params, operation: Operation, supplied: ReadonlySet<string>): ParameterError[] {
  if (operation !== 'payment' || !params.has('card.number') || params.has('card.cvv') || supplied.has('card.cvv')) return [];
  // Doc 2 §2.5: a wallet's decrypted card comes with the wallet's cryptogram (threeDSecure.*), never a CVV.
  if (isWalletBrand(params.get('paymentBrand'))) return [];
  if (['standingInstruction.mode', 'standingInstruction.source', 'recurringType'].some((name) => params.has(name))) return [];
  // COMPAT §7: some brands have no CVV or an optional one (Bancontact, AirPlus, Maestro, V PAY).
  if (!cvvAsked(params.get('card.number') ?? '', brandCode(params.get('paymentBrand')))) return [];
  return [missing('card.cvv', 'is required with card.number unless the payment is card on file (standingInstruction.*)')];
}

/** Doc 3 §2.8: the shopper's browser is sent to shopperResultUrl, so it must be an absolute http(s) address. */
function shopperResultUrl(params: Params): ParameterError[] {
  const value = params.get('shopperResultUrl');
  if (value === undefined || checkHttpUrl(value).ok) return [];
  return [{ name: 'shopperResultUrl', value, message: 'must be an absolute http or https URL without credentials' }];
}

/** Doc 2 §2.2: forex.amount and forex.currency are sent together. */
function forexPair(params: Params): ParameterError[] {
  return pair(params, 'forex.amount', 'forex.currency');
}

/** Doc 3 §2.10/§2.16: date.from and date.to are sent together; merchantTransactionId excludes them. */
function queryInterval(params: Params, operation: Operation): ParameterError[] {
  if (operation !== 'query') return [];
  const errors = pair(params, 'date.from', 'date.to');
  const reference = params.get('merchantTransactionId');
  if (reference !== undefined && (params.has('date.from') || params.has('date.to'))) {
    errors.push({
      name: 'merchantTransactionId',
      value: reference,
      message: 'cannot be combined with date.from and date.to',
    });
  }
  return errors;
}

/** Doc 3 §2.13: job.dayOfMonth and job.dayOfWeek cannot both be specified, one must be '?' (also inside job.expression). */
function jobDays(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  const dayOfMonth = params.get('job.dayOfMonth');
  const dayOfWeek = params.get('job.dayOfWeek');
  if (dayOfMonth !== undefined && dayOfWeek !== undefined && dayOfMonth !== '?' && dayOfWeek !== '?') {
    errors.push({ name: 'job.dayOfWeek', value: dayOfWeek, message: "job.dayOfMonth or job.dayOfWeek must be '?'" });
  }
  const expression = params.get('job.expression');
  if (expression !== undefined) {
    // second minute hour dayOfMonth month dayOfWeek [year]
    const fields = expression.trim().split(/\s+/);
    if (fields.length >= 6 && fields[3] !== '?' && fields[5] !== '?') {
      const message = "the day-of-month or the day-of-week field must be '?'";
      errors.push({ name: 'job.expression', value: expression, message });
    }
  }
  return errors;
}

/** Fields marked Req inside an optional group: required once any parameter of the group is sent. */
const GROUP_REQUIREMENTS: readonly { prefix: string; required: readonly string[] }[] = [
  { prefix: 'bankAccount.', required: ['bankAccount.holder'] }, // doc 2 §2.7
  { prefix: 'tokenAccount.', required: ['tokenAccount.number', 'tokenAccount.type'] }, // doc 2 §2.8
  { prefix: 'recurringMigration.', required: ['recurringMigration.paymentType'] }, // doc 3 §2.5
  { prefix: 'pos.', required: ['pos.entryMode', 'pos.terminalId'] }, // doc 3 §2.9
];

/** Doc 2 §2.7, §2.8, doc 3 §2.5, §2.9: the Req fields of a group are required when the group is used. */
function groupRequirements(params: Params): ParameterError[] {
  const errors: ParameterError[] = [];
  for (const group of GROUP_REQUIREMENTS) {
    if (!anyWithPrefix(params, group.prefix)) continue;
    if (group.prefix === 'bankAccount.' && paysOnProviderPage(params)) continue;
    for (const name of group.required) {
      if (!params.has(name)) errors.push(missing(name, `is required when ${group.prefix}* parameters are sent`));
    }
  }
  return errors;
}

export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  customerNames,
  identificationDocument,
  bankAccountIdentifiers,
  houseNumbers,
  streetNotDigitsOnly,
  paymentTypeForOperation,
  checkoutAmount,
  checkoutPaymentType,
  backOfficeAmount,
  cardDetails,
  cardCvv,
  forexPair,
  shopperResultUrl,
  queryInterval,
  jobDays,
  groupRequirements,
];
