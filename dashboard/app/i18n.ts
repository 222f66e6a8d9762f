import { signal } from '@preact/signals';
import i18next, { type TOptions } from 'i18next';
import de from '../locales/de.json';
import en from '../locales/en.json';
import { formatAmount as formatAmountIn, formatDateTime as formatDateTimeIn, localeOf } from './amounts.ts';

/**
 * The dashboard's texts, through i18next: English and German, both complete (dashboard/locales/), both bundled (a
 * few KB). The language is the one picked (kept in localStorage), else the browser's when it is German, else English.
 * `t` reads the `language` signal, so every component showing a text renders again when the language changes.
 */

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
] as const;

export type Language = (typeof LANGUAGES)[number]['code'];

const STORAGE_KEY = 'gateway.dashboard.language';

const isLanguage = (code: unknown): code is Language => LANGUAGES.some((language) => language.code === code);

/** The language to start in: the one picked before, else the browser's (German or English). */
export function initialLanguage(stored: string | null | undefined, browser: readonly string[]): Language {
  if (isLanguage(stored)) return stored;
  for (const tag of browser) {
    const code = tag.toLowerCase().split('-')[0];
    if (isLanguage(code)) return code;
  }
  return 'en';
}

const instance = i18next.createInstance();

export const language = signal<Language>('en');

function storedLanguage(): string | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Starts i18next (synchronously: the texts are bundled) in the language to start in. */
export function initI18n(): void {
  const browser = typeof navigator === 'undefined' ? [] : navigator.languages;
  const start = initialLanguage(storedLanguage(), browser);
  void instance.init({
    lng: start,
    fallbackLng: 'en',
    supportedLngs: LANGUAGES.map((entry) => entry.code),
    resources: { en: { translation: en }, de: { translation: de } },
    // Texts are rendered as text nodes by Preact, never as HTML: no escaping here.
    interpolation: { escapeValue: false },
    initAsync: false,
    returnNull: false,
  });
  applyLanguage(start);
}

function applyLanguage(code: Language): void {
  language.value = code;
  if (typeof document !== 'undefined') document.documentElement.lang = code;
}

export function setLanguage(code: string): void {
  if (!isLanguage(code)) return;
  void instance.changeLanguage(code);
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  applyLanguage(code);
}

/** The text of `key` in the current language. */
export function t(key: string, values?: TOptions): string {
  // Read for its subscription: a component calling t() renders again on a language change.
  void language.value;
  return instance.t(key, values ?? {}) as string;
}

/** The current language's locale for Intl. */
export const locale = (): string => localeOf(language.value);

export const formatAmount = (amount: string, currency: string): string => formatAmountIn(amount, currency, locale());

export const formatDateTime = (iso: string): string => formatDateTimeIn(iso, locale());

/** A payment type's name (`DB` → Debit), or the code itself when the texts do not know it. */
export function paymentTypeName(code: string): string {
  return instance.exists(`paymentType.${code}`) ? t(`paymentType.${code}`) : code;
}

/** A payment status's name, or the status itself. */
export function statusName(status: string): string {
  return instance.exists(`status.${status}`) ? t(`status.${status}`) : status;
}
