import type { ComponentChildren } from 'preact';
import { followLink } from '../router.ts';

/** A link inside the app: a real <a href> (new tab, copy address), navigating without a page load on a plain click. */
export function Link(props: { readonly href: string; readonly children: ComponentChildren; readonly class?: string; readonly 'aria-current'?: 'page' | undefined }) {
  return (
    <a href={props.href} class={props.class} aria-current={props['aria-current']} onClick={(event) => followLink(event, props.href)}>
      {props.children}
    </a>
  );
}
