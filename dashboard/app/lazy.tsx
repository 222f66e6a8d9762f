import { useSignal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { Loading } from './components/Page.tsx';
import { ResultMessage } from './components/ResultMessage.tsx';
import { t } from './i18n.ts';
import type { PageProps } from './router.ts';

/**
 * A page whose code is a chunk of its own, fetched the first time it is shown (`import()`: the build names it by
 * its content hash, the gateway serves it with the entry). The first page (sign-in, the payments) stays in the
 * entry; pages reached later load on demand, so the entry stays small as pages are added. While the chunk loads, a
 * status shows; when it cannot be fetched, the error and a way to try again.
 */
export function lazyPage(load: () => Promise<ComponentType<PageProps>>): ComponentType<PageProps> {
  let loaded: ComponentType<PageProps> | undefined;
  let pending: Promise<ComponentType<PageProps>> | undefined;
  return function LazyPage(props: PageProps) {
    const ready = useSignal(loaded !== undefined);
    const failed = useSignal<unknown>(undefined);
    const attempt = useSignal(0);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      pending ??= load();
      pending.then(
        (component) => {
          loaded = component;
          if (live) ready.value = true;
        },
        (error: unknown) => {
          pending = undefined;
          if (live) failed.value = error;
        },
      );
      return () => {
        live = false;
      };
    }, [attempt.value]);
    // Read first, whatever else holds: reading the signal is what renders this again when the chunk is there.
    const shown = ready.value;
    const Component = loaded;
    if (Component && shown) return <Component {...props} />;
    if (failed.value !== undefined) {
      return (
        <ResultMessage error={failed.value}>
          <button
            type="button"
            class="button"
            onClick={() => {
              failed.value = undefined;
              attempt.value++;
            }}
          >
            {t('result.retry')}
          </button>
        </ResultMessage>
      );
    }
    return <Loading />;
  };
}
