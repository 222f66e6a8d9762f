import { describe, expect, it } from 'vitest';
import { createCardVault, keyIdOf } from './cardVault.ts';

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

describe('the card vault over a keyring (key rotation)', () => {
  const keyA = Buffer.alloc(32, 1);
  const keyB = Buffer.alloc(32, 2);

  it('seals with the current key and opens with it and with every previous key', () => {
    const before = createCardVault(keyA);
    const sealedBefore = before.seal(card);
    const ring = createCardVault(keyB, [keyA]);
    expect(ring.keyId).toBe(keyIdOf(keyB));
    expect(ring.keyIds).toEqual([keyIdOf(keyB), keyIdOf(keyA)]);
    expect(ring.hasKey(keyIdOf(keyA))).toBe(true);
    expect(ring.open(sealedBefore)).toEqual(card);
    const sealedAfter = ring.seal(card);
    expect(sealedAfter.keyId).toBe(keyIdOf(keyB));
    expect(createCardVault(keyB).open(sealedAfter)).toEqual(card);
    // The previous key never seals: a vault with only it cannot open what the ring seals now.
    expect(() => before.open(sealedAfter)).toThrow(/another key/);
  });

  it('names the unknown key by its id only, never by any key material', () => {
    const sealed = createCardVault(keyA).seal(card);
    let message = '';
    try {
      createCardVault(keyB).open(sealed);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(keyIdOf(keyA));
    expect(message).toContain('CARD_DATA_PREVIOUS_KEYS');
    for (const key of [keyA, keyB]) {
      expect(message).not.toContain(key.toString('hex'));
      expect(message).not.toContain(key.toString('base64'));
    }
  });

  it('fingerprints with the current key, and matches a fingerprint made with a previous one', () => {
    const text = '["POST /v1/payments","amount=92.00"]';
    const old = createCardVault(keyA).fingerprint(text);
    const ring = createCardVault(keyB, [keyA]);
    expect(ring.fingerprint(text)).toBe(createCardVault(keyB).fingerprint(text));
    expect(ring.fingerprint(text)).not.toBe(old);
    expect(ring.matchesFingerprint(text, old)).toBe(true);
    expect(ring.matchesFingerprint(text, ring.fingerprint(text))).toBe(true);
    expect(ring.matchesFingerprint('["POST /v1/payments","amount=93.00"]', old)).toBe(false);
    // Once the previous key is dropped, its fingerprints no longer match.
    expect(createCardVault(keyB).matchesFingerprint(text, old)).toBe(false);
  });
});
