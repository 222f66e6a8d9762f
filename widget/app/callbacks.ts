import type { WidgetOptions } from './options.ts';

export interface WidgetErrorInfo {
  readonly name: 'InvalidCheckoutIdError' | 'WidgetError' | 'PciIframeSubmitError' | 'PciIframeCommunicationError' | 'ClickToPayError';
  readonly message: string;
  readonly brand?: string;
  readonly event?: unknown;
}

/**
 * What wraps a callback's form or iframe on a page without jQuery: the extras chunk's jQuery-like wrapper
 * (extras/jqueryLike.ts), set when the entry loads it (only for a page with such callbacks).
 */
export const callbackWrapper: { $?: (element: Element) => unknown } = {};

/**
 * Calls a merchant callback from wpwlOptions with the given `this`. A callback that throws is reported
 * (console and onError) and the widget carries on; its return value is handed back for the callbacks
 * whose result matters (onBeforeSubmit*: false cancels).
 *
 * A form or iframe as `this` carries itself as the platform gives it (COMPAT §5): `this.$form` / `this.$iframe`, a
 * jQuery object of the page's jQuery (read at each call), else of the extras' wrapper (`callbackWrapper`; should its
 * chunk fail to load, onError has been told, and `this.$form` is missing).
 */
export function invoke(options: WidgetOptions, name: string, thisArg: Element | null | undefined, ...args: unknown[]): unknown {
  const callback = options.raw[name];
  if (typeof callback !== 'function') return undefined;
  const wrap = (window as { jQuery?: (element: Element) => unknown }).jQuery ?? callbackWrapper.$;
  if (wrap && thisArg) (thisArg as unknown as Record<string, unknown>)[`$${thisArg.localName}`] = wrap(thisArg);
  try {
    return (callback as (...values: unknown[]) => unknown).apply(thisArg, args);
  } catch (error) {
    console.error(`wpwlOptions.${name} threw`, error);
    if (name !== 'onError') reportError(options, { name: 'WidgetError', message: `wpwlOptions.${name} threw: ${String(error)}` });
    return undefined;
  }
}

export function reportError(options: WidgetOptions, error: WidgetErrorInfo): void {
  invoke(options, 'onError', undefined, error);
}
