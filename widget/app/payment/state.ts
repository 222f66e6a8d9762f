import { useReducer } from 'preact/hooks';
import { reportError } from '../callbacks.ts';
import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import type { PaymentState } from '../types.ts';

/**
 * A payment form's state, kept with plain Preact hooks: each form holds its state in objects it creates once
 * (useMemo) and changes through their `update`/`set`, which re-render the form (useRerender). No signals
 * library: @preact/signals cost a card-only page about 2.6 KB gzip before onReady (see widget/README.md).
 */

/** A stable function that re-renders the calling component. */
export function useRerender(): () => void {
  return useReducer<number, void>((count) => count + 1, 0)[1];
}

/**
 * Assigns `changes` to `target` and calls `changed` (a re-render) if a value is different, as a signal re-renders
 * only on a new value: a re-render resets what a page script or the browser changed in the form's controls.
 */
export function assignChanges<T extends object>(target: T, changes: Partial<T>, changed: () => void): void {
  let different = false;
  for (const key of Object.keys(changes) as (keyof T)[]) {
    if (Object.is(target[key], changes[key])) continue;
    target[key] = changes[key] as T[keyof T];
    different = true;
  }
  if (different) changed();
}

/**
 * Calm errors: a submit attempt shows every field's error; otherwise a field shows its error only once the shopper
 * edited it and left it, not when tabbed past. `show` shows a field's error (the form's model).
 */
export function calmErrors<F extends string>(show: (field: F) => void) {
  /** No render reads it: a plain set. */
  const edited = new Set<F>();
  return {
    /** The shopper typed in the field (or the browser filled it). */
    edit: (field: F) => void edited.add(field),
    /** The shopper left the field: its error shows if they edited it. */
    leave: (field: F) => edited.has(field) && show(field),
  };
}

/** A form's payment state; `rerender` is the form's useRerender(). */
export function createPaymentState(rerender: () => void): PaymentState {
  const state: PaymentState = {
    busy: false,
    message: undefined,
    frame: undefined,
    cleanups: new Set(),
    update(changes) {
      assignChanges(state as { -readonly [K in keyof PaymentState]: PaymentState[K] }, changes, rerender);
    },
    dispose() {
      for (const cleanup of [...state.cleanups]) cleanup();
      state.cleanups.clear();
    },
  };
  return state;
}

export type PaymentFlow = typeof import('./flow.ts');

/**
 * The submit path (payment/flow.ts with the answer's handling and the browser data): a chunk of its own, which
 * no form needs to be shown. The widget starts loading it as soon as its forms are rendered, before onReady, so
 * it is there by the time the shopper pays; a submit awaits it.
 */
export const paymentFlow = (): Promise<PaymentFlow> => import('./flow.ts');

/** The submit path for a submit; undefined, with the shopper and onError told, when it cannot be loaded. */
export async function loadPaymentFlow(state: PaymentState, options: WidgetOptions, texts: Texts): Promise<PaymentFlow | undefined> {
  try {
    return await paymentFlow();
  } catch (error) {
    state.update({ message: texts.error('communication') });
    reportError(options, { name: 'WidgetError', message: `the payment could not be sent: ${String(error)}` });
    return undefined;
  }
}
