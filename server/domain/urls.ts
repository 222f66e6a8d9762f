/**
 * The one definition of a URL the gateway will send a browser or a call to: absolute, http or https, and
 * without credentials in it. Callers phrase the refusal for their own audience.
 */
export type HttpUrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly problem: 'notAbsolute' | 'credentials' }
  | { readonly ok: false; readonly problem: 'scheme'; readonly scheme: string };

export function checkHttpUrl(raw: string): HttpUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'notAbsolute' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'scheme', scheme: url.protocol.replace(/:$/, '') };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  return { ok: true, url };
}

/** What logs and job errors may show of a URL: scheme, host and path, never the query or credentials. */
export function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * `base` with query parameters appended as they are, keeping the merchant's own query untouched (re-encoding
 * it through URLSearchParams could change what the merchant's server sees). A fragment is dropped: it is
 * never sent to a server anyway.
 */
export function withQuery(base: URL, parameters: Readonly<Record<string, string>>): URL {
  const query = Object.entries(parameters)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  const href = base.href.replace(/#.*$/, '');
  const separator = base.search === '' ? (href.endsWith('?') ? '' : '?') : '&';
  return new URL(`${href}${separator}${query}`);
}

/**
 * A base address a merchant registers for its shoppers' returns (doc 1 §3 rule 3: "the configured base address
 * must end with a slash"): an acceptable http(s) URL whose path ends with a slash, with no query or fragment.
 * Undefined when it is one, else what is wrong with it.
 */
export function resultUrlBaseProblem(raw: string): string | undefined {
  const checked = checkHttpUrl(raw);
  if (!checked.ok) return 'must be an absolute http or https URL without credentials';
  if (checked.url.search !== '' || checked.url.hash !== '' || raw.includes('?') || raw.includes('#')) return 'must not have a query or fragment';
  if (!checked.url.pathname.endsWith('/')) return 'must end with a slash';
  return undefined;
}

/** Whether `url` lies under `base` (same scheme, host and port, and a path starting with the base's). */
export function isUnderBase(url: string, base: string): boolean {
  const target = checkHttpUrl(url);
  const root = checkHttpUrl(base);
  return target.ok && root.ok && target.url.origin === root.url.origin && target.url.pathname.startsWith(root.url.pathname);
}
