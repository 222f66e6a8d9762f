import { interpolate, type Language } from '../../i18n/index.ts';

/** A text of a feature's group by key, `{{name}}` placeholders filled from `values`. */
export type FeatureText = (key: string, values?: Readonly<Record<string, string>>) => string;

/**
 * The texts of a feature loaded on demand (the locale groups of widget/build.ts WIDGET_FEATURE_GROUPS: `billing`,
 * `wallet`, `clickToPay`, `summary`): its group in the shopper's language, fetched from the widget's versioned path
 * (`locales/<group>/<code>.json`), over the English its chunk bundles (`import english from 'wpwl:locale/<group>'`), which
 * also stands in for a text the language lacks or a file that cannot be loaded. The merchant's `labels` win, by key,
 * in every language, as for the forms' texts.
 */
export async function featureTexts(
  group: string,
  english: Readonly<Record<string, string>>,
  language: Language,
  staticBaseUrl: string,
  labels: Readonly<Record<string, string>>,
): Promise<FeatureText> {
  let texts: Readonly<Record<string, string>> = english;
  if (language !== 'en') {
    try {
      const response = await fetch(`${staticBaseUrl}/locales/${group}/${language}.json`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      texts = { ...english, ...((await response.json()) as Record<string, string>) };
    } catch (error) {
      console.warn(`wpwl: the ${language} texts of ${group} could not be loaded; showing English`, error);
    }
  }
  return (key, values) => interpolate(labels[key] ?? texts[key] ?? key, values);
}
