import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import { referencePage } from './reference.ts';

/**
 * The reference at /docs, as a person opens it: one page rendered from the OpenAPI document, every operation on it
 * with its parameters, answers and examples, a sidebar of every operation with a filter, the documentation pages
 * linked, nothing that runs or loads but its own style and script (a CSP that allows them by hash), and linked from
 * the home page. The document itself at /v1/openapi.json, made once per app from that app's routes.
 */

const sha256 = (source: string) => `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;

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

  it('is a page of every operation of the document, under a CSP that runs only its own script and style', async () => {
    const answer = await get(t, '/docs');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = answer.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe|\*|https?:|'self'|nonce/);
    const html = await answer.text();
    // One inline script and one inline style, each allowed by its hash; nothing loaded, no inline handler or style.
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] as string);
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] as string);
    expect([scripts.length, styles.length, html.match(/<script|<style/g)?.length]).toEqual([1, 1, 2]);
    expect(csp).toContain(`script-src ${sha256(scripts[0] as string)};`);
    expect(csp).toContain(`style-src ${sha256(styles[0] as string)};`);
    expect(html).not.toMatch(/<link|<iframe|<img|<[^>]+\s(style|on[a-z]+|src)=/i);
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

  it('has a sidebar of every tag and operation, and a filter the script shows', async () => {
    const html = await (await get(t, '/docs')).text();
    const sidebar = /<nav id="sidebar"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
    const document = (await (await get(t, '/v1/openapi.json')).json()) as { tags: { name: string }[]; paths: Record<string, Record<string, { operationId: string }>> };
    for (const tag of document.tags) expect(sidebar, tag.name).toContain(`>${tag.name}</a>`);
    let operations = 0;
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) {
        const anchor = `op-${operation.operationId.toLowerCase()}`;
        expect(sidebar, anchor).toContain(`href="#${anchor}"`);
        operations++;
      }
    }
    // The page's section and the sidebar's entry of each operation are what the filter matches.
    expect(html.match(/ data-search="/g)?.length).toBe(2 * operations);
    expect(sidebar.match(/ data-search="/g)?.length).toBe(operations);
    // Without the script, no filter that does nothing: it is hidden until the script shows it.
    expect(sidebar).toMatch(/<input type="search" id="filter"[^>]* hidden>/);
    expect(html).toContain("document.getElementById('filter')");
  });

  it('shows the document’s examples: a request as curl and the answer, per operation', async () => {
    const html = await (await get(t, '/docs')).text();
    const payments = /<section class="operation" id="op-postv1payments"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(payments).toContain('<summary>Example: A card payment (DB) with the shopper’s data, approved: the request’s structures echoed</summary>');
    expect(payments).toContain(`curl &#39;${t.url}/v1/payments&#39; \\\n  -H &#34;Authorization: Bearer $TOKEN&#34; \\\n  --data-urlencode &#39;entityId=`);
    expect(payments).toContain('--data-urlencode &#39;customParameters[SHOPPER_orderNote]=gift wrap&#39;');
    expect(payments).toContain('&#34;customer&#34;: {');
    // A read: its id in the path, its query, the answer's threeDSecure.
    const read = /<section class="operation" id="op-getv1paymentsid"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(read).toMatch(/curl &#39;http:\/\/127\.0\.0\.1:[0-9]+\/v1\/payments\/[0-9a-f]{32}\?entityId=[0-9a-f]{32}&#39;/);
    expect(read).toContain('&#34;eci&#34;');
    // An admin operation sends the admin token, as JSON.
    const webhook = /<section class="operation" id="op-postadminv1webhooks"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(webhook).toContain('-H &#34;Authorization: Bearer $ADMIN_TOKEN&#34; \\\n  -H &#39;Content-Type: application/json&#39; \\\n  -d &#39;{&#34;entityId&#34;');
    // Every operation with a JSON answer but the pages' and the reference's own shows one.
    const sections = [...html.matchAll(/<section class="operation" id="([^"]+)"[\s\S]*?<\/section>/g)];
    const without = sections.filter(([section]) => !section.includes('class="example"')).map(([, id]) => id);
    expect(without.filter((id) => !/reconiliations|aggregrations|returns|^op-get(docs|metrics|home|v1openapijson)/.test(id as string))).toEqual([]);
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
    // Without ADMIN_TOKEN, only the command route an embedded store's gateway keeps for its command line.
    const without = (await (await get(plain, '/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(without.paths).filter((path) => path.startsWith('/admin/'))).toEqual(['/admin/v1/commands']);
    expect(await (await get(plain, '/docs')).text()).not.toContain('/admin/v1/webhooks');
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
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/"'&(?!#)/);
    expect(html).toContain('&#60;script&#62;');
  });
});
