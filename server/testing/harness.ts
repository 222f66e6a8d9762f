import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, type GatewayConfig } from '../config.ts';
import { newResourceId } from '../domain/ids.ts';
import { startGateway, type GatewayOptions, type RunningGateway } from '../gateway.ts';
import type { Hono } from 'hono';
import type { OppConnectorSettings } from '../acquirerConfig.ts';
import { saveCredentials } from '../acquirers/credentials.ts';
import { createAcquirerRegistry } from '../acquirers/registry.ts';
import { createOutbox } from '../events/outbox.ts';
import { createPaymentServices } from '../payments/services.ts';
import { cancelSchedulesOfDeletedRegistrations } from '../schedules/cancellation.ts';
import { createApp } from '../app.ts';
import type { AppEnv } from '../http/context.ts';
import { createLogger } from '../logger.ts';
import { cachedLegacyAccess } from '../merchants/legacyAccessCache.ts';
import { createEntity, findTokenAccess, grantToken, newAccessToken } from '../merchants/repository.ts';
import { createAuthFailureGuard } from '../throttling/authFailures.ts';

/**
 * Test support: real gateways on loopback ports, over PGlite in a temporary directory and, when
 * TEST_DATABASE_URL is set, over PostgreSQL in a schema of their own.
 */

export type StoreKind = 'PGlite' | 'PostgreSQL';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** The store kinds a suite runs against; PostgreSQL only when TEST_DATABASE_URL is set. */
export const STORE_KINDS: readonly StoreKind[] = TEST_DATABASE_URL ? ['PGlite', 'PostgreSQL'] : ['PGlite'];

/** Says, loudly, that the PostgreSQL half of a suite did not run. Call at the top of store-backed suites. */
export function warnIfPostgresSkipped(suite: string): void {
  if (TEST_DATABASE_URL) return;
  process.stderr.write(
    `\n!!! SKIPPED: ${suite} did NOT run against PostgreSQL: TEST_DATABASE_URL is not set ` +
      `(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test) !!!\n\n`,
  );
}

export interface StoreLocation {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Where the data lives, for tests that inspect it: the PGlite directory or the PostgreSQL schema. */
  readonly schema: string | undefined;
  /**
   * The card-data key gateways on this location share: PostgreSQL requires one (vault/key.ts); on PGlite it is
   * left to the gateway, which keeps a generated one in the data directory.
   */
  readonly cardDataKey: Buffer | undefined;
  dispose(): Promise<void>;
}

/** A fresh, empty store location of the given kind. */
export async function freshStoreLocation(kind: StoreKind): Promise<StoreLocation> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  if (kind === 'PGlite') {
    // A copy of the suite's migrated template (globalSetup.ts) opens in a fraction of initdb's time.
    const template = process.env.GATEWAY_TEST_PGLITE_TEMPLATE;
    if (template) cpSync(template, dataDir, { recursive: true });
    return {
      databaseUrl: undefined,
      dataDir,
      schema: undefined,
      cardDataKey: undefined,
      async dispose() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const base = TEST_DATABASE_URL as string;
  const schema = `test_${newResourceId().slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    dataDir,
    schema,
    cardDataKey: randomBytes(32),
    async dispose() {
      const cleanup = new pg.Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The configuration of a gateway process on `location` (any free port, logging off), as an operator would start it. */
export function configAt(location: StoreLocation, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    cardDataKey: location.cardDataKey,
    demoMerchant: undefined,
    logLevel: 'silent',
    ...overrides,
  };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read deep into response bodies; `any` keeps those reads short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

export interface TestGateway {
  readonly kind: StoreKind;
  readonly url: string;
  readonly gateway: RunningGateway;
  readonly location: StoreLocation;
  readonly entityId: string;
  readonly token: string;
  /** Every log line written so far, as text. */
  readonly logLines: string[];
  /** A second merchant with its own token, for isolation tests. */
  newMerchant(): Promise<{ entityId: string; token: string }>;
  post(path: string, params: Record<string, string> | string, options?: RequestOptions): Promise<ApiResponse>;
  get(path: string, query?: Record<string, string>, options?: RequestOptions): Promise<ApiResponse>;
  /** DELETE with the parameters in the query string, or (`body`) in a form body. */
  delete(path: string, query?: Record<string, string>, options?: RequestOptions & { readonly body?: Record<string, string> }): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  /** The bearer token; `null` sends no Authorization header. Default: the test merchant's token. */
  readonly token?: string | null;
  readonly headers?: Record<string, string>;
}

export async function readResponse(response: Response): Promise<ApiResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the test sees the text and fails on its own assertions.
  }
  return { status: response.status, headers: response.headers, body };
}

/** A port nothing listens on right now (the OS picks it), for servers whose URL must be known before they start. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A clock tests move by hand: expiry, throttling windows and due jobs follow it. */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

export function createTestClock(start: Date = new Date()): TestClock {
  let time = start.getTime();
  return {
    now: () => new Date(time),
    advance(ms) {
      time += ms;
    },
  };
}

/**
 * Gateway options for tests. Jobs do not run by themselves unless `jobPollMs` is set: tests run them with
 * `gateway.jobs.runDueJobs()`, so what ran is decided by the test, not by a timer.
 */
export type TestGatewayOptions = Omit<GatewayOptions, 'logSink'>;

export async function startTestGateway(
  kind: StoreKind,
  overrides: Partial<GatewayConfig> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const location = await freshStoreLocation(kind);
  const logLines: string[] = [];
  // A known port, so the URLs the gateway hands out (redirects) point at this very gateway.
  const port = await freePort();
  const config = configAt(location, { port, publicUrl: `http://127.0.0.1:${port}`, logLevel: 'info', ...overrides });
  // The dashboard's second factor only where a test asks for it ('asked'): the others sign in with a password.
  const gateway = await startGateway(config, { jobPollMs: 0, dashboardSecondFactor: 'notAsked', ...options, logSink: (line) => logLines.push(line) });
  const newMerchant = async () => {
    const token = newAccessToken();
    const entity = await gateway.store.transaction(async (tx) => {
      const created = await createEntity(tx, 'Test merchant');
      await grantToken(tx, token, 'test', [created.id]);
      return created;
    });
    return { entityId: entity.id, token };
  };
  const merchant = await newMerchant();
  const authorization = (options: RequestOptions): Record<string, string> => {
    const token = options.token === undefined ? merchant.token : options.token;
    return token === null ? {} : { Authorization: `Bearer ${token}` };
  };
  return {
    kind,
    url: gateway.url,
    gateway,
    location,
    entityId: merchant.entityId,
    token: merchant.token,
    logLines,
    newMerchant,
    async post(path, params, options = {}) {
      const body = typeof params === 'string' ? params : new URLSearchParams(params).toString();
      const response = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
          ...authorization(options),
          ...options.headers,
        },
        body,
      });
      return readResponse(response);
    },
    async get(path, query = {}, options = {}) {
      const search = new URLSearchParams(query).toString();
      const response = await fetch(`${gateway.url}${path}${search ? `?${search}` : ''}`, {
        headers: { ...authorization(options), ...options.headers },
      });
      return readResponse(response);
    },
    async delete(path, query = {}, options = {}) {
      const search = new URLSearchParams(query).toString();
      const response = await fetch(`${gateway.url}${path}${search ? `?${search}` : ''}`, {
        method: 'DELETE',
        headers: {
          ...authorization(options),
          ...(options.body ? { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' } : {}),
          ...options.headers,
        },
        ...(options.body ? { body: new URLSearchParams(options.body).toString() } : {}),
      });
      return readResponse(response);
    },
    async close() {
      await gateway.close();
      await location.dispose();
    },
  };
}

/** What a browser reports for 3-D Secure 2 (doc 2 §2.9): an enrolled card needs it server to server. */
export const BROWSER_DATA: Readonly<Record<string, string>> = {
  'customer.browser.acceptHeader': 'text/html',
  'customer.browser.language': 'de-DE',
  'customer.browser.screenHeight': '900',
  'customer.browser.screenWidth': '1440',
  'customer.browser.timezone': '-60',
  'customer.browser.userAgent': 'Mozilla/5.0 (X11; Linux x86_64)',
  'customer.browser.javaEnabled': 'false',
};

/**
 * The shopper's answer on the page a pending payment redirects to (the simulated issuer's challenge, a provider's
 * page): by default, the right code submitted.
 */
export function answerRedirect(pending: ApiResponse, fields: Record<string, string> = { action: 'submit', otp: '1234' }): Promise<Response> {
  const redirect = pending.body.redirect as { url: string };
  return fetch(`${redirect.url}/answer`, {
    method: 'POST',
    body: new URLSearchParams({ paymentId: pending.body.id, ...fields }),
    redirect: 'manual',
  });
}

/** A valid card payment request for the test merchant; override any field. */
export function cardPayment(entityId: string, overrides: Record<string, string> = {}): Record<string, string> {
  return { entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB', ...testCard(), ...overrides };
}

/** The VISA test card as a shopper enters it (brand, number, holder, expiry, CVV); override any field. */
export function testCard(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    paymentBrand: 'VISA',
    'card.number': '4200000000000000',
    'card.holder': 'Jane Jones',
    'card.expiryMonth': '05',
    'card.expiryYear': '2034',
    'card.cvv': '123',
    ...overrides,
  };
}

/** A connector's settings for a provider at `url`, with short waits (a test's provider is on loopback). */
export function connectorTo(url: string, overrides: Partial<OppConnectorSettings> = {}): OppConnectorSettings {
  return { kind: 'opp', url, timeoutMs: 2000, neverReceivedAfterMs: 60_000, notificationKey: undefined, maxConnections: 32, ...overrides };
}

/**
 * An app (no port: use app.request) over the test gateway's store, configured as a live gateway. A live gateway never
 * pays through a simulated acquirer: each of its acquirers is a connector to the test gateway itself (speaking the
 * API, in test mode), with the test merchant's credentials there.
 */
export async function liveApp(t: TestGateway, now: () => Date = () => new Date()): Promise<Hono<AppEnv>> {
  const upstream = connectorTo(t.url, { timeoutMs: 10_000, neverReceivedAfterMs: 600_000, maxConnections: 8 });
  const config = { ...t.gateway.config, environment: 'live' as const, connectors: Object.fromEntries(t.gateway.config.acquirers.map((name) => [name, upstream])) };
  const logger = createLogger({ level: 'silent' });
  const { vault } = t.gateway.payments;
  for (const name of config.acquirers) {
    await t.gateway.store.transaction((tx) => saveCredentials(tx, vault, t.entityId, name, { entityId: t.entityId, accessToken: t.token }, now()));
  }
  return createApp({
    readiness: async () => ({}),
    config,
    store: t.gateway.store,
    logger,
    observations: t.gateway.observations,
    payments: createPaymentServices({
      store: t.gateway.store,
      outbox: createOutbox([cancelSchedulesOfDeletedRegistrations]),
      acquirers: createAcquirerRegistry(t.gateway.store, config, { vault, now, logger }),
      directory: undefined,
      vault,
      environment: 'live',
      registrationLifetimeMonths: config.registrationLifetimeMonths,
      now,
      publicUrl: config.publicUrl,
      logger,
    }),
    tokenAccess: (token) => findTokenAccess(t.gateway.store, token),
    legacyAccess: cachedLegacyAccess(t.gateway.store, 0, now),
    authFailures: createAuthFailureGuard(t.gateway.store, 0, now),
    widgetBuild: undefined,
    staticBaseUrl: `${t.url}/v1/static/unbuilt`,
    now,
    webhooks: { ...t.gateway.webhooks.services, environment: 'live', now, logger },
  });
}

/** A subscription's first, cardholder-initiated payment (doc 3 §2.14): it starts the card-on-file agreement. */
export const CIT_INITIAL: Readonly<Record<string, string>> = {
  'standingInstruction.type': 'RECURRING',
  'standingInstruction.mode': 'INITIAL',
  'standingInstruction.source': 'CIT',
  'standingInstruction.recurringType': 'SUBSCRIPTION',
};

/** A later, merchant-initiated payment of that agreement. */
export const MIT_REPEATED: Readonly<Record<string, string>> = {
  'standingInstruction.type': 'RECURRING',
  'standingInstruction.mode': 'REPEATED',
  'standingInstruction.source': 'MIT',
  'standingInstruction.recurringType': 'SUBSCRIPTION',
};
