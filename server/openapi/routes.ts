import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { HTML_HEADERS, listDocPages } from '../http/home.ts';
import { CORS_HEADERS } from '../http/respond.ts';
import { openApiDocument, type RouteRow } from './document.ts';
import { loadExamples } from './examples.ts';
import { REFERENCE_CSP, referencePage } from './reference.ts';
import { packagePath } from '../paths.ts';

/**
 * `GET /v1/openapi.json` (the OpenAPI 3.1 document) and `GET /docs` (the same as a page, with the documentation pages),
 * generated from the app they are mounted in: `routes` reads its route table, complete by the first request, and both
 * answers are made once per app then.
 */

export interface OpenApiRouteOptions {
  /** The app's route table (Hono's `app.routes`), read on the first request. */
  readonly routes: () => readonly RouteRow[];
  /** The gateway's address (PUBLIC_URL), the document's server. */
  readonly publicUrl: string;
}

const VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

export function openApiRoutes(options: OpenApiRouteOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  let document: { readonly json: string; readonly page: Promise<string> } | undefined;
  const made = () => {
    if (!document) {
      const built = openApiDocument(options.routes(), { serverUrl: options.publicUrl, version: VERSION, examples: loadExamples() });
      document = { json: JSON.stringify(built), page: listDocPages().then((pages) => referencePage(built, pages)) };
    }
    return document;
  };

  routes.get('/v1/openapi.json', (c) =>
    new Response(made().json, {
      status: 200,
      // Readable cross-origin, as the API is: an API tool on another origin loads it.
      headers: { 'content-type': 'application/json', ...CORS_HEADERS, 'cache-control': 'no-cache', ...c.get('baseHeaders') },
    }),
  );
  routes.all('/v1/openapi.json', () => {
    throw methodNotAllowed(['GET']);
  });
  // Its own style and script, by their hashes: nothing else runs or loads.
  const reference = async () => new Response(await made().page, { status: 200, headers: { ...HTML_HEADERS, 'content-security-policy': REFERENCE_CSP } });
  // Its links are absolute: the same page with or without the slash.
  routes.get('/docs', reference);
  routes.get('/docs/', reference);
  return routes;
}
