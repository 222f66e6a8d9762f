/**
 * What the payments search box holds: a payment id (32 hex characters), a short id (`1234.5678.9012`, the digits
 * the descriptor shows), or else a merchant reference. The API reads `q` the same way; the app reads it too, to
 * open a payment id directly and to tell the operator what it will look for.
 */

export type SearchKind = 'id' | 'shortId' | 'reference';

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
  return { kind: 'reference', value: text };
}
