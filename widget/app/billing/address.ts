import {
  BILLING_FIELDS,
  BILLING_MAX_LENGTHS,
  COUNTRY_CODES,
  POSTCODE_PATTERN,
  STATE_PATTERN,
  streetIsDigitsOnly,
  type BillingField,
} from '../../shared/billingAddress.ts';
import { isObject } from '../options.ts';

/**
 * What `wpwlOptions.billingAddress` and `mandatoryBillingFields` ask of the billing address form, and whether what the
 * shopper typed is an address the gateway takes (widget/shared/billingAddress.ts: the spec's `billing.*` formats).
 */

export type BillingAddress = Readonly<Record<BillingField, string>>;
export type BillingValidity = Readonly<Record<BillingField, boolean>>;

/** The platform's defaults (its mobile SDK documents them too): every field required but the second street line. */
const MANDATORY_BY_DEFAULT: BillingValidity = { country: true, state: true, city: true, postcode: true, street1: true, street2: false };

export interface BillingSettings {
  /** The values the fields start with (`billingAddress`); the country as an ISO code the list has, else none. */
  readonly prefill: BillingAddress;
  /** Whether the shopper must fill each field in (`mandatoryBillingFields`, over the platform's defaults). */
  readonly mandatory: BillingValidity;
}

/** A flag as pages write them: a boolean or the strings "true" / "false"; anything else keeps the default. */
function flag(value: unknown, fallback: boolean): boolean {
  return value === true || value === 'true' ? true : value === false || value === 'false' ? false : fallback;
}

export function billingSettings(raw: Readonly<Record<string, unknown>>): BillingSettings {
  const given = isObject(raw.billingAddress) ? raw.billingAddress : {};
  const required = isObject(raw.mandatoryBillingFields) ? raw.mandatoryBillingFields : {};
  const prefill = {} as Record<BillingField, string>;
  const mandatory = {} as Record<BillingField, boolean>;
  for (const field of BILLING_FIELDS) {
    const value = given[field];
    prefill[field] = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    mandatory[field] = flag(required[field], MANDATORY_BY_DEFAULT[field]);
  }
  const country = prefill.country.trim().toUpperCase();
  prefill.country = COUNTRY_CODES.includes(country) ? country : '';
  return { prefill, mandatory };
}

/**
 * Each field's validity: empty (or blank) is valid only when not mandatory; a value must have the spec's format and
 * length, and the street lines must not be digits only together (the error goes to the line that holds the digits).
 */
export function billingValidity(address: BillingAddress, mandatory: BillingValidity): BillingValidity {
  const digitsOnly = streetIsDigitsOnly(address.street1, address.street2);
  const formatOk: Record<BillingField, (value: string) => boolean> = {
    country: (value) => COUNTRY_CODES.includes(value),
    state: (value) => STATE_PATTERN.test(value),
    city: () => true,
    postcode: (value) => POSTCODE_PATTERN.test(value),
    street1: () => !digitsOnly,
    street2: () => !digitsOnly || address.street1.trim() !== '',
  };
  const validity = {} as Record<BillingField, boolean>;
  for (const field of BILLING_FIELDS) {
    const value = address[field];
    validity[field] =
      value.trim() === ''
        ? !mandatory[field]
        : formatOk[field](value) && (field === 'country' || value.length <= BILLING_MAX_LENGTHS[field]);
  }
  return validity;
}
