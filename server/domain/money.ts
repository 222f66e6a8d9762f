/**
 * Amounts travel as decimal strings with two decimals ("92.00") and live inside as integer minor units.
 * Ten integer digits plus two decimals stay far below 2^53, so plain numbers are exact here.
 */

const AMOUNT = /^([0-9]{1,10})(?:\.([0-9]{2}))?$/;

/** Minor units of a wire amount, or undefined when the string is not a valid amount. */
export function parseAmount(amount: string): number | undefined {
  const match = AMOUNT.exec(amount);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number(match[2] ?? '0');
}

export function formatAmount(minorUnits: number): string {
  const units = Math.trunc(minorUnits / 100);
  const cents = minorUnits % 100;
  return `${units}.${cents.toString().padStart(2, '0')}`;
}
