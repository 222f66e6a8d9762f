import type { Context } from 'hono';
import { formatTimestamp } from '../domain/timestamps.ts';
import type { AppEnv } from './context.ts';
import { ANSWERED_AT } from './envelope.ts';

/**
 * Every API answer is built here, with its headers as one plain object. Under @hono/node-server such a
 * Response is written straight to the socket; Hono's c.header()/c.json() and header edits after the fact
 * would build WHATWG Headers objects, a measurable share of a payment's CPU time.
 */

/** Merchant servers and pages call the API cross-origin (COMPAT §1). */
export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'X-Request-Id, Idempotent-Replayed',
} as const;

export const CORS_PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
  'access-control-max-age': '600',
} as const;

/**
 * Headers every answer of the gateway carries, JSON or not: no MIME sniffing, and HSTS when the gateway is
 * reached over https (PUBLIC_URL), so a browser never falls back to plain http for it.
 */
export function baseHeadersFor(publicUrl: string): Readonly<Record<string, string>> {
  return {
    'x-content-type-options': 'nosniff',
    ...(new URL(publicUrl).protocol === 'https:' ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}

/**
 * A request whose body was never read (refused before parsing: 404, 405, 401, 413, wrong Content-Type)
 * leaves the body on the connection, where it would be taken for the next request: such answers close it.
 */
function leavesBodyUnread(c: Context<AppEnv>): boolean {
  if (c.get('bodyConsumed')) return false;
  const length = c.req.header('content-length');
  return (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
}

/**
 * The body as it is answered: the time of an answer is the machine's (envelope.ts); a gateway on a clock of its own
 * answers with that clock's. What is kept of an answer to give it again (an Idempotency-Key's) is this.
 */
export function answeredBody<T>(c: Context<AppEnv>, body: T): T {
  const clock = c.get('clock');
  return clock && (body as { [ANSWERED_AT]?: boolean } | null)?.[ANSWERED_AT] ? { ...body, timestamp: formatTimestamp(clock()), [ANSWERED_AT]: false } : body;
}

export function jsonResponse(
  c: Context<AppEnv>,
  body: unknown,
  status: number,
  extraHeaders: Readonly<Record<string, string>> = {},
): Response {
  // For the request's log line (app.ts): the payment, checkout or registration the answer names, and its result.
  const named = body as { readonly id?: unknown; readonly result?: { readonly code?: unknown } } | null;
  if (typeof named?.result?.code === 'string') c.set('resultCode', named.result.code);
  if (typeof named?.id === 'string') c.set('resourceId', named.id);
  return jsonTextResponse(c, JSON.stringify(answeredBody(c, body)), status, extraHeaders);
}

/** JSON the gateway relays as it came (Apple Pay's merchant session), with the headers of every JSON answer. */
export function jsonTextResponse(c: Context<AppEnv>, json: string, status: number, extraHeaders: Readonly<Record<string, string>> = {}): Response {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...CORS_HEADERS,
    'cache-control': 'no-store',
    ...c.get('baseHeaders'),
    'x-request-id': c.get('requestId'),
    ...extraHeaders,
  };
  if (leavesBodyUnread(c)) headers.connection = 'close';
  return new Response(json, { status, headers });
}

/** An HTML page the shopper's browser opens (the gateway's redirect pages, a provider's return): its own headers, and every answer's. */
export function pageResponse(c: Context<AppEnv>, page: { readonly html: string; readonly status: number; readonly headers: Readonly<Record<string, string>> }): Response {
  return new Response(page.html, { status: page.status, headers: { ...page.headers, ...c.get('baseHeaders') } });
}
