import type { ParameterError } from './errors.ts';
import { statusOfResult } from './paymentState.ts';
import { RESULT_CODE_FORMAT, RESULTS } from './resultCodes.ts';

/**
 * Smart retry (COMPAT §15, spec 01 §1 and §4), the rules: a merchant entity's settings, what makes them valid, and
 * which rejected authorizations they retry. Pure: the settings are stored by merchants/smartRetrySettings.ts, the
 * acquirer to retry at is looked up by acquirers/routing.ts, and the two attempts are made by
 * payments/smartRetryFallback.ts.
 */

/**
 * The soft rejects retried unless the merchant lists its own (COMPAT §15): declines an issuer or acquirer may not
 * repeat elsewhere, and failures to reach the acquirer. Never 900.100.300 (timeout, uncertain result): the first
 * acquirer may have charged the card, and a second charge is worse than a lost sale.
 */
export const DEFAULT_SOFT_DECLINE_CODES: readonly string[] = [
  '800.100.100',
  '800.100.152',
  '800.100.176',
  '800.100.190',
  '800.100.191',
  '900.100.100',
  '900.100.200',
  '900.100.201',
  '900.100.400',
  '900.100.500',
  '900.100.600',
  '800.800.800',
];

/** The longest list of codes an entity may set (the platform's list has a dozen). */
export const MAX_SOFT_DECLINE_CODES = 100;

export interface SmartRetrySettings {
  readonly entityId: string;
  readonly enabled: boolean;
  /** The codes retried: the merchant's own list, or DEFAULT_SOFT_DECLINE_CODES. */
  readonly codes: readonly string[];
  /** Whether `codes` is the merchant's own list (false: the default list, which follows the gateway's version). */
  readonly customCodes: boolean;
  /** Retry payments that are not card on file. */
  readonly standalone: boolean;
  /** Retry card-on-file payments: with a stored card (registration) or a standing instruction. */
  readonly cardOnFile: boolean;
  /** The acquirer the retry goes to (a name of ACQUIRERS, never the default acquirer). */
  readonly fallbackAcquirer: string;
  readonly updatedAt: Date;
}

/** Settings as an operator sends them; what is left out takes its default (everything on, the default codes). */
export interface SmartRetryInput {
  readonly enabled?: boolean;
  /** undefined or 'default': the default list. */
  readonly codes?: readonly string[] | 'default';
  readonly standalone?: boolean;
  readonly cardOnFile?: boolean;
  readonly fallbackAcquirer?: string;
}

/** The acquirers the gateway is configured with (ACQUIRERS, DEFAULT_ACQUIRER). */
export interface AcquirerNames {
  readonly acquirers: readonly string[];
  readonly defaultAcquirer: string;
}

/** The input's settings, minus entity and time, or every problem with it (the names are the admin API's fields). */
export function checkSmartRetryInput(
  input: SmartRetryInput,
  names: AcquirerNames,
): { readonly problems: readonly ParameterError[] } | { readonly settings: Omit<SmartRetrySettings, 'entityId' | 'updatedAt'> } {
  const problems: ParameterError[] = [];
  const fallback = input.fallbackAcquirer;
  const configured = names.acquirers.join(', ');
  if (fallback === undefined || fallback === '') {
    problems.push({ name: 'fallbackAcquirer', value: '', message: `is required: the acquirer the retry goes to (configured: ${configured})` });
  } else if (!names.acquirers.includes(fallback)) {
    problems.push({ name: 'fallbackAcquirer', value: fallback, message: `is not a configured acquirer (ACQUIRERS: ${configured})` });
  } else if (fallback === names.defaultAcquirer) {
    problems.push({
      name: 'fallbackAcquirer',
      value: fallback,
      message: `must not be the default acquirer (${names.defaultAcquirer}): the retry goes to another acquirer`,
    });
  }
  const custom = input.codes !== undefined && input.codes !== 'default';
  const codes = custom ? [...new Set(input.codes as readonly string[])] : DEFAULT_SOFT_DECLINE_CODES;
  if (custom) {
    const sent = input.codes as readonly string[];
    if (sent.length === 0) problems.push({ name: 'codes', value: '', message: 'must name at least one result code (or be left out for the default list)' });
    if (sent.length > MAX_SOFT_DECLINE_CODES) problems.push({ name: 'codes', value: '', message: `must name at most ${MAX_SOFT_DECLINE_CODES} result codes` });
    sent.slice(0, MAX_SOFT_DECLINE_CODES).forEach((code, index) => {
      const problem = codeProblem(code);
      if (problem) problems.push({ name: `codes[${index}]`, value: code, message: problem });
    });
  }
  const standalone = input.standalone ?? true;
  const cardOnFile = input.cardOnFile ?? true;
  const enabled = input.enabled ?? true;
  if (enabled && !standalone && !cardOnFile) {
    const message = 'and cardOnFile are both false: an enabled smart retry must apply to standalone or card-on-file payments';
    problems.push({ name: 'standalone', value: 'false', message });
  }
  if (problems.length > 0) return { problems };
  return { settings: { enabled, codes, customCodes: custom, standalone, cardOnFile, fallbackAcquirer: fallback as string } };
}

/** Why a code cannot be a soft reject to retry, or undefined when it can. */
function codeProblem(code: string): string | undefined {
  if (!RESULT_CODE_FORMAT.test(code)) return 'must be a result code of the form ddd.ddd.ddd';
  if (code === RESULTS.timeoutUncertain.code) return 'is never retried: after a timeout with an uncertain result the first acquirer may have charged the card';
  // A success or a pending answer retried would be a second charge; a chargeback code is no answer to a payment.
  if (statusOfResult(code) !== 'declined') return 'is not a rejection: only rejected payments are retried';
  return undefined;
}

/** What decides whether a rejected authorization is retried. */
export interface RejectedAuthorization {
  /** The first acquirer's code, or RESULTS.acquirerUnreachable when the call never reached it. */
  readonly code: string;
  /** Made with a stored card or under a standing instruction (COMPAT §11). */
  readonly cardOnFile: boolean;
}

/**
 * Whether a payment's rejection may be retried at all, before any settings are read: only a declined DB or PA (a
 * credit is never retried), never an uncertain timeout. Keeps approved payments free of the settings' lookup.
 */
export function mayBeRetried(paymentType: string, code: string): boolean {
  return (paymentType === 'DB' || paymentType === 'PA') && statusOfResult(code) === 'declined' && code !== RESULTS.timeoutUncertain.code;
}

/** Whether these settings retry this rejection (at their fallback acquirer, if it can be used: acquirers/routing.ts). */
export function retriesRejection(settings: SmartRetrySettings | undefined, rejected: RejectedAuthorization): boolean {
  if (!settings?.enabled) return false;
  if (!(rejected.cardOnFile ? settings.cardOnFile : settings.standalone)) return false;
  return rejected.code !== RESULTS.timeoutUncertain.code && settings.codes.includes(rejected.code);
}

/** Why stored settings retry nothing with the acquirers configured now, or undefined when they are in effect. */
export function notInEffectBecause(settings: SmartRetrySettings | undefined, names: AcquirerNames): string | undefined {
  if (!settings) return 'smart retry is not set up for this entity';
  if (!settings.enabled) return 'smart retry is switched off (enabled: false)';
  if (!names.acquirers.includes(settings.fallbackAcquirer)) return `the fallback acquirer ${settings.fallbackAcquirer} is not configured (ACQUIRERS)`;
  if (settings.fallbackAcquirer === names.defaultAcquirer) return `the fallback acquirer ${settings.fallbackAcquirer} is the default acquirer now`;
  return undefined;
}
