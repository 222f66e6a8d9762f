import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { convertedAmount, divideHalfEven, feeOf, formatSignedAmount, settlementRateOf } from './settlementMoney.ts';

/** The settlement's arithmetic (exact, half to even) and its configuration (SETTLEMENT_*), refused when malformed. */
describe('settlement money', () => {
  it('rounds half to even, and only exact halves', () => {
    expect([5n, 15n, 25n, 35n].map((tenths) => divideHalfEven(tenths, 10n))).toEqual([0n, 2n, 2n, 4n]);
    expect([14n, 16n, 0n].map((tenths) => divideHalfEven(tenths, 10n))).toEqual([1n, 2n, 0n]);
    // 10.05 × 1.5 = 15.075 → 15.08; 10.15 × 1.5 = 15.225 → 15.22; 100.00 × 0.9134567891 = 91.34567891 → 91.35.
    expect([convertedAmount(1005, '1.5'), convertedAmount(1015, '1.5'), convertedAmount(10_000, '0.9134567891')]).toEqual([1508, 1522, 9135]);
    // 1.4 % of 9.00 is 0.126; of 15.00 exactly 0.21; 1.5 % of 15.00 is 0.225 → 0.22.
    expect([feeOf(900, '1.4', 25), feeOf(1500, '1.4', 0), feeOf(1500, '1.5', 0), feeOf(0, '100', 10)]).toEqual([38, 21, 22, 10]);
    expect([formatSignedAmount(-1205), formatSignedAmount(5), formatSignedAmount(0)]).toEqual(['-12.05', '0.05', '0.00']);
  });

  it('converts only pairs it has a rate for', () => {
    const rates = { fxRates: new Map([['USD:EUR', '0.9134']]) };
    expect(settlementRateOf(rates, 'USD', 'EUR')).toEqual({ currency: 'EUR', rate: '0.9134' });
    expect(settlementRateOf(rates, 'GBP', 'EUR')).toEqual({ currency: 'GBP', rate: '1' });
    expect(settlementRateOf(rates, 'EUR', 'EUR')).toEqual({ currency: 'EUR', rate: '1' });
    expect(settlementRateOf(rates, 'USD', null)).toEqual({ currency: 'USD', rate: '1' });
  });

  it('reads SETTLEMENT_* with defaults, and refuses malformed values', () => {
    expect(loadConfig({}).settlement).toEqual({ cutoffMinutesUtc: 22 * 60, feePercent: '1.4', feeFixedMinor: 25, fxRates: new Map() });
    expect(
      loadConfig({ SETTLEMENT_CUTOFF_UTC: '18:30', SETTLEMENT_FEE_PERCENT: '2.50', SETTLEMENT_FEE_FIXED: '0.00', SETTLEMENT_FX_RATES: 'USD:EUR=0.9134, GBP:EUR=1.1700' }).settlement,
    ).toEqual({ cutoffMinutesUtc: 18 * 60 + 30, feePercent: '2.5', feeFixedMinor: 0, fxRates: new Map([['USD:EUR', '0.9134'], ['GBP:EUR', '1.17']]) });
    for (const env of [
      { SETTLEMENT_CUTOFF_UTC: '24:00' },
      { SETTLEMENT_CUTOFF_UTC: '22' },
      { SETTLEMENT_FEE_PERCENT: '101' },
      { SETTLEMENT_FEE_PERCENT: '1.23456' },
      { SETTLEMENT_FEE_FIXED: '0.2' },
      { SETTLEMENT_FX_RATES: 'USD:EUR' },
      { SETTLEMENT_FX_RATES: 'USD:USD=1' },
      { SETTLEMENT_FX_RATES: 'USD:EUR=0' },
      { SETTLEMENT_FX_RATES: 'USD:EUR=0.9,USD:EUR=0.8' },
      { SETTLEMENT_FX_RATES: 'usd:eur=0.9' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});
