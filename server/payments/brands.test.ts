import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_BRANDS, detectBrands } from '../../widget/app/brands.ts';
import { cardPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { detectBrand } from '../domain/cards.ts';
import { brandOfBinAndLength, brandsMatching, CARD_BRANDS as BRAND_TABLE } from '../../widget/shared/cards.ts';
import { BIN_DIGITS } from '../../widget/shared/protocol.ts';

/**
 * The widget and the gateway share one brand table (widget/shared/cards.ts): every brand the widget offers is one
 * the gateway detects and pays, with the same CVV length, and no other.
 */

/** A Luhn-valid test number per brand. */
const SAMPLES: Readonly<Record<string, string>> = {
  VISA: '4200000000000000',
  MASTER: '5454545454545454',
  AMEX: '377777777777770',
  DINERS: '36006666333344',
  DISCOVER: '6011000990139424',
  JCB: '3530111333300000',
  UNIONPAY: '6200000000000005',
  MAESTRO: '6763000000000004',
  ELO: '6362970000457013',
  MIR: '2200000000000004',
  HIPERCARD: '6062826786276634',
};

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway('PGlite');
});
afterAll(async () => {
  await t?.close();
});

describe('card brands, widget and gateway', () => {
  it('has a sample for every brand the widget offers, and no other', () => {
    expect(Object.keys(CARD_BRANDS).sort()).toEqual(Object.keys(SAMPLES).sort());
  });

  it.each(Object.entries(SAMPLES))('%s: detected alike by both, and paid by the gateway with its CVV length', async (brand, number) => {
    expect(detectBrand(number)).toBe(brand);
    expect(detectBrands(number.slice(0, 6), Object.keys(CARD_BRANDS), [])[0]).toBe(brand);
    const cvv = '1234'.slice(0, CARD_BRANDS[brand]?.cvvLength);
    const paid = await t.post('/v1/payments', cardPayment(t.entityId, { paymentBrand: brand, 'card.number': number, 'card.cvv': cvv }));
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ paymentBrand: brand, card: { bin: number.slice(0, 6), last4Digits: number.slice(-4) } });
  });
});

describe('the brand of a number from the first digits the hosted field reports', () => {
  it('needs no more than those digits: no issuer range is longer', () => {
    const digitsOf = (pattern: number | readonly [number, number]) => String(typeof pattern === 'number' ? pattern : pattern[0]).length;
    expect(Math.max(...BRAND_TABLE.flatMap((brand) => brand.patterns.map(digitsOf)))).toBeLessThanOrEqual(BIN_DIGITS);
  });

  it('is the brand the gateway finds in the whole number, at every issuer range edge and length', () => {
    const starts = BRAND_TABLE.flatMap((brand) => brand.patterns.flatMap((pattern) => (typeof pattern === 'number' ? [pattern] : [pattern[0], pattern[1], pattern[1] + 1])));
    let compared = 0;
    for (const start of starts) {
      for (let length = 12; length <= 19; length++) {
        const number = `${start}`.padEnd(length, '7');
        const whole = brandsMatching(number).find((brand) => brand.lengths.includes(length))?.code;
        expect(brandOfBinAndLength(number.slice(0, BIN_DIGITS), length), number).toBe(whole);
        expect(detectBrand(number), number).toBe(whole);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });
});
