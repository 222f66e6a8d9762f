import { isSecretName, maskAccountNumber, MESSAGE_LIMIT, shownText } from '../domain/sensitive.ts';
import { CATALOGUE } from './catalogue.ts';
import { CROSS_FIELD_RULES } from './rules.ts';
import type { Operation, ParamSpec } from './types.ts';
import type { ParameterError } from '../domain/errors.ts';

/** Lists (`[n]`) hold at most this many entries unless the spec says otherwise (cart items: 1000). */
const DEFAULT_MAX_INDEX = 999;

/** How often `token` (`[n]` or `[*]`) occurs in a catalogue name. */
function countOf(name: string, token: string): number {
  return name.split(token).length - 1;
}

interface CatalogueEntry {
  readonly spec: ParamSpec;
  /** How many `[n]` list positions and `[*]` map keys the catalogue name has. */
  readonly listPositions: number;
  readonly mapKeys: number;
}

const SPEC_BY_NAME: ReadonlyMap<string, CatalogueEntry> = new Map(
  CATALOGUE.map((spec) => [spec.name, { spec, listPositions: countOf(spec.name, '[n]'), mapKeys: countOf(spec.name, '[*]') }]),
);

const REQUIRED_BY_OPERATION = new Map<Operation, readonly string[]>();

/** The names the catalogue requires unconditionally for an operation, in catalogue order (computed once). */
function requiredParameters(operation: Operation): readonly string[] {
  let names = REQUIRED_BY_OPERATION.get(operation);
  if (!names) {
    names = CATALOGUE.filter((spec) => spec.requiredFor?.includes(operation)).map((spec) => spec.name);
    REQUIRED_BY_OPERATION.set(operation, names);
  }
  return names;
}

interface SpecMatch {
  readonly spec: ParamSpec;
  /** The list indexes found in the name, in order. */
  readonly indexes: readonly string[];
  /** The free map keys found in the name, in order. */
  readonly keys: readonly string[];
}

const BRACKET = /\[([^\]]*)\]/g;

/**
 * Finds the catalogue entry of a parameter name as sent (`cart.items[3].name`, `customParameters[SHOPPER_x]`),
 * or undefined for a parameter the spec does not know (such parameters are ignored).
 */
export function findSpec(name: string): SpecMatch | undefined {
  // A template name sent literally (`cart.items[n].name`, `customParameters[*]`) is no parameter: it must
  // not match its entry without an index or key to check.
  const exact = SPEC_BY_NAME.get(name);
  if (exact && exact.listPositions === 0 && exact.mapKeys === 0) {
    return { spec: exact.spec, indexes: [], keys: [] };
  }
  if (!name.includes('[')) return undefined;

  const indexes: string[] = [];
  const withIndexes = name.replace(BRACKET, (whole, inner: string) => {
    if (/^[0-9]+$/.test(inner)) {
      indexes.push(inner);
      return '[n]';
    }
    return whole;
  });
  const indexed = SPEC_BY_NAME.get(withIndexes);
  if (indexed && indexed.listPositions === indexes.length && indexed.mapKeys === 0) {
    return { spec: indexed.spec, indexes, keys: [] };
  }

  // Free map keys: digits may be a key too (customParameters[123]), so try both readings of each bracket.
  const keyed: string[] = [];
  const keyedIndexes: string[] = [];
  const withKeys = name.replace(BRACKET, (_whole, inner: string) => {
    keyed.push(inner);
    return '[*]';
  });
  const asMap = SPEC_BY_NAME.get(withKeys);
  if (asMap) return { spec: asMap.spec, indexes: [], keys: keyed };

  const keys: string[] = [];
  const mixed = name.replace(BRACKET, (_whole, inner: string) => {
    if (/^[0-9]+$/.test(inner)) {
      keyedIndexes.push(inner);
      return '[n]';
    }
    keys.push(inner);
    return '[*]';
  });
  const mixedSpec = SPEC_BY_NAME.get(mixed);
  return mixedSpec ? { spec: mixedSpec.spec, indexes: keyedIndexes, keys } : undefined;
}

export function isKnownParameter(name: string): boolean {
  return findSpec(name) !== undefined;
}

/**
 * The value as it may be shown back to the caller (parameterErrors): account numbers masked, secrets hidden —
 * also under names the catalogue does not know (`customParameters[cvv]`) — and everything else as shownText shows
 * what a caller sent: card numbers masked wherever they appear, long values cut.
 */
export function displayValue(name: string, value: string): string {
  const sensitivity = findSpec(name)?.spec.sensitive;
  if (sensitivity === 'pan') return shownText(maskAccountNumber(value));
  if (sensitivity !== undefined || isSecretName(name)) return '*'.repeat(Math.min(value.length, 8));
  return shownText(value);
}

/**
 * A parameter error as it may be shown back: its value as displayValue says, its name and message through shownText
 * too (a name or a key quoted in a message is the caller's text). GatewayError applies it to every parameter error.
 */
export function maskedParameterError(error: ParameterError): ParameterError {
  return { name: shownText(error.name), value: displayValue(error.name, error.value), message: shownText(error.message, MESSAGE_LIMIT) };
}

/**
 * The value a payment keeps and shows in its request echo: account numbers masked, secrets not at all, the
 * merchant's 3-D Secure data as sent (see Sensitivity).
 */
export function echoedValue(spec: ParamSpec, value: string): string | undefined {
  switch (spec.sensitive) {
    case 'pan':
      return maskAccountNumber(value);
    case 'secret':
      return undefined;
    default:
      return value;
  }
}

// C0 controls other than tab, line feed and carriage return are never part of a legitimate value
// (and NUL cannot be stored in PostgreSQL text at all).
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const SURROGATE = /[\uD800-\uDFFF]/;

/** Length in characters (code points): UTF-16 length unless surrogate pairs are present. */
function lengthOf(value: string): number {
  if (!SURROGATE.test(value)) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function checkValue(match: SpecMatch, value: string): string | undefined {
  const { spec } = match;
  const maxIndex = spec.maxIndex ?? DEFAULT_MAX_INDEX;
  for (const index of match.indexes) {
    if (index.length > 1 && index.startsWith('0')) return 'list index must not have leading zeros';
    if (Number(index) > maxIndex) return `list index must be between 0 and ${maxIndex}`;
  }
  if (spec.keyPattern) {
    for (const key of match.keys) {
      if (!spec.keyPattern.test(key)) return `has an invalid name: "${key}"`;
    }
  }
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters';
  const length = lengthOf(value);
  if (spec.min !== undefined && spec.max !== undefined && (length < spec.min || length > spec.max)) {
    return spec.min === spec.max
      ? `must be exactly ${spec.min} characters long`
      : `must be between ${spec.min} and ${spec.max} characters long`;
  }
  if (spec.min !== undefined && length < spec.min) return `must be at least ${spec.min} characters long`;
  if (spec.max !== undefined && length > spec.max) return `must be at most ${spec.max} characters long`;
  if (spec.values && !spec.values.includes(value)) {
    return spec.values.length <= 12
      ? `must be one of: ${spec.values.join(', ')}`
      : 'is not one of the values the specification allows';
  }
  if (spec.pattern && !spec.pattern.test(value)) return spec.formatMessage ?? 'has an invalid format';
  return undefined;
}

const NOTHING_SUPPLIED: ReadonlySet<string> = new Set();

/**
 * Checks every parameter the catalogue knows, the parameters required for the operation, and the
 * cross-field rules. Unknown parameters are ignored. Returns every problem found, one per parameter.
 *
 * `supplied`: names whose values the request's caller gives itself, checked where they come from, rather than the
 * parameters (the id in a path, what the gateway fixes for a checkout's card verification): a parameter of such a
 * name is not read, and the name counts as sent.
 */
export function validateParameters(
  sent: ReadonlyMap<string, string>,
  operation: Operation,
  supplied: ReadonlySet<string> = NOTHING_SUPPLIED,
): ParameterError[] {
  const params = supplied.size === 0 ? sent : new Map([...sent].filter(([name]) => !supplied.has(name)));
  const errors: ParameterError[] = [];
  const reported = new Set<string>();
  const report = (error: ParameterError) => {
    if (reported.has(error.name)) return;
    reported.add(error.name);
    errors.push(maskedParameterError(error));
  };

  for (const [name, value] of params) {
    const match = findSpec(name);
    if (!match) continue;
    const problem = checkValue(match, value);
    if (problem) report({ name, value, message: problem });
  }
  for (const name of requiredParameters(operation)) {
    if (!params.has(name) && !supplied.has(name)) report({ name, value: '', message: 'is required' });
  }
  for (const rule of CROSS_FIELD_RULES) {
    for (const error of rule(params, operation, supplied)) report(error);
  }
  return errors;
}
