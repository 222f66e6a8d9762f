import type { Instrument } from '../domain/commands.ts';

/**
 * What the risk rules count a payment's account by (800.120.101, .201): the card number, the IBAN, the token number,
 * the wallet's card or token, the virtual account — the instrument the payment is made with, so a stored card or
 * account counts as that card or account, whether typed or paid by registrationId (the payment paths resolve a
 * registration to what it stores before they ask). Only ever fingerprinted (a keyed hash, velocity.ts), never kept.
 * Undefined for a payment that names no account of its own (a redirect brand's account is chosen on the provider's
 * page; a follow-up authorization that sends no card reuses the original's).
 */
export function accountKeyOf(instrument: Instrument): string | undefined {
  switch (instrument.kind) {
    case 'card':
      return cardAccountKey(instrument.number);
    case 'storedCard':
      // Resolved by the payment path to the stored card (cardAccountKey) or account (a bankAccount instrument).
      return undefined;
    case 'bankAccount':
      return `iban:${instrument.iban}`;
    case 'tokenAccount':
      return `token:${instrument.number}`;
    case 'wallet':
      // A decrypted wallet card counts as that card; a token as itself (test tokens all stand for one DPAN).
      return instrument.decrypted ? cardAccountKey(instrument.decrypted.number) : `wallet:${instrument.brand}:${instrument.token}`;
    case 'virtualAccount':
      return `virtualAccount:${instrument.brand}:${instrument.accountId}`;
    case 'asynchronous':
    case 'referenced':
      return undefined;
  }
}

/** A card's account key, typed, stored or decrypted from a wallet. */
export function cardAccountKey(number: string): string {
  return `card:${number}`;
}
