import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CARD_BRANDS as BY_CODE, detectBrands } from '../../widget/app/brands.ts';
import { CARD_BRAND_CODES, isCardBrand } from '../../widget/shared/cardBrandCodes.ts';
import { brandsMatching, CARD_BRANDS, cvvLengthOf, followsRules, rulesFor } from '../../widget/shared/cards.ts';
import { CARD_TEST_NUMBERS } from '../../widget/shared/cardTestNumbers.ts';
import { BIN_DIGITS } from '../../widget/shared/protocol.ts';
import { checkNumber, cvvAsked, detectBrand } from '../domain/cards.ts';

/**
 * The card-brand catalogue (widget/shared/cards.ts) as the widget and the gateway read it: detection, the rules a
 * number follows under a brand, and what the gateway answers a number sent under a brand (COMPAT §7). Payments with
 * every test number: cardBrands.test.ts.
 */

const codesOf = (digits: string) => brandsMatching(digits).map((brand) => brand.code);
const ALL = [...CARD_BRAND_CODES];

/** `prefix` padded with 7s to `length` digits, the last one a Luhn check digit. */
function cardNumber(prefix: string, length: number): string {
  const body = prefix.padEnd(length - 1, '7').slice(0, length - 1);
  const check = [...Array(10).keys()].find((digit) => followsRules({ lengths: [length], luhn: true, cvvLength: 3, cvv: 'required' }, `${body}${digit}`));
  return `${body}${check}`;
}

describe('the catalogue', () => {
  it('has one record per card brand code the widget entry knows, each with a label and a test number', () => {
    expect(CARD_BRANDS.map((brand) => brand.code).sort()).toEqual([...CARD_BRAND_CODES].sort());
    for (const code of ['VISAELECTRON', 'VPAY', 'DANKORT', 'CARTEBLEUE', 'AXESS', 'BONUS', 'WORLD', 'ASYACARD', 'MAXIMUM', 'CARDFINANS', 'MADA', 'BCMC', 'AIRPLUS', 'TARJETASHOPPING']) {
      expect(isCardBrand(code), code).toBe(true);
    }
    for (const code of ['PAYPAL', 'CHINAUNIONPAY', 'SOFORTUEBERWEISUNG', '__proto__', 'visa']) expect(isCardBrand(code), code).toBe(false);
    expect(BY_CODE.DANKORT?.label).toBe('Dankort');
    expect(BY_CODE.AMEX?.label).toBe('American Express');
    for (const code of CARD_BRAND_CODES) expect(CARD_TEST_NUMBERS[code].length, code).toBeGreaterThan(0);
  });

  it('is documented: docs/widget.md ("Card brands") lists every brand with its test numbers', () => {
    const page = readFileSync(new URL('../../docs/widget.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Card brands'), page.indexOf('## Testing 3-D Secure'));
    for (const [code, numbers] of Object.entries(CARD_TEST_NUMBERS)) {
      expect(section, code).toContain(`\`${code}\``);
      for (const number of numbers) expect(section, `${code} ${number}`).toContain(`\`${number}\``);
    }
  });

  it.each(Object.entries(CARD_TEST_NUMBERS))('%s: every test number is one of its numbers, well formed under its rules', (code, numbers) => {
    for (const number of numbers) {
      const rules = rulesFor(code, number);
      expect(rules, number).toBeDefined();
      expect(followsRules(rules!, number), number).toBe(true);
      expect(checkNumber(number, code)).toMatchObject({ brand: code, refusal: undefined });
    }
  });

  it('knows each brand only from the first digits the hosted field reports, but for four 8-digit mada BINs', () => {
    const digitsOf = (pattern: number | readonly [number, number]) => String(typeof pattern === 'number' ? pattern : pattern[0]).length;
    const longer = CARD_BRANDS.flatMap((brand) => (brand.patterns ?? []).filter((pattern) => digitsOf(pattern) > BIN_DIGITS).map((pattern) => `${brand.code} ${pattern}`));
    expect(longer).toEqual(['MADA 22337902', 'MADA 22337986', 'MADA 22402030', 'MADA 42689700']);
    // From their first six digits the widget offers mada (the shopper can choose); the gateway checks all eight,
    // and accepts any Visa or Mastercard number as MADA anyway.
    expect(detectBrands('426897', ['VISA', 'MADA'], [])).toEqual(['MADA', 'VISA']);
    expect(checkNumber('4268971234567890', 'MADA').refusal).toBeUndefined();
    expect(detectBrand('4268971234567890')).toBe('VISA');
  });
});

describe('detection from the first digits', () => {
  // Known collisions (research for issue 20, card-brands.md §3): every brand whose own range fits, most specific first.
  it.each([
    ['457100', ['DANKORT', 'VISA']],
    ['446404', ['MADA', 'VISA']],
    ['403550', ['CARTEBANCAIRE', 'VISA']],
    ['501971', ['DANKORT', 'MAESTRO']],
    ['501105', ['ARGENCARD', 'MAESTRO']],
    ['506221', ['CARNET', 'MAESTRO']],
    ['506699', ['ELO']],
    ['509000', ['ELO']],
    ['589562', ['NARANJA', 'MAESTRO']],
    ['603488', ['TARJETASHOPPING', 'MAESTRO']],
    ['603493', ['CENCOSUD', 'MAESTRO']],
    ['603522', ['CABAL', 'MAESTRO']],
    ['606282', ['HIPERCARD', 'MAESTRO']],
    ['670300', ['BCMC', 'MAESTRO']],
    ['650031', ['ELO', 'DISCOVER', 'MAESTRO']],
    ['627780', ['ELO', 'UNIONPAY', 'MAESTRO']],
    ['622126', ['UNIONPAY', 'DISCOVER', 'MAESTRO']],
    ['220000', ['MIR']],
    ['223379', ['MADA', 'MASTER']],
    ['487017', ['NATIVA', 'VISA']],
    ['520053', ['NATIVA', 'MASTER']],
    ['409070', ['BONUS', 'VISA']],
    ['435508', ['AXESS', 'VISA']],
    ['450803', ['MAXIMUM', 'VISAELECTRON', 'VISA']],
    ['491730', ['VISAELECTRON', 'VISA']],
    ['279950', ['TARJETASHOPPING']],
    ['122000', ['AIRPLUS']],
    ['377777', ['AMEX']],
  ])('%s fits %j', (digits, brands) => {
    expect(codesOf(digits)).toEqual(brands);
  });

  it('reports every offered brand a co-badged card fits, the merchant priority first, and never a brand that lives on its networks only', () => {
    expect(detectBrands('457100', ['VISA', 'MASTER', 'DANKORT'], [])).toEqual(['DANKORT', 'VISA']);
    expect(detectBrands('457100', ['VISA', 'MASTER', 'DANKORT'], ['VISA'])).toEqual(['VISA', 'DANKORT']);
    expect(detectBrands('446404', ['MADA', 'VISA', 'MASTER'], ['MADA', 'VISA', 'MASTER'])).toEqual(['MADA', 'VISA']);
    expect(detectBrands('420000', ['VISA', 'FACILYPAY_3X', 'VPAY', 'CARTEBLEUE'], [])).toEqual(['VISA']);
    expect(detectBrands('420000', ['AXESS', 'MASTER'], [])).toEqual([]);
  });

  it('names the brand of a whole number nobody named a brand for: the network for a co-badged card, the local brand for its own', () => {
    expect(detectBrand('4571000000000001')).toBe('DANKORT');
    expect(detectBrand('5019717010103742')).toBe('DANKORT');
    expect(detectBrand('4464040000000007')).toBe('VISA');
    expect(detectBrand('5297412542005689')).toBe('MASTER');
    expect(detectBrand('9682010000000005')).toBe('MADA');
    expect(detectBrand('4090700500869563')).toBe('VISA');
    expect(detectBrand('4917300800000000')).toBe('VISA');
    expect(detectBrand('6703444444444449')).toBe('BCMC');
    expect(detectBrand('5895620000000001')).toBe('NARANJA');
    expect(detectBrand('6799851000000032')).toBe('MAESTRO');
    expect(detectBrand('2799500000001')).toBe('TARJETASHOPPING');
  });
});

describe('a number under a named brand (COMPAT §7)', () => {
  it.each([
    // A programme, co-badge or product brand named by the merchant takes its networks' numbers.
    ['AXESS', '4200000000000000'],
    ['WORLD', '4200000000000000'],
    ['CARTEBLEUE', '5555555555554444'],
    ['MADA', '5454545454545454'],
    ['BONUS', '377777777777770'],
    ['VPAY', '4200000000000000'],
    ['VISAELECTRON', '4001020000000009'],
    ['FACILYPAY_4X', '5454545454545454'],
    ['BCMC', '4200000000000000'],
    ['DANKORT', '4571000000000001'],
    ['VISA', '4571000000000001'],
    ['VISA', '4464040000000007'],
  ])('%s takes %s', (brand, number) => {
    expect(checkNumber(number, brand).refusal).toBeUndefined();
  });

  it.each([
    ['VISA', '377777777777770'],
    ['AMEX', '4200000000000000'],
    ['MASTER', '4200000000000000'],
    ['DANKORT', '4200000000000000'],
    ['MAESTRO', '4200000000000000'],
    ['VPAY', '5454545454545454'],
    ['MERCADOLIVRE', '4200000000000000'],
    ['AXESS', '377777777777770'],
    ['ELO', '4200000000000000'],
    ['UNIONPAY', '5454545454545454'],
    ['PAYPAL', '4200000000000000'],
  ])('%s refuses %s: a number of another brand (100.100.700)', (brand, number) => {
    expect(checkNumber(number, brand).refusal?.code).toBe('100.100.700');
  });

  it('refuses numbers no brand issues, and Luhn failures where the brand has a check digit (100.100.101)', () => {
    expect(checkNumber('4444444444444444', 'VISA').refusal?.code).toBe('100.100.101');
    expect(checkNumber('4444444444444444', 'MASTER').refusal?.code).toBe('100.100.101');
    expect(checkNumber('4200000000000001', 'AXESS').refusal?.code).toBe('100.100.101');
    expect(checkNumber('420000000000000', 'VISA').refusal?.code).toBe('100.100.101');
    expect(checkNumber('9100000000000000', 'VISA').refusal?.code).toBe('100.100.101');
    expect(checkNumber('9100000000000000', undefined).refusal?.code).toBe('100.100.101');
    expect(checkNumber('6034880000000052', 'TARJETASHOPPING').refusal?.code).toBe('100.100.101');
    // Brands without a check digit: UnionPay, Naranja, Tarjeta Shopping's 13-digit cards.
    for (const [brand, number] of [['UNIONPAY', '6243030000000002'], ['NARANJA', '5895620000000001'], ['TARJETASHOPPING', '2799500000001']] as const) {
      expect(checkNumber(number, brand).refusal, number).toBeUndefined();
      expect(checkNumber(number, undefined).brand, number).toBe(brand);
    }
  });

  it('asks for a CVV by brand: none for Bancontact, AirPlus and short Tarjeta Shopping cards, optional for Maestro and V PAY, 4 digits for Amex', () => {
    expect(cvvAsked('6703444444444449', 'BCMC')).toBe(false);
    expect(cvvAsked('4871049999999910', 'BCMC')).toBe(false);
    expect(cvvAsked('122000000000003', 'AIRPLUS')).toBe(false);
    expect(cvvAsked('2799500000000', 'TARJETASHOPPING')).toBe(false);
    expect(cvvAsked('6034880000000051', 'TARJETASHOPPING')).toBe(true);
    expect(cvvAsked('6799851000000032', 'MAESTRO')).toBe(false);
    expect(cvvAsked('4822000000000000003', 'VPAY')).toBe(false);
    expect(cvvAsked('4200000000000000', 'VISA')).toBe(true);
    expect(cvvAsked('6703444444444449', undefined)).toBe(false);
    expect(cvvAsked('377777777777770', 'VISA')).toBe(true);
    expect(rulesFor('BONUS', '375622005485014')).toMatchObject({ lengths: [15], cvvLength: 4, cvv: 'required' });
    expect(rulesFor('BONUS', '4090700500869563')).toMatchObject({ lengths: [16], cvvLength: 3 });
    expect(cvvLengthOf('BCMC')).toBe(0);
    expect(cvvLengthOf('AMEX')).toBe(4);
    expect(cvvLengthOf('MAESTRO')).toBe(3);
  });
});

describe('the widget and the gateway agree', () => {
  it('on the brand, for the first digits of every issuer range edge', () => {
    const starts = CARD_BRANDS.flatMap((brand) => [...(brand.patterns ?? []), ...(brand.also?.patterns ?? [])]).flatMap((pattern) =>
      typeof pattern === 'number' ? [pattern] : [pattern[0], pattern[1], pattern[1] + 1],
    );
    let compared = 0;
    for (const start of starts) {
      for (let length = 12; length <= 19; length++) {
        const number = cardNumber(`${start}`, length);
        const whole = detectBrand(number);
        if (whole === undefined) continue;
        // The brand the gateway finds is one the widget detects from the first digits, and takes the number.
        expect(detectBrands(number.slice(0, BIN_DIGITS), ALL, []), number).toContain(whole);
        const rules = rulesFor(whole, number.slice(0, BIN_DIGITS));
        expect(rules && rules.lengths.includes(length), number).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(300);
  });
});
