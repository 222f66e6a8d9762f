import type { Signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import type { Loaded } from '../load.ts';
import { ResultMessage } from './ResultMessage.tsx';

/**
 * A page of the app: its heading (the one h1), which takes the focus when the page is shown, so a keyboard or
 * screen-reader user lands at the top of what changed; and the document's title.
 */
export function Page(props: { readonly title: string; readonly children?: ComponentChildren; readonly actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  useEffect(() => {
    document.title = `${props.title} – ${t('app.name')}`;
  }, [props.title]);
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        {props.actions}
      </div>
      {props.children}
    </>
  );
}

/** A section of a page, with its h2 (named for assistive technology by it). */
export function Section(props: { readonly title: string; readonly id: string; readonly children?: ComponentChildren }) {
  return (
    <section class="section" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** What shows while a page's data loads: a status, announced. */
export function Loading() {
  return (
    <p class="loading" role="status">
      {t('app.loading')}
    </p>
  );
}

/** What a page shows of data not there yet: the loading status, or the failure with a retry; nothing once loaded. */
export function NotLoaded(props: { readonly state: Loaded<unknown>; readonly reload: () => void }) {
  if (props.state.state === 'loading') return <Loading />;
  if (props.state.state === 'done') return null;
  return (
    <ResultMessage error={props.state.error}>
      <button type="button" class="button" onClick={props.reload}>
        {t('result.retry')}
      </button>
    </ResultMessage>
  );
}

/** What a part of a page shows while loading, when its load failed, and once loaded. */
export function Loadable<T>(props: { readonly loaded: Signal<Loaded<T>>; readonly reload: () => void; readonly children: (data: T) => ComponentChildren }) {
  const state = props.loaded.value;
  return state.state === 'done' ? <>{props.children(state.data)}</> : <NotLoaded state={state} reload={props.reload} />;
}
