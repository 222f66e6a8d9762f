import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

/**
 * `import texts from 'wpwl:locale/<group>'`: the English of one group of locales/en.json (`billing`, `wallet`,
 * `clickToPay`, `summary`: widget/build.ts WIDGET_FEATURE_GROUPS) as a module of its own, for the chunk of the feature
 * that shows it. A named import of locales/en.json would not do: the entry imports that module (its labels and error
 * messages), so the bundler keeps the whole module, every group a chunk names, in the entry every page loads.
 * Used by the widget's build and by Vitest (vite.config.ts). Declared for TypeScript in widget/app/extras/localeGroups.d.ts.
 */
const PREFIX = 'wpwl:locale/';
/**
 * `import english from 'wpwl:english/<part>'`: the English of the forms' texts (locales/en.json `labels` and
 * `errorMessages`) split by where they are shown. `entry` is bundled in static.min.js, every page's; each other part
 * goes with the chunk of the forms that show it, which adds it (i18n/index.ts addEnglish) when it loads, before they
 * render: a card-only page does not download the direct debit's mandate or the stored cards' texts.
 */
const ENGLISH_PREFIX = 'wpwl:english/';
const ENGLISH = new URL('../locales/en.json', import.meta.url);

/** The forms' texts of each chunk but the entry, by group: what `wpwl:english/<chunk>` holds and the entry lacks. */
export const CHUNK_TEXTS: Readonly<Record<string, { readonly labels: readonly string[]; readonly errorMessages: readonly string[] }>> = {
  // The asynchronous brands' and the direct debit's forms, and the chooser (otherMethods.ts).
  otherMethods: {
    labels: ['country', 'redirectInfo', 'cashVoucherInfo', 'prepaymentInfo', 'accountHolder', 'accountHolderPlaceholder', 'iban', 'ibanPlaceholder', 'directDebit', 'directDebitMandate', 'card', 'paymentMethod'],
    errorMessages: ['accountHolderError', 'ibanError'],
  },
  // The stored cards' one-click form (registration/RegistrationForm.tsx).
  registration: {
    labels: ['storedCards', 'storedCardEnding', 'expires', 'cardDetails', 'showOtherPaymentMethods'],
    errorMessages: [],
  },
};

type Texts = Record<string, string>;

/** The part of the forms' English a `wpwl:english/<part>` module holds. */
function englishPart(english: { labels: Texts; errorMessages: Texts }, part: string): { labels: Texts; errorMessages: Texts } {
  const pick = (texts: Texts, keep: (key: string) => boolean) => Object.fromEntries(Object.entries(texts).filter(([key]) => keep(key)));
  if (part === 'entry') {
    const inChunks = (group: 'labels' | 'errorMessages') => new Set(Object.values(CHUNK_TEXTS).flatMap((chunk) => chunk[group]));
    return { labels: pick(english.labels, (key) => !inChunks('labels').has(key)), errorMessages: pick(english.errorMessages, (key) => !inChunks('errorMessages').has(key)) };
  }
  const chunk = CHUNK_TEXTS[part];
  if (!chunk) throw new Error(`no English part "${part}" (widget/localeGroups.ts CHUNK_TEXTS)`);
  return { labels: pick(english.labels, (key) => chunk.labels.includes(key)), errorMessages: pick(english.errorMessages, (key) => chunk.errorMessages.includes(key)) };
}

export function localeGroups(): Plugin {
  return {
    name: 'wpwl-locale-groups',
    resolveId: (id) => (id.startsWith(PREFIX) || id.startsWith(ENGLISH_PREFIX) ? `\0${id}` : undefined),
    load(id) {
      const english = (): Record<string, unknown> => {
        this.addWatchFile(ENGLISH.pathname);
        return JSON.parse(readFileSync(ENGLISH, 'utf8')) as Record<string, unknown>;
      };
      if (id.startsWith(`\0${ENGLISH_PREFIX}`)) {
        return `export default ${JSON.stringify(englishPart(english() as { labels: Texts; errorMessages: Texts }, id.slice(ENGLISH_PREFIX.length + 1)))};`;
      }
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const group = id.slice(PREFIX.length + 1);
      const texts = english()[group];
      if (typeof texts !== 'object' || texts === null) throw new Error(`locales/en.json has no group "${group}"`);
      return `export default ${JSON.stringify(texts)};`;
    },
  };
}
