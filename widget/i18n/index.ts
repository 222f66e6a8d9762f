import type english from '../../locales/en.json';
import entryEnglish from 'wpwl:english/entry';
import { interpolate, type Language } from './languages.ts';

export { interpolate, isRightToLeft, languageOf, LANGUAGES, type Language } from './languages.ts';

/**
 * The widget's languages. English is bundled and resolved directly from locales/en.json. Every other
 * language is loaded, only when used, with i18next: the i18next engine (js/i18n.min.js, built from
 * engine.ts) and the language's JSON file both come from the widget's own versioned static path, so a
 * shopper paying in English downloads neither.
 */

/** Looks a text up by its dotted key (`labels.cardNumber`), filling `{{name}}` placeholders. */
export type Translate = (key: string, values?: Readonly<Record<string, string>>) => string;

/**
 * The English texts the widget shows: labels and errorMessages — the gateway's own pages' groups (threeDSecure, redirect:
 * server/redirects/texts.ts) never in the bundle. The entry bundles the card form's; the chunk of the other forms and
 * the stored cards' each add their own when they load (`addEnglish`, widget/localeGroups.ts CHUNK_TEXTS), before those
 * forms render. Typed as the whole file's, which they are once every chunk that shows a text is loaded.
 */
export const en = {
  labels: { ...entryEnglish.labels },
  errorMessages: { ...entryEnglish.errorMessages },
} as { labels: typeof english.labels; errorMessages: typeof english.errorMessages };

/** A chunk's share of the forms' English (`import english from 'wpwl:english/<chunk>'`), added when it loads. */
export function addEnglish(part: { readonly labels: Readonly<Record<string, string>>; readonly errorMessages: Readonly<Record<string, string>> }): void {
  Object.assign(en.labels, part.labels);
  Object.assign(en.errorMessages, part.errorMessages);
}

/** What js/i18n.min.js puts on window for the widget bundle. */
export interface I18nEngine {
  createTranslate(language: Language, staticBaseUrl: string, english: typeof en): Promise<Translate>;
}

export const translateEnglish: Translate = (key, values) => {
  const [group, name] = key.split('.') as [keyof typeof en, string];
  const text = (en[group] as Record<string, string> | undefined)?.[name];
  return text === undefined ? key : interpolate(text, values);
};

let engineLoading: Promise<I18nEngine> | undefined;

/** Adds js/i18n.min.js to the page once; the promise resets on failure, so a later render can try again. */
function loadEngine(staticBaseUrl: string, nonce: string | undefined): Promise<I18nEngine> {
  engineLoading ??= new Promise<I18nEngine>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `${staticBaseUrl}/js/i18n.min.js`;
    if (nonce) script.nonce = nonce;
    script.onload = () => {
      const engine = (window as { wpwlI18n?: I18nEngine }).wpwlI18n;
      if (engine) resolve(engine);
      else reject(new Error('i18n engine missing'));
    };
    script.onerror = () => reject(new Error('i18n engine could not be loaded'));
    document.head.appendChild(script);
  }).catch((error: unknown) => {
    engineLoading = undefined;
    throw error;
  });
  return engineLoading;
}

/**
 * The texts of `language`. Should its files fail to load, the widget shows English (and says so on the
 * console) rather than no form at all.
 */
export async function loadLanguage(language: Language, staticBaseUrl: string, nonce: string | undefined): Promise<Translate> {
  if (language === 'en') return translateEnglish;
  try {
    const engine = await loadEngine(staticBaseUrl, nonce);
    return await engine.createTranslate(language, staticBaseUrl, en);
  } catch (error) {
    console.warn(`wpwl: the ${language} texts could not be loaded; showing English`, error);
    return translateEnglish;
  }
}
