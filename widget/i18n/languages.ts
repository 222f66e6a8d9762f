/**
 * The widget's languages and how a merchant's locale names one: no texts here, so the gateway's own pages
 * (server/redirects/texts.ts) and the widget's chunks share it without bundling any.
 */

/** The 25 languages of the widget, by the product's own codes (spec document 1). */
export const LANGUAGES = [
  'en', 'de', 'fr', 'es', 'it', 'nl', 'dk', 'fi', 'se', 'tr', 'ja', 'sl', 'pt',
  'pl', 'cz', 'hu', 'bg', 'ro', 'ru', 'cn', 'gr', 'no', 'sk', 'ar', 'ko',
] as const;

export type Language = (typeof LANGUAGES)[number];

/** ISO codes merchants pass for languages whose product code differs. */
const ISO_ALIASES: Readonly<Record<string, Language>> = {
  da: 'dk',
  sv: 'se',
  cs: 'cz',
  el: 'gr',
  zh: 'cn',
  nb: 'no',
  nn: 'no',
};

/**
 * The widget language for a locale as merchants pass it (`de`, `de-AT`, `en_US`, `zh-CN`, `sv`): by language,
 * then English. Only known languages are ever fetched, so an unknown locale costs no failed request.
 */
export function languageOf(locale: string): Language {
  const language = locale.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  if ((LANGUAGES as readonly string[]).includes(language)) return language as Language;
  return ISO_ALIASES[language] ?? 'en';
}

export function isRightToLeft(language: Language): boolean {
  return language === 'ar';
}

/** `{{name}}` placeholders filled from `values` (one left as it is when `values` lacks it). */
export function interpolate(text: string, values: Readonly<Record<string, string>> | undefined): string {
  return values ? text.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole) : text;
}
