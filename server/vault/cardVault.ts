import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Seals card data the gateway has to keep for a while (DESIGN principle 6): AES-256-GCM with a random IV per
 * value, and the key's id stored beside it, so that after a key rotation the vault knows which key of its ring opens
 * what (vault/rotation.ts re-seals everything under the current key).
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
  /** The id of the key this vault seals with (the first 16 hex characters of the key's SHA-256). */
  readonly keyId: string;
  /** Every key id this vault opens: the current one first, then the previous ones. */
  readonly keyIds: readonly string[];
  /** Seals with the current key. */
  seal(value: unknown): SealedValue;
  /**
   * Opens with whichever key of the ring the value names (its keyId). Throws when the vault has no such key (the
   * message names the key id, never a key) or the value was altered.
   */
  open<T>(sealed: SealedValue): T;
  /** Whether this vault holds the key `keyId` names. */
  hasKey(keyId: string): boolean;
  /**
   * A keyed hash (HMAC-SHA256, with a key derived from the current card-data key) of text that may hold card data:
   * equal texts give equal fingerprints on every instance, and nobody without the key can test guesses against one.
   */
  fingerprint(text: string): string;
  /**
   * Whether `fingerprint` is the fingerprint of `text` under any key of the ring: one recorded before a rotation
   * (with the key that is now a previous one) still matches.
   */
  matchesFingerprint(text: string, fingerprint: string): boolean;
}

/** The id stored beside every value a key seals. Not secret: 64 bits of the key's hash say nothing of the key. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

interface RingKey {
  readonly id: string;
  readonly key: Buffer;
  readonly fingerprintKey: Buffer;
}

function ringKey(key: Buffer): RingKey {
  if (key.length !== 32) throw new Error('the card-data key must be 32 bytes');
  return { id: keyIdOf(key), key, fingerprintKey: Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'gateway request fingerprints', 32)) };
}

const hmac = (ring: RingKey, text: string) => createHmac('sha256', ring.fingerprintKey).update(text, 'utf8').digest('hex');

/**
 * A vault over a keyring: `key` seals (and opens), each of `previous` only opens what was sealed with it before a
 * rotation made another key current.
 */
export function createCardVault(key: Buffer, previous: readonly Buffer[] = []): CardVault {
  const current = ringKey(key);
  const ring = new Map<string, RingKey>([[current.id, current]]);
  for (const other of previous) {
    const entry = ringKey(other);
    if (!ring.has(entry.id)) ring.set(entry.id, entry);
  }
  return {
    keyId: current.id,
    keyIds: [...ring.keys()],
    hasKey: (keyId) => ring.has(keyId),
    fingerprint: (text) => hmac(current, text),
    matchesFingerprint(text, fingerprint) {
      const given = Buffer.from(fingerprint, 'utf8');
      return [...ring.values()].some((entry) => {
        const expected = Buffer.from(hmac(entry, text), 'utf8');
        return expected.length === given.length && timingSafeEqual(expected, given);
      });
    },
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return { keyId: current.id, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
    },
    open<T>(sealed: SealedValue): T {
      const entry = ring.get(sealed.keyId);
      if (!entry) {
        throw new Error(
          `card data sealed with another key (key id ${sealed.keyId}), which this gateway does not have: list it in CARD_DATA_PREVIOUS_KEYS until \`npm run gateway -- keys rotate\` has re-sealed it`,
        );
      }
      const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    },
  };
}
