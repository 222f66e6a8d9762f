import { afterEach, describe, expect, it } from 'vitest';
import { createCardModel } from '../app/card/model.ts';
import { readOptions } from '../app/options.ts';
import type { FieldState } from '../shared/protocol.ts';

/**
 * The card form's brand choice and validity with the catalogue's per-brand rules (widget/shared/cards.ts): the hosted
 * number field reports Luhn only, the widget decides from the brand, the first digits and the length.
 */

function cardForm(brands: readonly string[], wpwlOptions: Record<string, unknown> = {}) {
  (globalThis as { window?: unknown }).window = { wpwlOptions };
  const model = createCardModel(brands, readOptions());
  /** What the hosted fields report once the shopper typed `number` (`luhn`: its check digit is right) and `cvv`. */
  const type = (number: string, luhn: boolean, cvv = '') => {
    const bin = number.length >= 6 ? number.slice(0, 6) : '';
    const numberState: FieldState = { field: 'cardNumber', empty: number === '', valid: luhn, length: number.length, bin, showErrors: false };
    model.set({ numberState, expiry: '05 / 34', holder: 'Jane Jones' });
    const detected = model.detect(bin);
    if (detected) model.set({ selectedBrand: detected });
    // The CVV field checks the length the form told it for the brand now selected.
    model.set({ cvvState: { field: 'cvv', empty: cvv === '', valid: cvv.length === model.cvvLength.value, length: cvv.length, bin: '', showErrors: false } });
  };
  return { model, type };
}

afterEach(() => {
  delete (globalThis as { window?: unknown }).window;
});

describe('the card form with co-badged cards', () => {
  it('makes the most specific offered brand active, and keeps the shopper\'s choice among the detected ones while the first digits stay', () => {
    const { model, type } = cardForm(['VISA', 'MASTER', 'DANKORT']);
    type('4571000000', false);
    expect(model.detectedBrands).toEqual(['DANKORT', 'VISA']);
    expect(model.selectedBrand).toBe('DANKORT');
    model.set({ selectedBrand: 'VISA' });
    type('4571000000000001', true, '123');
    expect(model.selectedBrand).toBe('VISA');
    expect(model.formValid.value).toBe(true);
    type('5454545454545454', true, '123');
    expect(model.selectedBrand).toBe('MASTER');
  });

  it('follows brandDetectionPriority', () => {
    const { model, type } = cardForm(['VISA', 'MASTER', 'DANKORT'], { brandDetectionPriority: ['VISA', 'DANKORT'] });
    type('4571000000000001', true, '123');
    expect(model.detectedBrands).toEqual(['VISA', 'DANKORT']);
    expect(model.selectedBrand).toBe('VISA');
  });

  it('takes a network\'s number under a brand living on it, and refuses one of another brand', () => {
    const { model, type } = cardForm(['AXESS', 'FACILYPAY_3X']);
    type('4200000000000000', true, '123');
    expect(model.detectedBrands).toEqual([]);
    expect(model.selectedBrand).toBe('AXESS');
    expect(model.validity.value.cardNumber).toBe(true);
    type('377777777777770', true, '123');
    expect(model.validity.value.cardNumber).toBe(false);
  });
});

describe('the card form with per-brand rules', () => {
  it('never blocks the submit for the CVV of a brand without one, and gives the CVV field no digits', () => {
    const { model, type } = cardForm(['VISA', 'BCMC']);
    type('6703444444444449', true);
    expect(model.selectedBrand).toBe('BCMC');
    expect(model.cvvLength.value).toBe(0);
    expect(model.formValid.value).toBe(true);
  });

  it('lets an optional CVV be empty but not short, and asks a required one', () => {
    const maestro = cardForm(['MAESTRO', 'VISA']);
    maestro.type('6799851000000032', true);
    expect(maestro.model.validity.value.cvv).toBe(true);
    maestro.type('6799851000000032', true, '12');
    expect(maestro.model.validity.value.cvv).toBe(false);
    const visa = cardForm(['VISA']);
    visa.type('4200000000000000', true);
    expect(visa.model.validity.value.cvv).toBe(false);
  });

  it('takes numbers without a check digit where the brand has none, and the brand\'s lengths only', () => {
    const { model, type } = cardForm(['VISA', 'UNIONPAY', 'TARJETASHOPPING']);
    type('6243030000000002', false, '123');
    expect(model.selectedBrand).toBe('UNIONPAY');
    expect(model.validity.value.cardNumber).toBe(true);
    type('2799500000001', false);
    expect(model.selectedBrand).toBe('TARJETASHOPPING');
    expect(model.formValid.value).toBe(true);
    type('6034880000000052', false, '123');
    expect(model.validity.value.cardNumber).toBe(false);
    type('420000000000002', true, '123');
    expect(model.selectedBrand).toBe('VISA');
    expect(model.validity.value.cardNumber).toBe(false);
  });

  it('gives a co-badged card its network\'s CVV length', () => {
    const { model, type } = cardForm(['BONUS']);
    type('375622005485014', true);
    expect(model.cvvLength.value).toBe(4);
    type('4090700500869563', true);
    expect(model.cvvLength.value).toBe(3);
  });
});

describe('calm errors in the card form', () => {
  it('shows a field\'s error once it was edited and left, every field\'s after a submit, and none with validation: false', () => {
    const { model } = cardForm(['VISA']);
    // Left without typing: no error, though empty.
    model.leave('cardHolder');
    expect(model.hasError('cardHolder')).toBe(false);
    // Typed in, invalid, then left: its error, and only its own.
    model.set({ expiry: '01 / 20' });
    model.edit('expiry');
    model.leave('expiry');
    expect([model.hasError('expiry'), model.hasError('cardHolder'), model.hasError('cardNumber')]).toEqual([true, false, false]);
    // A submit attempt shows every invalid field's.
    model.show('cardNumber', 'expiry', 'cardHolder', 'cvv');
    expect([model.hasError('cardNumber'), model.hasError('cardHolder'), model.hasError('cvv')]).toEqual([true, true, true]);

    const unchecked = cardForm(['VISA'], { validation: false }).model;
    unchecked.set({ expiry: '01 / 20' });
    unchecked.edit('expiry');
    unchecked.leave('expiry');
    unchecked.show('cardNumber', 'expiry', 'cardHolder', 'cvv');
    expect(['cardNumber', 'expiry', 'cardHolder', 'cvv'].map((field) => unchecked.hasError(field as 'cvv'))).toEqual([false, false, false, false]);
    expect(unchecked.formValid.value).toBe(true);
  });
});
