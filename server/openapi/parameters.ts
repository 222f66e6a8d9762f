import { CATALOGUE } from '../params/catalogue.ts';
import type { Operation, ParamSpec } from '../params/types.ts';
import type { PathIdKind } from '../http/pathIds.ts';

/**
 * The request side of the OpenAPI document, generated from the parameter catalogue (params/catalogue.ts): each entry
 * becomes a JSON Schema string with its length, pattern and values, under its name as sent (`card.number`) or, for a
 * list index or a free map key (`cart.items[n].name`, `customParameters[*]`), under a pattern of the names it takes.
 * The catalogue's cross-field rules (params/rules.ts) are code: what of them JSON Schema can say is in conditions.ts.
 */

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect), as plain data. */
export type Schema = Readonly<Record<string, unknown>>;

/** `.` `[` `]` and the other characters a regular expression reads specially, escaped. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * A regular expression's source as a JSON Schema pattern, which has no flags: `u` is how Ajv and OpenAPI tools compile
 * patterns anyway, and `i` is spelled out letter by letter (outside character classes; a class with letters under `i`
 * is refused, loudly, rather than documented wrong).
 */
export function patternOf(expression: RegExp): string {
  const unknown = expression.flags.replace(/[iu]/g, '');
  if (unknown !== '') throw new Error(`pattern ${expression} has flags JSON Schema cannot say (${unknown})`);
  if (!expression.flags.includes('i')) return expression.source;
  let pattern = '';
  let inClass = false;
  const source = expression.source;
  for (let index = 0; index < source.length; index++) {
    const character = source.charAt(index);
    if (character === '\\') {
      pattern += source.slice(index, index + 2);
      index++;
    } else if (inClass) {
      if (/[A-Za-z]/.test(character)) throw new Error(`pattern ${expression}: a case-insensitive class cannot be written without its flag`);
      if (character === ']') inClass = false;
      pattern += character;
    } else if (character === '[') {
      inClass = true;
      pattern += character;
    } else {
      pattern += /[A-Za-z]/.test(character) ? `[${character.toLowerCase()}${character.toUpperCase()}]` : character;
    }
  }
  return pattern;
}

/** A pattern's body without its anchors, to be put inside another pattern (a map key's). */
function unanchored(expression: RegExp): string {
  return patternOf(expression).replace(/^\^/, '').replace(/\$$/, '');
}

/** `0` to `maxIndex` without leading zeros (the validator's rule), for a maxIndex of nines (999). */
function indexPattern(maxIndex: number): string {
  const digits = String(maxIndex).length;
  if (maxIndex !== 10 ** digits - 1) throw new Error(`list index limit ${maxIndex} is not a run of nines: write its pattern here`);
  return digits === 1 ? '[0-9]' : `(0|[1-9][0-9]{0,${digits - 1}})`;
}

/** Lists hold indexes 0 to 999 unless their entry says otherwise (params/validate.ts DEFAULT_MAX_INDEX). */
const DEFAULT_MAX_INDEX = 999;

/** Whether the name has list positions (`[n]`) or free map keys (`[*]`): it is a family of names, not one. */
export function isNameFamily(spec: ParamSpec): boolean {
  return spec.name.includes('[n]') || spec.name.includes('[*]');
}

/** The pattern of every name a family entry stands for: `cart.items[n].name` → `^cart\.items\[(0|[1-9][0-9]{0,2})\]\.name$`. */
export function namePatternOf(spec: ParamSpec): string {
  const parts = spec.name.split(/(\[n\]|\[\*\])/);
  const body = parts
    .map((part) => {
      if (part === '[n]') return `\\[${indexPattern(spec.maxIndex ?? DEFAULT_MAX_INDEX)}\\]`;
      if (part === '[*]') return `\\[${spec.keyPattern ? unanchored(spec.keyPattern) : '[^\\]]+'}\\]`;
      return escapeRegExp(part);
    })
    .join('');
  return `^${body}$`;
}

const SENSITIVITY: Readonly<Record<NonNullable<ParamSpec['sensitive']>, string>> = {
  pan: 'An account number: shown back and kept only masked (first six and last four characters).',
  secret: 'A secret: never shown back, logged or kept in clear.',
  authenticationData: 'Hidden in parameterErrors and logs; the payment shows it back as sent.',
};

/** One catalogue entry as the schema of its value. */
export function valueSchemaOf(spec: ParamSpec): Schema {
  const description = [spec.formatMessage, spec.sensitive ? SENSITIVITY[spec.sensitive] : undefined].filter(Boolean).join(' ');
  return {
    type: 'string',
    ...(spec.min !== undefined ? { minLength: spec.min } : {}),
    ...(spec.max !== undefined ? { maxLength: spec.max } : {}),
    ...(spec.pattern ? { pattern: patternOf(spec.pattern) } : {}),
    ...(spec.values ? { enum: [...spec.values] } : {}),
    ...(spec.sensitive === 'secret' || spec.sensitive === 'pan' ? { writeOnly: true } : {}),
    ...(description !== '' ? { description } : {}),
  };
}

const SPECS = new Map(CATALOGUE.map((spec) => [spec.name, spec]));

/** The catalogue entry of `name`, or a loud failure: the operation table may name only what the catalogue has. */
export function catalogueSpec(name: string): ParamSpec {
  const spec = SPECS.get(name);
  if (!spec) throw new Error(`${name} is no parameter of the catalogue (params/catalogue.ts)`);
  return spec;
}

/**
 * Every parameter of the catalogue as one object schema: a property per name, a pattern property per family of names.
 * Parameters the catalogue does not know are ignored by the gateway, so other properties are allowed.
 */
export function catalogueSchema(): Schema {
  const properties: Record<string, Schema> = {};
  const patternProperties: Record<string, Schema> = {};
  for (const spec of CATALOGUE) {
    if (isNameFamily(spec)) patternProperties[namePatternOf(spec)] = { ...valueSchemaOf(spec), 'x-parameter': spec.name };
    else properties[spec.name] = valueSchemaOf(spec);
  }
  return {
    type: 'object',
    description:
      'Every request parameter of the specification, each checked for its length (in characters), values and format: ' +
      'a bad one is answered 400 200.300.404 with parameterErrors naming it. No value may hold control characters ' +
      '(other than tab and line breaks). Names the catalogue does not know are ignored. `[n]` names take list ' +
      'indexes without leading zeros, `[*]` names a key of the pattern shown.',
    properties,
    patternProperties,
  };
}

/** The names the catalogue requires unconditionally for a request kind. */
export function requiredFor(operation: Operation): string[] {
  return CATALOGUE.filter((spec) => spec.requiredFor?.includes(operation)).map((spec) => spec.name);
}

/**
 * The pattern of each kind of id a path carries (http/pathIds.ts checks them before a lookup). A `Record` over the
 * kinds, so a new kind without its pattern here does not compile; openapi.test.ts checks each against isPathId.
 */
export const PATH_ID_PATTERNS: Readonly<Record<PathIdKind, string>> = {
  payment: '^[0-9a-f]{32}$',
  registration: '^[0-9a-f]{32}$',
  schedule: '^[0-9a-f]{32}$',
  redirect: '^[0-9a-f]{32}$',
  checkout: '^[0-9A-F]{32}\\.[a-z0-9-]{1,15}$',
  transaction: '^([0-9a-f]{32}|[0-9A-F]{32}\\.[a-z0-9-]{1,15})$',
  entity: '^[0-9a-f]{32}$',
  webhook: '^[0-9a-f]{32}$',
  delivery: '^[0-9a-f]{32}$',
  legacyUser: '^[0-9a-f]{32}$',
  widgetVersion: '^[0-9a-f]{16}$',
  settlementDate: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  aggregation: '^[0-9a-f]{32}$',
  merchantUser: '^[0-9a-f]{32}$',
  accessToken: '^[0-9a-f]{32}$',
  acquirer: '^[a-z][a-z0-9-]{0,31}$',
  attempt: '^[0-9a-f]{32}$',
  docPage: '^[a-z][a-z0-9-]{0,63}\\.md$',
  bin: '^[0-9]{6,8}$',
};
