import { batch, signal, type Signal } from '@preact/signals';
import { reportError } from '../callbacks.ts';
import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import type { PaymentState } from '../types.ts';

/**
 * A form's state is kept in signals (@preact/signals): a component that reads one while it renders re-renders when
 * it changes, a `computed` (a form's validity) is worked out again only when what it read changed, and an `effect`
 * (what the hosted fields are told) runs again when its signals change. A signal notifies only on a new value: a
 * re-render resets what a page script or the browser changed in the form's controls.
 */

/** Fields, each a signal read through its property, changed together by `set`. */
export type SignalFields<T extends object> = T & {
  /** Writes `changes` in one batch: what depends on them runs once. */
  set(changes: Partial<T>): void;
};

/** `initial`'s fields as signals: reading `fields.name` subscribes the render, computed or effect reading it. */
export function signalFields<T extends object>(initial: T): SignalFields<T> {
  const signals: Record<string, Signal<unknown>> = {};
  const fields = {
    set: (changes: Partial<T>) =>
      batch(() => {
        for (const key in changes) (signals[key] as Signal<unknown>).value = changes[key];
      }),
  } as SignalFields<T>;
  for (const key in initial) {
    const value = (signals[key] = signal<unknown>(initial[key]));
    Object.defineProperty(fields, key, { get: () => value.value });
  }
  return fields;
}

/**
 * Calm errors: a submit attempt shows every field's error (`show`); otherwise a field shows its error only once the
 * shopper edited it and left it, not when tabbed past.
 */
export function calmErrors<F extends string>() {
  const shown = signal<ReadonlySet<F>>(new Set());
  /** No render reads it: a plain set. */
  const edited = new Set<F>();
  const show = (...fields: F[]) => {
    shown.value = new Set([...shown.value, ...fields]);
  };
  return {
    show,
    shows: (field: F) => shown.value.has(field),
    anyShown: () => shown.value.size > 0,
    /** The shopper typed in the field (or the browser filled it). */
    edit: (field: F) => void edited.add(field),
    /** The shopper left the field: its error shows if they edited it. */
    leave: (field: F) => edited.has(field) && show(field),
  };
}

/** A form's payment state. */
export function createPaymentState(): PaymentState {
  const cleanups = new Set<() => void>();
  const fields = signalFields<Pick<PaymentState, 'busy' | 'message' | 'frame'>>({ busy: false, message: undefined, frame: undefined });
  return Object.assign(fields, {
    cleanups,
    update: fields.set,
    dispose() {
      for (const cleanup of [...cleanups]) cleanup();
      cleanups.clear();
    },
  });
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
