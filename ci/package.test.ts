import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../server/testing/harness.ts';

/**
 * The gateway as a shop uses it in CI (issue 36 point 1): `npm pack` of this project, installed as a dev dependency
 * of a temporary shop (ci/shop: its own server, Playwright configuration and test) with `npm ci --offline` — from a
 * lockfile as the shop would have committed it, the packages from npm's cache, nothing from the network — then the
 * package's `wpwl-gateway` command started as the gateway process itself, and the shop's own Playwright tests run
 * against it in Debian's Chromium.
 */

const ROOT = new URL('..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';
const run = promisify(execFile);

interface LockEntry {
  readonly version: string;
  readonly resolved?: string;
  readonly dev?: boolean;
  readonly [field: string]: unknown;
}

/**
 * The shop's package-lock.json as `npm install` would write it: the shop's devDependencies, the gateway's runtime
 * packages and Playwright at the versions of this project's lockfile, the gateway from the tarball.
 */
function shopLockfile(shopDir: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const gateway = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string };
  const shop = JSON.parse(readFileSync(join(shopDir, 'package.json'), 'utf8')) as { name: string; devDependencies: Record<string, string> };
  const playwright = new Set(['@playwright/test', 'playwright', 'playwright-core']);
  const packages: Record<string, unknown> = { '': { name: shop.name, devDependencies: shop.devDependencies } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = path.slice('node_modules/'.length);
    if (!path.startsWith('node_modules/') || (entry.dev && !playwright.has(name))) continue;
    // npm leaves `resolved` out of some entries; the registry's tarball URL is what it stands for.
    packages[path] = { ...entry, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`, dev: true };
  }
  packages['node_modules/payment-gateway'] = {
    version: gateway.version,
    resolved: shop.devDependencies['payment-gateway'],
    dev: true,
    dependencies: gateway.dependencies,
    bin: gateway.bin,
    engines: gateway.engines,
  };
  return JSON.stringify({ name: shop.name, lockfileVersion: 3, requires: true, packages }, null, 2);
}

/** Only what a shop's machine has: no database, no settings of this suite. */
const shopEnv = (more: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...more });

describe('the gateway as a dev dependency of a shop', () => {
  let temp: string;
  let shop: string;
  let tarball: string;
  /** What the shop's `npm ci` printed. */
  let installed = '';
  const started: ChildProcess[] = [];

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'gateway-package-'));
    // The widget, dashboard, store image and compiled server are this suite's (globalSetup).
    const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', temp], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    tarball = join(temp, packed.stdout.trim().split('\n').pop() as string);
    shop = join(temp, 'shop');
    cpSync(join(ROOT, 'ci/shop'), shop, { recursive: true });
    cpSync(tarball, join(shop, 'payment-gateway-0.1.0.tgz'));
    writeFileSync(join(shop, 'package-lock.json'), shopLockfile(shop));
    const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: shop, env: shopEnv(), maxBuffer: 16 * 1024 * 1024 });
    installed = `${install.stdout}${install.stderr}`;
  }, 240_000);
  afterAll(async () => {
    for (const child of started) child.kill('SIGKILL');
    await rm(temp, { recursive: true, force: true });
  });

  it('packs what the gateway runs — compiled, built, its migrations and docs — and none of the sources or tests', async () => {
    const listed = (await run('tar', ['tzf', tarball], { maxBuffer: 16 * 1024 * 1024 })).stdout.split('\n').map((line) => line.replace(/^package\//, ''));
    for (const file of ['dist/server/bin.js', 'dist/ci/playwright.js', 'dist/ci/playwright.d.ts', 'dist/ci/fixture.js', 'dist/ci/fixture.d.ts', 'dist/widget/manifest.json', 'dist/dashboard/manifest.json', 'server/store/migrations/0001_merchants_and_payments.sql', 'server/openapi/examples.json', 'docs/ci.md', 'locales/de.json']) {
      expect(listed, file).toContain(file);
    }
    expect(listed.some((file) => /^dist\/store\/migrated-[0-9a-f]+\.tar\.gz$/.test(file))).toBe(true);
    expect(listed.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith('dist/widget/'))).toEqual([]);
    // Its runtime packages run no install script a shop would be asked to approve.
    expect(installed).toMatch(/added \d+ packages/);
    expect(installed).not.toMatch(/warn|install-scripts/);
  });

  it('starts with one command, as the gateway process itself: a payment, then SIGTERM drains it and it exits', async () => {
    const port = await freePort();
    const gateway = spawn(join(shop, 'node_modules/.bin/wpwl-gateway'), ['--ci'], { cwd: shop, env: shopEnv({ PORT: String(port) }), stdio: ['ignore', 'ignore', 'pipe'] });
    started.push(gateway);
    let banner = '';
    gateway.stderr?.on('data', (chunk: Buffer) => (banner += chunk.toString('utf8')));
    const url = `http://127.0.0.1:${port}`;
    await expect.poll(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status, { timeout: 60_000, interval: 100 }).toBe(200);
    // The process node runs is the gateway's: its command line is the compiled command, not npm, a shell or tsx.
    expect(readFileSync(`/proc/${gateway.pid}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(1)).toEqual([join(shop, 'node_modules/.bin/wpwl-gateway'), '--ci']);
    const paid = await fetch(`${url}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: 'Bearer OGFjN2E0Yzc5Mzk0YmRjODAxOTM5NzM2ZjFhNzA2NDF8ZGVtby1tZXJjaGFudA==', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: '8ac7a4c79394bdc801939736f17e063d', amount: '92.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'VISA', 'card.number': '4200000000000000', 'card.holder': 'Jane Jones', 'card.expiryMonth': '05', 'card.expiryYear': '2034', 'card.cvv': '123' }).toString(),
    });
    expect([paid.status, ((await paid.json()) as { result: { code: string } }).result.code]).toEqual([200, '000.100.110']);
    const exited = new Promise<number | null>((resolve) => gateway.on('exit', (code) => resolve(code)));
    gateway.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(banner).toContain('SIGTERM: draining');
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 90_000);

  it('runs the shop’s tests as its GitHub Actions workflow and GitLab CI job do, offline, in the machine’s Chromium: a gateway per worker', async () => {
    // The steps that run commands, as the runners run them. Left out: `uses:` (the runner's checkout, Node and artifact
    // upload), `npm ci` (done above, offline, from the same lockfile) and the image's apt-get (Chromium is here).
    const workflow = parse(readFileSync(join(shop, '.github/workflows/pay.yml'), 'utf8')) as { jobs: Record<string, { env: Record<string, string>; steps: { run?: string; uses?: string }[] }> };
    const job = Object.values(workflow.jobs)[0] as (typeof workflow.jobs)[string];
    const github = job.steps.flatMap((step) => (step.run === undefined || step.uses !== undefined ? [] : [step.run.trim()])).filter((command) => command !== 'npm ci');
    const gitlabJob = (parse(readFileSync(join(shop, '.gitlab-ci.yml'), 'utf8')) as Record<string, { variables: Record<string, string>; before_script: string[]; script: string[]; artifacts: { paths: string[] } }>)['browser-tests'];
    const gitlab = [...(gitlabJob?.before_script ?? []), ...(gitlabJob?.script ?? [])].filter((command) => command !== 'npm ci' && !command.startsWith('apt-get '));
    // The two run the same commands: run once.
    expect(github).toEqual(['npx playwright test']);
    expect(gitlab).toEqual(github);
    const env = shopEnv({ ...job.env, ...gitlabJob?.variables, CHROMIUM_PATH: CHROMIUM });
    const outputs: string[] = [];
    for (const command of github) {
      const result = await run('bash', ['-e', '-c', command], { cwd: shop, env, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string; stderr?: string }) => ({
        stdout: `${error.stdout ?? ''}${error.stderr ?? ''}`,
        stderr: '',
        failed: true,
      }));
      outputs.push(result.stdout);
      expect('failed' in result, result.stdout.slice(-4000)).toBe(false);
    }
    // What the jobs keep as artifacts is there.
    for (const path of gitlabJob?.artifacts.paths ?? []) expect(existsSync(join(shop, path)), path).toBe(true);
    const report = JSON.parse(readFileSync(join(shop, 'playwright-report/results.json'), 'utf8')) as {
      stats: { expected: number; unexpected: number };
      suites: { suites?: unknown[]; specs: { title: string; tests: { annotations: { type: string; description: string }[]; results: { workerIndex: number; status: string }[] }[] }[] }[];
    };
    const specs = report.suites.flatMap((suite) => suite.specs);
    expect(specs.map((spec) => [spec.title, spec.tests[0]?.results[0]?.status])).toEqual([
      ['pays the order with the test card', 'passed'],
      ['passes a 3-D Secure challenge', 'passed'],
      ['a chargeback on a paid order', 'passed'],
      ['shows a decline', 'passed'],
      ['pays a day later on the gateway’s clock, which only this worker’s gateway moved', 'passed'],
    ]);
    // Two workers, each with a gateway of its own.
    const served = new Map<number, Set<string>>();
    for (const spec of specs) {
      const test = spec.tests[0];
      const worker = test?.results[0]?.workerIndex as number;
      for (const note of test?.annotations.filter((annotation) => annotation.type === 'gateway') ?? []) served.set(worker, (served.get(worker) ?? new Set()).add(note.description));
    }
    expect(served.size).toBe(2);
    const urls = [...served.values()].map((set) => [...set]);
    expect(urls.every((list) => list.length === 1)).toBe(true);
    expect(new Set(urls.flat()).size).toBe(2);
    // Each worker's gateway left its integration report beside the results, as JSON and as text.
    const reports = join(shop, 'test-results', 'gateway-integration-report');
    const files = readdirSync(reports).sort();
    expect(files).toEqual([...served.keys()].sort().flatMap((worker) => [`worker-${worker}.json`, `worker-${worker}.txt`]));
    const texts = files.filter((file) => file.endsWith('.txt')).map((file) => readFileSync(join(reports, file), 'utf8'));
    expect(texts.every((text) => text.startsWith('Integration report for entity '))).toBe(true);
    // Between them the workers took a challenge and saw a decline: neither report says all three were never tested.
    const coverage = files.filter((file) => file.endsWith('.json')).map((file) => (JSON.parse(readFileSync(join(reports, file), 'utf8')) as { coverage: Record<string, number> }).coverage);
    expect(coverage.reduce((sum, counts) => sum + (counts.threeDSecureChallenge ?? 0) + (counts.declinedPayment ?? 0), 0)).toBeGreaterThanOrEqual(2);
  }, 180_000);
  it('runs docs/ci.md’s script steps in the shop: the gateway started with its command, a payment, triggers, what was sent, the report, the clock, and SIGTERM', async () => {
    const page = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    const blocks = [...page.matchAll(/^```sh shop\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const port = await freePort();
    const script = blocks.join('\n').replaceAll('8080', String(port));
    const result = await run('bash', ['-e', '-c', script], { cwd: shop, env: shopEnv(), maxBuffer: 16 * 1024 * 1024, timeout: 120_000 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: `${error.stderr ?? ''}`, failed: true }),
    );
    expect('failed' in result, `${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`).toBe(false);
    // The chargeback's reason, its reversal, and the report naming the order number sent as merchantTransactionId.
    expect(result.stdout).toContain('"code": "000.100.203"');
    expect(result.stdout).toContain('"paymentType": "CR"');
    expect(result.stdout).toContain('"steppedSeconds": 86400');
    expect(result.stdout).toContain('[refused] merchantTransactionId shorter than the spec’s 8 characters');
    // Stopped: nothing answers on its port any more.
    await expect(fetch(`http://127.0.0.1:${port}/ready`)).rejects.toThrow();
  }, 150_000);
});
