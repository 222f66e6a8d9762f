import { useSignal, type Signal } from '@preact/signals';
import { useLayoutEffect } from 'preact/hooks';

/** What a page loads from the API: under way, there, or failed (an ApiError, shown by ResultMessage). */
export type Loaded<T> = { readonly state: 'loading' } | { readonly state: 'done'; readonly data: T } | { readonly state: 'failed'; readonly error: unknown };

/**
 * Loads with `load` when the component mounts and whenever one of `deps` changes; an earlier load still under way
 * is aborted (its answer never replaces a newer one). `reload()` loads again, keeping what is shown until the
 * new answer is there.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): { readonly loaded: Signal<Loaded<T>>; reload(): void } {
  const loaded = useSignal<Loaded<T>>({ state: 'loading' });
  const generation = useSignal(0);
  // A layout effect: it runs as soon as the page is in the DOM. A plain effect waits for the next frame (Preact's
  // afterPaint: up to 100 ms when frames are slow), and the page would show "loading" that much longer.
  useLayoutEffect(() => {
    const controller = new AbortController();
    if (loaded.peek().state !== 'done') loaded.value = { state: 'loading' };
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) loaded.value = { state: 'done', data };
      },
      (error: unknown) => {
        if (!controller.signal.aborted) loaded.value = { state: 'failed', error };
      },
    );
    return () => controller.abort();
  }, [...deps, generation.value]);
  return {
    loaded,
    reload: () => {
      generation.value++;
    },
  };
}
