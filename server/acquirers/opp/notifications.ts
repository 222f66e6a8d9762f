import { createDecipheriv } from 'node:crypto';
import { parseAmount } from '../../domain/money.ts';
import type { ProviderEvent } from '../types.ts';
import { paymentAnswerOf } from './translate.ts';
import { isJsonObject } from '../../domain/json.ts';

/**
 * A provider's webhook notification (the platform's encrypted notification, COMPAT §13, as this gateway sends its own):
 * the hex of an AES-256-GCM ciphertext (or `{"encryptedBody": hex}`), its IV and tag in X-Initialization-Vector and
 * X-Authentication-Tag, the key the webhook's secret — the acquirer's `notificationKey`. Only a notification that
 * decrypts with the key is read: the tag proves it came from the provider. Nothing here logs or quotes the body.
 */

const HEX = /^(?:[0-9A-Fa-f]{2})*$/;

function decrypt(body: string, ivHex: string | undefined, tagHex: string | undefined, keyHex: string): string | undefined {
  if (!ivHex || !tagHex || !/^[0-9A-Fa-f]{24}$/.test(ivHex) || !/^[0-9A-Fa-f]{32}$/.test(tagHex)) return undefined;
  let hex = body.trim();
  if (hex.startsWith('{')) {
    try {
      const wrapped = JSON.parse(hex) as { encryptedBody?: unknown };
      hex = typeof wrapped.encryptedBody === 'string' ? wrapped.encryptedBody : '';
    } catch {
      return undefined;
    }
  }
  if (hex === '' || !HEX.test(hex)) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), Buffer.from(ivHex, 'hex'));
    decipher.setAuthTag(Buffer.from(tagHex, 'hex'));
    return Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}


/** The notification as the gateway acts on it; undefined when it is not authentic (or not a notification at all). */
export function readNotification(body: string, header: (name: string) => string | undefined, keyHex: string): ProviderEvent | undefined {
  const plaintext = decrypt(body, header('x-initialization-vector'), header('x-authentication-tag'), keyHex);
  if (plaintext === undefined) return undefined;
  let notification: unknown;
  try {
    notification = JSON.parse(plaintext);
  } catch {
    return undefined;
  }
  if (!isJsonObject(notification) || typeof notification.type !== 'string') return undefined;
  if (notification.type === 'test') return { kind: 'test' };
  const payload = notification.payload;
  if (notification.type !== 'PAYMENT' || !isJsonObject(payload)) return { kind: 'other', type: notification.type };
  const answer = paymentAnswerOf(payload);
  if (!answer || typeof payload.paymentType !== 'string') return { kind: 'other', type: notification.type };
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const amountMinor = typeof payload.amount === 'string' ? parseAmount(payload.amount) : undefined;
  return {
    kind: 'payment',
    merchantTransactionId: text(payload.merchantTransactionId),
    paymentType: payload.paymentType,
    referencedReference: text(payload.referencedId),
    amountMinor,
    currency: text(payload.currency),
    answer,
  };
}
