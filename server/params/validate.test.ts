import { describe, expect, it } from 'vitest';
import { cardPayment } from '../testing/harness.ts';
import { CATALOGUE } from './catalogue.ts';
import type { Operation } from './types.ts';
import type { ParameterError } from '../domain/errors.ts';
import { maskAccountNumber } from '../domain/sensitive.ts';
import { displayValue, echoedValue, findSpec, isKnownParameter, maskedParameterError, validateParameters } from './validate.ts';

function validate(params: Record<string, string>, operation: Operation): ParameterError[] {
  return validateParameters(new Map(Object.entries(params)), operation);
}

/** The error reported for one parameter, if any. 'registration' has no unconditional requirements. */
function errorOf(name: string, value: string, operation: Operation = 'registration'): ParameterError | undefined {
  return validate({ [name]: value }, operation).find((error) => error.name === name);
}

function names(errors: readonly ParameterError[]): string[] {
  return errors.map((error) => error.name).sort();
}

const HEX32 = '8a8294174b7ecb28014b9699220015ca';
const REGISTRATION = '8ac7a4a27b4c7867017b510d33dd7188';

/** A complete, valid card payment. */
const CARD_PAYMENT = cardPayment(HEX32);

describe('formats', () => {
  const cases: [name: string, value: string, valid: boolean][] = [
    // amount (COMPAT §2)
    ['amount', '10', true],
    ['amount', '10.00', true],
    ['amount', '1234567890.99', true],
    ['amount', '0.00', true],
    ['amount', '1.5', false],
    ['amount', '-1.00', false],
    ['amount', '1e3', false],
    ['amount', '+1.00', false],
    ['amount', '1,00', false],
    ['amount', '12345678901', false],
    ['amount', '1.000', false],
    ['amount', '', false],
    ['amount', ' 1.00', false],
    ['taxAmount', '1.5', false],
    ['forex.amount', '7', true],
    // money: exactly 2 decimals (doc 3)
    ['shipping.cost', '5.00', true],
    ['shipping.cost', '5', false],
    ['cart.items[0].price', '5.00', true],
    ['cart.items[0].price', '5', false],
    ['cart.items[0].discount', '5', true],
    ['risk.amount', '10.0', false],
    ['airline.passengers[0].legs[0].fareAmount', '120.50', true],
    ['threeDSecure.amount', '123456789.00', true],
    ['threeDSecure.amount', '1234567890.00', false],
    ['recurringMigration.amount', '12345678.99', true],
    ['recurringMigration.amount', '123456789', false],
    // currency
    ['currency', 'EUR', true],
    ['currency', 'eur', false],
    ['currency', 'EU', false],
    ['currency', 'EURO', false],
    ['cart.items[3].currency', 'usd', false],
    // card
    ['card.number', '4200000000000000', true],
    ['card.number', '42000000', true],
    ['card.number', '4200000', false],
    ['card.number', '4200abcd00000000', false],
    ['card.number', '4'.repeat(33), false],
    ['card.cvv', '123', true],
    ['card.cvv', '1234', true],
    ['card.cvv', '12345', false],
    ['card.cvv', '12a', false],
    ['card.expiryMonth', '01', true],
    ['card.expiryMonth', '12', true],
    ['card.expiryMonth', '13', false],
    ['card.expiryMonth', '1', false],
    ['card.expiryMonth', '00', false],
    ['card.expiryYear', '2034', true],
    ['card.expiryYear', '1999', true],
    ['card.expiryYear', '2134', false],
    ['card.expiryYear', '34', false],
    ['card.holder', 'Jo', false],
    ['card.holder', 'Joe', true],
    ['card.numberType', 'DPAN', true],
    ['card.numberType', 'pan', false],
    // entity ids
    ['entityId', HEX32, true],
    ['entityId', HEX32.toUpperCase(), false],
    ['entityId', HEX32.slice(1), false],
    ['authentication.entityId', HEX32, true],
    ['authentication.entityId', 'g'.repeat(32), false],
    ['registrationId', REGISTRATION, true],
    ['registrationId', REGISTRATION.slice(1), false],
    ['registrations[0].id', 'A'.repeat(31) + '-', false],
    // dates
    ['customer.birthDate', '1990-05-31', true],
    ['customer.birthDate', '2001-02-28', true],
    ['customer.birthDate', '1890-01-01', false],
    ['customer.birthDate', '1990-13-01', false],
    ['customer.birthDate', '1990-00-10', false],
    ['customer.birthDate', '1990-01-32', false],
    ['customer.birthDate', '1990-1-1', false],
    ['customer.birthDate', '31.05.1990', false],
    ['transactionDueDate', '2030-01-15', true],
    ['job.startDate', '2030-01-01 10:00:00', true],
    ['job.startDate', '2030-01-01', false],
    ['job.startDate', '2030-01-01 24:00:00', false],
    ['risk.orderTimestamp', '2030-01-01T10:00:00', false],
    ['date.from', '2030-01-01', true],
    ['date.from', '2030-01-01 00:00:00', true],
    ['date.to', '2030-01-01 00:00', false],
    ['standingInstruction.expiry', '2030-12-31', true],
    ['standingInstruction.expiry', '9999-12-31', true],
    ['standingInstruction.expiry', '9998-12-31', false],
    ['recurringMigration.requestTimestamp', '2020-01-31 12:00:00+0000', true],
    ['recurringMigration.requestTimestamp', '2020-01-31 12:00:00', false],
    // enums
    ['paymentType', 'PA', true],
    ['paymentType', 'XX', false],
    ['paymentType', 'db', false],
    ['testMode', 'INTERNAL', true],
    ['testMode', 'internal', false],
    ['transactionCategory', 'MOTO', true],
    ['transactionCategory', 'XX', false],
    ['transactionProcessingCode', 'FUNDING', true],
    ['customer.sex', 'F', true],
    ['customer.sex', 'f', false],
    ['customer.identificationDocType', 'PASSPORT', true],
    ['shipping.method', 'GROUND', true],
    ['shipping.method', 'ground', false],
    ['merchant.shipping.method', 'PUDO', true],
    ['giftCard.type', 'SEASONS_GREETINGS', true],
    ['giftCard.type', 'XMAS', false],
    ['cart.payments[0].status', 'captured', true],
    ['cart.payments[0].status', 'CAPTURED', false],
    ['pos.entryMode', 'NFC_ICC', true],
    ['pos.deviceType', 'MAKERB_E335', true],
    ['pos.deviceType', 'MAKERC_X1', false],
    ['standingInstruction.industryPractice', 'NO_SHOW', true],
    ['standingInstruction.mode', 'FIRST', false],
    ['sortOrder', 'desc', true],
    ['sortOrder', 'Desc', false],
    ['googlePay.source', 'app', true],
    ['samsungPay.source', 'APP', false],
    ['integrity', 'true', true],
    ['integrity', 'yes', false],
    ['createRegistration', 'TRUE', false],
    ['recipient.accountNumberType', 'EMAIL', true],
    ['sender.accountNumberType', 'EMAIL', false],
    // bank account
    ['bankAccount.iban', 'DE89370400440532013000', true],
    ['bankAccount.iban', 'DE8937040044', false],
    ['bankAccount.iban', '89DE370400440532013000', false],
    ['bankAccount.iban', 'DE89 3704 0044 0532 0130 00', false],
    ['bankAccount.bic', 'COBADEFF', true],
    ['bankAccount.bic', 'COBADEFFXXX', true],
    ['bankAccount.bic', 'COBADEFFXX', false],
    ['bankAccount.number', '12', false],
    ['bankAccount.country', 'DE', true],
    ['bankAccount.country', 'de', false],
    ['bankAccount.mandate.id', 'MANDATE-ABC', true],
    // phones
    ['customer.phone', '+49 (30) 123-456/7.8', true],
    ['customer.mobile', '0170 1234567', true],
    // Issue 10: length only, as the platform accepts what real clients send (ActiveMerchant's "(?!?)555-5555").
    ['customer.phone', '(030) 123', true],
    ['customer.phone', '(?!?)555-5555', true],
    ['customer.phone', 'x'.repeat(26), false],
    ['customer.phone', '+4'.repeat(13), false],
    ['shipping.phone', '+49', false],
    ['recipient.phone', '+1 555 0100', true],
    ['corporate.phone', '+4930', false],
    // other formats
    ['numberOfCaptures', '1', true],
    ['numberOfCaptures', '98', true],
    ['numberOfCaptures', '0', false],
    ['numberOfCaptures', '99', false],
    ['numberOfCaptures', '01', false],
    ['limit', '100', true],
    ['limit', '500', true],
    ['limit', '99', false],
    ['limit', '501', false],
    ['paymentTypes', 'DB,PA,3D', true],
    ['paymentTypes', 'DB, PA', false],
    ['paymentTypes', 'DB,', false],
    ['paymentTypes', 'XX', false],
    ['paymentMethods', 'CC,DD', true],
    ['paymentMethods', 'CC,XX', false],
    ['chargebackResultCode', '000.100.201', true],
    ['chargebackResultCode', '000.100.100', false],
    ['paymentBrand', 'VISA', true],
    ['paymentBrand', 'VISA-DEBIT', false],
    ['customer.language', 'DE', true],
    ['customer.language', 'de', false],
    ['billing.country', 'DE', true],
    ['billing.country', 'DEU', false],
    ['billing.postcode', '10115', true],
    ['billing.postcode', 'SW1A 1AA', true],
    ['shipping.postcode', '1234-567', true],
    ['billing.postcode', ' 10115', false],
    ['billing.postcode', '10115-', false],
    ['billing.postcode', '12345678901234567', false],
    ['billing.state', 'N.Y.', true],
    ['billing.state', 'New_York', false],
    ['shipping.city', 'Saint-Denis', true],
    ['shipping.city', 'Berlin 10', false],
    ['merchant.postcode', 'AB-12', true],
    ['merchant.countryCode', '276', true],
    ['merchant.countryCode', 'DE', false],
    ['sender.name', 'Jane Doe 2', true],
    ['sender.name', 'Jane_Doe', false],
    ['sender.country', 'DEU', true],
    ['sender.country', 'DE', false],
    ['sender.sourceOfFunds', '09', true],
    ['sender.sourceOfFunds', '10', false],
    ['cart.items[0].quantity', '1.125', true],
    ['cart.items[0].quantity', '1.1234', false],
    ['cart.items[0].tax', '19.5', true],
    ['cart.items[0].tax', '100.00', true],
    ['cart.items[0].tax', '101', false],
    ['cart.items[0].itemNumber', '999', true],
    ['cart.items[0].itemNumber', '0', false],
    ['cart.items[0].productUrl', 'https://shop.example/p/1', true],
    ['cart.items[0].productUrl', 'shop.example/p/1', false],
    ['cart.items[0].recipient.country', '276', true],
    ['cart.items[0].commodityCode', '1234567', false],
    ['threeDSecure.eci', '05', true],
    ['threeDSecure.eci', '09', false],
    ['threeDSecure.version', '2.2.0', true],
    ['threeDSecure.version', '3.0.0', false],
    ['threeDSecure.verificationId', 'AAABBBCCCDDDEEEFFFGGGHHHIII=', true],
    ['threeDSecure.verificationId', 'AAABBB', false],
    ['threeDSecure.schemeData[CB-ITEMSNB]', '02', true],
    ['threeDSecure.schemeData[CB-ITEMSNB]', '2', false],
    ['threeDSecure.v2.cartesbancaires.requestorId', 'id-1', true],
    ['tokenAccount.cryptogram', 'AAABBBCCCDDDEEEFFFGGGHHHIII=', true],
    ['tokenAccount.cryptogram', 'not base64 at all, is it?!!!', false],
    ['pos.location.latitude', '-33.12345678', true],
    ['pos.location.latitude', '-33.123456789', false],
    ['pos.terminalId', '12345', true],
    ['pos.terminalId', 'T-1', false],
    ['customer.browser.timezone', '-120', true],
    ['customer.browser.screenHeight', '1080px', false],
    ['overridePaymentType[VISA]', 'PA', true],
    ['overridePaymentType[VISA]', 'XX', false],
    ['customParameters[SHOPPER_note]', 'x'.repeat(2048), true],
    ['customParameters[SHOPPER_note]', 'x'.repeat(2049), false],
    ['customParameters[note]', '', true],
    // scheduling
    ['job.hour', '0-23/2', true],
    ['job.hour', '24', false],
    ['job.second', '*/15', true],
    ['job.minute', '59', true],
    ['job.minute', '60', false],
    ['job.minute', '*/5', false],
    ['job.month', '1,6,12', true],
    ['job.month', 'JAN', false],
    ['job.dayOfWeek', 'MON-FRI', true],
    ['job.dayOfWeek', '2#3', true],
    ['job.dayOfWeek', '6L', true],
    ['job.dayOfWeek', '?', true],
    ['job.dayOfWeek', '8', false],
    ['job.dayOfMonth', 'L', true],
    ['job.dayOfMonth', 'LW', true],
    ['job.dayOfMonth', '15W', true],
    ['job.dayOfMonth', 'L-3', true],
    ['job.dayOfMonth', '1,15', true],
    ['job.dayOfMonth', '32', false],
    ['job.dayOfMonth', '1#2', false],
    ['job.year', '', true],
    ['job.year', '2026-2030', true],
    ['job.year', '2100', false],
    ['job.year', '1969', false],
    ['job.noticeNumber', '12345678901234567', false],
    ['job.expression', '0 0 12 ? * MON', true],
    ['job.expression', '0 0 12 1 * ? 2030', true],
    ['job.expression', '0 0 12', false],
    ['job.expression', `0 0 12 ? * MON ${'1'.repeat(250)}`, false],
    // lengths
    ['merchantInvoiceId', '1234567', false],
    ['merchantInvoiceId', '12345678', true],
    ['descriptor', 'd'.repeat(128), false],
    ['customer.givenName', 'g'.repeat(51), false],
    ['customer.middleName', 'M', false],
    ['customer.email', 'a@b.c', false],
    ['shopperResultUrl', 'https://shop.example/result', true],
    ['shopperResultUrl', 'a.b', false],
    ['giftCard.message', 'x', false],
    ['corporate.name', 'c'.repeat(31), false],
    ['merchant.name', '€'.repeat(100), true],
    ['shortId', '1234.5678.9012', true],
    ['shortId', '1234.5678.90123', false],
  ];

  it.each(cases)('%s = %j is valid: %s', (name, value, valid) => {
    const error = errorOf(name, value);
    if (valid) expect(error).toBeUndefined();
    else expect(error, `${name}=${value} should be rejected`).toBeDefined();
  });

  it('explains what is expected', () => {
    expect(errorOf('amount', '1.5')?.message).toBe(
      'must be an amount with up to 10 digits and optionally a dot and 2 decimals',
    );
    expect(errorOf('customer.birthDate', '1990-13-01')?.message).toBe('must be a date yyyy-MM-dd');
    expect(errorOf('currency', 'eur')?.message).toMatch(/3 uppercase letters/);
    expect(errorOf('customer.sex', 'x')?.message).toBe('must be one of: M, F');
    expect(errorOf('descriptor', '')?.message).toBe('must be between 1 and 127 characters long');
    expect(errorOf('card.expiryMonth', '13')?.message).toBe('must be a month 01 to 12');
  });

  it('echoes the value as sent for non-sensitive parameters', () => {
    expect(errorOf('amount', '1,00')).toEqual({
      name: 'amount',
      value: '1,00',
      message: 'must be an amount with up to 10 digits and optionally a dot and 2 decimals',
    });
  });

  it('refuses control characters', () => {
    expect(errorOf('card.holder', 'Jane\u0000Jones')?.message).toBe('must not contain control characters');
  });
});

describe('lengths count characters, not UTF-16 units', () => {
  it('accepts 128 emoji as a holder (256 UTF-16 units) and refuses 129', () => {
    expect(validate({ 'card.holder': '😀'.repeat(128) }, 'query')).toEqual([]);
    expect(names(validate({ 'card.holder': '😀'.repeat(129) }, 'query'))).toEqual(['card.holder']);
  });
  it('counts a lone emoji pair as one character against a minimum', () => {
    expect(names(validate({ 'card.holder': '😀😀' }, 'query'))).toEqual(['card.holder']);
    expect(validate({ 'card.holder': 'Zoë' }, 'query')).toEqual([]);
  });
});

describe('indexes and map keys', () => {
  it('accepts cart item indexes 0 to 999 and refuses 1000', () => {
    expect(errorOf('cart.items[0].name', 'Shirt')).toBeUndefined();
    expect(errorOf('cart.items[999].name', 'Shirt')).toBeUndefined();
    expect(errorOf('cart.items[1000].name', 'Shirt')?.message).toBe('list index must be between 0 and 999');
  });

  it('sets maxIndex 999 on every cart item entry', () => {
    const cartItems = CATALOGUE.filter((spec) => spec.name.startsWith('cart.items[n].'));
    expect(cartItems.length).toBeGreaterThan(40);
    for (const spec of cartItems) expect(spec.maxIndex, spec.name).toBe(999);
  });

  it('refuses indexes with leading zeros', () => {
    expect(errorOf('cart.items[01].name', 'Shirt')?.message).toBe('list index must not have leading zeros');
  });

  it('checks every index of nested lists', () => {
    expect(errorOf('airline.passengers[2].legs[3].flightNumber', 'LH400')).toBeUndefined();
    expect(errorOf('airline.passengers[0].legs[1000].flightNumber', 'LH400')).toBeDefined();
    expect(errorOf('airline.passengers[00].legs[0].flightNumber', 'LH400')).toBeDefined();
  });

  it('checks map keys against their pattern', () => {
    expect(errorOf('customParameters[ab]', 'x')?.message).toBe('has an invalid name: "ab"');
    expect(errorOf('customParameters[SHOPPER_note]', 'x')).toBeUndefined();
    expect(errorOf('customParameters[3DS2_enrolled]', 'true')).toBeUndefined();
    expect(errorOf('customParameters[123]', 'x')).toBeUndefined();
    expect(errorOf('customParameters[a-b-c]', 'x')).toBeDefined();
    expect(errorOf(`customParameters[${'k'.repeat(65)}]`, 'x')).toBeDefined();
    expect(errorOf('merchant.data[shop.id_1]', 'x')).toBeUndefined();
    expect(errorOf('merchant.data[id]', 'x')).toBeDefined();
    expect(errorOf('risk.parameters[USER_DATA1]', 'x')).toBeUndefined();
    expect(errorOf('risk.parameters[u1]', 'x')).toBeDefined();
    expect(errorOf('overridePaymentType[VISA]', 'DB')).toBeUndefined();
    expect(errorOf(`overridePaymentType[${'B'.repeat(33)}]`, 'DB')).toBeDefined();
  });

  it('keeps literal bracket names literal', () => {
    expect(isKnownParameter('threeDSecure.schemeData[CB-ITEMSNB]')).toBe(true);
    expect(isKnownParameter('threeDSecure.schemeData[CB-SCORE_MERCHANT]')).toBe(true);
    expect(isKnownParameter('threeDSecure.schemeData[CB-USECASE]')).toBe(true);
    expect(isKnownParameter('threeDSecure.schemeData[CB-OTHER]')).toBe(false);
  });

  it('does not treat a template name sent literally as the parameter', () => {
    expect(isKnownParameter('cart.items[n].name')).toBe(false);
    expect(errorOf('customParameters[*]', 'x')?.message).toBe('has an invalid name: "*"');
  });
});

describe('unknown parameters', () => {
  it('are ignored', () => {
    expect(
      validate({ foo: 'bar', 'card.expiry': '12 / 30', 'recurring.numberOfInstallments': '3', 'cart.items[x].name': 'y' }, 'registration'),
    ).toEqual([]);
    expect(isKnownParameter('customer.nickname')).toBe(false);
    expect(isKnownParameter('shipping.customer.app.deviceId')).toBe(false);
    expect(isKnownParameter('shipping.customer.browserFingerprint.id')).toBe(false);
    expect(isKnownParameter('shipping.customer.browser.deviceId')).toBe(false);
    expect(isKnownParameter('merchant.shipping.customer.givenName')).toBe(false);
  });
});

describe('required per operation', () => {
  it('payment: amount, currency, paymentType (entityId is the HTTP layer’s)', () => {
    const errors = validate({}, 'payment');
    expect(names(errors)).toEqual(
      ['amount', 'card.expiryMonth', 'card.expiryYear', 'card.number', 'currency', 'paymentType'].sort(),
    );
    expect(errors.find((error) => error.name === 'amount')).toEqual({ name: 'amount', value: '', message: 'is required' });
  });

  it('checkout: amount and currency; paymentType unless createRegistration=true', () => {
    expect(names(validate({}, 'checkout'))).toEqual(['amount', 'currency', 'paymentType']);
    // A registration-only checkout charges nothing: no amount, no currency.
    expect(validate({ createRegistration: 'true' }, 'checkout')).toEqual([]);
    expect(names(validate({ createRegistration: 'true', paymentType: 'DB' }, 'checkout'))).toEqual(['amount', 'currency']);
    expect(names(validate({ createRegistration: 'false' }, 'checkout'))).toEqual(['amount', 'currency', 'paymentType']);
    expect(validate({ amount: '10.00', currency: 'EUR', paymentType: 'DB' }, 'checkout')).toEqual([]);
    expect(validate({ amount: '10.00', currency: 'EUR', createRegistration: 'true' }, 'checkout')).toEqual([]);
  });

  it('backOffice: paymentType; amount and currency for captures and refunds, not for reversals', () => {
    expect(names(validate({}, 'backOffice'))).toEqual(['amount', 'currency', 'paymentType']);
    expect(validate({ amount: '10.00', currency: 'EUR', paymentType: 'CP' }, 'backOffice')).toEqual([]);
    expect(names(validate({ paymentType: 'RF' }, 'backOffice'))).toEqual(['amount', 'currency']);
    expect(validate({ paymentType: 'RV' }, 'backOffice')).toEqual([]);
  });

  it('schedule: amount, currency, paymentType, registrationId', () => {
    expect(names(validate({}, 'schedule'))).toEqual(['amount', 'currency', 'paymentType', 'registrationId']);
  });

  it('query and registration: nothing unconditional', () => {
    expect(validate({}, 'query')).toEqual([]);
    expect(validate({}, 'registration')).toEqual([]);
  });

  it('marks only amount, currency, paymentType and registrationId as required', () => {
    const requiredNames = CATALOGUE.filter((spec) => spec.requiredFor?.length).map((spec) => spec.name);
    expect(requiredNames.sort()).toEqual(['amount', 'currency', 'paymentType', 'registrationId']);
  });

  it('accepts complete, valid requests of every operation', () => {
    expect(validate(CARD_PAYMENT, 'payment')).toEqual([]);
    expect(
      validate(
        {
          entityId: HEX32,
          amount: '20.00',
          currency: 'EUR',
          paymentType: 'DB',
          registrationId: REGISTRATION,
          'standingInstruction.type': 'RECURRING',
          'standingInstruction.mode': 'REPEATED',
          'standingInstruction.source': 'MIT',
          'standingInstruction.recurringType': 'SUBSCRIPTION',
          'job.second': '0',
          'job.minute': '0',
          'job.hour': '3',
          'job.dayOfMonth': '1',
          'job.month': '*',
          'job.dayOfWeek': '?',
          testMode: 'INTERNAL',
        },
        'schedule',
      ),
    ).toEqual([]);
    expect(validate({ entityId: HEX32, 'date.from': '2030-01-01 00:00:00', 'date.to': '2030-01-31 23:59:59', limit: '200' }, 'query')).toEqual([]);
    expect(
      validate(
        {
          entityId: HEX32,
          amount: '49.99',
          currency: 'USD',
          paymentType: 'PA',
          merchantTransactionId: 'order-12345',
          'customer.givenName': 'Jane',
          'customer.surname': 'Jones',
          'customer.email': 'jane@example.com',
          'billing.street1': 'Main Street 1',
          'billing.city': 'Springfield',
          'billing.postcode': '12345',
          'billing.country': 'US',
          'cart.items[0].name': 'Shirt',
          'cart.items[0].price': '49.99',
          'cart.items[0].quantity': '1',
          'registrations[0].id': REGISTRATION,
          'customParameters[SHOPPER_note]': 'gift',
          shopperResultUrl: 'https://shop.example/result',
          integrity: 'true',
        },
        'checkout',
      ),
    ).toEqual([]);
  });
});

describe('cross-field rules', () => {
  it('customer.givenName and customer.surname are required with other customer parameters', () => {
    expect(names(validate({ 'customer.email': 'jane@example.com' }, 'registration'))).toEqual([
      'customer.givenName',
      'customer.surname',
    ]);
    expect(
      validate({ 'customer.email': 'jane@example.com', 'customer.givenName': 'Jane', 'customer.surname': 'Jones' }, 'registration'),
    ).toEqual([]);
    expect(names(validate({ 'customer.givenName': 'Jane' }, 'registration'))).toEqual(['customer.surname']);
  });

  it('shipping.customer names are required with other shipping.customer parameters (and independently of customer.*)', () => {
    expect(names(validate({ 'shipping.customer.phone': '+49 30 1234' }, 'registration'))).toEqual([
      'shipping.customer.givenName',
      'shipping.customer.surname',
    ]);
    expect(
      validate(
        { 'shipping.customer.phone': '+49 30 1234', 'shipping.customer.givenName': 'Jo', 'shipping.customer.surname': 'Doe' },
        'registration',
      ),
    ).toEqual([]);
    expect(validate({ 'shipping.street1': 'Main Street 1' }, 'registration')).toEqual([]);
  });

  it('identificationDocType and identificationDocId go together', () => {
    const names2 = { 'customer.givenName': 'Jane', 'customer.surname': 'Jones' };
    expect(names(validate({ ...names2, 'customer.identificationDocType': 'PASSPORT' }, 'registration'))).toEqual([
      'customer.identificationDocId',
    ]);
    expect(names(validate({ ...names2, 'customer.identificationDocId': 'X1234567' }, 'registration'))).toEqual([
      'customer.identificationDocType',
    ]);
    expect(
      validate({ ...names2, 'customer.identificationDocType': 'PASSPORT', 'customer.identificationDocId': 'X1234567' }, 'registration'),
    ).toEqual([]);
    const shippingNames = { 'shipping.customer.givenName': 'Jo', 'shipping.customer.surname': 'Doe' };
    expect(names(validate({ ...shippingNames, 'shipping.customer.identificationDocType': 'IDCARD' }, 'registration'))).toEqual([
      'shipping.customer.identificationDocId',
    ]);
  });

  it('bank account: number or iban, and with a number bankCode or bic (an IBAN names its bank: COMPAT §16)', () => {
    expect(names(validate({ 'bankAccount.holder': 'Jane Jones' }, 'registration'))).toEqual([
      'bankAccount.bic',
      'bankAccount.iban',
    ]);
    expect(
      validate({ 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE89370400440532013000', 'bankAccount.bic': 'COBADEFFXXX' }, 'registration'),
    ).toEqual([]);
    expect(
      validate({ 'bankAccount.holder': 'Jane Jones', 'bankAccount.number': '0532013000', 'bankAccount.bankCode': '37040044' }, 'registration'),
    ).toEqual([]);
    expect(validate({ 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE89370400440532013000' }, 'registration')).toEqual([]);
    expect(names(validate({ 'bankAccount.holder': 'Jane Jones', 'bankAccount.number': '0532013000' }, 'registration'))).toEqual(['bankAccount.bic']);
  });

  it('Req fields of an optional group are required once the group is used', () => {
    expect(names(validate({ 'bankAccount.iban': 'DE89370400440532013000', 'bankAccount.bic': 'COBADEFF' }, 'registration'))).toEqual([
      'bankAccount.holder',
    ]);
    expect(names(validate({ 'tokenAccount.expiryMonth': '05' }, 'registration'))).toEqual(['tokenAccount.number', 'tokenAccount.type']);
    expect(validate({ 'tokenAccount.number': '4200000000000000', 'tokenAccount.type': 'NETWORK' }, 'registration')).toEqual([]);
    expect(names(validate({ 'pos.deviceId': '123' }, 'registration'))).toEqual(['pos.entryMode', 'pos.terminalId']);
    expect(validate({ 'pos.entryMode': 'ICC', 'pos.terminalId': '1001' }, 'registration')).toEqual([]);
    expect(names(validate({ 'recurringMigration.connectorTxId1': 'abc' }, 'registration'))).toEqual(['recurringMigration.paymentType']);
  });

  it('houseNumber2 requires houseNumber1', () => {
    expect(validate({ 'billing.houseNumber2': '4a' }, 'registration')).toEqual([
      { name: 'billing.houseNumber2', value: '4a', message: 'requires billing.houseNumber1' },
    ]);
    expect(names(validate({ 'merchant.shipping.houseNumber2': '4a' }, 'registration'))).toEqual(['merchant.shipping.houseNumber2']);
    expect(validate({ 'billing.houseNumber1': '4', 'billing.houseNumber2': '4a' }, 'registration')).toEqual([]);
  });

  it('street1 and street2 together cannot be digits only', () => {
    expect(validate({ 'billing.street1': '12', 'billing.street2': '34' }, 'registration')).toEqual([
      { name: 'billing.street1', value: '12', message: 'billing.street1 and billing.street2 together must not be digits only' },
    ]);
    expect(names(validate({ 'shipping.street2': '1 2' }, 'registration'))).toEqual(['shipping.street2']);
    expect(validate({ 'billing.street1': '12', 'billing.street2': 'Main Street' }, 'registration')).toEqual([]);
    expect(validate({ 'merchant.billing.street1': 'Main Street 12' }, 'registration')).toEqual([]);
  });

  it('paymentType must fit the operation', () => {
    const base = { amount: '10.00', currency: 'EUR' };
    for (const paymentType of ['PA', 'DB', 'CD']) {
      expect(validate({ ...CARD_PAYMENT, paymentType }, 'payment')).toEqual([]);
    }
    expect(validate({ ...CARD_PAYMENT, paymentType: 'CP' }, 'payment')).toEqual([
      { name: 'paymentType', value: 'CP', message: 'must be one of: PA, DB, CD, PA.CP' },
    ]);
    for (const paymentType of ['CP', 'RV', 'RF']) expect(validate({ ...base, paymentType }, 'backOffice')).toEqual([]);
    expect(names(validate({ ...base, paymentType: 'DB' }, 'backOffice'))).toEqual(['paymentType']);
    expect(names(validate({ ...base, paymentType: 'CD' }, 'checkout'))).toEqual(['paymentType']);
    expect(names(validate({ ...base, paymentType: 'RF', createRegistration: 'true' }, 'checkout'))).toEqual(['paymentType']);
    const schedule = { ...base, registrationId: REGISTRATION };
    expect(validate({ ...schedule, paymentType: 'CD' }, 'schedule')).toEqual([]);
    expect(names(validate({ ...schedule, paymentType: 'RV' }, 'schedule'))).toEqual(['paymentType']);
  });

  it('overridePaymentType values of a checkout are PA or DB', () => {
    const checkout = { amount: '10.00', currency: 'EUR', paymentType: 'DB' };
    expect(validate({ ...checkout, 'overridePaymentType[VISA]': 'PA' }, 'checkout')).toEqual([]);
    expect(validate({ ...checkout, 'overridePaymentType[VISA]': 'RF' }, 'checkout')).toEqual([
      { name: 'overridePaymentType[VISA]', value: 'RF', message: 'must be one of: PA, DB' },
    ]);
  });

  it('a payment needs card number and expiry unless another instrument is sent', () => {
    const payment = { amount: '10.00', currency: 'EUR', paymentType: 'DB' };
    expect(names(validate(payment, 'payment'))).toEqual(['card.expiryMonth', 'card.expiryYear', 'card.number']);
    expect(validate(payment, 'payment')[0]?.message).toBe('is required when no other payment instrument is sent');
    expect(names(validate({ ...payment, 'card.number': '4200000000000000', 'card.cvv': '123' }, 'payment'))).toEqual([
      'card.expiryMonth',
      'card.expiryYear',
    ]);
    const others: Record<string, string>[] = [
      { registrationId: REGISTRATION },
      { 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE89370400440532013000', 'bankAccount.bic': 'COBADEFF' },
      { 'virtualAccount.accountId': 'jane@example.com' },
      { 'tokenAccount.number': '4200000000000000', 'tokenAccount.type': 'NETWORK' },
      { 'applePay.paymentToken': '{"data":"..."}' },
      { 'samsungPay.paymentToken': 'token' },
      { referenceUuid: REGISTRATION },
    ];
    for (const other of others) expect(validate({ ...payment, ...other }, 'payment'), JSON.stringify(other)).toEqual([]);
    // Card details are not required outside payments.
    expect(validate({}, 'registration')).toEqual([]);
  });

  it('card.cvv is required with card.number except on card-on-file payments', () => {
    const { ['card.cvv']: _cvv, ...withoutCvv } = CARD_PAYMENT;
    expect(validate(withoutCvv, 'payment')).toEqual([
      {
        name: 'card.cvv',
        value: '',
        message: 'is required with card.number unless the payment is card on file (standingInstruction.*)',
      },
    ]);
    expect(validate({ ...withoutCvv, 'standingInstruction.mode': 'REPEATED' }, 'payment')).toEqual([]);
    expect(validate({ ...withoutCvv, 'standingInstruction.source': 'MIT' }, 'payment')).toEqual([]);
    // COMPAT §11: an INITIAL payment without a CVV is accepted too.
    expect(validate({ ...withoutCvv, 'standingInstruction.mode': 'INITIAL', 'standingInstruction.source': 'CIT' }, 'payment')).toEqual([]);
    expect(validate({ ...withoutCvv, recurringType: 'INITIAL' }, 'payment')).toEqual([]);
  });

  it('forex.amount and forex.currency go together', () => {
    expect(names(validate({ 'forex.amount': '10.00' }, 'registration'))).toEqual(['forex.currency']);
    expect(names(validate({ 'forex.currency': 'USD' }, 'registration'))).toEqual(['forex.amount']);
    expect(validate({ 'forex.amount': '10.00', 'forex.currency': 'USD' }, 'registration')).toEqual([]);
  });

  it('query: date.from and date.to go together, merchantTransactionId excludes them', () => {
    expect(names(validate({ 'date.from': '2030-01-01' }, 'query'))).toEqual(['date.to']);
    expect(names(validate({ 'date.to': '2030-01-01' }, 'query'))).toEqual(['date.from']);
    expect(validate({ 'date.from': '2030-01-01', 'date.to': '2030-01-31' }, 'query')).toEqual([]);
    expect(validate({ merchantTransactionId: 'order-1', 'date.from': '2030-01-01', 'date.to': '2030-01-31' }, 'query')).toEqual([
      { name: 'merchantTransactionId', value: 'order-1', message: 'cannot be combined with date.from and date.to' },
    ]);
    expect(validate({ merchantTransactionId: 'order-1' }, 'query')).toEqual([]);
    // Not applied outside queries.
    expect(validate({ 'date.from': '2030-01-01' }, 'registration')).toEqual([]);
  });

  it('merchantTransactionId: 1 to 255 characters on every endpoint (COMPAT §2: shops send their order number)', () => {
    for (const operation of ['query', 'registration', 'payment', 'checkout', 'schedule'] as const) {
      expect(validate({ merchantTransactionId: '1' }, operation), operation).not.toContainEqual(expect.objectContaining({ name: 'merchantTransactionId' }));
      expect(names(validate({ merchantTransactionId: 'x'.repeat(256) }, operation)), operation).toContain('merchantTransactionId');
    }
  });

  it("job.dayOfMonth and job.dayOfWeek: one of the two must be '?'", () => {
    expect(names(validate({ 'job.dayOfMonth': '1', 'job.dayOfWeek': 'MON' }, 'registration'))).toEqual(['job.dayOfWeek']);
    expect(validate({ 'job.dayOfMonth': '?', 'job.dayOfWeek': 'MON' }, 'registration')).toEqual([]);
    expect(validate({ 'job.dayOfMonth': '1', 'job.dayOfWeek': '?' }, 'registration')).toEqual([]);
    expect(validate({ 'job.dayOfMonth': '1' }, 'registration')).toEqual([]);
    expect(names(validate({ 'job.expression': '0 0 12 1 * MON' }, 'registration'))).toEqual(['job.expression']);
    expect(validate({ 'job.expression': '0 0 12 1 * ? 2030' }, 'registration')).toEqual([]);
  });
});

describe('masking in parameterErrors', () => {
  it('shows only BIN and last four of an invalid card number', () => {
    const number = '4200000000000000123456789012345678';
    const error = errorOf('card.number', number);
    expect(error?.value).toBe(maskAccountNumber(number));
    expect(error?.value).toMatch(/^420000\*+5678$/);
    expect(error?.value).not.toContain('0000000000');
    // Not digits only: still only the first six and last four characters are shown.
    expect(errorOf('card.number', '4200abcd00001111')?.value).toBe('4200ab******1111');
  });

  it('hides the card.cvv and other secrets entirely', () => {
    expect(errorOf('card.cvv', '12345')?.value).toBe('*****');
    expect(errorOf('authentication.password', '')).toBeDefined();
    expect(displayValue('authentication.password', 'hunter2')).toBe('*******');
    expect(displayValue('applePay.paymentToken', 'x'.repeat(100))).toBe('********');
    expect(displayValue('tokenAccount.number', '4200000000001234')).toBe('420000******1234');
    expect(displayValue('card.number', '4200')).toBe('****');
  });

  it('masks a long value before it cuts it, by characters, so no cut leaves most of a card number showing', () => {
    // 19 digits across the cut: the first 16 alone fail Luhn, so a cut before masking would show them.
    const across = `${'x'.repeat(240)}4000000000000000006`;
    expect(displayValue('customParameters[SHOPPER_note]', across)).toBe(`${'x'.repeat(240)}400000${'*'.repeat(9)}0…`);
    expect(displayValue('merchantTransactionId', 'y'.repeat(800_000))).toBe(`${'y'.repeat(256)}…`);
    expect(displayValue('card.number', '4'.repeat(800_000))).toBe(`444444${'*'.repeat(250)}…`);
    expect(displayValue('descriptor', '😀'.repeat(300))).toBe(`${'😀'.repeat(256)}…`);
  });

  it('masks card numbers and secrets sent under any other name', () => {
    // A Luhn-valid number under a name the catalogue does not mark, alone or inside text, grouped or not.
    expect(displayValue('customer.birthDate', '4200000000000000')).toBe('420000******0000');
    expect(displayValue('customParameters[note]', 'card 4200 0000 0000 0000, exp 05/34')).toBe('card 420000******0000, exp 05/34');
    expect(displayValue('amount', '5454-5454-5454-5454')).toBe('545454******5454');
    // Digit runs that are not card numbers (Luhn fails) stay readable.
    expect(displayValue('customer.birthDate', '4200000000000001')).toBe('4200000000000001');
    // Secrets by name, whatever the catalogue says about the name.
    expect(displayValue('customParameters[cvv]', '123')).toBe('***');
    expect(displayValue('customParameters[PIN]', '4711')).toBe('****');
    expect(displayValue('cart.items[0].password', 'hunter2')).toBe('*******');
    // Bank account numbers are masked like card numbers.
    expect(displayValue('bankAccount.iban', 'DE23100000001234567890')).toBe('DE2310************7890');
    expect(displayValue('bankAccount.number', '1234567890')).toBe('********');
    // The name and the message of an error are masked too.
    expect(maskedParameterError({ name: '4200000000000000', value: '', message: 'must not be sent more than once' }).name).toBe('420000******0000');
    expect(maskedParameterError({ name: 'customParameters[x]', value: 'y', message: 'has an invalid name: "5454545454545454"' }).message).toBe(
      'has an invalid name: "545454******5454"',
    );
  });

  it('keeps the catalogue sensitivities', () => {
    const sensitivity = (name: string) => findSpec(name)?.spec.sensitive;
    for (const name of ['card.number', 'tokenAccount.number', 'bankAccount.number', 'bankAccount.iban', 'giftCard.number']) {
      expect(sensitivity(name), name).toBe('pan');
    }
    for (const name of [
      'card.cvv',
      'authentication.password',
      'applePay.paymentToken',
      'googlePay.paymentToken',
      'samsungPay.paymentToken',
      'virtualAccount.password',
      'virtualAccount.paymentToken',
      'tokenAccount.cryptogram',
      'tokenAccount.dtvc',
      'giftCard.pin',
      'pos.encryptedPin.data',
    ]) {
      expect(sensitivity(name), name).toBe('secret');
    }
    expect(sensitivity('threeDSecure.verificationId')).toBe('authenticationData');
  });

  it('echoes account numbers masked, secrets not at all, the merchant’s 3-D Secure data as sent', () => {
    const echo = (name: string, value: string) => echoedValue(findSpec(name)?.spec ?? { name }, value);
    expect(echo('tokenAccount.number', '4200000000000000')).toBe('420000******0000');
    expect(echo('bankAccount.iban', 'DE23100000001234567890')).toBe('DE2310************7890');
    expect(echo('tokenAccount.dtvc', '123')).toBeUndefined();
    expect(echo('tokenAccount.cryptogram', 'AAACBllleHchZTBWIGV4AAAAAAA=')).toBeUndefined();
    expect(echo('threeDSecure.verificationId', 'AAACBllleHchZTBWIGV4AAAAAAA=')).toBe('AAACBllleHchZTBWIGV4AAAAAAA=');
    expect(echo('merchantTransactionId', 'order-1')).toBe('order-1');
  });
});

describe('the catalogue', () => {
  it('has one entry per name', () => {
    const seen = new Set<string>();
    const duplicates = CATALOGUE.map((spec) => spec.name).filter((name) => (seen.has(name) ? true : (seen.add(name), false)));
    expect(duplicates).toEqual([]);
  });

  it('reaches every list and map entry through findSpec with a concrete name', () => {
    const templates = CATALOGUE.filter((spec) => /\[(n|\*)\]/.test(spec.name));
    expect(templates.length).toBeGreaterThan(90);
    for (const spec of templates) {
      const concrete = spec.name.replaceAll('[n]', '[7]').replaceAll('[*]', '[abc_1]');
      expect(findSpec(concrete)?.spec, concrete).toBe(spec);
      if (spec.name.includes('[*]')) expect(spec.keyPattern, spec.name).toBeInstanceOf(RegExp);
    }
  });

  it('reaches every plain entry by its own name', () => {
    for (const spec of CATALOGUE.filter((entry) => !/\[(n|\*)\]/.test(entry.name))) {
      expect(findSpec(spec.name)?.spec, spec.name).toBe(spec);
    }
  });

  it('anchors every pattern and explains it', () => {
    for (const spec of CATALOGUE) {
      if (spec.pattern) {
        expect(spec.pattern.source.startsWith('^'), spec.name).toBe(true);
        expect(spec.pattern.source.endsWith('$'), spec.name).toBe(true);
        expect(spec.pattern.global || spec.pattern.sticky, spec.name).toBe(false);
        expect(spec.formatMessage, spec.name).toBeTruthy();
      }
      if (spec.values) expect(spec.values.length, spec.name).toBeGreaterThan(0);
      if (spec.min !== undefined && spec.max !== undefined) expect(spec.min, spec.name).toBeLessThanOrEqual(spec.max);
    }
  });

  it('expands threeDSecure.v2.<scheme> for the six schemes', () => {
    for (const scheme of ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'cartesbancaires']) {
      expect(isKnownParameter(`threeDSecure.v2.${scheme}.requestorId`), scheme).toBe(true);
      expect(isKnownParameter(`threeDSecure.v2.${scheme}.requestorName`), scheme).toBe(true);
    }
    expect(isKnownParameter('threeDSecure.v2.VISA.requestorId')).toBe(false);
  });

  it('knows parameters from every group of the spec', () => {
    const sample = [
      // doc 2
      'amount', 'taxAmount', 'discountAmount', 'currency', 'paymentBrand', 'paymentType', 'integrity',
      'overridePaymentType[VISA]', 'descriptor', 'merchantTransactionId', 'merchantInvoiceId', 'merchantMemo',
      'transactionCategory', 'sequence', 'numberOfCaptures', 'promotionCode', 'locale', 'transactionPurposeCode',
      'integrationType', 'transactionBai', 'transactionTti', 'transactionProcessingCode', 'lifecycleId',
      'referenceUuid', 'testMode', 'forex.amount', 'forex.currency', 'entityId', 'authentication.entityId',
      'authentication.userId', 'authentication.password', 'card.holder', 'card.number', 'card.expiryMonth',
      'card.expiryYear', 'card.cvv', 'card.numberType', 'applePay.paymentToken', 'applePay.cardNetwork',
      'applePay.cardType', 'applePay.source', 'googlePay.paymentToken', 'googlePay.source', 'samsungPay.paymentToken',
      'samsungPay.source', 'virtualAccount.accountId', 'bankAccount.holder', 'bankAccount.bankName',
      'bankAccount.number', 'bankAccount.iban', 'bankAccount.bankCode', 'bankAccount.bic', 'bankAccount.country',
      'bankAccount.mandate.id', 'bankAccount.mandate.dateOfSignature', 'transactionDueDate',
      'tokenAccount.number', 'tokenAccount.type', 'tokenAccount.cryptogram', 'tokenAccount.dtvc',
      'customer.merchantCustomerId', 'customer.givenName', 'customer.identificationDocId', 'customer.status',
      'customer.browserFingerprint.value', 'customer.browser.acceptHeader', 'customer.browser.challengeWindow',
      'customer.browser.deviceId', 'customer.app.deviceId', 'shipping.customer.givenName',
      'shipping.customer.email', 'shipping.customer.browser.userAgent', 'billing.street1', 'billing.houseNumber2',
      'billing.validationStatus', 'merchant.billing.street1', 'merchant.billing.city', 'merchant.billing.givenName',
      'merchant.billing.mobile', 'merchant.billing.email', 'shipping.method', 'shipping.cost', 'shipping.preference',
      'shipping.type', 'merchant.shipping.street1', 'merchant.shipping.cost', 'corporate.name', 'corporate.purchase',
      'corporate.vatId', 'sender.name', 'sender.sourceOfFunds', 'sender.accountNumberType', 'recipient.givenName',
      'recipient.phone', 'recipient.accountNumberType', 'merchant.name', 'merchant.mcc', 'merchant.url',
      'merchant.URL', 'merchant.data[shop.id]', 'merchant.app.schemeUrl', 'merchant.geographicCoordinates',
      // doc 3
      'cart.items[0].name', 'cart.items[12].recipient.email', 'cart.items[3].deliveryDate',
      'cart.payments[0].primary', 'marketPlace.sellers[1].amount', 'airline.totalFareAmount', 'airline.bookingtype',
      'airline.passengers[0].residenceCountry', 'airline.passengers[1].frequentFlyerNumber',
      'airline.passengers[0].legs[0].departureAirport', 'airline.passengers[0].legs[2].timeToDeparture',
      'createRegistration', 'overrideHolder', 'registrationId', 'registrations[0].id',
      'recurringMigration.paymentType', 'recurringMigration.connectorTxId3', 'threeDSecure.eci',
      'threeDSecure.verificationId', 'threeDSecure.merchant.country', 'threeDSecure.v2.amex.requestorName',
      'threeDSecure.exemptionFlag', 'threeDSecure.flow', 'threeDSecure.schemeData[CB-USECASE]',
      'customParameters[SHOPPER_note]', 'shopperResultUrl', 'notificationUrl', 'pos.deviceId', 'pos.encryptedPin.ksn',
      'pos.entryMode', 'pos.location.longitude', 'pos.terminalId', 'pos.transactionSource', 'date.from', 'date.to',
      'sortValue', 'sortOrder', 'giftCard.number', 'giftCard.pin', 'giftCard.type', 'risk.channelId',
      'risk.orderTimestamp', 'risk.parameters[USER_DATA1]', 'risk.accountToken', 'job.name', 'job.year',
      'job.dayOfWeek', 'job.startDate', 'job.noticeCallable', 'job.durationNumber', 'job.expression',
      'standingInstruction.type', 'standingInstruction.recurringType', 'standingInstruction.mode',
      'standingInstruction.source', 'standingInstruction.initialTransactionId', 'standingInstruction.industryPractice',
      'standingInstruction.expiry', 'standingInstruction.frequency', 'standingInstruction.numberOfInstallments',
      'chargebackResultCode', 'limit', 'paymentTypes', 'paymentMethods', 'includeLinkedTransactions', 'shortId',
    ];
    expect(sample.length).toBeGreaterThanOrEqual(60);
    expect(sample.filter((name) => !isKnownParameter(name))).toEqual([]);
  });
});

describe('masked values outside the Basic Multilingual Plane', () => {
  it('masks an account number by characters, so the result is still well-formed text (storable as JSON)', () => {
    const masked = maskAccountNumber('!!𐀀𐀀!𐀀𐀀!');
    expect(masked).toBe('*'.repeat(8));
    const long = maskAccountNumber('𐀀'.repeat(14));
    expect(long).toBe(`${'𐀀'.repeat(6)}****${'𐀀'.repeat(4)}`);
    // No lone surrogate: PostgreSQL refuses one in a jsonb value.
    expect(long).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});
