import { createPrivateKey } from 'node:crypto';
import { compactDecrypt, compactVerify } from 'jose';
import { isJsonObject } from '../domain/json.ts';
import type { ClickToPayCard } from '../checkouts/service.ts';
import { publicKeyOf, type ClickToPaySettings, type SrcNetwork } from './settings.ts';

/**
 * A network's Click to Pay checkout response (EMVCo SRC, the `checkoutResponse` its SDK's `checkout()` gives the page),
 * opened by the gateway (issue 35 point 6, live):
 *
 *   checkoutResponse = JWS, signed by the network (RS256, PS256 or ES256; its public key from the entity's settings)
 *     payload: { srciTransactionId, srcCorrelationId, maskedCard, encryptedPayload, ... }
 *       encryptedPayload = JWE to the entity's public key (RSA-OAEP-256 or RSA-OAEP; A128GCM or A256GCM; kid = keyId)
 *         plaintext: { token: { paymentToken, tokenExpirationMonth, tokenExpirationYear },
 *                      dynamicData: [{ dynamicDataValue, dynamicDataType }], card?, billingAddress?, ... }
 *
 * What it checks, in order, each failure a reason the caller turns into a refusal (never quoting the payload): the
 * signature with the network's key (a page cannot forge a payload); the payload is for the session the gateway
 * opened for this checkout (`srciTransactionId`, so one checkout's payload cannot pay another); the JWE is for the
 * entity's key (`kid`) and opens with it; it carries a network token and a cryptogram (a bare card number is refused:
 * the gateway pays Click to Pay as a network token, and a DPA is registered for tokenized payloads).
 */

export interface OpenedCheckout {
  readonly srcCorrelationId: string;
  readonly card: ClickToPayCard;
}

export class UnusablePayload extends Error {}

/** The brand codes of the networks' tokens (shared/cards.ts). */
const BRAND_OF_NETWORK: Readonly<Record<SrcNetwork, string>> = { mastercard: 'MASTER', visa: 'VISA' };

const SIGNATURE_ALGORITHMS = ['RS256', 'PS256', 'ES256'];
const KEY_MANAGEMENT_ALGORITHMS = ['RSA-OAEP-256', 'RSA-OAEP'];
const CONTENT_ENCRYPTION_ALGORITHMS = ['A128GCM', 'A256GCM'];
/** A checkout response is a few kilobytes (the payload, masked card, assurance data). */
export const MAX_CHECKOUT_RESPONSE_LENGTH = 32 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

function jsonOf(bytes: Uint8Array, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(bytes));
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed)) throw new UnusablePayload(`the ${what} is not a JSON object`);
  return parsed;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The network token and its cryptogram from the decrypted payload. */
function cardOf(network: SrcNetwork, payload: Record<string, unknown>): ClickToPayCard {
  const token = isJsonObject(payload.token) ? payload.token : undefined;
  if (!token) {
    throw new UnusablePayload(payload.card !== undefined ? 'the payload carries a card number, not a network token: register the DPA for tokenized payloads' : 'the payload carries no network token');
  }
  const number = text(token.paymentToken);
  const month = text(token.tokenExpirationMonth);
  const year = text(token.tokenExpirationYear);
  if (!number || !/^[0-9]{12,19}$/.test(number)) throw new UnusablePayload('the network token is not 12 to 19 digits');
  if (!month || !/^(0[1-9]|1[0-2])$/.test(month.padStart(2, '0')) || !year || !/^([0-9]{2}|[0-9]{4})$/.test(year)) {
    throw new UnusablePayload('the network token has no valid expiry');
  }
  const dynamic = Array.isArray(payload.dynamicData) ? payload.dynamicData.filter(isJsonObject) : [];
  const cryptogram = dynamic.map((entry) => text(entry.dynamicDataValue)).find((value) => value !== undefined);
  if (!cryptogram || !/^[A-Za-z0-9+/=]{4,64}$/.test(cryptogram)) throw new UnusablePayload('the payload carries no cryptogram for the token');
  return { brand: BRAND_OF_NETWORK[network], number, expiryMonth: month.padStart(2, '0'), expiryYear: year.length === 2 ? `20${year}` : year, cryptogram };
}

/**
 * Opens a network's checkout response for the session `srciTransactionId` with the entity's settings; throws
 * UnusablePayload saying why it cannot be paid.
 */
export async function openCheckoutResponse(
  settings: ClickToPaySettings,
  network: SrcNetwork,
  checkoutResponse: string,
  srciTransactionId: string,
): Promise<OpenedCheckout> {
  const networkSettings = settings.networks.find((candidate) => candidate.network === network);
  if (!networkSettings) throw new UnusablePayload(`the entity has no Click to Pay settings for ${network}`);
  if (checkoutResponse.length > MAX_CHECKOUT_RESPONSE_LENGTH) throw new UnusablePayload('the checkout response is too long');
  const signingKey = publicKeyOf(networkSettings.signingKey);
  if (!signingKey) throw new UnusablePayload(`the network’s signing key for ${network} cannot be read`);
  let signed: Uint8Array;
  try {
    signed = (await compactVerify(checkoutResponse, signingKey, { algorithms: SIGNATURE_ALGORITHMS })).payload;
  } catch {
    throw new UnusablePayload(`the checkout response is not signed by ${network}’s key`);
  }
  const response = jsonOf(signed, 'checkout response');
  if (response.srciTransactionId !== srciTransactionId) throw new UnusablePayload('the checkout response is for another Click to Pay session');
  const srcCorrelationId = text(response.srcCorrelationId);
  if (!srcCorrelationId || srcCorrelationId.length > 128) throw new UnusablePayload('the checkout response has no srcCorrelationId');
  const encrypted = text(response.encryptedPayload);
  if (!encrypted) throw new UnusablePayload('the checkout response has no encryptedPayload');
  let plaintext: Uint8Array;
  try {
    const opened = await compactDecrypt(encrypted, createPrivateKey(settings.privateKey), {
      keyManagementAlgorithms: KEY_MANAGEMENT_ALGORITHMS,
      contentEncryptionAlgorithms: CONTENT_ENCRYPTION_ALGORITHMS,
    });
    if (opened.protectedHeader.kid !== undefined && opened.protectedHeader.kid !== settings.keyId) {
      throw new UnusablePayload(`the payload is encrypted to another key (${String(opened.protectedHeader.kid).slice(0, 64)}), not ${settings.keyId}`);
    }
    plaintext = opened.plaintext;
  } catch (error) {
    if (error instanceof UnusablePayload) throw error;
    throw new UnusablePayload('the payload does not open with the entity’s key');
  }
  return { srcCorrelationId, card: cardOf(network, jsonOf(plaintext, 'payload')) };
}
