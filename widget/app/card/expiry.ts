/** "MM / YY" as the shopper types it: digits only, the separator added after the month. */
export function formatExpiry(typed: string, deleting: boolean): string {
  let digits = typed.replace(/\D/g, '').slice(0, 4);
  // A first digit above 1 can only be a one-digit month: 4 → 04.
  if (digits.length === 1 && Number(digits) > 1) digits = `0${digits}`;
  if (digits.length < 2) return digits;
  if (digits.length === 2) return deleting ? digits : `${digits} / `;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

export interface Expiry {
  readonly month: string;
  /** Four digits. */
  readonly year: string;
}

/** The expiry in the field, or undefined when it is not a whole month and year. */
export function parseExpiry(value: string): Expiry | undefined {
  const match = /^\s*(\d{2})\s*\/\s*(\d{2})\s*$/.exec(value);
  if (!match) return undefined;
  const month = Number(match[1]);
  if (month < 1 || month > 12) return undefined;
  return { month: match[1] as string, year: `20${match[2]}` };
}

export function isExpiryInPast(expiry: Expiry, now: Date): boolean {
  const year = Number(expiry.year);
  const month = Number(expiry.month);
  return year < now.getFullYear() || (year === now.getFullYear() && month < now.getMonth() + 1);
}
