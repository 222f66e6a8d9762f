import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test as base } from '@playwright/test';
import { packagePath } from '../server/paths.ts';
import { completeChallenge, payWithTestCard, type PayOptions } from './playwright.ts';

/**
 * Playwright Test fixtures for a shop's browser tests (`payment-gateway/playwright/test`, docs/ci.md): a gateway per
 * worker — its own process (`wpwl-gateway --ci`), port, in-memory store and clock, so parallel workers never share a
 * payment, a webhook or a moved clock — with the demo merchant's credentials, the clock, the events a test makes happen
 * (triggers), what the gateway sent, and the shopper's steps; at the worker's end, the gateway's integration report
 * beside Playwright's results. A shop whose server talks to the gateway names the command that starts it (`shop`
 * option): it is started per worker too, told its worker's gateway (GATEWAY_URL, GATEWAY_ENTITY_ID, GATEWAY_TOKEN) and
 * its port (SHOP_PORT), and becomes the tests' baseURL.
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
    /**
     * Everything sent, newest first: webhook delivery attempts (`kind: 'webhook'`, the notification decrypted and the
     * receiver's answer), calls to a checkout's shopperResultUrl or notificationUrl (`'notification'`), and pages the
     * shopper was sent to and back from (`'redirect'`); of one payment (with the operations on it) or checkout.
     */
    list(filter?: SentFilter): Promise<SentItem[]>;
    /** The last webhook delivery attempt, with the notification decrypted; undefined before any. */
    lastWebhook(): Promise<Record<string, unknown> | undefined>;
    /** The last call to a checkout's shopperResultUrl or notificationUrl; undefined before any. */
    lastNotification(): Promise<Record<string, unknown> | undefined>;
  };
  /**
   * Makes an event happen now on the shop's own objects (docs/ci.md, "Triggering events"), with what the gateway does
   * when it comes by itself, and what fell due after it; answers what it caused. Throws with the gateway's words when it
   * is refused (an unknown payment, a chargeback of more than was paid).
   */
  trigger(name: TriggerName, parameters?: Record<string, string>): Promise<TriggerAnswer>;
  /** A checkout made as the merchant's server makes one (amount, currency, paymentType...); its id. */
  createCheckout(parameters: Record<string, string>): Promise<string>;
}

export type TriggerName =
  | 'chargeback'
  | 'chargeback-reversal'
  | 'async-approval'
  | 'async-decline'
  | 'async-expiry'
  | 'webhook-resend'
  | 'checkout-expiry'
  | 'schedule-fire'
  | 'registration-expiry'
  | 'settlement'
  | 'upstream-notification';

export interface TriggerAnswer {
  readonly trigger: TriggerName;
  /** What it made or changed: `chargeback`, `reversal`, `payment` (as the API answers them), ids, `files` … */
  // Each trigger answers its own objects (docs/ci.md); a test reads what it asked for.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly caused: Record<string, any>;
  /** The events appended meanwhile (each sent to the shop's webhooks): type, action, resourceId. */
  readonly events: readonly { readonly id: number; readonly type: string; readonly action: string; readonly resourceId: string; readonly createdAt: string }[];
  /** Jobs and schedules that fell due and ran after it. */
  readonly ran: number;
}

export interface SentFilter {
  readonly paymentId?: string;
  readonly checkoutId?: string;
  readonly kind?: 'webhook' | 'notification' | 'redirect';
}

/** One thing the gateway sent (docs/ci.md, "What was sent"). */
export type SentItem = Record<string, unknown> & { readonly kind: 'webhook' | 'notification' | 'redirect'; readonly at: string };

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
      list: async (filter = {}) => {
        const query = new URLSearchParams({ entityId, ...filter }).toString();
        return ((await control('GET', `/sent?${query}`)) as { sent: SentItem[] }).sent;
      },
      lastWebhook: () => control('GET', `/sent/webhook?entityId=${entityId}`),
      lastNotification: () => control('GET', '/sent/notification'),
    },
    async trigger(name, parameters = {}) {
      const response = await fetch(`${url}/test/v1/triggers/${encodeURIComponent(name)}`, { method: 'POST', body: new URLSearchParams(parameters) });
      const body = (await response.json()) as TriggerAnswer & { result?: { description?: string } };
      if (!response.ok) throw new Error(`trigger ${name}: ${response.status} ${body.result?.description ?? JSON.stringify(body.caused)}`);
      return body;
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

/**
 * The gateway's integration report of the demo merchant (docs/ci.md, "The integration report") as `<name>.json` and
 * `<name>.txt` in `directory`. A report that cannot be read is said in the text file, never a failed test.
 */
async function writeIntegrationReport(gateway: CiGateway, directory: string, name: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  try {
    for (const format of ['json', 'text'] as const) {
      const response = await fetch(`${gateway.url}/test/v1/report?entityId=${gateway.entityId}&format=${format}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      await writeFile(join(directory, `${name}.${format === 'json' ? 'json' : 'txt'}`), await response.text());
    }
  } catch (error) {
    await writeFile(join(directory, `${name}.txt`), `The gateway's integration report could not be read: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  gateway: [
    async ({}, use, workerInfo) => {
      const started = await startGateway();
      await use(started.gateway);
      // What this worker's tests leaned on, kept beside Playwright's results (the job's artifact): JSON and text.
      await writeIntegrationReport(started.gateway, join(workerInfo.project.outputDir, 'gateway-integration-report'), `worker-${workerInfo.workerIndex}`);
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
