/**
 * The billing address's formats (spec document 2 §2.11: `billing.*`), which the widget's billing fields check as the
 * shopper types and the gateway checks again on the payment (server/params/catalogue.ts addressLines).
 */

/** The fields the widget's billing address form asks for, in the platform's order. */
export const BILLING_FIELDS = ['country', 'state', 'city', 'postcode', 'street1', 'street2'] as const;

export type BillingField = (typeof BILLING_FIELDS)[number];

/** Letters (any script), digits, dot: the spec's "letters, digits, dot" for states. */
export const STATE_PATTERN = /^[\p{L}\p{M}\p{N}.]+$/u;

/** The spec says alphanumeric; spaces and hyphens are allowed inside, so real postcodes ("SW1A 1AA", "1234-567") pass. */
export const POSTCODE_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9 -]{0,14}[A-Za-z0-9])?$/;

/** The longest value of each text field. City: 80 ("48 in one listing": the larger, so no valid address is refused). */
export const BILLING_MAX_LENGTHS: Readonly<Record<Exclude<BillingField, 'country'>, number>> = {
  state: 50,
  city: 80,
  postcode: 16,
  street1: 100,
  street2: 100,
};

/** Street lines that are digits only together (spec: "cannot contain numbers only, it should also include characters"). */
export function streetIsDigitsOnly(street1: string, street2: string): boolean {
  return /^[0-9]+$/.test(`${street1}${street2}`.replace(/\s/g, ''));
}

/**
 * ISO 3166-1 alpha-2: the officially assigned codes, by first letter (`A` + `DEFG...`: AD, AE, AF, AG...). The browser
 * knows more region codes (EU, XK, UN...): those are no countries of an address.
 */
export const COUNTRY_CODES: readonly string[] = (
  'ADEFGILMOQRSTUWXZ BABDEFGHIJLMNOQRSTVWYZ CACDFGHIKLMNORUVWXYZ DEJKMOZ ECEGHRST FIJKMOR GABDEFGHILMNPQRSTUWY HKMNRTU ' +
  'IDELMNOQRST JEMOP KEGHIMNPRWYZ LABCIKRSTUVY MACDEFGHKLMNOPQRSTUVWXYZ NACEFGILOPRUZ OM PAEFGHKLMNRSTWY QA REOSUW ' +
  'SABCDEGHIJKLMNORSTVXYZ TCDFGHJKLMNORTVWZ UAGMSYZ VACEGINU WFS YET ZAMW'
)
  .split(' ')
  .flatMap((group) => [...group.slice(1)].map((second) => group[0] + second));
