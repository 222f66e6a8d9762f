import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Seals card data the gateway has to keep for a while (DESIGN principle 6): AES-256-GCM with a random IV per
 * value, and the key's id stored beside it so a future key rotation knows which key opens what.
 * The security code is never given to the vault.
 */

/** What the gateway keeps of a card it must use again (after a challenge, for a registration). Never the CVV. */
export interface HeldCard {
  readonly number: string;
  readonly expiryMonth: number;
  readonly expiryYear: number;
  readonly holder: string | undefined;
  readonly brand: string;
}

export interface SealedValue {
  readonly keyId: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

export interface CardVault {
  seal(value: unknown): SealedValue;
  /** Throws when the value was sealed with another key or altered. */
  open<T>(sealed: SealedValue): T;
  /**
   * A keyed hash (HMAC-SHA256, with a key derived from the card-data key) of text that may hold card data: equal
   * texts give equal fingerprints on every instance, and nobody without the key can test guesses against one.
   */
  fingerprint(text: string): string;
}

export function createCardVault(key: Buffer): CardVault {
  if (key.length !== 32) throw new Error('the card-data key must be 32 bytes');
  const keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const fingerprintKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'gateway request fingerprints', 32));
  return {
    fingerprint: (text) => createHmac('sha256', fingerprintKey).update(text, 'utf8').digest('hex'),
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return { keyId, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    },
    open<T>(sealed: SealedValue): T {
      if (sealed.keyId !== keyId) throw new Error(`card data sealed with another key (${sealed.keyId})`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    },
  };
}
