import { passesLuhn } from '../../widget/shared/luhn.ts';

/**
 * What counts as secret wherever it turns up, whatever name it was sent under: the logger redacts it, and
 * parameterErrors mask it. (The parameter catalogue marks the spec's own sensitive parameters; these rules catch
 * the same data under other names.)
 */

/** Names whose values are secret wherever they appear (compared case-insensitively, by last segment). */
const SECRET_NAMES = new Set([
  'number',
  'cvv',
  'cvv2',
  'cvc',
  'pan',
  'iban',
  'authorization',
  'accesstoken',
  'token',
  'password',
  'userid',
  'paymenttoken',
  'cryptogram',
  'dtvc',
  'pin',
  'secret',
]);

/** The last segment of a parameter or field name: `card.cvv` → `cvv`, `customParameters[pin]` → `pin`. */
function lastSegment(name: string): string {
  const segments = name.split(/[.[\]]+/).filter((segment) => segment !== '');
  return (segments[segments.length - 1] ?? '').toLowerCase();
}

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(lastSegment(name));
}

/**
 * An account number shown back: the first six and last four characters, the rest hidden; a value too short to
 * keep anything of is hidden entirely. Spaces are dropped first (numbers are often typed in groups). Characters,
 * not UTF-16 units: a cut through a surrogate pair would leave a string no JSON store accepts.
 */
export function maskAccountNumber(value: string): string {
  const characters = Array.from(value.replace(/\s/g, ''));
  if (characters.length < 12) return '*'.repeat(Math.min(characters.length, 8));
  return `${characters.slice(0, 6).join('')}${'*'.repeat(characters.length - 10)}${characters.slice(-4).join('')}`;
}

/** 12 to 19 digits, optionally grouped by single spaces or hyphens. */
const DIGIT_RUN = /(?<![0-9])[0-9](?:[ -]?[0-9]){11,18}(?![0-9])/g;

/** `text` with every run of 12 to 19 digits that passes the Luhn check (a card number, whatever it was sent as) masked. */
export function maskCardNumbersIn(text: string): string {
  return text.replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/[ -]/g, '');
    return passesLuhn(digits) ? maskAccountNumber(digits) : run;
  });
}

/** How much of a value an answer shows back at most, in characters, so a megabyte of garbage is not sent back. */
export const ECHO_LIMIT = 256;
/** How long an error's description or message may grow with what it shows back. */
export const MESSAGE_LIMIT = 1024;
/** Room for a grouped card number the cut goes through (19 digits, 18 separators): it is masked before the cut. */
const CUT_MARGIN = 40;

/**
 * The one way an answer shows back text a caller sent (parameterErrors, error descriptions, unknown paths and ids):
 * card numbers masked, cut to `limit` characters with an ellipsis. Masked before the cut, so no cut leaves most of a
 * card number unmasked; cut by characters, never through a surrogate pair (a lone half is no text a JSON store takes).
 */
export function shownText(text: string, limit: number = ECHO_LIMIT): string {
  // A character is at most two UTF-16 units: this slice holds every character that can be shown, and the margin.
  const prefix = Array.from(text.slice(0, 2 * (limit + CUT_MARGIN))).slice(0, limit + CUT_MARGIN).join('');
  const masked = Array.from(maskCardNumbersIn(prefix));
  return masked.length > limit || prefix.length < text.length ? `${masked.slice(0, limit).join('')}…` : masked.join('');
}
