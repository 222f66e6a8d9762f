import { afterEach, describe, expect, it } from 'vitest';
import { filterStyles } from '../shared/protocol.ts';
import { detectBrands } from '../app/brands.ts';
import { formatExpiry, isExpiryInPast, parseExpiry } from '../app/card/expiry.ts';
import { readOptions } from '../app/options.ts';

describe('expiry field', () => {
  it.each([
    ['0', false, '0'],
    ['05', false, '05 / '],
    ['4', false, '04 / '],
    ['0534', false, '05 / 34'],
    ['05 / 3', false, '05 / 3'],
    ['05 / ', true, '05'],
    ['1a2b3c4d5', false, '12 / 34'],
  ])('formats %j (deleting: %s) as %j', (typed, deleting, shown) => {
    expect(formatExpiry(typed, deleting)).toBe(shown);
  });

  it('parses whole dates only, with a real month', () => {
    expect(parseExpiry('05 / 34')).toEqual({ month: '05', year: '2034' });
    expect(parseExpiry('13 / 34')).toBeUndefined();
    expect(parseExpiry('00 / 34')).toBeUndefined();
    expect(parseExpiry('05 / 3')).toBeUndefined();
  });

  it('treats the current month as not yet expired', () => {
    const now = new Date(2026, 10, 21);
    expect(isExpiryInPast({ month: '11', year: '2026' }, now)).toBe(false);
    expect(isExpiryInPast({ month: '10', year: '2026' }, now)).toBe(true);
  });
});

describe('wpwlOptions', () => {
  const setOptions = (value: unknown) => {
    (globalThis as { window?: unknown }).window = { wpwlOptions: value };
  };
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('has the documented defaults when none are set', () => {
    setOptions(undefined);
    expect(readOptions()).toMatchObject({ locale: 'en', style: 'card', requireCvv: true, validation: true, showLabels: true, brandDetection: true });
  });

  it('ignores values of the wrong type and accepts "true"/"false" strings', () => {
    setOptions({
      style: 'neon',
      labels: { cardHolder: 'Name', submit: 42, evil: { toString: 'x' } },
      requireCvv: 'false',
      maskCvv: 'yes',
      brandDetectionPriority: ['MASTER', 7, null, 'VISA'],
      iframeStyles: 'color:red',
      autofocus: '',
    });
    const options = readOptions();
    expect(options.style).toBe('card');
    expect(options.labels).toEqual({ cardHolder: 'Name' });
    expect(options.requireCvv).toBe(false);
    expect(options.maskCvv).toBe(false);
    expect(options.brandDetectionPriority).toEqual(['MASTER', 'VISA']);
    expect(options.iframeStyles).toEqual({});
    expect(options.autofocus).toBeUndefined();
  });

  it('survives an options object that is not an object', () => {
    for (const value of [null, 42, 'string', [1, 2], () => 1]) {
      setOptions(value);
      expect(readOptions().style).toBe('card');
    }
  });
});

describe('hosted field styles', () => {
  it('keeps allowed properties and drops everything that could load or run something', () => {
    expect(
      filterStyles({
        color: 'red',
        fontSize: '16px',
        'font-family': 'Georgia, serif',
        background: 'url(https://evil.example/?leak)',
        'background-image': 'none',
        padding: '2px',
        'letter-spacing': 'expression(alert(1))',
        'line-height': '\\75 rl(x)',
        position: 'fixed',
      }),
    ).toEqual({ color: 'red', 'font-size': '16px', 'font-family': 'Georgia, serif', padding: '2px' });
    expect(filterStyles(null)).toEqual({});
    expect(filterStyles('color:red')).toEqual({});
  });
});

describe('brand detection', () => {
  it('finds the offered brands matching the first digits, in the merchant priority', () => {
    expect(detectBrands('420000', ['VISA', 'MASTER'], [])).toEqual(['VISA']);
    expect(detectBrands('545454', ['VISA', 'MASTER'], [])).toEqual(['MASTER']);
    expect(detectBrands('377777', ['VISA', 'MASTER'], [])).toEqual([]);
    expect(detectBrands('', ['VISA'], [])).toEqual([]);
    // 6759 is both Maestro and (by some ranges) other brands: priority decides the order.
    const both = detectBrands('675900', ['MASTER', 'MAESTRO'], ['MAESTRO']);
    expect(both[0]).toBe('MAESTRO');
  });
});
