import { describe, expect, it } from 'vitest';
import { classifySearch } from '../app/search.ts';

describe('the payments search box', () => {
  it('reads 32 hex characters as a payment id, in lowercase', () => {
    expect(classifySearch('0123456789abcdef0123456789abcdef')).toEqual({ kind: 'id', value: '0123456789abcdef0123456789abcdef' });
    expect(classifySearch('  0123456789ABCDEF0123456789ABCDEF ')).toEqual({ kind: 'id', value: '0123456789abcdef0123456789abcdef' });
  });

  it('reads twelve digits in groups of four as a short id, written with dots', () => {
    expect(classifySearch('1234.5678.9012')).toEqual({ kind: 'shortId', value: '1234.5678.9012' });
    expect(classifySearch('1234 5678 9012')).toEqual({ kind: 'shortId', value: '1234.5678.9012' });
    expect(classifySearch('123456789012')).toEqual({ kind: 'shortId', value: '1234.5678.9012' });
  });

  it('reads anything else as a merchant reference, trimmed', () => {
    expect(classifySearch(' order-4711 ')).toEqual({ kind: 'reference', value: 'order-4711' });
    // Almost an id or a short id is a reference.
    expect(classifySearch('0123456789abcdef0123456789abcde')?.kind).toBe('reference');
    expect(classifySearch('0123456789abcdef0123456789abcdeg')?.kind).toBe('reference');
    expect(classifySearch('1234.5678.901')?.kind).toBe('reference');
    expect(classifySearch('1234.5678.90123')?.kind).toBe('reference');
    expect(classifySearch('1234-5678-9012')?.kind).toBe('reference');
  });

  it('reads an empty box as no search', () => {
    expect(classifySearch('')).toBeUndefined();
    expect(classifySearch('   ')).toBeUndefined();
  });
});

describe('the payments search box, for cards, amounts and shoppers', () => {
  it('reads 4 digits as a card’s last 4, 6 to 8 as its BIN, an amount with cents as an exact amount, an address as an e-mail', () => {
    expect(classifySearch('4242')).toEqual({ kind: 'last4', value: '4242' });
    expect(classifySearch('424242')).toEqual({ kind: 'bin', value: '424242' });
    expect(classifySearch('42424242')).toEqual({ kind: 'bin', value: '42424242' });
    expect(classifySearch('12.50')).toEqual({ kind: 'amount', value: '12.50' });
    expect(classifySearch(' jane@example.com ')).toEqual({ kind: 'email', value: 'jane@example.com' });
  });

  it('reads other digits, amounts without cents and names as a reference or a card holder', () => {
    for (const text of ['12345', '424242424', '12.5', 'Jane Doe', 'jane@']) expect(classifySearch(text)?.kind, text).toBe('reference');
  });
});
