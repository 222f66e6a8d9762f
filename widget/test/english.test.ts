import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHUNK_TEXTS } from '../localeGroups.ts';

/**
 * The forms' English split by chunk (widget/localeGroups.ts): every text the split names is one of locales/en.json's,
 * and in one chunk only, so each text is bundled once — in the entry, or with the one chunk whose forms show it.
 */
describe("the forms' English, split by the chunk that shows it", () => {
  const english = JSON.parse(readFileSync(new URL('../../locales/en.json', import.meta.url), 'utf8')) as Record<'labels' | 'errorMessages', Record<string, string>>;

  it('names only texts of locales/en.json, each in one chunk', () => {
    for (const group of ['labels', 'errorMessages'] as const) {
      const named = Object.values(CHUNK_TEXTS).flatMap((chunk) => chunk[group]);
      expect(named.filter((key) => !(key in english[group])), group).toEqual([]);
      expect(named.filter((key, index) => named.indexOf(key) !== index), group).toEqual([]);
    }
  });

  it("keeps the card form's texts in the entry", () => {
    const inChunks = new Set(Object.values(CHUNK_TEXTS).flatMap((chunk) => [...chunk.labels, ...chunk.errorMessages]));
    for (const key of ['cardNumber', 'cvv', 'expiryDate', 'cardHolder', 'submit', 'register', 'processing', 'brand', 'threeDSecureFrameTitle', 'cardNumberError', 'communication', 'invalidCheckout']) {
      expect(inChunks.has(key), key).toBe(false);
    }
  });
});
