import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import { acceptsGzip, loadWidgetBuild } from './build.ts';

/** A GET with exactly these headers, its body as sent (not decoded: fetch would gunzip it). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

describe('widget files as merchant pages load them', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const build = loadWidgetBuild();
  const createCheckout = async (params: Record<string, string> = {}) => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', ...params });
    expect(created.status).toBe(200);
    return created.body as { id: string; integrity?: string };
  };

  it("answers the BIN list (brandDetectionType 'binlist'): a co-badged mada BIN as MADA then VISA, a plain Visa BIN as VISA, bad BINs refused", async () => {
    const ask = async (bin: string) => {
      const response = await fetch(`${t.url}/v1/bins/${bin}`);
      return { status: response.status, cors: response.headers.get('access-control-allow-origin'), cache: response.headers.get('cache-control'), body: (await response.json()) as Record<string, unknown> };
    };
    expect(await ask('446404')).toMatchObject({ status: 200, cors: '*', cache: 'public, max-age=86400', body: { bin: '446404', brands: ['MADA', 'VISA'], result: { code: '000.000.100' } } });
    expect((await ask('42000000')).body).toMatchObject({ bin: '42000000', brands: ['VISA'] });
    expect((await ask('54545454')).body.brands).toEqual(['MASTER']);
    expect((await ask('99999999')).body.brands).toEqual([]);
    for (const bad of ['4200', '420000000', '42000a', '%3Cscript%3E', '4200000000000000']) {
      const answer = await ask(bad);
      expect(answer.status, bad).toBe(400);
      // Not echoed: a whole card number may be sent where a BIN belongs.
      expect(JSON.stringify(answer.body), bad).not.toContain(decodeURIComponent(bad));
      expect(answer.body, bad).toMatchObject({ result: { code: '200.300.404', parameterErrors: [{ name: 'bin', message: 'must be the first 6 to 8 digits of a card number' }] } });
    }
  });

  it('serves paymentWidgets.js per checkout as cross-origin JavaScript whose bytes match the integrity hash', async () => {
    const checkout = await createCheckout({ integrity: 'true' });
    const first = await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.id}`);
    const bytes = new Uint8Array(await first.arrayBuffer());
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(`sha384-${createHash('sha384').update(bytes).digest('base64')}`).toBe(checkout.integrity);
    const again = new Uint8Array(await (await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.id}`)).arrayBuffer());
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    const text = Buffer.from(bytes).toString('utf8');
    expect(text).toContain(`"id":"${checkout.id}"`);
    expect(text).toContain(`/v1/static/${build?.version}/js/static.min.js`);
  });

  it('still answers a script for an unknown checkout, one that makes the widget report the error', async () => {
    for (const checkoutId of ['0123456789ABCDEF0123456789ABCDEF.sbx01-gw01', '"></script><script>alert(1)</script>', '']) {
      const response = await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${encodeURIComponent(checkoutId)}`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('"checkout":null');
      expect(text).not.toContain('<script>');
    }
  });

  it('serves the versioned static files with long-lived caching, JavaScript types, CORS and CORP', async () => {
    expect(build).toBeDefined();
    for (const [path, type] of [
      ['js/static.min.js', 'text/javascript; charset=utf-8'],
      ['css/static.min.css', 'text/css; charset=utf-8'],
      ['js/fields.min.js', 'text/javascript; charset=utf-8'],
    ] as const) {
      const response = await fetch(`${t.url}/v1/static/${build?.version}/${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(build?.files.get(path)?.bytes ?? []))).toBe(true);
    }
  });

  it("serves the merchants' TypeScript declarations beside the widget, as text, gzipped to a browser that accepts it", async () => {
    const url = `${t.url}/v1/static/${build?.version}/types/wpwl.d.ts`;
    const source = readFileSync(new URL('../../widget/types/wpwl.d.ts', import.meta.url), 'utf8');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.text()).toBe(source);
    const gzipped = await rawGet(url, { 'accept-encoding': 'gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).toString('utf8')).toBe(source);
  });

  it('serves the hosted-field page with its own strict CSP that any merchant page may frame', async () => {
    const response = await fetch(`${t.url}/v1/static/${build?.version}/fields.html`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain('frame-ancestors *');
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBeNull();
  });

  it('answers 404 for another version, an unknown file or a path outside the build', async () => {
    for (const path of [
      `/v1/static/0000000000000000/js/static.min.js`,
      `/v1/static/${build?.version}/js/nope.js`,
      `/v1/static/${build?.version}/../../package.json`,
      `/v1/static/${build?.version}/%2e%2e/%2e%2e/package.json`,
      `/v1/static/${build?.version}/manifest.json`,
    ]) {
      const response = await fetch(`${t.url}${path}`);
      expect(response.status, path).toBe(404);
    }
  });

  it('sends the static files and paymentWidgets.js gzipped to a browser that accepts gzip, as they are to one that does not', async () => {
    const checkout = await createCheckout({ integrity: 'true' });
    const browserEncoding = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    for (const path of ['js/static.min.js', 'css/static.min.css', 'fields.html', 'js/fields.min.js', 'css/fields.min.css']) {
      const url = `${t.url}/v1/static/${build?.version}/${path}`;
      const gzipped = await rawGet(url, browserEncoding);
      expect(gzipped.status, path).toBe(200);
      expect(gzipped.headers['content-encoding'], path).toBe('gzip');
      expect(gzipped.headers.vary, path).toBe('accept-encoding');
      expect(gzipped.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(gzipped.body.length, path).toBeLessThan(build?.files.get(path)?.bytes.length ?? 0);
      expect(gunzipSync(gzipped.body).equals(Buffer.from(build?.files.get(path)?.bytes ?? [])), path).toBe(true);
      const plain = await rawGet(url, { 'accept-encoding': 'identity' });
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.body.equals(Buffer.from(build?.files.get(path)?.bytes ?? [])), path).toBe(true);
    }
    const bootstrapUrl = `${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.id}`;
    const gzipped = await rawGet(bootstrapUrl, browserEncoding);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toBe('accept-encoding');
    const plain = await rawGet(bootstrapUrl, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    // The integrity hash is of the decoded script.
    expect(`sha384-${createHash('sha384').update(gunzipSync(gzipped.body)).digest('base64')}`).toBe(checkout.integrity);
  });

  it('reads Accept-Encoding with its q-values', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8, *;q=0.1')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('GZIP')).toBe(true);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('*;q=0.5, gzip;q=0')).toBe(false);
  });
});
