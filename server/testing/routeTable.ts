import type { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { pathIdCheckOf, type PathIdCheck } from '../http/pathIds.ts';

/**
 * The app's route table as a fuzzer walks it (routesProperty.test.ts): every method and path the app has, read from
 * Hono's own table, so a route added later is walked too; and what an answer must never carry.
 */

export interface Route {
  readonly method: string;
  readonly path: string;
  /** Its path parameters (`:id`), in order. */
  readonly parameters: readonly string[];
  /** The pathId checks in its handler chain before its last handler. */
  readonly checks: readonly PathIdCheck[];
}

const PARAMETER = /:([A-Za-z0-9_]+)/g;

/** Every method and path of the app but its app-wide middleware (`/*`), each with its handler chain's checks. */
export function routesOf(app: Hono<AppEnv>): Route[] {
  const chains = new Map<string, { method: string; path: string; handlers: unknown[] }>();
  for (const { method, path, handler } of app.routes) {
    if (path === '/*') continue;
    const key = `${method} ${path}`;
    const chain = chains.get(key) ?? { method, path, handlers: [] };
    chain.handlers.push(handler);
    chains.set(key, chain);
  }
  return [...chains.values()].map(({ method, path, handlers }) => ({
    method,
    path,
    parameters: [...path.matchAll(PARAMETER)].map((match) => match[1] as string),
    checks: handlers.slice(0, -1).flatMap((handler) => pathIdCheckOf(handler) ?? []),
  }));
}

/** The path with each parameter (and a trailing `*`) replaced by `segment` (already encoded for the wire). */
export function pathWith(route: Route, segment: (parameter: string) => string): string {
  return route.path.replace(PARAMETER, (_whole, name: string) => segment(name)).replace(/\*$/, () => segment('*'));
}

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

const DIGIT_RUN = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;
const WORD_CHARACTER = /[0-9A-Za-z]/;

/**
 * The card numbers (13 to 19 digits, grouped or not, passing Luhn) `text` shows unmasked. A digit run inside a word of
 * 32 or more hex characters is the gateway's own id (ndc, buildNumber, a payment id), not a card number.
 */
export function unmaskedCardNumbers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(DIGIT_RUN)) {
    const run = match[0];
    if (!passesLuhn(run.replace(/[ -]/g, ''))) continue;
    let start = match.index;
    let end = start + run.length;
    while (start > 0 && WORD_CHARACTER.test(text.charAt(start - 1))) start--;
    while (end < text.length && WORD_CHARACTER.test(text.charAt(end))) end++;
    const word = text.slice(start, end);
    if (!/[ -]/.test(run) && word.length >= 32 && /^[0-9a-fA-F]+$/.test(word)) continue;
    found.push(run);
  }
  return found;
}
