import { afterEach, describe, expect, it } from 'vitest';
import { readOptions } from '../app/options.ts';
import { cvvLengthOf, expiryOf, storedCardsOf } from '../app/registration/stored.ts';
import { isPaymentTarget, parseLaunch, paymentBody, postsPayment, PROTOCOL_VERSION } from '../shared/protocol.ts';

/** The one-click form's pure parts: stored cards from paymentWidgets.js, its options, and the hosted-field rules it relies on. */

const VISA = { id: '8ac7a4a27b4c7867017b510d33dd7188', brand: 'VISA', last4Digits: '0000', expiryMonth: '05', expiryYear: '2034', holder: 'Jane Jones' };
const MASTER = { id: '8ac7a4a27b4c7867017b510d33dd7189', brand: 'MASTER', last4Digits: '5454', expiryMonth: '12', expiryYear: '2030' };

describe('stored cards of the checkout', () => {
  it('keeps the order of registrations[n].id and what the widget shows of each card', () => {
    expect(storedCardsOf([VISA, MASTER])).toEqual([
      { id: VISA.id, brand: 'VISA', last4: '0000', expiryMonth: '05', expiryYear: '2034', holder: 'Jane Jones' },
      { id: MASTER.id, brand: 'MASTER', last4: '5454', expiryMonth: '12', expiryYear: '2030', holder: '' },
    ]);
  });

  it('shows nothing for a missing or malformed list, and leaves out entries without a usable id', () => {
    for (const value of [undefined, null, 'x', {}, 42]) expect(storedCardsOf(value)).toEqual([]);
    const cards = storedCardsOf([null, 7, { brand: 'VISA' }, { ...VISA, id: '<img src=x>' }, { ...VISA, id: '' }, VISA, { ...VISA, last4Digits: '1111' }]);
    // The duplicate id keeps its first entry.
    expect(cards.map((card) => [card.id, card.last4])).toEqual([[VISA.id, '0000']]);
  });

  it('shows bad values as unknown rather than rendering them', () => {
    const [card] = storedCardsOf([{ id: VISA.id, brand: 'TOSTRING', last4Digits: '12345', expiryMonth: '13', expiryYear: '34', holder: `  ${'x'.repeat(200)} ` }]);
    expect(card).toEqual({ id: VISA.id, brand: '', last4: '', expiryMonth: '', expiryYear: '', holder: 'x'.repeat(128) });
    expect(storedCardsOf([{ ...VISA, brand: 'constructor' }])[0]?.brand).toBe('');
    expect(storedCardsOf([{ ...VISA, brand: 'amex' }])[0]?.brand).toBe('AMEX');
  });

  it('accepts the older list of ids only', () => {
    expect(storedCardsOf([VISA.id])).toEqual([{ id: VISA.id, brand: '', last4: '', expiryMonth: '', expiryYear: '', holder: '' }]);
  });

  it('shows the expiry as MM/YY and asks 4 CVV digits for American Express only', () => {
    const [visa, amex, unknown] = storedCardsOf([VISA, { ...MASTER, brand: 'AMEX' }, { id: 'abc' }]);
    expect(expiryOf(visa!)).toBe('05/34');
    expect(expiryOf(unknown!)).toBe('');
    expect(cvvLengthOf(visa!)).toBe(3);
    expect(cvvLengthOf(amex!)).toBe(4);
    expect(cvvLengthOf(unknown!)).toBe(3);
  });
});

describe('wpwlOptions.registrations', () => {
  const setOptions = (value: unknown) => {
    (globalThis as { window?: unknown }).window = { wpwlOptions: value };
  };
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('asks no CVV and hides no form by default', () => {
    setOptions({});
    expect(readOptions().registrations).toEqual({ requireCvv: false, hideInitialPaymentForms: false });
    // The card form's requireCvv is another option.
    setOptions({ requireCvv: true });
    expect(readOptions().registrations.requireCvv).toBe(false);
  });

  it('takes booleans and the strings "true"/"false", and ignores anything else', () => {
    setOptions({ registrations: { requireCvv: true, hideInitialPaymentForms: 'true' } });
    expect(readOptions().registrations).toEqual({ requireCvv: true, hideInitialPaymentForms: true });
    setOptions({ registrations: { requireCvv: 'false', hideInitialPaymentForms: false } });
    expect(readOptions().registrations).toEqual({ requireCvv: false, hideInitialPaymentForms: false });
    setOptions({ registrations: { requireCvv: 'yes', hideInitialPaymentForms: 1 } });
    expect(readOptions().registrations).toEqual({ requireCvv: false, hideInitialPaymentForms: false });
    setOptions({ registrations: 'true' });
    expect(readOptions().registrations).toEqual({ requireCvv: false, hideInitialPaymentForms: false });
  });
});

describe('hosted fields of the one-click form (protocol version 2, now 3)', () => {
  const hash = (launch: unknown) => `#${encodeURIComponent(JSON.stringify(launch))}`;
  const base = { channel: 'abc123', parentOrigin: 'https://shop.example' };

  it('is version 3, and a launch without a form is a card form field', () => {
    expect(PROTOCOL_VERSION).toBe(3);
    expect(parseLaunch(hash({ ...base, field: 'cardNumber' }))).toEqual({ ...base, field: 'cardNumber', form: 'card' });
  });

  it('lets only the number field of a card form, or the CVV field of a one-click form, post the payment', () => {
    const launch = (field: string, form?: string) => parseLaunch(hash({ ...base, field, form }));
    expect(postsPayment(launch('cardNumber')!)).toBe(true);
    expect(postsPayment(launch('cvv')!)).toBe(false);
    expect(postsPayment(launch('cvv', 'registration')!)).toBe(true);
    // A one-click form has no number field; unknown forms are refused.
    expect(launch('cardNumber', 'registration')).toBeUndefined();
    expect(launch('cvv', 'other')).toBeUndefined();
  });

  it('refuses malformed launch data', () => {
    expect(parseLaunch('#not-json')).toBeUndefined();
    expect(parseLaunch(hash(null))).toBeUndefined();
    expect(parseLaunch(hash({ ...base, field: 'cvv', parentOrigin: 'javascript:alert(1)' }))).toBeUndefined();
    expect(parseLaunch(hash({ ...base, field: 'cvv', parentOrigin: 'https://shop.example/path' }))).toBeUndefined();
    expect(parseLaunch(hash({ ...base, field: 'cvv', channel: '' }))).toBeUndefined();
    expect(parseLaunch(hash({ ...base, field: 'expiry' }))).toBeUndefined();
  });

  it('posts card data only to the checkout submit endpoints (payment, registration) of its own origin', () => {
    const gateway = 'https://pay.example';
    expect(isPaymentTarget(`${gateway}/v1/checkouts/ABC.sbx01-gw01/payment`, gateway)?.href).toBe(`${gateway}/v1/checkouts/ABC.sbx01-gw01/payment`);
    expect(isPaymentTarget('/v1/checkouts/ABC/payment', gateway)).toBeDefined();
    expect(isPaymentTarget('https://evil.example/v1/checkouts/ABC/payment', gateway)).toBeUndefined();
    expect(isPaymentTarget(`${gateway}/v1/payments`, gateway)).toBeUndefined();
    expect(isPaymentTarget(`${gateway}/v1/checkouts/ABC/payment/x`, gateway)).toBeUndefined();
    // A registration-only checkout's submit endpoint, and nothing else under the checkout.
    expect(isPaymentTarget(`${gateway}/v1/checkouts/ABC.sbx01-gw01/registration`, gateway)).toBeDefined();
    expect(isPaymentTarget('https://evil.example/v1/checkouts/ABC/registration', gateway)).toBeUndefined();
    expect(isPaymentTarget(`${gateway}/v1/checkouts/ABC`, gateway)).toBeUndefined();
    expect(isPaymentTarget(`${gateway}/v1/registrations`, gateway)).toBeUndefined();
    expect(isPaymentTarget('http://[', gateway)).toBeUndefined();
  });

  it('sends the page fields with the field own CVV, never a CVV or card number the page put in', () => {
    const body = paymentBody(
      [
        ['registrationId', VISA.id],
        ['paymentBrand', 'VISA'],
        ['card.cvv', '999'],
        ['card.number', '4111111111111111'],
        ['card.holder', 'Jane Jones'],
      ],
      [['card.cvv', '123']],
    );
    expect([...body]).toEqual([
      ['registrationId', VISA.id],
      ['paymentBrand', 'VISA'],
      ['card.holder', 'Jane Jones'],
      ['card.cvv', '123'],
    ]);
    // Without a code (none asked), no card.cvv at all.
    expect(paymentBody([['card.cvv', '999']], [['card.cvv', '']]).has('card.cvv')).toBe(false);
  });
});
