import { Hono, type Context } from 'hono';
import { GatewayError, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppEnv } from '../http/context.ts';
import { acceptsGzip } from '../widget/build.ts';
import { loadDashboardBuild, type DashboardBuild } from './assets.ts';

/**
 * The back office's app (dashboard/, built by dashboard/build.ts): `GET /dashboard` and every client-side address
 * below it (`/dashboard/payments/<id>`...) answer the same HTML page, which loads the app's script and stylesheet
 * from `GET /dashboard/assets/<file>` (content-hashed names: cached for a year, immutable). The page has no inline
 * script or style, under a CSP that allows only the gateway's own files. /dashboard/api/* (mounted before this)
 * and unknown files are never answered with the page: they get the JSON 404.
 */

export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': DASHBOARD_CSP,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** A file name of the build (dashboard/build.ts: name, content hash, type: main-BkE2x_1a.js). */
const ASSET_NAME = /^[A-Za-z0-9_-]{1,100}\.(js|css)$/;

const NOT_PAGES = /^\/dashboard\/(api|assets)(\/|$)/;

const noFile = () => new GatewayError(withReason(RESULTS.invalidRequestStructure, 'no such file of the dashboard'), 404);

/** The build, read once per process (the first request after a build: a start builds before it listens). */
let loaded: DashboardBuild | undefined;
function dashboardBuild(): DashboardBuild | undefined {
  loaded ??= loadDashboardBuild();
  return loaded;
}

/** Names from the build's manifest: [A-Za-z0-9_-] and a dot (dashboard/build.ts), nothing to escape. */
export function dashboardPage(build: DashboardBuild): string {
  const stylesheets = build.stylesheets.map((file) => `<link rel="stylesheet" href="/dashboard/assets/${file}">`).join('');
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>Gateway back office</title>${stylesheets}<script type="module" src="/dashboard/assets/${build.script}"></script></head>\n` +
    '<body><noscript>The back office needs JavaScript: please turn it on for this site.</noscript><div id="app"></div></body></html>\n'
  );
}

const NOT_BUILT =
  '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Gateway back office</title></head>\n' +
  '<body><p>The back office is not built: run <code>npm run build</code> and start the gateway again.</p></body></html>\n';

export function dashboardPageRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  // A wildcard, not a path parameter: the name is looked up in the build's own list, never used otherwise.
  routes.get('/assets/*', (c) => {
    const name = c.req.path.slice('/dashboard/assets/'.length);
    const file = ASSET_NAME.test(name) ? dashboardBuild()?.files.get(name) : undefined;
    if (!file) throw noFile();
    const gzipped = file.gzipped && acceptsGzip(c.req.header('accept-encoding')) ? file.gzipped : undefined;
    return new Response(gzipped ?? file.bytes, {
      status: 200,
      headers: {
        ...c.get('baseHeaders'),
        'content-type': file.contentType,
        // The name is the content's hash: these bytes never change.
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'same-origin',
        ...(file.gzipped ? { vary: 'accept-encoding' } : {}),
        ...(gzipped ? { 'content-encoding': 'gzip' } : {}),
      },
    });
  });

  const page = (c: Context<AppEnv>) => {
    if (NOT_PAGES.test(c.req.path)) return c.notFound();
    const build = dashboardBuild();
    return new Response(build ? dashboardPage(build) : NOT_BUILT, { status: build ? 200 : 503, headers: { ...c.get('baseHeaders'), ...PAGE_HEADERS } });
  };
  routes.get('/', page);
  routes.get('/*', page);
  return routes;
}
