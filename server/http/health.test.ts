import { createServer, type Server } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess } from '../testing/gatewayProcess.ts';
import { homeRoutes } from './home.ts';
import { DEFAULT_DEMO_MERCHANT } from '../config.ts';
import { STORE_KINDS, startTestGateway, type TestGateway } from '../testing/harness.ts';

/** Issue 24: liveness, readiness, the page at / and the documentation it links, the banner, a busy port. */

describe.each(STORE_KINDS)('health and readiness on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers /health without credentials, and /ready with every check ok', async () => {
    const health = await fetch(`${t.url}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    // The test gateway's jobs are run by each test (jobPollMs 0).
    expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', migrations: 'ok', jobs: 'run by the caller', shutdown: 'no' } });
  });

  it('is not ready while a migration this build knows is not applied to the store, and says so', async () => {
    const [last] = (await t.gateway.store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1')).rows;
    await t.gateway.store.query('DELETE FROM schema_migrations WHERE name = $1', [last?.name]);
    try {
      const ready = await fetch(`${t.url}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'not ready', checks: { store: 'ok', migrations: '1 not applied' } });
    } finally {
      await t.gateway.store.query('INSERT INTO schema_migrations (name) VALUES ($1)', [last?.name]);
    }
    expect((await fetch(`${t.url}/ready`)).status).toBe(200);
  });

  it('is not ready once it shuts down, so a load balancer stops sending it requests', async () => {
    const other = await startTestGateway(kind);
    const closing = other.close();
    const ready = await other.gateway.app.request('/ready');
    await closing;
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready', checks: { shutdown: 'shutting down' } });
  });
});

describe('the page at / and the documentation', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { demoMerchant: DEFAULT_DEMO_MERCHANT });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('links the demo shop, the back office (and how to sign in), the documentation and the health endpoints, in a page that runs nothing', async () => {
    const home = await fetch(`${t.url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await home.text();
    for (const link of ['/demo', '/dashboard', '/docs/', '/health', '/ready']) expect(html).toContain(`href="${link}"`);
    // How to get into the back office: an operator, made beside the running gateway.
    expect(html).toContain('<code>npm run gateway -- operator create NAME</code>');
    expect(html).not.toMatch(/<script|<style|style=/);
    // Every link of the page answers.
    for (const [, link] of html.matchAll(/href="([^"]+)"/g)) expect((await fetch(`${t.url}${link}`)).status, link).toBe(200);
    // Without a demo merchant (a live gateway) the page says there is no demo shop instead of linking one.
    const live = await (await homeRoutes({ demo: false }).request('/')).text();
    expect(live).toContain('No demo shop');
    expect(live).not.toContain('href="/demo"');
  });

  it('lists the documentation pages and serves each as text, and nothing else from the disk', async () => {
    const index = await (await fetch(`${t.url}/docs/`)).text();
    for (const name of ['api.md', 'operating.md', 'widget.md', 'webhooks.md']) expect(index).toContain(`href="/docs/${name}"`);
    const api = await fetch(`${t.url}/docs/api.md`);
    expect(api.status).toBe(200);
    expect(api.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await api.text()).toMatch(/^# /);
    for (const path of ['/docs/missing.md', '/docs/..%2Fpackage.json', '/docs/%2E%2E%2FREADME.md', '/docs/examples.test.ts']) {
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(404);
    }
  });
});

describe('starting the gateway as an operator does', () => {
  let dataDir: string;
  let blocker: Server;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gateway-start-'));
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('names the demo shop, the docs and the health endpoints in its banner', async () => {
    const gateway = startGatewayProcess({ DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1' });
    const banner = await gateway.listening.finally(() => gateway.kill());
    expect(banner).toMatch(/^Docs +http:\/\/\S+\/docs\/ .*health http:\/\/\S+\/health, readiness http:\/\/\S+\/ready$/m);
    expect(banner).toMatch(/^Demo +http:\/\/\S+\/demo /m);
    expect(banner).toMatch(/^ {2}access token {2}\S+/m);
  }, 60_000);

  it('refuses a busy port in one line naming PORT, and exits non-zero', async () => {
    const { port } = blocker.address() as { port: number };
    const gateway = startGatewayProcess({ DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1' });
    expect(await gateway.exited).toBe(1);
    expect(gateway.stderr().trim().split('\n')).toEqual([
      `Configuration error: PORT ${port} is in use on 127.0.0.1 (another gateway or program listens there): stop it, or set PORT to a free port`,
    ]);
  }, 60_000);
});
