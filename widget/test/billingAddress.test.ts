import { afterEach, describe, expect, it } from 'vitest';
import { billingSettings, billingValidity } from '../app/billing/address.ts';
import { createCardModel } from '../app/card/model.ts';
import { readOptions } from '../app/options.ts';
import { COUNTRY_CODES } from '../shared/billingAddress.ts';

/**
 * The billing address of the card form (`billingAddress`, `mandatoryBillingFields`): what the options prefill and
 * require, which addresses the gateway would take (the spec's billing.* formats), and how the address's validity joins
 * the card form's.
 */

const address = (fields: Partial<Record<'country' | 'state' | 'city' | 'postcode' | 'street1' | 'street2', string>>) => ({
  country: '',
  state: '',
  city: '',
  postcode: '',
  street1: '',
  street2: '',
  ...fields,
});

const BERLIN = address({ country: 'DE', state: 'BE', city: 'Berlin', postcode: '10115', street1: 'Invalidenstraße 117' });

afterEach(() => {
  delete (globalThis as { window?: unknown }).window;
});

describe('the billing address options', () => {
  it('prefill the fields from billingAddress, the country as an ISO code of the list (else none), other keys ignored', () => {
    const { prefill } = billingSettings({ billingAddress: { country: 'de', city: 'Berlin', postcode: 10115, street1: 'Invalidenstraße 117', email: 'a@b.example' } });
    expect(prefill).toEqual(address({ country: 'DE', city: 'Berlin', postcode: '10115', street1: 'Invalidenstraße 117' }));
    expect(billingSettings({ billingAddress: { country: 'EU' } }).prefill.country).toBe('');
    expect(billingSettings({ billingAddress: 'yes' }).prefill).toEqual(address({}));
  });

  it('require every field but street2 by default, and what mandatoryBillingFields says (booleans or "true"/"false")', () => {
    expect(billingSettings({ billingAddress: {} }).mandatory).toEqual({ country: true, state: true, city: true, postcode: true, street1: true, street2: false });
    expect(billingSettings({ mandatoryBillingFields: { state: false, street2: 'true', city: 'maybe' } }).mandatory).toEqual({
      country: true,
      state: false,
      city: true,
      postcode: true,
      street1: true,
      street2: true,
    });
  });

  it('offer the 249 countries of ISO 3166-1 alpha-2, each one the browser can name', () => {
    expect(COUNTRY_CODES).toHaveLength(249);
    expect(new Set(COUNTRY_CODES).size).toBe(249);
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    expect(COUNTRY_CODES.filter((code) => !names.of(code))).toEqual([]);
    expect(COUNTRY_CODES).toEqual(expect.arrayContaining(['DE', 'SA', 'US', 'GB', 'AX', 'ZW']));
    expect(COUNTRY_CODES).not.toContain('EU');
    expect(COUNTRY_CODES).not.toContain('UK');
  });
});

describe('the billing address\'s validity', () => {
  const mandatory = billingSettings({ billingAddress: {} }).mandatory;

  it('takes a full address, and an empty optional field', () => {
    expect(Object.values(billingValidity(BERLIN, mandatory)).every(Boolean)).toBe(true);
  });

  it('refuses an empty (or blank) mandatory field, and takes it when mandatoryBillingFields makes it optional', () => {
    expect(billingValidity({ ...BERLIN, city: '  ' }, mandatory).city).toBe(false);
    expect(billingValidity({ ...BERLIN, state: '' }, mandatory).state).toBe(false);
    expect(billingValidity({ ...BERLIN, state: '' }, { ...mandatory, state: false }).state).toBe(true);
    expect(billingValidity({ ...BERLIN, street2: '' }, { ...mandatory, street2: true }).street2).toBe(false);
  });

  it('checks the spec\'s formats: a listed country, a state of letters, digits and dots, a postcode of up to 16 letters and digits', () => {
    const validity = (fields: Record<string, string>) => billingValidity({ ...BERLIN, ...fields }, mandatory);
    expect(validity({ country: 'XX' }).country).toBe(false);
    expect(validity({ state: 'N.Y.' }).state).toBe(true);
    expect(validity({ state: 'Île-de-France' }).state).toBe(false);
    expect(validity({ state: 'القصيم' }).state).toBe(true);
    expect(validity({ state: 'x'.repeat(51) }).state).toBe(false);
    expect(validity({ postcode: 'SW1A 1AA' }).postcode).toBe(true);
    expect(validity({ postcode: '1234-567' }).postcode).toBe(true);
    expect(validity({ postcode: '10115!' }).postcode).toBe(false);
    expect(validity({ postcode: '1'.repeat(17) }).postcode).toBe(false);
    expect(validity({ city: 'x'.repeat(81) }).city).toBe(false);
    expect(validity({ street1: 'x'.repeat(101) }).street1).toBe(false);
  });

  it('refuses street lines that are digits only together, on the line holding them', () => {
    expect(billingValidity({ ...BERLIN, street1: '117' }, mandatory).street1).toBe(false);
    expect(billingValidity({ ...BERLIN, street1: '117', street2: 'Hinterhaus' }, mandatory).street1).toBe(true);
    const digitsInSecond = billingValidity({ ...BERLIN, street1: '', street2: '12 3' }, { ...mandatory, street1: false });
    expect([digitsInSecond.street1, digitsInSecond.street2]).toEqual([true, false]);
  });
});

describe('the card form with a billing address', () => {
  const cardForm = (wpwlOptions: Record<string, unknown> = {}) => {
    (globalThis as { window?: unknown }).window = { wpwlOptions };
    const model = createCardModel(['VISA'], readOptions());
    model.set({
      numberState: { field: 'cardNumber', empty: false, valid: true, length: 16, bin: '420000', showErrors: false },
      cvvState: { field: 'cvv', empty: false, valid: true, length: 3, bin: '', showErrors: false },
      expiry: '05 / 34',
      holder: 'Jane Jones',
    });
    return model;
  };

  it('is valid only with a valid address, whose errors show on a submit like the card\'s', () => {
    const model = cardForm();
    expect(model.formValid.value).toBe(true);
    model.set({ billing: billingValidity({ ...BERLIN, city: '' }, billingSettings({ billingAddress: {} }).mandatory) });
    expect(model.formValid.value).toBe(false);
    expect(model.hasError('city' as never)).toBe(false);
    model.show(...(Object.keys(model.validity.value) as never[]));
    expect(model.hasError('city' as never)).toBe(true);
    expect(model.hasError('country' as never)).toBe(false);
    model.set({ billing: billingValidity(BERLIN, billingSettings({ billingAddress: {} }).mandatory) });
    expect([model.formValid.value, model.hasError('city' as never)]).toEqual([true, false]);
  });

  it('with validation: false, neither blocks nor shows errors', () => {
    const model = cardForm({ validation: false });
    model.set({ billing: billingValidity(address({}), billingSettings({ billingAddress: {} }).mandatory) });
    model.show('cardNumber');
    expect([model.formValid.value, model.hasError('city' as never)]).toEqual([true, false]);
  });
});
