import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAmount, formatDateTime, parseAmount } from '../app/amounts.ts';

const amount = (input: string, options?: { allowZero?: boolean }) => {
  const parsed = parseAmount(input, options);
  return parsed.ok ? parsed.amount : parsed.problem;
};

describe('amounts as people type them', () => {
  it('reads whole amounts and one or two decimals with a dot or a comma', () => {
    expect(amount('10')).toBe('10.00');
    expect(amount('10.5')).toBe('10.50');
    expect(amount('10,5')).toBe('10.50');
    expect(amount('10.05')).toBe('10.05');
    expect(amount('0,99')).toBe('0.99');
    expect(amount(' 7 ')).toBe('7.00');
    expect(amount('007.10')).toBe('7.10');
  });

  it('reads grouped thousands in English and German writing', () => {
    expect(amount('1,234.56')).toBe('1234.56');
    expect(amount('1.234,56')).toBe('1234.56');
    expect(amount('1.234')).toBe('1234.00');
    expect(amount('1,234')).toBe('1234.00');
    expect(amount('12,345,678')).toBe('12345678.00');
    expect(amount('1 234,56')).toBe('1234.56');
    expect(amount('1\u202f234,56')).toBe('1234.56');
  });

  it('refuses what is not an amount, naming the problem', () => {
    for (const input of ['abc', '10.', '.5', '10.123.4', '1,23,456', '1.234.56', '1,234,5', '1.234.567,891', '-5', '5e3', '10 EUR', '1,,2', '1.2,3']) {
      expect(amount(input), input).toBe('invalid');
    }
    expect(amount('')).toBe('empty');
    expect(amount('  ')).toBe('empty');
    expect(amount('0')).toBe('zero');
    expect(amount('0,00')).toBe('zero');
    expect(amount('0', { allowZero: true })).toBe('0.00');
    expect(amount('12345678901')).toBe('tooLarge');
    expect(amount('1234567890.99')).toBe('1234567890.99');
  });

  it('reads back every amount it formats, in both languages', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 99_999_999_999 }), fc.constantFrom('en-GB', 'de-DE'), (minor, locale) => {
        const text = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(minor / 100);
        const expected = `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
        expect(amount(text)).toBe(expected);
      }),
    );
  });
});

describe('amounts and times shown', () => {
  it('formats an API amount in the currency, for the language', () => {
    expect(formatAmount('1234.50', 'EUR', 'en-GB')).toBe('€1,234.50');
    expect(formatAmount('1234.50', 'EUR', 'de-DE')).toBe('1.234,50\u00a0€');
    expect(formatAmount('10.00', 'USD', 'de-DE')).toBe('10,00\u00a0$');
  });

  it('shows the text as it came when Intl cannot format it', () => {
    expect(formatAmount('abc', 'EUR', 'en-GB')).toBe('abc EUR');
    expect(formatAmount('10.00', 'EURO', 'en-GB')).toBe('10.00 EURO');
    expect(formatDateTime('not a time', 'en-GB')).toBe('not a time');
    expect(formatDateTime('2025-03-01T10:20:30.000Z', 'de-DE')).toMatch(/2025/);
  });
});
