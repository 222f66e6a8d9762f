import type { WidgetOptions } from './options.ts';

export interface WidgetErrorInfo {
  readonly name: 'InvalidCheckoutIdError' | 'WidgetError' | 'PciIframeSubmitError' | 'PciIframeCommunicationError';
  readonly message: string;
  readonly brand?: string;
  readonly event?: unknown;
}

/**
 * Calls a merchant callback from wpwlOptions with the given `this`. A callback that throws is reported
 * (console and onError) and the widget carries on; its return value is handed back for the callbacks
 * whose result matters (onBeforeSubmit*: false cancels).
 */
export function invoke(options: WidgetOptions, name: string, thisArg: unknown, ...args: unknown[]): unknown {
  const callback = options.raw[name];
  if (typeof callback !== 'function') return undefined;
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
