import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import de from '../locales/de.json';
import en from '../locales/en.json';

/** English and German are complete, and every text the app asks for by a literal key exists. */

function keysOf(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([name, inner]) => keysOf(inner, prefix ? `${prefix}.${name}` : name));
}

const APP = new URL('../app/', import.meta.url).pathname;
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(entry) ? [path] : [];
  });
}

describe('the dashboard’s texts', () => {
  it('has the same keys in English and German, none of them empty', () => {
    expect(keysOf(de).sort()).toEqual(keysOf(en).sort());
    for (const [language, texts] of [['en', en], ['de', de]] as const) {
      const empty = keysOf(texts).filter((key) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], texts) === '');
      expect(empty, language).toEqual([]);
    }
  });

  it('has German texts that are not the English ones, but for words both languages share', () => {
    const same = keysOf(en).filter((key) => {
      const read = (texts: unknown) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], texts);
      return read(en) === read(de);
    });
    expect(same.length).toBeLessThan(keysOf(en).length / 10);
  });

  it('has every key the app asks for literally', () => {
    const known = new Set(keysOf(en).map((key) => key.replace(/_(one|other)$/, '')));
    const asked = sources(APP).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\bt\('([a-zA-Z0-9_.]+)'/g)].map((match) => match[1] as string));
    expect(asked.length).toBeGreaterThan(50);
    expect([...new Set(asked)].filter((key) => !known.has(key))).toEqual([]);
  });
});
