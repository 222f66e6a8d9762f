import { bearerChecker } from '../http/admin.ts';
import type { Metrics } from './metrics.ts';

/**
 * GET /metrics in Prometheus's text format: on the main port only with METRICS_TOKEN (a bearer token, compared in
 * constant time), on METRICS_PORT's own listener with the token when one is set. Answers nothing but the metrics: no
 * envelope, no request id, a plain 401 or 403 for a wrong token (Prometheus shows the status).
 */

export function metricsResponder(metrics: Metrics, token: string | undefined): (request: Request) => Promise<Response> {
  const check = token === undefined ? undefined : bearerChecker(token);
  const plain = (status: number, text: string, headers: Record<string, string> = {}) =>
    new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
  return async (request) => {
    if (new URL(request.url).pathname !== '/metrics') return plain(404, 'only /metrics is served here');
    if (request.method !== 'GET') return plain(405, 'GET /metrics', { allow: 'GET' });
    const checked = check?.(request.headers.get('authorization') ?? undefined);
    if (checked === 'missing' || checked === 'malformed') return plain(401, 'a bearer token is required', { 'www-authenticate': 'Bearer' });
    if (checked === 'wrong') return plain(403, 'not the metrics token');
    const { text, contentType } = await metrics.scrape();
    return new Response(text, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
  };
}
