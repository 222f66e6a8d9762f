import type { SettlementConfig } from '../settlementConfig.ts';

/**
 * The settlement's arithmetic, exact: amounts in minor units, rates and percentages as decimal text turned into
 * scaled integers, every division rounded half to even (banker's rounding: 0.5 goes to the even neighbour, so
 * rounding errors do not pile up in one direction over a day's records).
 */

/** `text` (digits with an optional fraction of at most `scale` digits) times 10^scale. */
function scaled(text: string, scale: number): bigint {
  const [units = '0', fraction = ''] = text.split('.');
  if (fraction.length > scale) throw new Error(`${text} has more than ${scale} decimals`);
  return BigInt(units + fraction.padEnd(scale, '0'));
}

/** numerator / denominator (both ≥ 0, denominator > 0), rounded half to even. */
export function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder === denominator && quotient % 2n === 1n) return quotient + 1n;
  return quotient;
}

const RATE_SCALE = 10;
const PERCENT_SCALE = 4;

/** The settlement amount of `amountMinor` at `rate` (settlement units per transaction unit), in minor units. */
export function convertedAmount(amountMinor: number, rate: string): number {
  return Number(divideHalfEven(BigInt(amountMinor) * scaled(rate, RATE_SCALE), 10n ** BigInt(RATE_SCALE)));
}

/** The fee of a record settled for `settlementMinor`: `percent` % of it (rounded half to even) plus the fixed fee. */
export function feeOf(settlementMinor: number, percent: string, fixedMinor: number): number {
  const share = divideHalfEven(BigInt(settlementMinor) * scaled(percent, PERCENT_SCALE), 100n * 10n ** BigInt(PERCENT_SCALE));
  return Number(share) + fixedMinor;
}

/**
 * The currency a transaction settles in and the rate: the entity's settlement currency when SETTLEMENT_FX_RATES
 * quotes the pair, else the transaction's own (rate 1).
 */
export function settlementRateOf(config: Pick<SettlementConfig, 'fxRates'>, currency: string, settlementCurrency: string | null): { readonly currency: string; readonly rate: string } {
  if (settlementCurrency === null || settlementCurrency === currency) return { currency, rate: '1' };
  const rate = config.fxRates.get(`${currency}:${settlementCurrency}`);
  return rate === undefined ? { currency, rate: '1' } : { currency: settlementCurrency, rate };
}

/** Minor units as the API writes amounts, with a minus sign when negative ("-12.05"). */
export function formatSignedAmount(minorUnits: number): string {
  const magnitude = Math.abs(minorUnits);
  return `${minorUnits < 0 ? '-' : ''}${Math.trunc(magnitude / 100)}.${(magnitude % 100).toString().padStart(2, '0')}`;
}
