import { createCipheriv, randomBytes } from 'node:crypto';

/**
 * The encryption of webhook notifications (COMPAT §13): AES-256-GCM with the webhook's secret (64 hex characters,
 * 32 bytes) as the key, a fresh random 12-byte IV per request, no additional authenticated data. Body, IV and tag
 * travel as upper-case hex, so a receiver decrypts with `hex2bin` / `Buffer.from(hex, 'hex')`.
 *
 * Nothing here logs, and no error it throws carries the secret, an IV or the plaintext: a bad value is only named.
 */

export interface EncryptedNotification {
  /** Upper-case hex of the ciphertext (as long as the plaintext's UTF-8 bytes, times two). */
  readonly body: string;
  /** Upper-case hex of the 12-byte IV: 24 characters. */
  readonly iv: string;
  /** Upper-case hex of the 16-byte authentication tag: 32 characters. */
  readonly tag: string;
}

export type NotificationWrapper = 'NONE' | 'JSON';

export interface NotificationRequest {
  /** `Content-Type`, `X-Initialization-Vector`, `X-Authentication-Tag`, with exactly this casing. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

export const INITIALIZATION_VECTOR_HEADER = 'X-Initialization-Vector';
export const AUTHENTICATION_TAG_HEADER = 'X-Authentication-Tag';

const SECRET = /^[0-9A-Fa-f]{64}$/;
const IV = /^[0-9A-Fa-f]{24}$/;

/** A webhook secret as the gateway accepts it: 64 hex characters, either case (receivers `hex2bin` either). */
export function isWebhookSecret(value: unknown): value is string {
  return typeof value === 'string' && SECRET.test(value);
}

/** A new webhook secret: 32 random bytes as 64 **upper-case** hex characters (the platform shows secrets so). */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex').toUpperCase();
}

/** Encrypts with the given IV (24 hex characters). Only for the published test vector; deliveries use `encryptNotification`. */
export function encryptWithIv(plaintext: string, secretHex: string, ivHex: string): EncryptedNotification {
  if (!isWebhookSecret(secretHex)) throw new Error('The webhook secret must be 64 hex characters');
  if (!IV.test(ivHex)) throw new Error('The initialization vector must be 24 hex characters');
  const iv = Buffer.from(ivHex, 'hex');
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(secretHex, 'hex'), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    body: ciphertext.toString('hex').toUpperCase(),
    iv: iv.toString('hex').toUpperCase(),
    tag: cipher.getAuthTag().toString('hex').toUpperCase(),
  };
}

/** Encrypts one notification with a fresh random IV: every call, a retry too, gets its own. */
export function encryptNotification(plaintext: string, secretHex: string): EncryptedNotification {
  return encryptWithIv(plaintext, secretHex, randomBytes(12).toString('hex'));
}

/** The headers and body of one delivery of `plaintext` (the notification's JSON) in the webhook's wrapper. */
export function notificationRequest(plaintext: string, secretHex: string, wrapper: NotificationWrapper): NotificationRequest {
  const { body, iv, tag } = encryptNotification(plaintext, secretHex);
  const json = wrapper === 'JSON';
  return {
    headers: {
      'Content-Type': json ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
      [INITIALIZATION_VECTOR_HEADER]: iv,
      [AUTHENTICATION_TAG_HEADER]: tag,
    },
    body: json ? JSON.stringify({ encryptedBody: body }) : body,
  };
}
