import { randomInt, randomUUID } from 'node:crypto';

/** Payment, registration and schedule ids: 32 lowercase hex characters (COMPAT §1). */
export const RESOURCE_ID = /^[0-9a-f]{32}$/;
export const ENTITY_ID = /^[0-9a-f]{32}$/;
/** A legacy credentials pair's `authentication.userId` (COMPAT §1): 32 lowercase hexadecimal characters, as the platform's. */
export const LEGACY_USER_ID = ENTITY_ID;

/** A checkout's id: 32 uppercase hex, a dot, a cluster suffix (COMPAT §1); 32 to 48 characters (doc 1 §2.1). */
const CHECKOUT_ID = /^[0-9A-F]{32}\.[a-z0-9-]+$/;

export function isCheckoutId(id: string): boolean {
  return id.length >= 32 && id.length <= 48 && CHECKOUT_ID.test(id);
}

/**
 * 32 hex characters from a random (v4) UUID: 122 random bits, and Node serves UUIDs from a pre-filled
 * entropy cache, several times cheaper per id than a fresh randomBytes call on the request path.
 */
function randomHex32(): string {
  return randomUUID().replace(/-/g, '');
}

export function newResourceId(): string {
  return randomHex32();
}

/** The `ndc` of a non-checkout response: `<entityId>_<32 hex>`. */
export function newNdc(entityId: string): string {
  return `${entityId}_${randomHex32()}`;
}

export function newRequestId(): string {
  return randomHex32();
}

/**
 * A card scheme's transaction reference (COMPAT §11): 15 digits, never starting with 0. The simulated acquirer gives
 * one to an agreement's first payment; a registration the shopper made without a payment gets one of its own.
 */
export function newSchemeReference(): string {
  return String(randomInt(1, 10)) + Array.from({ length: 14 }, () => String(randomInt(0, 10))).join('');
}
