import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * Key parity of the widget's language files: every locale has exactly the keys of en.json (same order),
 * every value is a non-empty string that keeps en's interpolation placeholders and is actually translated.
 */

const dir = fileURLToPath(new URL('.', import.meta.url));

/** The product's language codes (not always ISO: dk, se, cz, cn, gr). */
const CODES = [
  'en', 'de', 'fr', 'es', 'it', 'nl', 'dk', 'fi', 'se', 'tr', 'ja', 'sl', 'pt',
  'pl', 'cz', 'hu', 'bg', 'ro', 'ru', 'cn', 'gr', 'no', 'sk', 'ar', 'ko',
] as const;
const TRANSLATED = CODES.filter((code) => code !== 'en');

const MAX_GZIP_BYTES = 2048;

/**
 * Strings that are legitimately identical to English, by key and language. Anything else equal to the
 * English value is an untranslated string. Entries that are no longer used fail too, so the list stays minimal.
 */
const SAME_AS_ENGLISH: Readonly<Record<string, readonly string[]>> = {
  // The acronym is what banks print and use in these markets; de, fr, ja, cn, ko and ar use a local term.
  'labels.cvv': [
    'es', 'it', 'nl', 'dk', 'fi', 'se', 'tr', 'sl', 'pt', 'pl', 'cz', 'hu', 'bg', 'ro', 'ru', 'gr', 'no', 'sk',
  ],
  // The input's placeholder is the acronym in every language.
  'labels.cvvPlaceholder': TRANSLATED,
  // IBAN is the ISO 13616 name banks print in every language; its placeholder is an IBAN's shape.
  'labels.iban': TRANSLATED,
  'labels.ibanPlaceholder': TRANSLATED,
  // Month / year letters stay Latin where the script has no customary pair of its own letters.
  'labels.mmyy': ['ja', 'cn', 'ko', 'ar'],
  // Romanian says "card" (cardul) for a payment card.
  'labels.card': ['ro'],
  // Dutch writes the postal code as English does.
  'billing.postcode': ['nl'],
};

const PLACEHOLDER = /\{\{[^{}]*\}\}/g;

type Leaf = { key: string; value: unknown };

function readLocale(code: string): unknown {
  const path = `${dir}${code}.json`;
  if (!existsSync(path)) throw new Error(`${code}.json is missing`);
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${code}.json is not valid JSON: ${String(error)}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Dotted keys of every leaf (anything that is not a plain object), in file order. */
function leaves(value: unknown, prefix = ''): Leaf[] {
  if (!isObject(value)) return [{ key: prefix, value }];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}

function placeholders(text: string): string[] {
  return (text.match(PLACEHOLDER) ?? []).sort();
}

/** Case and spacing do not make an English string translated. */
function normalize(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

const english = leaves(readLocale('en'));
const englishByKey = new Map(english.map(({ key, value }) => [key, value]));

describe('locales', () => {
  it('has exactly one file per listed language', () => {
    const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
    const unlisted = files.filter((name) => !(CODES as readonly string[]).includes(name.slice(0, -'.json'.length)));
    const missing = CODES.filter((code) => !existsSync(`${dir}${code}.json`));
    expect(
      { unlisted, missing },
      `locale files not in the language list: [${unlisted.join(', ')}]; listed languages without a file: [${missing.join(', ')}]`,
    ).toEqual({ unlisted: [], missing: [] });
  });

  it('en.json is non-empty strings only', () => {
    expect(english.length, 'en.json has no strings').toBeGreaterThan(0);
    for (const { key, value } of english) {
      expect(typeof value === 'string' && value.trim() !== '', `en: ${key} must be a non-empty string`).toBe(true);
    }
  });

  it('the allow-list names only known keys and languages', () => {
    for (const [key, codes] of Object.entries(SAME_AS_ENGLISH)) {
      expect(englishByKey.has(key), `allow-list key ${key} is not in en.json`).toBe(true);
      for (const code of codes) {
        expect((TRANSLATED as readonly string[]).includes(code), `allow-list ${key}: unknown language ${code}`).toBe(true);
      }
    }
  });

  describe.each(CODES)('%s', (code) => {
    const path = `${dir}${code}.json`;

    // What the widget downloads for the language: its groups, as widget/build.ts ships them (the gateway's own pages
    // read the other groups on the server).
    it('is at most 2 KB gzipped as the widget downloads it', () => {
      expect(existsSync(path), `${code}.json is missing`).toBe(true);
      const { labels, errorMessages } = readLocale(code) as Record<string, unknown>;
      const size = gzipSync(JSON.stringify({ labels, errorMessages }), { level: 9 }).length;
      expect(size, `${code}.json is ${size} bytes gzipped (max ${MAX_GZIP_BYTES})`).toBeLessThanOrEqual(MAX_GZIP_BYTES);
    });

    it('has exactly the keys of en.json, in the same order', () => {
      const keys = leaves(readLocale(code)).map(({ key }) => key);
      const englishKeys = english.map(({ key }) => key);
      const missing = englishKeys.filter((key) => !keys.includes(key));
      const extra = keys.filter((key) => !englishByKey.has(key));
      expect(missing, `${code}: missing key(s) ${missing.join(', ')}`).toEqual([]);
      expect(extra, `${code}: extra key(s) ${extra.join(', ')}`).toEqual([]);
      expect(keys, `${code}: keys are not in en.json's order`).toEqual(englishKeys);
    });

    it('has translated, non-empty strings with the English placeholders', () => {
      for (const { key, value } of leaves(readLocale(code))) {
        const source = englishByKey.get(key);
        if (typeof source !== 'string') continue; // reported by the key test
        expect(typeof value, `${code}: ${key} is not a string`).toBe('string');
        const text = String(value);
        expect(text.trim(), `${code}: ${key} is empty`).not.toBe('');
        expect(placeholders(text), `${code}: ${key} must keep the placeholders of "${source}"`).toEqual(
          placeholders(source),
        );
        if (code === 'en') continue;
        const allowed = SAME_AS_ENGLISH[key]?.includes(code) ?? false;
        if (allowed) {
          expect(text, `${code}: ${key} is allow-listed as identical to English but differs; drop it from the allow-list`).toBe(source);
        } else {
          expect(normalize(text), `${code}: ${key} is still English ("${source}")`).not.toBe(normalize(source));
        }
      }
    });
  });
});
