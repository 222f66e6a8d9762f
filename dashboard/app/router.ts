import { signal } from '@preact/signals';

/**
 * Client-side routing with the history API, under /dashboard: the address names the page (and a list's filters in
 * its query), so links can be opened in a new tab, shared and reloaded, and Back works. The server answers every
 * /dashboard/... address with the same page (server/dashboard/pages.ts).
 */

export const BASE = '/dashboard';

export interface Place {
  /** The path below BASE, starting with `/` (`/payments/abc`). */
  readonly path: string;
  /** The query, without `?`. */
  readonly search: string;
}

export interface RouteMatch<Name extends string = string> {
  readonly name: Name;
  readonly params: Readonly<Record<string, string>>;
}

/** What a page component is given: the parameters of its route's pattern (routes.ts), decoded. */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>;
}

/** The place an address (a location's pathname and search) is, or undefined outside /dashboard. */
export function placeOf(pathname: string, search = ''): Place | undefined {
  if (pathname !== BASE && !pathname.startsWith(`${BASE}/`)) return undefined;
  const path = pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  return { path, search: search.replace(/^\?/, '') };
}

/** The address of a place below BASE: `href('/payments')` is `/dashboard/payments`. */
export function href(path: string, query?: URLSearchParams | Readonly<Record<string, string | undefined>>): string {
  const params = query instanceof URLSearchParams ? query : new URLSearchParams(Object.entries(query ?? {}).filter((entry): entry is [string, string] => !!entry[1]));
  const search = params.toString();
  return `${BASE}${path === '/' ? '' : path}${search ? `?${search}` : ''}`;
}

/**
 * The first route whose pattern (`/payments/:id`) matches `path`, with its parameters decoded, or undefined.
 * A parameter matches one non-empty segment.
 */
export function matchRoute<Name extends string>(path: string, routes: readonly { readonly name: Name; readonly pattern: string }[]): RouteMatch<Name> | undefined {
  const segments = path.split('/').filter(Boolean);
  for (const route of routes) {
    const parts = route.pattern.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    for (const [index, part] of parts.entries()) {
      const value = segments[index] ?? '';
      if (part.startsWith(':')) {
        try {
          params[part.slice(1)] = decodeURIComponent(value);
        } catch {
          matched = false;
          break;
        }
      } else if (part !== value) {
        matched = false;
        break;
      }
    }
    if (matched) return { name: route.name, params };
  }
  return undefined;
}

/** Where the app is: set from the address at start, by navigate() and by Back/Forward. */
export const place = signal<Place>({ path: '/', search: '' });

function readLocation(): void {
  place.value = placeOf(location.pathname, location.search) ?? { path: '/', search: '' };
}

/** Goes to an address of the app (`/dashboard/...`), adding a history entry (or replacing the current one). */
export function navigate(to: string, options: { readonly replace?: boolean } = {}): void {
  const url = new URL(to, location.href);
  if (url.origin !== location.origin || !placeOf(url.pathname)) {
    location.assign(url.href);
    return;
  }
  if (options.replace) history.replaceState(null, '', url.pathname + url.search);
  else history.pushState(null, '', url.pathname + url.search);
  readLocation();
  if (!options.replace) window.scrollTo(0, 0);
}

/** Starts following the address (Back and Forward); call once. */
export function startRouter(): void {
  readLocation();
  window.addEventListener('popstate', readLocation);
}

/**
 * What a click on an app link does: a plain left click navigates in the app; a click with a modifier (new tab,
 * new window, download) or another button is left to the browser.
 */
export function followLink(event: MouseEvent, to: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(to);
}
