import { describe, expect, it } from 'vitest';
import { createCardVault } from './cardVault.ts';

const card = { number: '4200000000000042', expiryMonth: 5, expiryYear: 2034, holder: 'Jane Jones', brand: 'VISA' };

describe('the card vault', () => {
  it('seals a card so that nothing of it is readable, and opens it again', () => {
    const vault = createCardVault(Buffer.alloc(32, 1));
    const sealed = vault.seal(card);
    expect(JSON.stringify(sealed)).not.toContain('4200000000000042');
    expect(JSON.stringify(sealed)).not.toContain('Jane');
    expect(vault.open(sealed)).toEqual(card);
    // A fresh IV each time: the same card never seals to the same bytes.
    expect(vault.seal(card).data).not.toBe(sealed.data);
  });

  it('refuses a value sealed with another key, or altered', () => {
    const sealed = createCardVault(Buffer.alloc(32, 1)).seal(card);
    expect(() => createCardVault(Buffer.alloc(32, 2)).open(sealed)).toThrow(/another key/);
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => createCardVault(Buffer.alloc(32, 1)).open({ ...sealed, data: flipped.toString('base64') })).toThrow();
  });
});
