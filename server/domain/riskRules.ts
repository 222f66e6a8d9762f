import type { ParameterError } from './errors.ts';
import { RESULTS, type Result } from './resultCodes.ts';
import { isJsonObject } from './json.ts';

/**
 * Risk velocity rules (COMPAT §17): limits on what an entity's new payments (DB, PA, CD with any instrument, redirect
 * brands, follow-up authorizations) may add up to within a window, configured per entity (none unless set). They are
 * not request limits: a payment over one is declined like any other (HTTP 400, recorded with an id, queryable,
 * notified) with the rule's result code, and never reaches an acquirer.
 *
 *   accountCount          800.120.101  payments per account (risk/accountKey.ts; hashed, never kept in clear)
 *   ipCount               800.120.102  payments per customer.ip
 *   emailCount            800.120.103  payments per customer.email
 *   volume                800.120.200  amount of all the entity's payments
 *   accountVolume         800.120.201  amount per account
 *   ipVolume              800.120.202  amount per customer.ip
 *   emailVolume           800.120.203  amount per customer.email
 *   binChargebackRate     800.120.300  chargebacks per payment of a card BIN, in percent
 *   merchantAccountVolume 800.120.401  amount per merchant account (MID) at its acquirer (clearing institute)
 *
 * Amounts are in minor units of the payment's currency, each currency counted apart. Windows are fixed, aligned on
 * the clock (a window of 60 minutes is an hour of the clock). A payment without what a rule counts by (no IP, an
 * instrument without an account key) is not counted by it. Pure: what the payment would count, not how.
 */

export const COUNT_RULES = ['accountCount', 'ipCount', 'emailCount'] as const;
export const VOLUME_RULES = ['volume', 'accountVolume', 'ipVolume', 'emailVolume', 'merchantAccountVolume'] as const;
export const RISK_RULE_NAMES = [...COUNT_RULES, ...VOLUME_RULES, 'binChargebackRate'] as const;

export type CountRuleName = (typeof COUNT_RULES)[number];
export type VolumeRuleName = (typeof VOLUME_RULES)[number];
export type RiskRuleName = (typeof RISK_RULE_NAMES)[number];

export interface VelocityRule {
  /** Payments (count rules) or minor units (volume rules) allowed per window. */
  readonly max: number;
  readonly windowMinutes: number;
}

export interface ChargebackRateRule {
  /**
   * Chargebacks per 100 payments of a BIN above which its payments are declined: the payments the rules let through
   * to the acquirer in the window (its declines included), against the chargebacks received in it.
   */
  readonly maxPercent: number;
  /** Below this many payments of the BIN in the window, the rate is not judged (too few to say). */
  readonly minPayments: number;
  readonly windowMinutes: number;
}

export type RiskRules = Readonly<Partial<Record<CountRuleName | VolumeRuleName, VelocityRule>>> & {
  readonly binChargebackRate?: ChargebackRateRule;
};

export const RISK_RESULTS: Readonly<Record<RiskRuleName, Result>> = {
  accountCount: RESULTS.riskAccountCount,
  ipCount: RESULTS.riskIpCount,
  emailCount: RESULTS.riskEmailCount,
  volume: RESULTS.riskVolume,
  accountVolume: RESULTS.riskAccountVolume,
  ipVolume: RESULTS.riskIpVolume,
  emailVolume: RESULTS.riskEmailVolume,
  binChargebackRate: RESULTS.riskChargebackRate,
  merchantAccountVolume: RESULTS.riskMerchantAccountLimit,
};

/** The longest window: a year. */
export const MAX_WINDOW_MINUTES = 525_600;
const MAX_VALUE = Number.MAX_SAFE_INTEGER;

/** What a payment is counted by (undefined: it has none, and rules by it do not count it). */
export interface PaymentFacts {
  readonly entityId: string;
  readonly amountMinor: number;
  readonly currency: string;
  /** A keyed hash of the account (never the number itself). */
  readonly accountHash: string | undefined;
  readonly ip: string | undefined;
  readonly email: string | undefined;
  readonly bin: string | undefined;
  /** The acquirer the payment goes to (its merchant account). */
  readonly acquirer: string;
}

/** One counter a payment adds to: `amount` (1 for counts) to `bucket`, refused when it would pass `max`. */
export interface RiskCount {
  readonly rule: CountRuleName | VolumeRuleName;
  readonly bucket: string;
  readonly amount: number;
  readonly max: number;
  readonly windowMs: number;
}

const isCountRule = (name: RiskRuleName): name is CountRuleName => (COUNT_RULES as readonly string[]).includes(name);

/** The counters a payment adds to under `rules`, in the order of RISK_RULE_NAMES. */
export function riskCountsOf(rules: RiskRules, facts: PaymentFacts): RiskCount[] {
  const counts: RiskCount[] = [];
  const keyOf: Record<CountRuleName | VolumeRuleName, string | undefined> = {
    accountCount: facts.accountHash,
    ipCount: facts.ip,
    emailCount: facts.email?.toLowerCase(),
    volume: facts.currency,
    accountVolume: facts.accountHash === undefined ? undefined : `${facts.currency}:${facts.accountHash}`,
    ipVolume: facts.ip === undefined ? undefined : `${facts.currency}:${facts.ip}`,
    emailVolume: facts.email === undefined ? undefined : `${facts.currency}:${facts.email.toLowerCase()}`,
    merchantAccountVolume: `${facts.currency}:${facts.acquirer}`,
  };
  for (const name of [...COUNT_RULES, ...VOLUME_RULES]) {
    const rule = rules[name];
    const key = keyOf[name];
    if (!rule || key === undefined) continue;
    counts.push({
      rule: name,
      bucket: `${name}:${facts.entityId}:${key}`,
      amount: isCountRule(name) ? 1 : facts.amountMinor,
      max: rule.max,
      windowMs: rule.windowMinutes * 60_000,
    });
  }
  return counts;
}

/** Whether a BIN's chargebacks among its payments are over the rule's rate. */
export function chargebackRateExceeded(rule: ChargebackRateRule, payments: number, chargebacks: number): boolean {
  if (payments < rule.minPayments || payments === 0) return false;
  return (chargebacks * 100) / payments > rule.maxPercent;
}

const isRuleName = (name: string): name is RiskRuleName => (RISK_RULE_NAMES as readonly string[]).includes(name);

function integerProblem(value: unknown, min: number, max: number): string | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? undefined : `must be an integer from ${min} to ${max}`;
}

/**
 * An entity's rules as given (a JSON object of rule name → settings): every problem, each named
 * `<field>.<rule>.<setting>`, or the rules.
 */
export function checkRiskRules(input: unknown, field = 'risk'): { readonly rules: RiskRules } | { readonly problems: readonly ParameterError[] } {
  if (!isJsonObject(input)) {
    return { problems: [{ name: field, value: '', message: 'must be an object of rule names and their settings' }] };
  }
  const problems: ParameterError[] = [];
  const rules: Record<string, unknown> = {};
  for (const [name, settings] of Object.entries(input)) {
    const at = `${field}.${name}`;
    if (!isRuleName(name)) {
      problems.push({ name: at, value: '', message: `is not a known rule (known: ${RISK_RULE_NAMES.join(', ')})` });
      continue;
    }
    if (!isJsonObject(settings)) {
      problems.push({ name: at, value: '', message: 'must be an object' });
      continue;
    }
    const given = settings;
    const expected: Record<string, (value: unknown) => string | undefined> =
      name === 'binChargebackRate'
        ? {
            maxPercent: (value) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100 ? undefined : 'must be a number from 0 to 100'),
            minPayments: (value) => integerProblem(value, 1, MAX_VALUE),
            windowMinutes: (value) => integerProblem(value, 1, MAX_WINDOW_MINUTES),
          }
        : {
            max: (value) => integerProblem(value, 1, MAX_VALUE),
            windowMinutes: (value) => integerProblem(value, 1, MAX_WINDOW_MINUTES),
          };
    const before = problems.length;
    for (const [setting, value] of Object.entries(given)) {
      const check = expected[setting];
      const shown = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
      if (!check) problems.push({ name: `${at}.${setting}`, value: shown, message: `is not a setting of ${name} (known: ${Object.keys(expected).join(', ')})` });
      else {
        const problem = check(value);
        if (problem) problems.push({ name: `${at}.${setting}`, value: shown, message: problem });
      }
    }
    for (const setting of Object.keys(expected)) {
      if (!(setting in given)) problems.push({ name: `${at}.${setting}`, value: '', message: 'is required' });
    }
    if (problems.length === before) rules[name] = Object.fromEntries(Object.keys(expected).map((setting) => [setting, given[setting]]));
  }
  return problems.length > 0 ? { problems } : { rules: rules as RiskRules };
}
