import type { Instrument } from '../domain/commands.ts';

/**
 * What the risk rules count a payment's account by (800.120.101, .201): the card number, the registration a stored
 * card or account pays with, the IBAN, the token number, the wallet's card or token, the virtual account. Only ever
 * fingerprinted (a keyed hash, velocity.ts), never kept. Undefined for a payment that names no account of its own
 * (a redirect brand's account is chosen on the provider's page; a follow-up authorization reuses the original's).
 */
export function accountKeyOf(instrument: Instrument): string | undefined {
  switch (instrument.kind) {
    case 'card':
      return `card:${instrument.number}`;
    case 'storedCard':
      return `registration:${instrument.registrationId}`;
    case 'bankAccount':
      return `iban:${instrument.iban}`;
    case 'tokenAccount':
      return `token:${instrument.number}`;
    case 'wallet':
      // A decrypted wallet card counts as that card; a token as itself (test tokens all stand for one DPAN).
      return instrument.decrypted ? `card:${instrument.decrypted.number}` : `wallet:${instrument.brand}:${instrument.token}`;
    case 'virtualAccount':
      return `virtualAccount:${instrument.brand}:${instrument.accountId}`;
    case 'redirect':
    case 'referenced':
      return undefined;
  }
}
