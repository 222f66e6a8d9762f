import { readFileSync } from 'node:fs';
import { isRightToLeft, languageOf, LANGUAGES, type Language } from '../../widget/i18n/index.ts';

/**
 * The gateway's own pages speak the shopper's language, from the same locales/<code>.json files as the
 * widget (its `threeDSecure` and `redirect` texts), so every shopper-visible string has one home and one
 * key-parity test.
 */

type LocaleFile = Record<string, Record<string, string>>;

const LOCALES: ReadonlyMap<Language, LocaleFile> = new Map(
  LANGUAGES.map((language) => [
    language,
    JSON.parse(readFileSync(new URL(`../../locales/${language}.json`, import.meta.url), 'utf8')) as LocaleFile,
  ]),
);

export interface PageTexts {
  readonly language: Language;
  readonly rightToLeft: boolean;
  text(key: string, values?: Readonly<Record<string, string>>): string;
}

/** The first language of an Accept-Language header the widget knows, else English. */
export function languageFromHeader(header: string | undefined): Language {
  for (const part of (header ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim() ?? '';
    if (tag === '' || tag === '*') continue;
    const language = languageOf(tag);
    if (language !== 'en' || tag.toLowerCase().startsWith('en')) return language;
  }
  return 'en';
}

export function pageTexts(language: Language): PageTexts {
  const lookup = (file: LocaleFile | undefined, key: string) => {
    const [group, name] = key.split('.');
    return group && name ? file?.[group]?.[name] : undefined;
  };
  return {
    language,
    rightToLeft: isRightToLeft(language),
    text(key, values = {}) {
      const template = lookup(LOCALES.get(language), key) ?? lookup(LOCALES.get('en'), key) ?? key;
      return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
    },
  };
}
