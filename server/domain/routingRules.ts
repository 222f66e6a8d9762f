import type { ParameterError } from './errors.ts';
import { formatAmount, parseAmount } from './money.ts';
import { isJsonObject } from './json.ts';

/**
 * Routing (issue 33): per merchant entity, which acquirer a new payment goes to. Rules are tried in order; the first
 * whose conditions all hold names the acquirer, and a payment no rule matches goes to the default acquirer
 * (DEFAULT_ACQUIRER). A condition left out holds for every payment. Later operations on a payment (captures, refunds,
 * reversals) go where the payment went, whatever the rules say by then; a soft decline may still go on to the
 * entity's fallback acquirer (smart retry).
 */

export interface RoutingRule {
  /** The acquirer the payment goes to: a name of ACQUIRERS. */
  readonly acquirer: string;
  /** The payment's brand is one of these (VISA, MASTER, SOFORTUEBERWEISUNG, DIRECTDEBIT_SEPA, APPLEPAY, ...). */
  readonly brands?: readonly string[];
  /** Its currency is one of these. */
  readonly currencies?: readonly string[];
  /** Its amount is at least this, in minor units. */
  readonly minAmountMinor?: number;
  /** Its amount is at most this, in minor units. */
  readonly maxAmountMinor?: number;
}

/** What a rule is matched against. */
export interface RoutedPayment {
  readonly brand: string | null;
  readonly currency: string;
  readonly amountMinor: number;
}

export const MAX_ROUTING_RULES = 100;

function matches(rule: RoutingRule, payment: RoutedPayment): boolean {
  if (rule.brands && (payment.brand === null || !rule.brands.includes(payment.brand))) return false;
  if (rule.currencies && !rule.currencies.includes(payment.currency)) return false;
  if (rule.minAmountMinor !== undefined && payment.amountMinor < rule.minAmountMinor) return false;
  if (rule.maxAmountMinor !== undefined && payment.amountMinor > rule.maxAmountMinor) return false;
  return true;
}

/** The acquirer the first matching rule names, or undefined when none matches (the default acquirer then). */
export function routedAcquirer(rules: readonly RoutingRule[], payment: RoutedPayment): string | undefined {
  return rules.find((rule) => matches(rule, payment))?.acquirer;
}

/** A rule as the admin API shows it (and takes it): amounts as decimal strings. */
export function ruleJson(rule: RoutingRule): Record<string, unknown> {
  return {
    acquirer: rule.acquirer,
    ...(rule.brands ? { brands: [...rule.brands] } : {}),
    ...(rule.currencies ? { currencies: [...rule.currencies] } : {}),
    ...(rule.minAmountMinor !== undefined ? { minAmount: formatAmount(rule.minAmountMinor) } : {}),
    ...(rule.maxAmountMinor !== undefined ? { maxAmount: formatAmount(rule.maxAmountMinor) } : {}),
  };
}

const BRAND = /^[A-Z0-9_]{1,32}$/;
const CURRENCY = /^[A-Z]{3}$/;
const RULE_FIELDS = ['acquirer', 'brands', 'currencies', 'minAmount', 'maxAmount'];

function listOf(value: unknown, pattern: RegExp): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > 200) return undefined;
  return value.every((entry) => typeof entry === 'string' && pattern.test(entry)) ? [...new Set(value as string[])] : undefined;
}

/**
 * The rules as the operator sent them (a JSON array of objects), checked: every problem named by its place
 * (`rules[2].maxAmount`), nothing accepted unless everything is right. `acquirers`: the names of ACQUIRERS.
 */
export function checkRoutingRules(input: unknown, acquirers: readonly string[]): { readonly rules: RoutingRule[] } | { readonly problems: ParameterError[] } {
  const problems: ParameterError[] = [];
  const problem = (name: string, value: unknown, message: string) => problems.push({ name, value: typeof value === 'string' ? value : JSON.stringify(value ?? null), message });
  if (!Array.isArray(input)) return { problems: [{ name: 'rules', value: '', message: 'must be an array of rules' }] };
  if (input.length > MAX_ROUTING_RULES) return { problems: [{ name: 'rules', value: String(input.length), message: `must hold at most ${MAX_ROUTING_RULES} rules` }] };
  const rules: RoutingRule[] = [];
  input.forEach((entry, index) => {
    const at = `rules[${index}]`;
    if (!isJsonObject(entry)) {
      problem(at, entry, 'must be an object with acquirer and conditions');
      return;
    }
    for (const field of Object.keys(entry)) if (!RULE_FIELDS.includes(field)) problem(`${at}.${field}`, entry[field], `is not a condition (${RULE_FIELDS.join(', ')})`);
    const acquirer = entry.acquirer;
    if (typeof acquirer !== 'string' || !acquirers.includes(acquirer)) problem(`${at}.acquirer`, acquirer, `must be one of ACQUIRERS (${acquirers.join(', ')})`);
    const brands = entry.brands === undefined ? undefined : listOf(entry.brands, BRAND);
    if (entry.brands !== undefined && !brands) problem(`${at}.brands`, entry.brands, 'must be a non-empty array of brands (VISA, MASTER, ...)');
    const currencies = entry.currencies === undefined ? undefined : listOf(entry.currencies, CURRENCY);
    if (entry.currencies !== undefined && !currencies) problem(`${at}.currencies`, entry.currencies, 'must be a non-empty array of ISO 4217 codes (EUR, USD, ...)');
    const amountOf = (field: 'minAmount' | 'maxAmount'): number | undefined => {
      const raw = entry[field];
      if (raw === undefined) return undefined;
      const minor = typeof raw === 'string' ? parseAmount(raw) : undefined;
      if (minor === undefined) problem(`${at}.${field}`, raw, 'must be an amount such as "100.00"');
      return minor;
    };
    const minAmountMinor = amountOf('minAmount');
    const maxAmountMinor = amountOf('maxAmount');
    if (minAmountMinor !== undefined && maxAmountMinor !== undefined && minAmountMinor > maxAmountMinor) problem(`${at}.maxAmount`, entry.maxAmount, 'must not be below minAmount');
    rules.push({
      acquirer: acquirer as string,
      ...(brands ? { brands } : {}),
      ...(currencies ? { currencies } : {}),
      ...(minAmountMinor !== undefined ? { minAmountMinor } : {}),
      ...(maxAmountMinor !== undefined ? { maxAmountMinor } : {}),
    });
  });
  return problems.length > 0 ? { problems } : { rules };
}
