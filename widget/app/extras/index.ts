import { callbackWrapper, reportError } from '../callbacks.ts';
import { readOptions } from '../options.ts';

/**
 * The extras chunk: what the page's options ask for beyond the forms, loaded by the entry only then (index.tsx
 * EXTRA_OPTIONS), and awaited before the forms render (`ready`). Each feature is a chunk of its own, loaded here when
 * the options ask for it and set in `features` (features.ts) or, for callbacks' `this.$form`, in `callbackWrapper`. A
 * feature whose chunk cannot be loaded is left out, and the merchant hears of it through onError.
 */
const options = readOptions();
const raw = options.raw;

function load<T>(name: string, chunk: () => Promise<T>, use: (module: T) => void): Promise<void> {
  return chunk().then(use, (error: unknown) => reportError(options, { name: 'WidgetError', message: `the ${name} could not be loaded: ${String(error)}` }));
}

export const ready: Promise<unknown> = Promise.all([
  // Callbacks' `this.$form` and `this.$iframe` on a page without jQuery (callbacks.ts reads the page's first, at each call).
  !(window as { jQuery?: unknown }).jQuery && Object.keys(raw).some((name) => /^on(?!Ready$|Error$)/.test(name))
    ? load('jQuery-like wrapper', () => import('./jqueryLike.ts'), (module) => void (callbackWrapper.$ = module.jqueryLike))
    : undefined,
]);
