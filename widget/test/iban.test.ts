import { describe, expect, it } from 'vitest';
import { ibanCountry, isValidIban, normalizeIban } from '../shared/iban.ts';

describe('IBAN (ISO 13616)', () => {
  it('accepts valid IBANs of several countries', () => {
    for (const iban of [
      'DE23100000001234567890', // the simulator's test IBAN (COMPAT §16)
      'DE89370400440532013000',
      'DE14940593100000012346',
      'GB82WEST12345698765432',
      'NL91ABNA0417164300',
      'FR1420041010050500013M02606',
      'AT611904300234573201',
      'BE68539007547034',
      'NO9386011117947',
      'MT84MALT011000012345MTLCAST001S',
    ]) {
      expect(isValidIban(iban), iban).toBe(true);
    }
  });

  it('refuses a wrong checksum, a wrong length for the country, an unknown country and bad characters', () => {
    expect(isValidIban('DE23100000001234567891')).toBe(false); // one digit changed
    expect(isValidIban('DE32100000001234567890')).toBe(false); // check digits swapped
    expect(isValidIban('DE2310000000123456789')).toBe(false); // 21 instead of 22
    expect(isValidIban('NL91ABNA04171643001')).toBe(false);
    expect(isValidIban('ZZ23100000001234567890')).toBe(false);
    expect(isValidIban('DE23 1000 0000 1234 5678 90')).toBe(false); // not normalized
    expect(isValidIban('de23100000001234567890')).toBe(false);
    expect(isValidIban('')).toBe(false);
    expect(isValidIban('89DE370400440532013000')).toBe(false);
  });

  it('detects every single-digit change of a valid IBAN', () => {
    const iban = 'DE23100000001234567890';
    for (let i = 2; i < iban.length; i += 1) {
      for (let d = 0; d <= 9; d += 1) {
        if (String(d) === iban[i]) continue;
        const changed = iban.slice(0, i) + d + iban.slice(i + 1);
        expect(isValidIban(changed), changed).toBe(false);
      }
    }
  });

  it('normalizes what a shopper types and names the country', () => {
    expect(normalizeIban(' de23 1000 0000 1234-5678 90 ')).toBe('DE23100000001234567890');
    expect(ibanCountry('DE23100000001234567890')).toBe('DE');
    expect(ibanCountry('12')).toBeUndefined();
  });
});
