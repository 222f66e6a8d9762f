import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { pathId } from '../http/pathIds.ts';
import { CORS_HEADERS, jsonResponse } from '../http/respond.ts';
import { invalidParameters } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { envelope } from '../http/envelope.ts';
import { brandsMatching } from '../../widget/shared/cards.ts';
import { renderBootstrap, type BootstrapSnapshot } from '../checkouts/bootstrap.ts';
import { acceptsGzip, gzipIfSmaller, type WidgetBuild } from './build.ts';

/**
 * The browser side's files: paymentWidgets.js per checkout, and the versioned static files (widget
 * bundle, stylesheet, hosted-field page). Merchant pages load them cross-origin, with or without SRI.
 * Both are sent gzipped to browsers that accept it (every browser does): the static files were gzipped
 * once when the build was loaded, the bootstrap is gzipped per answer (about 1.3 KB). SRI hashes the
 * decoded bytes, so `integrity=true` is not affected.
 */

const CROSS_ORIGIN_ASSET = {
  ...CORS_HEADERS,
  'cross-origin-resource-policy': 'cross-origin',
} as const;

/**
 * The hosted-field page runs inside any merchant's page, so frame-ancestors allows every origin; everything
 * else is locked to the gateway itself (no inline script or style needed).
 */
export const HOSTED_FIELD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors *";

export interface WidgetRouteOptions {
  readonly build: WidgetBuild | undefined;
  readonly gatewayUrl: string;
  readonly staticBaseUrl: string;
  /** The checkout's bootstrap snapshot, or undefined for an unknown, deleted or expired checkout. */
  readonly findSnapshot: (checkoutId: string) => Promise<BootstrapSnapshot | undefined>;
}

export function widgetRoutes(options: WidgetRouteOptions): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get('/paymentWidgets.js', async (c) => {
    // Registration-only checkouts are loaded as `checkoutId=<id>/registration` (COMPAT §2).
    const checkoutId = (c.req.query('checkoutId') ?? '').replace(/\/registration$/, '');
    const snapshot = /^[0-9A-Za-z.-]{1,64}$/.test(checkoutId) ? await options.findSnapshot(checkoutId) : undefined;
    const script = new TextEncoder().encode(renderBootstrap(snapshot ?? null, { gatewayUrl: options.gatewayUrl, staticBaseUrl: options.staticBaseUrl }));
    const gzipped = acceptsGzip(c.req.header('accept-encoding')) ? gzipIfSmaller(script) : undefined;
    return new Response(gzipped ?? script, {
      status: 200,
      headers: {
        ...CROSS_ORIGIN_ASSET,
        ...c.get('baseHeaders'),
        'content-type': 'text/javascript; charset=utf-8',
        // Stable bytes per checkout, but a checkout expires: browsers revalidate every time.
        'cache-control': 'no-cache',
        vary: 'accept-encoding',
        ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
      },
    });
  });

  // `brandDetectionType: 'binlist'`: the card brands whose ranges a card's first 6 to 8 digits fit, most specific first
  // (mada before the Visa it is co-badged on), from the gateway's table — the one it checks payments against. Public
  // (a BIN is not card data), asked by the widget from the merchant's page, cached by the browser for a day.
  // What is refused is not echoed: it may be a whole card number.
  const notABin = () => invalidParameters([{ name: 'bin', value: '', message: 'must be the first 6 to 8 digits of a card number' }]);
  router.get('/bins/:bin', pathId('bin', notABin, 'bin'), (c) => {
    const bin = c.req.param('bin');
    const brands = brandsMatching(bin).map((brand) => brand.code);
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { bin, brands }), 200, { 'cache-control': 'public, max-age=86400' });
  });

  const notFound = (c: Context<AppEnv>) =>
    new Response('not found\n', {
      status: 404,
      headers: { ...CROSS_ORIGIN_ASSET, ...c.get('baseHeaders'), 'content-type': 'text/plain; charset=utf-8' },
    });

  router.get('/static/:version/*', pathId('widgetVersion', notFound, 'version'), (c) => {
    const build = options.build;
    const path = c.req.path.slice(`/v1/static/${c.req.param('version')}/`.length);
    const file = build && c.req.param('version') === build.version ? build.files.get(path) : undefined;
    if (!file) return notFound(c);
    const headers: Record<string, string> = {
      ...CROSS_ORIGIN_ASSET,
      ...c.get('baseHeaders'),
      'content-type': file.contentType,
      // The version in the path is the content hash of the build: these bytes never change.
      'cache-control': 'public, max-age=31536000, immutable',
    };
    const gzipped = file.gzipped && acceptsGzip(c.req.header('accept-encoding')) ? file.gzipped : undefined;
    if (file.gzipped) headers.vary = 'accept-encoding';
    if (gzipped) headers['content-encoding'] = 'gzip';
    if (path.endsWith('.html')) {
      headers['content-security-policy'] = HOSTED_FIELD_CSP;
      headers['referrer-policy'] = 'no-referrer';
    }
    return new Response(gzipped ?? file.bytes, { status: 200, headers });
  });

  return router;
}
