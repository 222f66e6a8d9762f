/**
 * How the simulated acquirers settle (issue 21, COMPAT §14): the daily cut-off, their fees and their FX rates, read
 * from SETTLEMENT_* by config.ts. Rates and percentages stay decimal text, exact: the arithmetic on them is done in
 * integers (settlementMoney.ts), never in floating point.
 */

export interface SettlementConfig {
  /** SETTLEMENT_CUTOFF_UTC as minutes after midnight UTC: a day's settlement takes what was made up to then. */
  readonly cutoffMinutesUtc: number;
  /** SETTLEMENT_FEE_PERCENT: percent of each record's settlement amount, as decimal text ("1.4"). */
  readonly feePercent: string;
  /** SETTLEMENT_FEE_FIXED: added to each record's fee, in minor units of the settlement currency. */
  readonly feeFixedMinor: number;
  /**
   * SETTLEMENT_FX_RATES: settlement currency per unit of the transaction currency, by `FROM:TO` ("USD:EUR" →
   * "0.9134"). A pair not listed is not converted: the transaction settles in its own currency.
   */
  readonly fxRates: ReadonlyMap<string, string>;
}

export class SettlementConfigError extends Error {}

export const DEFAULT_SETTLEMENT_CUTOFF = '22:00';
export const DEFAULT_FEE_PERCENT = '1.4';
export const DEFAULT_FEE_FIXED = '0.25';

const CUTOFF = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;
/** Up to 100 %, four decimals at most. */
const PERCENT = /^(?:100(?:\.0{1,4})?|[0-9]{1,2}(?:\.[0-9]{1,4})?)$/;
const FIXED_FEE = /^([0-9]{1,6})\.([0-9]{2})$/;
const RATE_ENTRY = /^([A-Z]{3}):([A-Z]{3})=([0-9]{1,6}(?:\.[0-9]{1,10})?)$/;

/** Decimal text without trailing zeros ("1.40" → "1.4", "2.000" → "2"). */
export function normalizedDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

function parseCutoff(raw: string | undefined): number {
  const text = raw === undefined || raw === '' ? DEFAULT_SETTLEMENT_CUTOFF : raw;
  const match = CUTOFF.exec(text);
  if (!match) throw new SettlementConfigError(`SETTLEMENT_CUTOFF_UTC must be a time of day HH:mm (UTC), got "${text.slice(0, 40)}"`);
  return Number(match[1]) * 60 + Number(match[2]);
}

function parsePercent(raw: string | undefined): string {
  const text = raw === undefined || raw === '' ? DEFAULT_FEE_PERCENT : raw;
  if (!PERCENT.test(text)) throw new SettlementConfigError(`SETTLEMENT_FEE_PERCENT must be a percentage from 0 to 100 with at most 4 decimals, got "${text.slice(0, 40)}"`);
  return normalizedDecimal(text);
}

function parseFixedFee(raw: string | undefined): number {
  const text = raw === undefined || raw === '' ? DEFAULT_FEE_FIXED : raw;
  const match = FIXED_FEE.exec(text);
  if (!match) throw new SettlementConfigError(`SETTLEMENT_FEE_FIXED must be an amount with two decimals (e.g. 0.25), got "${text.slice(0, 40)}"`);
  return Number(match[1]) * 100 + Number(match[2]);
}

function parseRates(raw: string | undefined): Map<string, string> {
  const rates = new Map<string, string>();
  if (raw === undefined || raw.trim() === '') return rates;
  for (const entry of raw.split(',').map((part) => part.trim())) {
    const match = RATE_ENTRY.exec(entry);
    if (!match) throw new SettlementConfigError(`SETTLEMENT_FX_RATES must be a comma-separated list of FROM:TO=RATE (e.g. USD:EUR=0.9134), got "${entry.slice(0, 40)}"`);
    const [, from, to, rate] = match as unknown as [string, string, string, string];
    const pair = `${from}:${to}`;
    if (from === to) throw new SettlementConfigError(`SETTLEMENT_FX_RATES converts ${from} into itself`);
    if (rates.has(pair)) throw new SettlementConfigError(`SETTLEMENT_FX_RATES names ${pair} twice`);
    if (/^0+(\.0+)?$/.test(rate)) throw new SettlementConfigError(`SETTLEMENT_FX_RATES: the rate of ${pair} must be above 0`);
    rates.set(pair, normalizedDecimal(rate));
  }
  return rates;
}

export function parseSettlementConfig(env: NodeJS.ProcessEnv): SettlementConfig {
  return {
    cutoffMinutesUtc: parseCutoff(env.SETTLEMENT_CUTOFF_UTC),
    feePercent: parsePercent(env.SETTLEMENT_FEE_PERCENT),
    feeFixedMinor: parseFixedFee(env.SETTLEMENT_FEE_FIXED),
    fxRates: parseRates(env.SETTLEMENT_FX_RATES),
  };
}
