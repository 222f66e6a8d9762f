import type { en } from '../i18n/index.ts';
import type { Translate } from '../i18n/index.ts';
import type { WidgetOptions } from './options.ts';

/**
 * Every text the shopper can see comes from the locale files (locales/<language>.json, English bundled).
 * Merchant overrides (wpwlOptions.labels and .errorMessages) win in every language; they are always rendered
 * as text, never as HTML.
 */
export type LabelKey = keyof typeof en.labels;
export type ErrorKey = keyof typeof en.errorMessages;

export interface Texts {
  label(key: LabelKey, values?: Record<string, string>): string;
  error(key: ErrorKey): string;
}

export function textsFor(options: WidgetOptions, translate: Translate): Texts {
  return {
    label: (key, values) => options.labels[key] ?? translate(`labels.${key}`, values),
    error: (key) => options.errorMessages[key] ?? translate(`errorMessages.${key}`),
  };
}
