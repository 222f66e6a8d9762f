import { checkHttpUrl } from '../domain/urls.ts';
import { PermanentJobError } from './registry.ts';

/**
 * Outbound HTTP from jobs (callbacks to merchant URLs). The URLs come from merchants and shoppers, so:
 * only http(s), no credentials in the URL, a timeout on every call, anything but 2xx is a failure, and
 * logs show host and path only (a query string may carry the merchant's own secrets).
 */

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;

/** Parses a callback URL; a URL no retry could fix is a PermanentJobError. */
export function parseCallbackUrl(raw: string): URL {
  const checked = checkHttpUrl(raw);
  if (checked.ok) return checked.url;
  switch (checked.problem) {
    case 'notAbsolute':
      throw new PermanentJobError('the callback URL is not an absolute URL');
    case 'scheme':
      throw new PermanentJobError(`the callback URL must be http or https, not ${checked.scheme}`);
    case 'credentials':
      throw new PermanentJobError('the callback URL must not contain credentials');
  }
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

export interface GetOptions {
  readonly timeoutMs: number;
  /** Aborts the call early (the worker is stopping). */
  readonly signal?: AbortSignal;
}

/** GET `url`; resolves with the status of a 2xx answer, throws (retryably) on anything else. */
export async function sendGet(url: URL, options: GetOptions): Promise<number> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', redirect: 'follow', signal, headers: { accept: '*/*' } });
  } catch (error) {
    const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
    const reason = timeout.aborted
      ? `no answer within ${options.timeoutMs} ms`
      : options.signal?.aborted
        ? 'the worker stopped'
        : // A network error names the host at most; the full URL is cut back anyway, in case one ever quotes it.
          cause.message.split(url.href).join(describeUrl(url));
    throw new Error(`GET ${describeUrl(url)} failed: ${reason}`);
  }
  // The body is not needed; releasing it frees the connection.
  await response.body?.cancel().catch(() => undefined);
  if (response.status < 200 || response.status > 299) {
    throw new Error(`GET ${describeUrl(url)} answered HTTP ${response.status}`);
  }
  return response.status;
}
