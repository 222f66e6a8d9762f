import { readdir, readFile } from 'node:fs/promises';
import { Hono } from 'hono';
import { GatewayError, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppEnv } from './context.ts';
import { pathId } from './pathIds.ts';
import { packagePath } from '../paths.ts';

/**
 * What someone who opens the gateway's address in a browser finds (issue 24): `GET /` is a small page linking the
 * demo shop (test environment), the back office at /dashboard with how to get in (an operator made with the command
 * line, beside the running gateway), the API reference, the documentation and the health endpoints; `GET /docs/<page>.md`
 * serves a documentation page of this build (docs/*.md) as text. The reference at `GET /docs`, which lists these pages
 * too, is the OpenAPI document's (openapi/routes.ts). Plain HTML, no script or style, under a CSP that allows nothing.
 */

const DOCS_DIR = packagePath('docs/');

/** A page name of the right shape that is no page of this build, or one of the wrong shape (never echoed). */
const noPage = () => new GatewayError(withReason(RESULTS.invalidRequestStructure, 'no such documentation page'), 404);

export const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** The documentation pages of this build, read once: only these names are ever served. */
let docPages: Promise<readonly string[]> | undefined;
export function listDocPages(): Promise<readonly string[]> {
  docPages ??= readdir(DOCS_DIR)
    .then((files) => files.filter((file) => file.endsWith('.md')).sort())
    .catch(() => []);
  return docPages;
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>\n<body>\n${body}\n</body></html>\n`;
}

export function homeRoutes(options: { readonly demo: boolean }): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/', () => {
    const demo = options.demo
      ? '<li><a href="/demo">Demo shop</a>: pay with the test cards through the payment widget</li>'
      : '<li>No demo shop: there is one only in the test environment, with its demo merchant</li>';
    const body = `<h1>Payment gateway</h1>
<ul>
${demo}
<li><a href="/dashboard">Back office</a> (<code>/dashboard</code>): payments and their refunds, stored cards, schedules, webhooks, access tokens, settings.
Sign in as an operator: make one beside the running gateway with <code>npm run gateway -- operator create NAME</code>, which shows the password once
(<a href="/docs/dashboard.md">how</a>)</li>
<li><a href="/docs">API reference</a>: every endpoint, its parameters, answers and result codes (also as <a href="/v1/openapi.json">OpenAPI 3.1</a>)</li>
<li><a href="/docs/">Documentation</a>: the API, the widget, webhooks, operating the gateway (its pages are listed with the reference)</li>
<li><a href="/health">/health</a> (the process answers) and <a href="/ready">/ready</a> (store, migrations and jobs)</li>
</ul>`;
    return new Response(page('Payment gateway', body), { status: 200, headers: HTML_HEADERS });
  });
  routes.get('/docs/:page', pathId('docPage', noPage, 'page'), async (c) => {
    const name = c.req.param('page');
    if (!(await listDocPages()).includes(name)) throw noPage();
    const text = await readFile(new URL(name, DOCS_DIR), 'utf8');
    return new Response(text, { status: 200, headers: { ...HTML_HEADERS, 'content-type': 'text/plain; charset=utf-8' } });
  });
  return routes;
}
