import { readFileSync } from 'node:fs';
import { isRightToLeft, languageOf, type Language } from '../../widget/i18n/languages.ts';
import { packagePath } from '../paths.ts';

/**
 * The gateway's own pages speak the shopper's language, from the same locales/<code>.json files as the
 * widget (its `threeDSecure` and `redirect` texts), so every shopper-visible string has one home and one
 * key-parity test.
 */

type LocaleFile = Record<string, Record<string, string>>;

const locales = new Map<Language, LocaleFile>();

/** A language's texts, read from its file the first time a page needs them (never at import). */
function localeOf(language: Language): LocaleFile {
  let file = locales.get(language);
  if (!file) {
    file = JSON.parse(readFileSync(packagePath(`locales/${language}.json`), 'utf8')) as LocaleFile;
    locales.set(language, file);
  }
  return file;
}

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
      const template = lookup(localeOf(language), key) ?? lookup(localeOf('en'), key) ?? key;
      return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
    },
  };
}
