import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { CompactEncrypt, CompactSign } from 'jose';

/**
 * A stand-in for a card network's SRC system in tests (a card network cannot exist here): its signing key, and the
 * checkout responses its SDK's checkout() would give a page — a JWS it signs over { srciTransactionId,
 * srcCorrelationId, maskedCard, encryptedPayload }, the payload a JWE to the merchant's public key — as EMVCo's SRC
 * specification shapes them. Also the merchant's decryption key pair, as an operator would register it.
 */

export interface SrcKeys {
  /** The network's signing key pair: its public key goes into the entity's settings (signingKey). */
  readonly network: { readonly privateKey: KeyObject; readonly publicKeyPem: string };
  /** The merchant's encryption key pair: the private key into the settings (privateKey), under keyId. */
  readonly merchant: { readonly publicKey: KeyObject; readonly privateKeyPem: string; readonly keyId: string };
}

export function srcTestKeys(keyId = 'merchant-src-key-1'): SrcKeys {
  const network = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    network: { privateKey: network.privateKey, publicKeyPem: network.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    merchant: { publicKey: merchant.publicKey, privateKeyPem: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), keyId },
  };
}

export interface CheckoutResponseInput {
  readonly srciTransactionId: string;
  /** The decrypted payload; default: a network token with a cryptogram. */
  readonly payload?: Record<string, unknown>;
  readonly srcCorrelationId?: string;
  /** Sign with another key (a forgery); encrypt to another key (not the merchant's). */
  readonly signWith?: KeyObject;
  readonly encryptTo?: KeyObject;
  readonly keyId?: string;
}

/** The network token the default payload carries. */
export const NETWORK_TOKEN = { paymentToken: '5186001700009726', tokenExpirationMonth: '09', tokenExpirationYear: '2031' };

const encoder = new TextEncoder();

/** A checkout response as the network's SDK answers it. */
export async function checkoutResponseOf(keys: SrcKeys, input: CheckoutResponseInput): Promise<string> {
  const payload = input.payload ?? {
    token: NETWORK_TOKEN,
    dynamicData: [{ dynamicDataValue: randomBytes(20).toString('base64'), dynamicDataType: 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM' }],
  };
  const encryptedPayload = await new CompactEncrypt(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', kid: input.keyId ?? keys.merchant.keyId })
    .encrypt(input.encryptTo ?? keys.merchant.publicKey);
  const response = {
    srciTransactionId: input.srciTransactionId,
    srcCorrelationId: input.srcCorrelationId ?? randomBytes(16).toString('hex'),
    maskedCard: { panLastFour: '9726', paymentCardDescriptor: 'mastercard' },
    encryptedPayload,
  };
  return new CompactSign(encoder.encode(JSON.stringify(response))).setProtectedHeader({ alg: 'PS256' }).sign(input.signWith ?? keys.network.privateKey);
}
