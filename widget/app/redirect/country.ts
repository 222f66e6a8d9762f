import type { Language } from '../../i18n/index.ts';

/**
 * The country of the shopper's bank (`bankAccount.country`) for a brand that needs it and serves several (Sofort,
 * POLi, Entercash): the countries by their names in the widget's language, as the browser knows them
 * (Intl.DisplayNames: no country names in the bundle), in alphabetical order, and the one chosen before the shopper
 * changes it — the country of the merchant's locale (`de-AT`: Austria), else the country of its language (`de`:
 * Germany), when the brand serves it; else the first.
 */

export interface CountryChoice {
  readonly countries: readonly { readonly code: string; readonly name: string }[];
  readonly selected: string;
}

/** BCP 47 tags of the product's language codes that differ from them (`dk`, `se`...). */
const LANGUAGE_TAGS: Partial<Record<Language, string>> = { dk: 'da', se: 'sv', cz: 'cs', cn: 'zh', gr: 'el' };

/** The country a language is mostly spoken in, where its code does not name it (`sl` is Sierra Leone's code). */
const LANGUAGE_COUNTRIES: Partial<Record<Language, string>> = { en: 'GB', ja: 'JP', sl: 'SI', ko: 'KR', ar: 'SA' };

function countryNames(tag: string): (code: string) => string {
  try {
    const names = new Intl.DisplayNames([tag, 'en'], { type: 'region' });
    return (code) => names.of(code) ?? code;
  } catch {
    return (code) => code;
  }
}

export function countryChoice(served: readonly string[], locale: string, language: Language): CountryChoice {
  const tag = LANGUAGE_TAGS[language] ?? language;
  const name = countryNames(tag);
  const countries = served.map((code) => ({ code, name: name(code) })).sort((a, b) => a.name.localeCompare(b.name, tag));
  const region = /^[a-z]{2,3}[-_]([a-z]{2})\b/i.exec(locale.trim())?.[1]?.toUpperCase();
  const preferred = [region, LANGUAGE_COUNTRIES[language] ?? language.toUpperCase()];
  const selected = preferred.find((code) => code !== undefined && served.includes(code)) ?? countries[0]?.code ?? '';
  return { countries, selected };
}
