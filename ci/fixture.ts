import { spawn, type ChildProcess } from 'node:child_process';
import { test as base } from '@playwright/test';
import { packagePath } from '../server/paths.ts';
import { completeChallenge, payWithTestCard, type PayOptions } from './playwright.ts';

/**
 * Playwright Test fixtures for a shop's browser tests (`payment-gateway/playwright/test`, docs/ci.md): a gateway per
 * worker — its own process (`wpwl-gateway --ci`), port, in-memory store and clock, so parallel workers never share a
 * payment, a webhook or a moved clock — with the demo merchant's credentials, the clock, what the gateway sent, and
 * the shopper's steps. A shop whose server talks to the gateway names the command that starts it (`shop` option): it
 * is started per worker too, told its worker's gateway (GATEWAY_URL, GATEWAY_ENTITY_ID, GATEWAY_TOKEN) and its port
 * (SHOP_PORT), and becomes the tests' baseURL.
 */

export interface ClockStep {
  readonly now: string;
  /** The step just taken, in seconds (negative for a reset). */
  readonly steppedSeconds: number;
  /** How far the gateway's clock is from the machine's, in seconds. */
  readonly advancedSeconds: number;
  /** Jobs and schedules that fell due and ran. */
  readonly ran: number;
}

export interface CiGateway {
  /** `http://127.0.0.1:<port>` of this worker's gateway. */
  readonly url: string;
  /** The demo merchant, which exists only in this gateway's memory. */
  readonly entityId: string;
  readonly accessToken: string;
  readonly clock: {
    /** Moves this gateway's clock forward and runs what fell due. */
    advance(seconds: number): Promise<ClockStep>;
    /** Back to the machine's time. */
    reset(): Promise<ClockStep>;
    now(): Promise<Date>;
  };
  readonly sent: {
    /** The last webhook delivery attempt, with the notification decrypted; undefined before any. */
    lastWebhook(): Promise<Record<string, unknown> | undefined>;
    /** The last call to a checkout's shopperResultUrl or notificationUrl; undefined before any. */
    lastNotification(): Promise<Record<string, unknown> | undefined>;
  };
  /** A checkout made as the merchant's server makes one (amount, currency, paymentType...); its id. */
  createCheckout(parameters: Record<string, string>): Promise<string>;
}

export interface ShopOption {
  /** The command that starts the shop's server (run by a shell in the current directory), e.g. `node shop.js`. */
  readonly command: string;
  /** The path answering 200 once the shop is up. Default `/`. */
  readonly readyPath?: string;
}

const STARTUP_MS = 60_000;

const freePort = async (): Promise<number> => {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
};

async function waitFor(url: string, process: ChildProcess, what: string, output: () => string): Promise<void> {
  const began = Date.now();
  for (;;) {
    if (process.exitCode !== null) throw new Error(`${what} exited (${process.exitCode}) before it answered:\n${output()}`);
    const answered = await fetch(url).then((response) => response.status === 200, () => false);
    if (answered) return;
    if (Date.now() - began > STARTUP_MS) throw new Error(`${what} did not answer ${url} within ${STARTUP_MS / 1000} s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  return exited;
}

async function startGateway(): Promise<{ gateway: CiGateway; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [packagePath('dist/server/bin.js').pathname, '--ci'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, TEST_CONTROL_API: 'true', DATABASE_URL: '', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let banner = '';
  child.stderr?.on('data', (chunk: Buffer) => (banner += chunk.toString('utf8')));
  await waitFor(`${url}/ready`, child, 'the gateway', () => banner);
  const entityId = /entityId\s+([0-9a-f]{32})/.exec(banner)?.[1];
  const accessToken = /access token\s+(\S+)/.exec(banner)?.[1];
  if (!entityId || !accessToken) throw new Error(`the gateway named no demo merchant:\n${banner}`);
  const control = async (method: string, path: string, form?: Record<string, string>): Promise<Record<string, unknown> | undefined> => {
    const response = await fetch(`${url}/test/v1${path}`, { method, ...(form ? { body: new URLSearchParams(form) } : {}) });
    if (response.status === 404) return undefined;
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} /test/v1${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const gateway: CiGateway = {
    url,
    entityId,
    accessToken,
    clock: {
      advance: async (seconds) => (await control('POST', '/clock', { advanceSeconds: String(seconds) })) as unknown as ClockStep,
      reset: async () => (await control('POST', '/clock', { reset: 'true' })) as unknown as ClockStep,
      now: async () => new Date(String((await control('GET', '/clock'))?.now)),
    },
    sent: {
      lastWebhook: () => control('GET', `/sent/webhook?entityId=${entityId}`),
      lastNotification: () => control('GET', '/sent/notification'),
    },
    async createCheckout(parameters) {
      const response = await fetch(`${url}/v1/checkouts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ entityId, ...parameters }),
      });
      const body = (await response.json()) as { id?: string; result?: { code?: string; description?: string } };
      if (!body.id) throw new Error(`the checkout was refused: ${body.result?.code} ${body.result?.description}`);
      return body.id;
    },
  };
  return { gateway, stop: () => stopped(child) };
}

async function startShop(option: ShopOption, gateway: CiGateway): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const child = spawn(option.command, {
    shell: true,
    detached: true,
    env: { ...process.env, GATEWAY_URL: gateway.url, GATEWAY_ENTITY_ID: gateway.entityId, GATEWAY_TOKEN: gateway.accessToken, SHOP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await waitFor(`${url}${option.readyPath ?? '/'}`, child, `the shop (${option.command})`, () => output);
  return {
    url,
    async stop() {
      // The shell and what it started: the shop's process group.
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-(child.pid as number), 'SIGTERM');
      } catch {
        return;
      }
      await exited;
    },
  };
}

interface WorkerFixtures {
  gateway: CiGateway;
  shop: ShopOption | undefined;
  shopUrl: string | undefined;
}

interface TestFixtures {
  /** Types a test card into the page's widget and pays (options: number, expiry, holder, cvv, brand, within). */
  payWithCard(options?: PayOptions): Promise<void>;
  /** Answers the 3-D Secure challenge: 1234 passes it, another code fails it, 'cancel' leaves it. */
  completeChallenge(otp?: string): Promise<void>;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  gateway: [
    async ({}, use) => {
      const started = await startGateway();
      await use(started.gateway);
      await started.stop();
    },
    { scope: 'worker', timeout: STARTUP_MS + 10_000 },
  ],
  shop: [undefined, { scope: 'worker', option: true }],
  shopUrl: [
    async ({ shop, gateway }, use) => {
      if (!shop) return use(undefined);
      const started = await startShop(shop, gateway);
      await use(started.url);
      await started.stop();
    },
    { scope: 'worker', timeout: STARTUP_MS + 10_000 },
  ],
  baseURL: async ({ shopUrl, baseURL }, use) => use(shopUrl ?? baseURL),
  payWithCard: async ({ page }, use) => use((options) => payWithTestCard(page, options)),
  completeChallenge: async ({ page }, use) => use((otp) => completeChallenge(page, otp)),
});

export { expect } from '@playwright/test';
