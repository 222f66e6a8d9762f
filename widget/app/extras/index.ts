import { callbackWrapper, reportError } from '../callbacks.ts';
import { features } from '../features.ts';
import { languageOf } from '../../i18n/index.ts';
import { readOptions } from '../options.ts';

/**
 * The extras chunk: what the page's options ask for beyond the forms, loaded by the entry only then (index.tsx
 * EXTRA_OPTIONS), and awaited before the forms render (`ready`). Each feature is a chunk of its own, loaded here when
 * the options ask for it and set in `features` (features.ts) or, for callbacks' `this.$form`, in `callbackWrapper`. A
 * feature whose chunk cannot be loaded is left out, and the merchant hears of it through onError.
 */
const options = readOptions();
const raw = options.raw;

function load<T>(name: string, chunk: () => Promise<T>, use: (module: T) => void | Promise<void>): Promise<void> {
  return chunk().then(use, (error: unknown) => reportError(options, { name: 'WidgetError', message: `the ${name} could not be loaded: ${String(error)}` }));
}

export const ready: Promise<unknown> = Promise.all([
  // Callbacks' `this.$form` and `this.$iframe` on a page without jQuery (callbacks.ts reads the page's first, at each call).
  !(window as { jQuery?: unknown }).jQuery && Object.keys(raw).some((name) => /^on(?!Ready$|Error$)/.test(name))
    ? load('jQuery-like wrapper', () => import('./jqueryLike.ts'), (module) => void (callbackWrapper.$ = module.jqueryLike))
    : undefined,
  // The brands of a card's first digits from the gateway's BIN list.
  raw.brandDetectionType === 'binlist' ? load('BIN list', () => import('./binlist.ts'), (module) => void (features.binlist = module.binlist)) : undefined,
  // Fast checkout: the checkout created by the merchant's createCheckout when the shopper pays.
  typeof raw.createCheckout == 'function'
    ? load('fast checkout', () => import('../fastCheckout/ensureCheckout.ts'), (module) => void (features.ensureCheckout = module.ensureCheckout))
    : undefined,
  // The summary page: the card form's submit saves the card, onSaveTransactionData gets the saved data.
  raw.useSummaryPage === true || raw.useSummaryPage === 'true'
    ? load('summary page', () => import('../summary/save.ts'), (module) => void (features.saveTransactionData = module.saveTransactionData))
    : undefined,
  // The billing address in the card form, with its texts in the widget's language.
  raw.billingAddress != null || raw.mandatoryBillingFields != null
    ? load('billing address', () => import('../billing/BillingFields.tsx'), async (module) => {
        features.BillingFields = await module.billingFields(options, languageOf(options.locale), (window as { wpwl?: { staticBaseUrl?: string } }).wpwl?.staticBaseUrl ?? '');
      })
    : undefined,
]);
