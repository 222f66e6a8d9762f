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
const ENGLISH = new URL('../locales/en.json', import.meta.url);

export function localeGroups(): Plugin {
  return {
    name: 'wpwl-locale-groups',
    resolveId: (id) => (id.startsWith(PREFIX) ? `\0${id}` : undefined),
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return undefined;
      const group = id.slice(PREFIX.length + 1);
      const texts = (JSON.parse(readFileSync(ENGLISH, 'utf8')) as Record<string, unknown>)[group];
      if (typeof texts !== 'object' || texts === null) throw new Error(`locales/en.json has no group "${group}"`);
      this.addWatchFile(ENGLISH.pathname);
      return `export default ${JSON.stringify(texts)};`;
    },
  };
}
