import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULTS } from '../domain/resultCodes.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import { DEFAULT_DASHBOARD_DIST, loadDashboardBuild } from './assets.ts';
import { staleDashboardBuild } from './freshness.ts';
import { DASHBOARD_CSP } from './pages.ts';

/** The back office's page and files (pages.ts), served from the build the suite made (globalSetup). */

describe('the dashboard page and its files', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });
  const get = (path: string, headers: Record<string, string> = {}) => t.gateway.app.request(path, { headers });

  it('answers /dashboard and every client address below it with the page, under its strict CSP', async () => {
    const build = loadDashboardBuild();
    expect(build).toBeDefined();
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/payments', '/dashboard/payments/0123456789abcdef0123456789abcdef', '/dashboard/nope?x=1']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await response.text();
      expect(html).toMatch(/^<!doctype html>/);
      expect(html).toContain(`<script type="module" src="/dashboard/assets/${build?.script}"></script>`);
      expect(html).toContain(`<link rel="stylesheet" href="/dashboard/assets/${build?.stylesheets[0]}">`);
      expect(html).toContain('<div id="app"></div>');
      expect(html).toContain('<noscript>');
      // Nothing inline: no script body, no style element or attribute.
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\bstyle=/);
    }
    expect(DASHBOARD_CSP).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('serves the built files for a year, immutable, gzipped when asked, with their types', async () => {
    const build = loadDashboardBuild()!;
    for (const name of [build.script, ...build.stylesheets]) {
      const response = await get(`/dashboard/assets/${name}`, { 'accept-encoding': 'gzip' });
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type')).toBe(name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-encoding')).toBe('gzip');
      expect(response.headers.get('vary')).toBe('accept-encoding');
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(new Uint8Array(gunzipSync(bytes))).toEqual(build.files.get(name)?.bytes);
      const plain = await get(`/dashboard/assets/${name}`);
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(new Uint8Array(await plain.arrayBuffer())).toEqual(build.files.get(name)?.bytes);
    }
  });

  it('answers an unknown file, and the API’s unknown paths, with the JSON 404 (never the page)', async () => {
    for (const path of ['/dashboard/assets/main-unknown.js', '/dashboard/assets/..%2Fmanifest.json', '/dashboard/assets/a/b.js', '/dashboard/assets/', '/dashboard/assets', '/dashboard/api/nothing-here', '/dashboard/api']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/^application\/json/);
      const body = (await response.json()) as { result: { code: string } };
      expect(body.result.code, path).toBe(RESULTS.invalidRequestStructure.code);
    }
  });
});

describe('the dashboard build, checked at start', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-dashboard-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is current when made from the sources beside it, stale when they changed, missing when never made', async () => {
    expect(staleDashboardBuild(dir, () => 'digest-a')).toBe('the dashboard is not built');
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ version: '0123456789abcdef', sources: 'digest-a', entry: { js: 'assets/main-x.js', css: [] }, files: [] }));
    expect(staleDashboardBuild(dir, () => 'digest-a')).toBeUndefined();
    expect(staleDashboardBuild(dir, () => 'digest-b')).toBe('the dashboard sources changed since it was built');
    // The suite's own build (global setup) is current.
    expect(staleDashboardBuild(DEFAULT_DASHBOARD_DIST)).toBeUndefined();
  });
});
