/**
 * What the payments search box holds, read as the API reads `q` (server/dashboard/api.ts): a payment id (32 hex
 * characters), a short id (`1234.5678.9012`, the digits the descriptor shows), a card's last 4 digits, its BIN (6 to 8
 * digits), an exact amount (`12.50`), a shopper's e-mail address, or else a merchant reference or a part of the card
 * holder's name. The app reads it too, to open a payment id directly and to tell the user what it will look for.
 */

export type SearchKind = 'id' | 'shortId' | 'last4' | 'bin' | 'amount' | 'email' | 'reference';

export interface SearchTerm {
  readonly kind: SearchKind;
  /** The value as the API expects it: an id in lowercase, a short id with its dots. */
  readonly value: string;
}

const PAYMENT_ID = /^[0-9a-f]{32}$/i;
/** Twelve digits in groups of four, with dots, spaces or nothing between them (as people copy them). */
const SHORT_ID = /^(\d{4})[.\s]?(\d{4})[.\s]?(\d{4})$/;

/** The search term in `input`, or undefined for an empty box. */
export function classifySearch(input: string): SearchTerm | undefined {
  const text = input.trim();
  if (text === '') return undefined;
  if (PAYMENT_ID.test(text)) return { kind: 'id', value: text.toLowerCase() };
  const short = SHORT_ID.exec(text);
  if (short) return { kind: 'shortId', value: `${short[1]}.${short[2]}.${short[3]}` };
  if (/^\d{4}$/.test(text)) return { kind: 'last4', value: text };
  if (/^\d{6,8}$/.test(text)) return { kind: 'bin', value: text };
  if (/^\d+\.\d{2}$/.test(text)) return { kind: 'amount', value: text };
  if (/^[^\s@]+@[^\s@]+$/.test(text)) return { kind: 'email', value: text };
  return { kind: 'reference', value: text };
}
