import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import { referencePage } from './reference.ts';

/**
 * The reference at /docs, as a person opens it: one page rendered from the OpenAPI document, every operation on it
 * with its parameters and answers, the documentation pages linked, nothing that runs (a CSP that allows nothing), and
 * linked from the home page. The document itself at /v1/openapi.json, made once per app from that app's routes.
 */

const ADMIN_TOKEN = 'admin-token-of-the-reference-test-0123456789';

describe('the API reference', () => {
  let t: TestGateway;
  let plain: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { adminToken: ADMIN_TOKEN });
    plain = await startTestGateway('PGlite');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await plain?.close();
  });

  const get = (gateway: TestGateway, path: string) => gateway.gateway.app.request(path);

  it('is a page of every operation of the document, under a CSP that runs nothing', async () => {
    const answer = await get(t, '/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|style-src|unsafe/);
    const html = await answer.text();
    expect(html).not.toMatch(/<script|<style|<link|<iframe|<[^>]+\s(style|on[a-z]+)=/i);
    const document = (await (await get(t, '/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { summary: string }>> };
    let operations = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        expect(html, `${method} ${path}`).toContain(`<code>${method.toUpperCase()} ${path}</code>`);
        operations++;
      }
    }
    expect(operations).toBeGreaterThan(70);
    // Its parameters, answers and result codes: a payment's, for one.
    expect(html).toContain('<code>Idempotency-Key</code>');
    expect(html).toContain('<code>card.number</code>');
    expect(html).toContain('<code>200.300.404</code>');
    expect(html).toContain('href="#schema-paymentrequest"');
    // Every link inside the page has its target.
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const targets = [...new Set([...html.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]))];
    expect(targets.filter((target) => !ids.has(target))).toEqual([]);
    expect(await (await get(t, '/docs/')).text()).toBe(html);
  });

  it('lists the documentation pages, each of which answers', async () => {
    const html = await (await get(t, '/docs')).text();
    const pages = [...html.matchAll(/href="(\/docs\/[a-z0-9-]+\.md)"/g)].map((match) => match[1] as string);
    for (const name of ['api.md', 'operating.md', 'widget.md', 'webhooks.md', 'architecture.md']) expect(pages).toContain(`/docs/${name}`);
    for (const page of pages) expect((await get(t, page)).status, page).toBe(200);
  });

  it('is linked from the home page, with the document', async () => {
    const home = await (await get(t, '/')).text();
    expect(home).toMatch(/<a href="\/docs">API reference<\/a>/);
    expect(home).toContain('href="/v1/openapi.json"');
  });

  it('is each app’s own: the admin API only where ADMIN_TOKEN mounts it, the document made once', async () => {
    const first = await get(t, '/v1/openapi.json');
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    const text = await first.text();
    expect(await (await get(t, '/v1/openapi.json')).text()).toBe(text);
    expect(text).toContain('"/admin/v1/webhooks"');
    const without = await (await get(plain, '/v1/openapi.json')).text();
    expect(without).not.toContain('/admin/');
    expect(await (await get(plain, '/docs')).text()).not.toContain('Admin');
    const wrongMethod = await t.gateway.app.request('/v1/openapi.json', { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
  });

  it('escapes whatever the document says', () => {
    const hostile = '<script>alert(1)</script>"\'&';
    const html = referencePage(
      {
        info: { title: hostile, version: hostile, description: hostile },
        tags: [{ name: hostile, description: hostile }],
        paths: { [`/x/${hostile}`]: { get: { operationId: hostile, summary: hostile, tags: [hostile], parameters: [{ name: hostile, in: 'query', schema: { pattern: hostile } }], responses: { 200: { description: hostile } } } } },
        components: { schemas: { [hostile]: { description: hostile } } },
      },
      [hostile],
    );
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/"'&(?!#)/);
    expect(html).toContain('&#60;script&#62;');
  });
});
