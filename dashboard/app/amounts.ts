/**
 * Amounts as people type them and as the API takes them. The API's amounts are decimal strings with two decimals
 * ("10.00"); people type "10", "10,5", "1.234,56" or "1,234.56". The last dot or comma followed by one or two digits
 * is the decimal separator; any other must separate groups of three digits. Never through floating point.
 */

export type AmountProblem = 'empty' | 'invalid' | 'zero' | 'tooLarge';

export type ParsedAmount = { readonly ok: true; readonly amount: string } | { readonly ok: false; readonly problem: AmountProblem };

/** Up to 10 digits before the separator: the gateway's own amount format. */
const MAX_INTEGER_DIGITS = 10;

export function parseAmount(input: string, options: { readonly allowZero?: boolean } = {}): ParsedAmount {
  const text = input.trim().replace(/[\s\u00a0\u202f']/g, '');
  if (text === '') return { ok: false, problem: 'empty' };
  const match = /^(\d+(?:[.,]\d+)*?)(?:[.,](\d{1,2}))?$/.exec(text);
  if (!match) return { ok: false, problem: 'invalid' };
  const [, whole = '', fraction = ''] = match;
  const groups = whole.split(/[.,]/);
  // Grouping: one separator kind, first group 1–3 digits, the others exactly 3.
  if (groups.length > 1) {
    const separators = new Set(whole.replace(/\d/g, ''));
    if (separators.size > 1 || !/^\d{1,3}$/.test(groups[0] ?? '') || groups.slice(1).some((group) => !/^\d{3}$/.test(group))) {
      return { ok: false, problem: 'invalid' };
    }
    // The decimal separator differs from the grouping one ("1.234,56", not "1.234.56").
    const decimal = text.slice(whole.length, whole.length + 1);
    if (fraction !== '' && separators.has(decimal)) return { ok: false, problem: 'invalid' };
  }
  const integer = groups.join('').replace(/^0+(?=\d)/, '');
  if (integer.length > MAX_INTEGER_DIGITS) return { ok: false, problem: 'tooLarge' };
  const amount = `${integer}.${fraction.padEnd(2, '0')}`;
  if (!options.allowZero && /^0\.00$/.test(amount)) return { ok: false, problem: 'zero' };
  return { ok: true, amount };
}

/** The BCP 47 locale the app formats with, for a language of the app. */
export function localeOf(language: string): string {
  return language === 'de' ? 'de-DE' : 'en-GB';
}

/**
 * Intl formatters, made once per locale and options: making one costs far more than formatting with it (a list of 50
 * payments formats 100 values).
 */
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function formatter<F extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => F): F {
  let made = formatters.get(key) as F | undefined;
  if (!made) {
    made = make();
    formatters.set(key, made);
  }
  return made;
}

/** An API amount ("10.00") in a currency, formatted for `locale` (Intl); the raw text when Intl cannot. */
export function formatAmount(amount: string, currency: string, locale: string): string {
  const value = Number(amount);
  if (!Number.isFinite(value)) return `${amount} ${currency}`;
  try {
    return formatter(`${locale} ${currency}`, () => new Intl.NumberFormat(locale, { style: 'currency', currency })).format(value);
  } catch {
    return `${formatter(`${locale} decimal`, () => new Intl.NumberFormat(locale, { minimumFractionDigits: 2 })).format(value)} ${currency}`;
  }
}

/** An ISO date-time for `locale`, or the text itself when it is none. */
export function formatDateTime(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return formatter(`${locale} date-time`, () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' })).format(date);
}
