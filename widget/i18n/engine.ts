import i18next from 'i18next';
import type { I18nEngine, Translate } from './index.ts';

/**
 * js/i18n.min.js: i18next, loaded by the widget only for a language other than English. It fetches the
 * language's file from the same versioned static path and falls back to English key by key.
 */
const engine: I18nEngine = {
  async createTranslate(language, staticBaseUrl, english): Promise<Translate> {
    const response = await fetch(`${staticBaseUrl}/locales/${language}.json`);
    if (!response.ok) throw new Error(`locales/${language}.json: HTTP ${response.status}`);
    const instance = i18next.createInstance();
    await instance.init({
      lng: language,
      fallbackLng: 'en',
      resources: { en: { translation: english }, [language]: { translation: await response.json() } },
      // The widget renders texts as text nodes (never HTML), so i18next need not escape them.
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    return (key, values) => instance.t(key, { ...values });
  },
};

(window as { wpwlI18n?: I18nEngine }).wpwlI18n = engine;
