import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rulesFor } from '../../widget/shared/cards.ts';
import { CARD_TEST_NUMBERS } from '../../widget/shared/cardTestNumbers.ts';
import { cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';

warnIfPostgresSkipped('cardBrands.test.ts');

/**
 * The card-brand catalogue at the wire (COMPAT §7, issue 20): every brand paid with each of its test numbers, the
 * platform's vendor client's requests, co-badged cards, numbers of another brand, check digits and CVV rules.
 */

/** What the vendor's Python client (OpenPaymentPlatform/python) sends per card brand, and expects approved. */
const VENDOR_CARDS: readonly (readonly [brand: string, number: string, currency: string])[] = [
  ['AMEX', '377777777777770', 'EUR'],
  ['ASYACARD', '4022751585445574', 'TRY'],
  ['AXESS', '4200000000000000', 'TRY'],
  ['BONUS', '4090700500869563', 'TRY'],
  ['CARTEBLEUE', '5555555555554444', 'EUR'],
  ['DANKORT', '5019717010103742', 'EUR'],
  ['DINERS', '36961903000009', 'EUR'],
  ['DISCOVER', '6011587918359498', 'EUR'],
  ['HIPERCARD', '6062825624254001', 'EUR'],
  ['JCB', '3541599999092431', 'EUR'],
  ['MAESTRO', '6799851000000032', 'EUR'],
  ['MASTER', '5454545454545454', 'EUR'],
  ['VISA', '4200000000000000', 'EUR'],
  ['VISAELECTRON', '4917300800000000', 'EUR'],
  ['VPAY', '4822000000000000003', 'EUR'],
  ['WORLD', '4200000000000000', 'TRY'],
];

/** The CVV a shopper of this card types: as long as its brand's, none where it has none. */
function cvvFor(brand: string, number: string): Record<string, string> {
  const rules = rulesFor(brand, number);
  return rules?.cvv === 'none' ? {} : { 'card.cvv': '1234'.slice(0, rules?.cvvLength ?? 3) };
}

function cardOf(brand: string, number: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const { 'card.cvv': _cvv, ...card } = cardPayment('', { paymentBrand: brand, 'card.number': number });
  const request: Record<string, string | undefined> = { ...card, ...cvvFor(brand, number), ...overrides };
  return Object.fromEntries(Object.entries(request).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

describe.each(STORE_KINDS)('card brands on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const pay = (request: Record<string, string>) => t.post('/v1/payments', { ...request, entityId: t.entityId });
  const approved = (paid: ApiResponse, brand: string, number: string) => {
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: brand, card: { bin: number.slice(0, 6), last4Digits: number.slice(-4) } });
  };
  const refused = (paid: ApiResponse, code: string) => {
    expect(paid.status, JSON.stringify(paid.body)).toBe(400);
    expect(paid.body.result.code).toBe(code);
  };

  it.each(Object.entries(CARD_TEST_NUMBERS))('approves %s with each of its test numbers', async (brand, numbers) => {
    for (const number of numbers) approved(await pay(cardOf(brand, number)), brand, number);
  });

  // Its debits are among the test numbers above; its preauthorizations, in its currencies:
  it.each(VENDOR_CARDS)('approves the vendor client\'s %s card %s preauthorized in %s', async (brand, number, currency) => {
    const request = cardOf(brand, number, { currency, paymentType: 'PA', 'card.cvv': brand === 'AMEX' ? '1234' : '123', 'customParameters[SHOPPER_pluginId]': 'Python' });
    approved(await pay(request), brand, number);
  });

  it('approves a co-badged card under its local brand or its network, as the merchant names it', async () => {
    approved(await pay(cardOf('DANKORT', '4571000000000001')), 'DANKORT', '4571000000000001');
    approved(await pay(cardOf('VISA', '4571000000000001')), 'VISA', '4571000000000001');
    approved(await pay(cardOf('MADA', '4464040000000007')), 'MADA', '4464040000000007');
    approved(await pay(cardOf('VISA', '4464040000000007')), 'VISA', '4464040000000007');
    approved(await pay(cardOf('CARTEBANCAIRE', '5454545454545454')), 'CARTEBANCAIRE', '5454545454545454');
    // Nobody names the brand: the network for a co-badged card, the local brand for its own.
    const { paymentBrand: _brand, ...unnamed } = cardOf('VISA', '4464040000000007');
    approved(await pay(unnamed), 'VISA', '4464040000000007');
    const { paymentBrand: _dankort, ...dankort } = cardOf('DANKORT', '5019717010103742');
    approved(await pay(dankort), 'DANKORT', '5019717010103742');
  });

  it('refuses a number of another brand with 100.100.700, naming the brand sent', async () => {
    for (const [brand, number] of [
      ['VISA', '377777777777770'],
      ['AMEX', '4200000000000000'],
      ['DANKORT', '4200000000000000'],
      ['VPAY', '5454545454545454'],
      ['ELO', '4200000000000000'],
      ['BONUS', '6799851000000032'],
    ] as const) {
      const paid = await pay(cardOf(brand, number, { 'card.cvv': '123' }));
      refused(paid, '100.100.700');
      expect(paid.body.paymentBrand).toBe(brand);
    }
  });

  it('refuses a failed check digit with 100.100.101, except for brands without one', async () => {
    refused(await pay(cardOf('VISA', '4200000000000001')), '100.100.101');
    refused(await pay(cardOf('AXESS', '4200000000000001')), '100.100.101');
    refused(await pay(cardOf('VISA', '4444444444444444')), '100.100.101');
    refused(await pay(cardOf('VISA', '9100000000000000')), '100.100.101');
    refused(await pay(cardOf('TARJETASHOPPING', '6034880000000052')), '100.100.101');
    approved(await pay(cardOf('UNIONPAY', '6243030000000002')), 'UNIONPAY', '6243030000000002');
    approved(await pay(cardOf('NARANJA', '5895620000000001')), 'NARANJA', '5895620000000001');
    approved(await pay(cardOf('TARJETASHOPPING', '2799500000001')), 'TARJETASHOPPING', '2799500000001');
  });

  it('asks for the CVV by brand: none for Bancontact and AirPlus, optional for Maestro and V PAY, the brand\'s length when sent', async () => {
    for (const [brand, number] of [
      ['BCMC', '6703444444444449'],
      ['BCMC', '4871049999999910'],
      ['AIRPLUS', '122000000000003'],
      ['MAESTRO', '6799851000000032'],
      ['VPAY', '4822000000000000003'],
    ] as const) {
      approved(await pay(cardOf(brand, number, { 'card.cvv': undefined })), brand, number);
    }
    // A CVV sent for a brand without one is not checked.
    approved(await pay(cardOf('BCMC', '6703444444444449', { 'card.cvv': '123' })), 'BCMC', '6703444444444449');
    const withoutCvv = await pay(cardOf('DANKORT', '5019717010103742', { 'card.cvv': undefined }));
    expect(withoutCvv.status).toBe(400);
    expect(withoutCvv.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'card.cvv' })]);
    for (const [brand, number, cvv] of [
      ['BONUS', '375622005485014', '123'],
      ['MAESTRO', '6799851000000032', '12'],
      ['VISA', '4200000000000000', '1234'],
    ] as const) {
      const wrong = await pay(cardOf(brand, number, { 'card.cvv': cvv }));
      expect(wrong.status, `${brand} ${cvv}`).toBe(400);
      expect(wrong.body.result.code).toBe('200.300.404');
      expect(wrong.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'card.cvv' })]);
    }
  });

  it('refuses an expired card of any brand with 100.100.303', async () => {
    refused(await pay(cardOf('WORLD', '4200000000000000', { 'card.expiryYear': '2018', currency: 'TRY' })), '100.100.303');
    refused(await pay(cardOf('BCMC', '6703444444444449', { 'card.expiryYear': '2018' })), '100.100.303');
  });

  it('checks a network token and a registration against the brand named, as a card', async () => {
    const token = (brand: string, number: string) =>
      pay({
        amount: '10.00',
        currency: 'EUR',
        paymentType: 'DB',
        paymentBrand: brand,
        'tokenAccount.type': 'NETWORK',
        'tokenAccount.number': number,
        'tokenAccount.expiryMonth': '05',
        'tokenAccount.expiryYear': '2034',
        'tokenAccount.cryptogram': 'AgAAAAAABk4DWZ4C28yUQAAAAAA=',
      });
    expect((await token('AXESS', '4200000000000000')).body).toMatchObject({ paymentBrand: 'AXESS', result: { code: '000.100.110' } });
    refused(await token('DANKORT', '4200000000000000'), '100.100.700');
    const register = (brand: string, number: string) => {
      const { amount: _a, currency: _c, paymentType: _p, ...card } = cardOf(brand, number);
      return t.post('/v1/registrations', { ...card, entityId: t.entityId });
    };
    expect((await register('DANKORT', '4571000000000001')).body).toMatchObject({ paymentBrand: 'DANKORT', result: { code: '000.100.110' } });
    expect((await register('DANKORT', '4200000000000000')).body.result.code).toBe('100.100.700');
  });
});
