import { CATALOGUE } from '../params/catalogue.ts';
import type { Operation } from '../params/types.ts';
import { catalogueSchema, catalogueSpec, requiredFor, type Schema } from './parameters.ts';

/**
 * The catalogue's cross-field rules (params/rules.ts, which are code) as the OpenAPI document states them: in JSON
 * Schema where it can say them (`dependentRequired`, `if`/`then`, a narrower `enum`), in words where it cannot.
 * openapi.test.ts holds every schema-level claim here against the validator itself, so a rule that changes there
 * fails the test until it is described again here.
 */

const CUSTOMERS = ['customer', 'shipping.customer'];
const ADDRESSES = ['billing', 'shipping', 'merchant.billing', 'merchant.shipping'];

/** Fields required once any parameter of their group is sent (rules.ts GROUP_REQUIREMENTS, without bankAccount's exception). */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  'tokenAccount.': ['tokenAccount.number', 'tokenAccount.type'],
  'recurringMigration.': ['recurringMigration.paymentType'],
  'pos.': ['pos.entryMode', 'pos.terminalId'],
};

/** Pairs sent together or not at all, and fields that need another, in every request kind. */
export function dependentRequired(): Record<string, string[]> {
  const rules: Record<string, string[]> = {
    'forex.amount': ['forex.currency'],
    'forex.currency': ['forex.amount'],
  };
  for (const prefix of CUSTOMERS) {
    rules[`${prefix}.identificationDocType`] = [`${prefix}.identificationDocId`];
    rules[`${prefix}.identificationDocId`] = [`${prefix}.identificationDocType`];
  }
  for (const prefix of ADDRESSES) rules[`${prefix}.houseNumber2`] = [`${prefix}.houseNumber1`];
  for (const [prefix, required] of Object.entries(GROUPS)) {
    for (const spec of CATALOGUE) {
      if (spec.name.startsWith(prefix) && !spec.name.includes('[')) {
        const others = required.filter((name) => name !== spec.name);
        if (others.length > 0) rules[spec.name] = [...(rules[spec.name] ?? []), ...others];
      }
    }
  }
  for (const names of Object.values(rules)) for (const name of names) catalogueSpec(name);
  return rules;
}

/** The rules of every request kind the JSON Schema above cannot say. */
export const GENERAL_RULES: readonly string[] = [
  'customer.givenName and customer.surname (shipping.customer.* alike) are required when other data about the person is sent (sex, birthDate, phone, email, identification, ...).',
  'With bankAccount.* (other than an asynchronous brand, which names the bank at most), bankAccount.holder and bankAccount.iban or bankAccount.number are required, and with a number bankAccount.bic or bankAccount.bankCode.',
  'street1 and street2 of an address together must not be digits only.',
  'shopperResultUrl must be an absolute http or https URL without credentials.',
  'job.dayOfMonth or job.dayOfWeek must be ?, and so must the day-of-month or the day-of-week field of job.expression.',
];

/** What each request kind adds to the catalogue. */
export interface Conditions {
  /** The payment types the kind takes (rules.ts PAYMENT_TYPES), narrower than the catalogue's list. */
  readonly paymentTypes?: readonly string[];
  /** What else JSON Schema can say of the kind's parameters. */
  readonly schema?: Schema;
  readonly rules: readonly string[];
}

export const CONDITIONS: Readonly<Record<Operation, Conditions>> = {
  payment: {
    paymentTypes: ['PA', 'DB', 'CD', 'PA.CP'],
    rules: [
      'card.number, card.expiryMonth and card.expiryYear are required for a card payment: when one of them is sent, or when no other instrument (bankAccount.*, virtualAccount.*, tokenAccount.*, a wallet token, registrationId, referenceUuid, giftCard.number, pos.encryptedSred.data) and no brand other than a card brand is.',
      'card.cvv is required with card.number, except on card-on-file payments (standingInstruction.* or recurringType), wallet brands and brands without a CVV.',
    ],
  },
  backOffice: {
    paymentTypes: ['CP', 'RV', 'RF', 'CB', 'CR'],
    schema: { if: { properties: { paymentType: { not: { const: 'RV' } } } }, then: { required: ['amount', 'currency'] } },
    rules: ['amount and currency are required, except on a reversal (RV), which covers the whole payment.'],
  },
  checkout: {
    paymentTypes: ['PA', 'DB'],
    rules: [
      'paymentType, amount and currency are required unless createRegistration=true makes the checkout registration-only (no paymentType); overridePaymentType[*] takes PA or DB.',
    ],
  },
  registration: { rules: ['card.number, card.expiryMonth and card.expiryYear are required to register a card (or bankAccount.* for DIRECTDEBIT_SEPA); amount, currency and paymentType are ignored.'] },
  registrationUpdate: { rules: ['card.holder, card.expiryMonth or card.expiryYear is required; card.number, card.cvv and paymentBrand cannot be changed.'] },
  schedule: { paymentTypes: ['PA', 'DB', 'CD'], rules: ['job.* or job.expression says when the schedule fires.'] },
  query: {
    schema: { dependentRequired: { 'date.from': ['date.to'], 'date.to': ['date.from'] } },
    rules: ['date.from and date.to are sent together, and not with merchantTransactionId.'],
  },
};

/** The catalogue's parameters with what every request kind requires of them (the rules above). */
export function catalogueComponent(): Schema {
  const catalogue = catalogueSchema();
  return { ...catalogue, description: [catalogue.description, ...GENERAL_RULES].join('\n'), dependentRequired: dependentRequired() };
}

/** The schema of a request kind's parameters: the catalogue, what the kind requires, and its conditions. */
export function requestSchema(operation: Operation, catalogueRef: string): Schema {
  const conditions = CONDITIONS[operation];
  const properties: Record<string, Schema> = {
    ...(conditions.paymentTypes ? { paymentType: { enum: [...conditions.paymentTypes] } } : {}),
  };
  const required = requiredFor(operation);
  return {
    description: conditions.rules.join('\n'),
    allOf: [{ $ref: catalogueRef }, { type: 'object', properties, ...(required.length > 0 ? { required } : {}) }, ...(conditions.schema ? [conditions.schema] : [])],
  };
}
