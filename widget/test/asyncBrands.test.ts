import { describe, expect, it } from 'vitest';
import { ASYNC_BRANDS } from '../shared/asyncBrands.ts';
import { familyOf, formsFor, METHOD_FAMILIES } from '../app/methods.ts';
import { countryChoice } from '../app/redirect/country.ts';
import { asyncContainer } from '../app/redirect/RedirectForm.tsx';

describe('the asynchronous brands in the widget', () => {
  it('renders every asynchronous brand of the catalogue as its own form, named by the brand\'s form, and none for an unknown name', () => {
    for (const [brand, { form }] of Object.entries(ASYNC_BRANDS)) {
      expect([brand, familyOf(brand), asyncContainer(brand)]).toEqual([brand, 'asynchronous', `wpwl-container-${form}-${brand}`]);
    }
    expect(asyncContainer('PREPAYMENT')).toBe('wpwl-container-prepayment-PREPAYMENT');
    expect(asyncContainer('BOLETO')).toBe('wpwl-container-onlineTransfer-BOLETO');
    expect(asyncContainer('KLARNA_INVOICE')).toBe('wpwl-container-virtualAccount-KLARNA_INVOICE');
    for (const name of ['TOSTRING', 'CONSTRUCTOR', '__PROTO__', 'PAYPA', 'KLARNA', 'VISA', '']) expect([name, asyncContainer(name)]).toEqual([name, undefined]);
    expect(familyOf('VISA')).toBe('card');
    expect(familyOf('DIRECTDEBIT_SEPA')).toBe('directDebit');
    // The card form first, then one form per other brand in data-brands order (an unknown name is left to the catalogue).
    expect(formsFor(['PREPAYMENT', 'BOLETO', 'VISA', 'PAYPAL', 'MASTER', 'DIRECTDEBIT_SEPA'])).toEqual([
      { family: 'card', brands: ['VISA', 'MASTER'] },
      { family: 'asynchronous', brands: ['PREPAYMENT'] },
      { family: 'asynchronous', brands: ['BOLETO'] },
      { family: 'asynchronous', brands: ['PAYPAL'] },
      { family: 'directDebit', brands: ['DIRECTDEBIT_SEPA'] },
    ]);
    expect(METHOD_FAMILIES.asynchronous.grouped).toBe(false);
  });

  it('offers the countries of the bank by name in the shopper\'s language, preselecting the locale\'s country where the brand serves it', () => {
    const sofort = ASYNC_BRANDS.SOFORTUEBERWEISUNG?.countries ?? [];
    const german = countryChoice(sofort, 'de-AT', 'de');
    expect(german.countries.map((country) => country.name)).toEqual(['Belgien', 'Deutschland', 'Italien', 'Niederlande', 'Österreich', 'Polen', 'Schweiz', 'Spanien']);
    expect(german.countries.find((country) => country.name === 'Österreich')?.code).toBe('AT');
    expect(german.selected).toBe('AT');
    // Without a region, the language's country; the product's codes are read as languages (`se` is Swedish).
    expect(countryChoice(sofort, 'de', 'de').selected).toBe('DE');
    expect(countryChoice(sofort, 'nl_NL', 'nl').selected).toBe('NL');
    expect(countryChoice(['AT', 'DE', 'FI', 'SE'], 'sv', 'se').selected).toBe('SE');
    expect(countryChoice(['AT', 'DE', 'FI', 'SE'], 'sv', 'se').countries[0]).toEqual({ code: 'FI', name: 'Finland' });
    // A country the brand does not serve: the first in the list.
    expect(countryChoice(sofort, 'en-US', 'en')).toMatchObject({ selected: 'AT', countries: expect.arrayContaining([{ code: 'CH', name: 'Switzerland' }]) });
    expect(countryChoice(sofort, 'fr', 'fr').selected).toBe('DE');
    expect(countryChoice(['AU', 'NZ'], 'ja', 'ja').countries.map((country) => country.name)).toEqual(['オーストラリア', 'ニュージーランド']);
  });
});
