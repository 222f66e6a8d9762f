/**
 * The gateway's configuration: every environment variable the server reads is read here, and only here.
 * docs/operating.md documents each one (docs/examples.test.ts checks it).
 */

import { createHash } from 'node:crypto';
import { BlockList, isIP } from 'node:net';
import { ENTITY_ID } from './domain/ids.ts';
import { AcquirerConfigError, readAcquirersFile, type ConnectorSettings } from './acquirerConfig.ts';
import { parseSettlementConfig, SettlementConfigError, type SettlementConfig } from './settlementConfig.ts';

export type GatewayEnvironment = 'test' | 'live';

export interface DemoMerchant {
  readonly entityId: string;
  readonly accessToken: string;
  /** The demo's legacy credentials (COMPAT §1: authentication.userId / authentication.password). */
  readonly userId: string;
  readonly password: string;
}

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  /** Directory of the embedded PGlite store; unused when `databaseUrl` is set. */
  readonly dataDir: string;
  /** PostgreSQL connection string; when set, PostgreSQL is used instead of the embedded store. */
  readonly databaseUrl: string | undefined;
  /** Base URL the gateway puts into URLs it hands out (redirects, widget script, static assets). */
  readonly publicUrl: string;
  readonly environment: GatewayEnvironment;
  /** The demo merchant created at start-up (test environment only). */
  readonly demoMerchant: DemoMerchant | undefined;
  readonly logLevel: LogLevel;
  /** How long a gateway trusts what it read about an access token; a revocation takes effect within this time. */
  readonly tokenCacheSeconds: number;
  /**
   * CARD_DATA_KEY: 64 hex characters (AES-256) sealing card data the gateway keeps (a card waiting for its
   * 3-D Secure challenge, stored cards). vault/key.ts says when it may be left unset.
   */
  readonly cardDataKey: Buffer | undefined;
  /** CARD_DATA_KEY_FILE: a file holding the key, as an alternative to CARD_DATA_KEY. */
  readonly cardDataKeyFile: string | undefined;
  /**
   * CARD_DATA_PREVIOUS_KEYS: keys (64 hex each, comma-separated) that still open card data but never seal it: the
   * key a rotation replaces, until `npm run gateway -- keys rotate` has re-sealed everything (vault/rotation.ts).
   */
  readonly cardDataPreviousKeys: readonly Buffer[];
  /** CARD_DATA_PREVIOUS_KEYS_FILE: a file holding such keys, one per line (vault/key.ts reads it). */
  readonly cardDataPreviousKeysFile: string | undefined;
  readonly http: HttpLimits;
  /**
   * OUTBOUND_ALLOW_PRIVATE: whether the gateway's outbound calls may reach loopback, private and link-local
   * addresses (outbound/http.ts). On by default in test (merchants test against local servers), off in live.
   */
  readonly outboundAllowPrivate: boolean;
  readonly limits: RequestLimits;
  readonly throttle: ThrottleBackend;
  /**
   * CLIENT_ADDRESS_HEADER: behind a reverse proxy, the request header naming the client's address (its last
   * entry, the one the proxy added, e.g. X-Forwarded-For). Unset: the connection's own address.
   */
  readonly clientAddressHeader: string | undefined;
  /**
   * GOOGLE_PAY_GATEWAY: the name Google registered for this gateway's operator, the `gateway` of Google Pay's
   * tokenizationSpecification the wallet buttons send (wallets/routes.ts). Google's TEST environment takes any name;
   * paying in PRODUCTION needs the registered one.
   */
  readonly googlePayGateway: string;
  /**
   * ACQUIRERS: the acquirers payments can go to, by name. New payments go to DEFAULT_ACQUIRER (or where the entity's
   * routing rules send them); every later operation on a payment goes to the acquirer recorded with it
   * (acquirers/registry.ts).
   */
  readonly acquirers: readonly string[];
  readonly defaultAcquirer: string;
  /**
   * ACQUIRERS_FILE (acquirerConfig.ts): the acquirers that are connectors to real providers, by name, with their
   * settings. A name of ACQUIRERS not described here is a simulated acquirer: test only.
   */
  readonly connectors: Readonly<Record<string, ConnectorSettings>>;
  /** REGISTRATION_LIFETIME_MONTHS: a registration expires this long after its creation or last successful payment. */
  readonly registrationLifetimeMonths: number;
  /**
   * SIMULATED_SETTLEMENT_MINUTES: in test, the simulated providers settle a cash voucher or prepayment (the shopper's
   * money arrives), or confirm a payment the shopper left pending on their page, this long after it started waiting;
   * 0: only on the operator's word. Always 0 in live, where no simulated provider settles anything.
   */
  readonly simulatedSettlementMinutes: number;
  /**
   * SIMULATED_ACQUIRER_LATENCY_MS: in test, how long the simulated acquirers wait before answering each call, as an
   * acquirer on another machine takes time to answer (the bench measures payments waiting on it); default 0. Must be 0
   * in live, where nothing may slow payments down on purpose.
   */
  readonly simulatedAcquirerLatencyMs: number;
  /**
   * SIMULATOR_DURABLE_RECORDS: the simulated acquirers commit their record of an answer before they give it, as an
   * acquirer on another machine would (a third commit per payment); false (the default): the record is written in the
   * transaction that records the payment, and a crash before it loses both (acquirers/simulator.ts).
   */
  readonly simulatorDurableRecords: boolean;
  /**
   * SCHEDULE_CATCH_UP_HOURS: a schedule's fire time missed while no gateway ran is still run (once, for all the fire
   * times missed) when a gateway comes back within this many hours of it; older ones are skipped.
   */
  readonly scheduleCatchUpHours: number;
  /**
   * ADMIN_TOKEN: the bearer token of the admin API (`/admin/v1/...`, webhooks/routes.ts), at least 32 characters.
   * Unset: the admin API is absent (404).
   */
  readonly adminToken: string | undefined;
  /**
   * Where Prometheus reads /metrics (metrics/metrics.ts): METRICS_PORT, a listener of its own on METRICS_HOST (default
   * 127.0.0.1) that serves only /metrics; METRICS_TOKEN, the bearer token /metrics then asks for (on the main port,
   * /metrics exists only with a token). Neither set: no metrics are served. In live, METRICS_PORT on a METRICS_HOST that
   * is not loopback requires the token.
   */
  readonly metrics: { readonly port: number | undefined; readonly host: string; readonly token: string | undefined };
  /**
   * SHUTDOWN_TIMEOUT_SECONDS: how long a stop (SIGTERM, SIGINT) may drain (requests being handled, jobs running)
   * before the process exits anyway (main.ts).
   */
  readonly shutdownTimeoutMs: number;
  /**
   * TEST_CONTROL_API=true: the test-only control API under /test/v1 (control/routes.ts: advance the gateway's clock,
   * read what it last sent). Refused in live.
   */
  readonly testControlApi: boolean;
  /**
   * RECONCILIATION_FILE_HOUR (UTC, 0 to 5): from this hour on, yesterday's reconciliation files are sent (COMPAT §14:
   * they must be there by 06:00 UTC); after the settlement run's cut-off before midnight.
   */
  readonly reconciliationFileHour: number;
  /**
   * PSP_ENTITY_ID: the gateway's own id, the PspId of reconciliation files (32 lowercase hex). Default: derived from
   * PUBLIC_URL, so it stays the same for as long as the gateway's address does.
   */
  readonly pspEntityId: string;
  /**
   * The simulated acquirers' daily settlement (reports/settlementConfig.ts): SETTLEMENT_CUTOFF_UTC (HH:mm, default
   * 22:00), SETTLEMENT_FEE_PERCENT (default 1.4), SETTLEMENT_FEE_FIXED (default 0.25), SETTLEMENT_FX_RATES
   * (FROM:TO=RATE,...).
   */
  readonly settlement: SettlementConfig;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Limits on what clients may ask, counted in the store so every instance shares them (throttling/). 0: no limit. */
export interface RequestLimits {
  /** Failed authentications per minute from one client address; beyond, the address is refused for the minute. */
  readonly authFailuresPerMinute: number;
  /** GET /v1/payments/{id}, per payment (COMPAT §8). */
  readonly paymentReadsPerMinute: number;
  /** POST /v1/payments/{id} (captures, refunds, reversals), per entity (COMPAT §8). */
  readonly backOfficePerMinute: number;
  /** GET /v1/checkouts/{id}/payment, per checkout (COMPAT §8). */
  readonly checkoutReadsPerMinute: number;
  /** Declined payments a checkout takes before it refuses further submits (card testing). */
  readonly checkoutMaxDeclines: number;
  /** Every authenticated request, per entity (COMPAT §17). */
  readonly requestsPerMinute: number;
  /** Payments made (POST /v1/payments, checkout submits, registrations, schedules), per entity. */
  readonly paymentCreationsPerMinute: number;
  /** GET /v1/query/{id}, per id (COMPAT §17). */
  readonly queryReadsPerMinute: number;
  /** List queries and settlement reports, per entity and second (COMPAT §17). */
  readonly listQueriesPerSecond: number;
}

/** Where request limits are counted (throttling/counters.ts): the store, or Redis when a URL is set. */
export interface ThrottleBackend {
  /** THROTTLE_REDIS_URL, e.g. redis://127.0.0.1:6379; unset: counted in the store. */
  readonly redisUrl: string | undefined;
  /** THROTTLE_REDIS_PREFIX: the prefix of every key the gateway writes in Redis (default `gateway:throttle:`). */
  readonly redisKeyPrefix: string;
}

/** How long the HTTP server waits for clients, and how many connections it holds (http/listener.ts). */
export interface HttpLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  /** 0: no cap per client address (behind a reverse proxy, where every client has the proxy's address). */
  readonly maxConnectionsPerClient: number;
}

/**
 * Well-known demo credentials for test mode. They are printed at start and written in the README, so a live
 * gateway never accepts them, nor any other demo credentials (see merchants/demo.ts).
 */
export const DEFAULT_DEMO_MERCHANT: DemoMerchant = {
  entityId: '8ac7a4c79394bdc801939736f17e063d',
  accessToken: 'OGFjN2E0Yzc5Mzk0YmRjODAxOTM5NzM2ZjFhNzA2NDF8ZGVtby1tZXJjaGFudA==',
  // The pair the access token above spells in base64.
  userId: '8ac7a4c79394bdc801939736f1a70641',
  password: 'demo-merchant',
};

export class ConfigError extends Error {}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parseTokenCacheSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 10;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 3600) {
    throw new ConfigError(`TOKEN_CACHE_SECONDS must be an integer between 0 and 3600, got "${raw}"`);
  }
  return seconds;
}

function parseInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function parseHttpLimits(env: NodeJS.ProcessEnv): HttpLimits {
  const headersSeconds = parseInteger('HTTP_HEADERS_TIMEOUT_SECONDS', env.HTTP_HEADERS_TIMEOUT_SECONDS, 10, 1, 600);
  const requestSeconds = parseInteger('HTTP_REQUEST_TIMEOUT_SECONDS', env.HTTP_REQUEST_TIMEOUT_SECONDS, 30, 1, 3600);
  if (requestSeconds < headersSeconds) {
    throw new ConfigError('HTTP_REQUEST_TIMEOUT_SECONDS must not be smaller than HTTP_HEADERS_TIMEOUT_SECONDS');
  }
  return {
    headersTimeoutMs: headersSeconds * 1000,
    requestTimeoutMs: requestSeconds * 1000,
    keepAliveTimeoutMs: parseInteger('HTTP_KEEP_ALIVE_TIMEOUT_SECONDS', env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS, 5, 1, 600) * 1000,
    maxConnections: parseInteger('HTTP_MAX_CONNECTIONS', env.HTTP_MAX_CONNECTIONS, 10_000, 1, 1_000_000),
    maxConnectionsPerClient: parseInteger('HTTP_MAX_CONNECTIONS_PER_CLIENT', env.HTTP_MAX_CONNECTIONS_PER_CLIENT, 500, 0, 1_000_000),
  };
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ConfigError(`${name} must be "true" or "false", got "${raw}"`);
}

function parseRequestLimits(env: NodeJS.ProcessEnv): RequestLimits {
  const limit = (name: string, fallback: number) => parseInteger(name, env[name], fallback, 0, 1_000_000);
  return {
    authFailuresPerMinute: limit('THROTTLE_AUTH_FAILURES_PER_MINUTE', 20),
    paymentReadsPerMinute: limit('THROTTLE_PAYMENT_READS_PER_MINUTE', 2),
    backOfficePerMinute: limit('THROTTLE_BACK_OFFICE_PER_MINUTE', 200),
    checkoutReadsPerMinute: limit('THROTTLE_CHECKOUT_READS_PER_MINUTE', 2),
    checkoutMaxDeclines: limit('CHECKOUT_MAX_DECLINED_PAYMENTS', 10),
    requestsPerMinute: limit('THROTTLE_REQUESTS_PER_MINUTE', 12_000),
    paymentCreationsPerMinute: limit('THROTTLE_PAYMENT_CREATIONS_PER_MINUTE', 6_000),
    queryReadsPerMinute: limit('THROTTLE_QUERY_READS_PER_MINUTE', 2),
    listQueriesPerSecond: limit('THROTTLE_LIST_QUERIES_PER_SECOND', 1),
  };
}

function parseThrottleBackend(env: NodeJS.ProcessEnv): ThrottleBackend {
  const url = env.THROTTLE_REDIS_URL;
  if (url !== undefined && url !== '') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    // Never the value itself in the message: it may hold a password.
    if (!parsed || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) throw new ConfigError('THROTTLE_REDIS_URL must be a redis:// or rediss:// URL');
  }
  const prefix = env.THROTTLE_REDIS_PREFIX;
  if (prefix !== undefined && prefix !== '' && !/^[\x21-\x7e]{1,64}$/.test(prefix)) throw new ConfigError('THROTTLE_REDIS_PREFIX must be 1 to 64 printable characters without spaces');
  return { redisUrl: url === '' ? undefined : url, redisKeyPrefix: prefix === undefined || prefix === '' ? 'gateway:throttle:' : prefix };
}

function parseHeaderName(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Za-z0-9-]{1,64}$/.test(raw)) throw new ConfigError(`${name} must be an HTTP header name, got "${raw}"`);
  return raw.toLowerCase();
}

/** The name a gateway goes by in Google Pay when its operator has none registered yet. */
export const DEFAULT_GOOGLE_PAY_GATEWAY = 'wpwlgateway';

function parseGooglePayGateway(raw: string | undefined): string {
  if (raw === undefined || raw === '') return DEFAULT_GOOGLE_PAY_GATEWAY;
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(raw)) throw new ConfigError(`GOOGLE_PAY_GATEWAY must be the gateway name Google registered (lowercase letters, digits, _ and -), got "${raw.slice(0, 64)}"`);
  return raw;
}

const ACQUIRER_NAME = /^[a-z][a-z0-9-]{0,31}$/;

function parseAcquirers(raw: string | undefined, defaultRaw: string | undefined): { acquirers: string[]; defaultAcquirer: string } {
  const acquirers = raw === undefined || raw.trim() === '' ? ['simulator'] : raw.split(',').map((name) => name.trim());
  for (const name of acquirers) {
    if (!ACQUIRER_NAME.test(name)) {
      throw new ConfigError(`ACQUIRERS must be a comma-separated list of names (lowercase letters, digits, hyphens), got "${name}"`);
    }
  }
  if (new Set(acquirers).size !== acquirers.length) throw new ConfigError('ACQUIRERS names an acquirer twice');
  const defaultAcquirer = defaultRaw === undefined || defaultRaw === '' ? (acquirers[0] as string) : defaultRaw;
  if (!acquirers.includes(defaultAcquirer)) throw new ConfigError(`DEFAULT_ACQUIRER must be one of ACQUIRERS (${acquirers.join(', ')}), got "${defaultAcquirer}"`);
  return { acquirers, defaultAcquirer };
}

function parseConnectors(path: string | undefined, acquirers: readonly string[]): Readonly<Record<string, ConnectorSettings>> {
  if (path === undefined || path === '') return {};
  try {
    return readAcquirersFile(path, acquirers);
  } catch (error) {
    if (error instanceof AcquirerConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

/** The names of ACQUIRERS that are simulated: those ACQUIRERS_FILE does not describe. */
export function simulatedAcquirers(config: Pick<GatewayConfig, 'acquirers' | 'connectors'>): string[] {
  return config.acquirers.filter((name) => config.connectors[name] === undefined);
}

/**
 * Live never pretends (issue 33): a live gateway pays only through connectors to real providers, never through a
 * simulated acquirer, which would approve what no one paid.
 */
function refuseSimulatedInLive(environment: GatewayEnvironment, acquirers: readonly string[], connectors: Readonly<Record<string, ConnectorSettings>>, named: boolean): void {
  if (environment !== 'live') return;
  const simulated = simulatedAcquirers({ acquirers, connectors });
  if (simulated.length === 0) return;
  const which = named ? `ACQUIRERS names ${simulated.join(', ')}, which ACQUIRERS_FILE does not describe` : 'ACQUIRERS is not set (its default is the simulator)';
  throw new ConfigError(
    `${which}: a live gateway never pays through a simulated acquirer. Describe each acquirer in ACQUIRERS_FILE (kind "opp" and the provider's url), or take it out of ACQUIRERS`,
  );
}

function parseCardDataKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(raw)) throw new ConfigError('CARD_DATA_KEY must be 64 hexadecimal characters (32 bytes)');
  return Buffer.from(raw, 'hex');
}

function parsePreviousCardDataKeys(raw: string | undefined): Buffer[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((entry, index) => {
    const hex = entry.trim();
    // Never the value itself in the message: it may be a key with a typo.
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
      throw new ConfigError(`CARD_DATA_PREVIOUS_KEYS must be a comma-separated list of keys of 64 hexadecimal characters (32 bytes); entry ${index + 1} is not`);
    }
    return Buffer.from(hex, 'hex');
  });
}

function parseEnvironment(raw: string | undefined): GatewayEnvironment {
  if (raw === undefined || raw === '') return 'test';
  if (raw === 'test' || raw === 'live') return raw;
  throw new ConfigError(`GATEWAY_ENV must be "test" or "live", got "${raw}"`);
}

function parseLogLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'info';
  if (raw === 'debug' || raw === 'info' || raw === 'warn' || raw === 'error' || raw === 'silent') return raw;
  throw new ConfigError(`LOG_LEVEL must be one of debug, info, warn, error, silent, got "${raw}"`);
}

interface DemoMerchantSettings {
  readonly entityId: string | undefined;
  readonly accessToken: string | undefined;
  readonly userId: string | undefined;
  readonly password: string | undefined;
}

/** What a demo password may be: printable ASCII without spaces, so it goes into a form or a query string as it is. */
const DEMO_PASSWORD = /^[\x21-\x7e]{8,255}$/;

function parseDemoMerchant(environment: GatewayEnvironment, settings: DemoMerchantSettings): DemoMerchant | undefined {
  const { entityId, accessToken, userId, password } = settings;
  if (environment === 'live') {
    if (Object.values(settings).some((value) => value !== undefined)) {
      throw new ConfigError(
        'DEMO_ENTITY_ID, DEMO_ACCESS_TOKEN, DEMO_USER_ID and DEMO_PASSWORD belong to the test environment: a live gateway has no demo merchant ' +
          '(create merchants with `npm run gateway -- entity create`)',
      );
    }
    return undefined;
  }
  if (entityId !== undefined && !ENTITY_ID.test(entityId)) {
    throw new ConfigError('DEMO_ENTITY_ID must be 32 lowercase hexadecimal characters');
  }
  if (accessToken !== undefined && accessToken.length < 16) {
    throw new ConfigError('DEMO_ACCESS_TOKEN must be at least 16 characters long');
  }
  if (userId !== undefined && !ENTITY_ID.test(userId)) {
    throw new ConfigError('DEMO_USER_ID must be 32 lowercase hexadecimal characters');
  }
  // Never the value itself in the message.
  if (password !== undefined && !DEMO_PASSWORD.test(password)) {
    throw new ConfigError('DEMO_PASSWORD must be 8 to 255 printable ASCII characters without spaces');
  }
  return {
    entityId: entityId ?? DEFAULT_DEMO_MERCHANT.entityId,
    accessToken: accessToken ?? DEFAULT_DEMO_MERCHANT.accessToken,
    userId: userId ?? DEFAULT_DEMO_MERCHANT.userId,
    password: password ?? DEFAULT_DEMO_MERCHANT.password,
  };
}

function parsePublicUrl(raw: string | undefined, host: string, port: number): string {
  const value = raw && raw !== '' ? raw : `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

const ADMIN_TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

function parseBearerSecret(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // Never the value itself in the message: it is a secret.
  if (raw.length < 32 || raw.length > 512) throw new ConfigError(`${name} must be between 32 and 512 characters long`);
  if (!ADMIN_TOKEN_CHARACTERS.test(raw)) throw new ConfigError(`${name} must be printable ASCII without spaces`);
  return raw;
}

function parseTestControlApi(environment: GatewayEnvironment, raw: string | undefined): boolean {
  const enabled = parseBoolean('TEST_CONTROL_API', raw, false);
  if (enabled && environment === 'live') throw new ConfigError('TEST_CONTROL_API is for tests: a live gateway keeps real time and tells no one what it sent');
  return enabled;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether a listener on `host` is reached from this machine only: localhost, 127.0.0.0/8, ::1 (or ::ffff:127.x.x.x). */
function isLoopbackHost(host: string): boolean {
  const family = isIP(host);
  return host === 'localhost' || (family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6'));
}

function parseMetrics(env: NodeJS.ProcessEnv, port: number, environment: GatewayEnvironment): GatewayConfig['metrics'] {
  const metricsPort = env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : parseInteger('METRICS_PORT', env.METRICS_PORT, 0, 1, 65535);
  if (metricsPort !== undefined && metricsPort === port) throw new ConfigError('METRICS_PORT must differ from PORT: /metrics has a listener of its own there');
  const host = env.METRICS_HOST || '127.0.0.1';
  const token = parseBearerSecret('METRICS_TOKEN', env.METRICS_TOKEN);
  // In live, what the metrics say (traffic, acquirers, queues) is for the operator's Prometheus, not for anyone who
  // reaches the port: beyond loopback, the listener asks for the token.
  if (environment === 'live' && metricsPort !== undefined && token === undefined && !isLoopbackHost(host)) {
    throw new ConfigError(`METRICS_TOKEN is required in live when METRICS_PORT listens beyond loopback (METRICS_HOST ${host}): set METRICS_TOKEN, or METRICS_HOST=127.0.0.1`);
  }
  return { port: metricsPort, host, token };
}

function parseSimulatedSettlement(environment: GatewayEnvironment, raw: string | undefined): number {
  const minutes = parseInteger('SIMULATED_SETTLEMENT_MINUTES', raw, environment === 'test' ? 60 : 0, 0, 60 * 24 * 30);
  if (environment === 'live' && minutes > 0) throw new ConfigError('SIMULATED_SETTLEMENT_MINUTES must be 0 in live: no simulated provider settles live payments');
  return minutes;
}

function parseSimulatedAcquirerLatency(environment: GatewayEnvironment, raw: string | undefined): number {
  const ms = parseInteger('SIMULATED_ACQUIRER_LATENCY_MS', raw, 0, 0, 60_000);
  if (environment === 'live' && ms > 0) throw new ConfigError('SIMULATED_ACQUIRER_LATENCY_MS must be 0 in live: it slows the simulated acquirers down for tests and benches');
  return ms;
}

function parseSettlement(env: NodeJS.ProcessEnv): SettlementConfig {
  try {
    return parseSettlementConfig(env);
  } catch (error) {
    if (error instanceof SettlementConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function parsePspEntityId(raw: string | undefined, publicUrl: string): string {
  if (raw === undefined || raw === '') return createHash('sha256').update(`psp ${publicUrl}`).digest('hex').slice(0, 32);
  if (!ENTITY_ID.test(raw)) throw new ConfigError('PSP_ENTITY_ID must be 32 lowercase hexadecimal characters');
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const environment = parseEnvironment(env.GATEWAY_ENV);
  const port = parsePort(env.PORT);
  const host = env.HOST && env.HOST !== '' ? env.HOST : 'localhost';
  const emptyToUndefined = (value: string | undefined) => (value === '' ? undefined : value);
  const acquirers = parseAcquirers(env.ACQUIRERS, env.DEFAULT_ACQUIRER);
  const config: GatewayConfig = {
    port,
    host,
    dataDir: emptyToUndefined(env.DATA_DIR) ?? './data',
    databaseUrl: emptyToUndefined(env.DATABASE_URL),
    publicUrl: parsePublicUrl(env.PUBLIC_URL, host, port),
    environment,
    demoMerchant: parseDemoMerchant(environment, {
      entityId: emptyToUndefined(env.DEMO_ENTITY_ID),
      accessToken: emptyToUndefined(env.DEMO_ACCESS_TOKEN),
      userId: emptyToUndefined(env.DEMO_USER_ID),
      password: emptyToUndefined(env.DEMO_PASSWORD),
    }),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    tokenCacheSeconds: parseTokenCacheSeconds(env.TOKEN_CACHE_SECONDS),
    cardDataKey: parseCardDataKey(env.CARD_DATA_KEY),
    cardDataKeyFile: emptyToUndefined(env.CARD_DATA_KEY_FILE),
    cardDataPreviousKeys: parsePreviousCardDataKeys(env.CARD_DATA_PREVIOUS_KEYS),
    cardDataPreviousKeysFile: emptyToUndefined(env.CARD_DATA_PREVIOUS_KEYS_FILE),
    http: parseHttpLimits(env),
    outboundAllowPrivate: parseBoolean('OUTBOUND_ALLOW_PRIVATE', env.OUTBOUND_ALLOW_PRIVATE, environment === 'test'),
    limits: parseRequestLimits(env),
    throttle: parseThrottleBackend(env),
    clientAddressHeader: parseHeaderName('CLIENT_ADDRESS_HEADER', env.CLIENT_ADDRESS_HEADER),
    googlePayGateway: parseGooglePayGateway(env.GOOGLE_PAY_GATEWAY),
    ...acquirers,
    connectors: parseConnectors(env.ACQUIRERS_FILE, acquirers.acquirers),
    registrationLifetimeMonths: parseInteger('REGISTRATION_LIFETIME_MONTHS', env.REGISTRATION_LIFETIME_MONTHS, 13, 1, 120),
    simulatedSettlementMinutes: parseSimulatedSettlement(environment, env.SIMULATED_SETTLEMENT_MINUTES),
    simulatedAcquirerLatencyMs: parseSimulatedAcquirerLatency(environment, env.SIMULATED_ACQUIRER_LATENCY_MS),
    simulatorDurableRecords: parseBoolean('SIMULATOR_DURABLE_RECORDS', env.SIMULATOR_DURABLE_RECORDS, false),
    scheduleCatchUpHours: parseInteger('SCHEDULE_CATCH_UP_HOURS', env.SCHEDULE_CATCH_UP_HOURS, 72, 0, 24 * 31),
    adminToken: parseBearerSecret('ADMIN_TOKEN', env.ADMIN_TOKEN),
    metrics: parseMetrics(env, port, environment),
    shutdownTimeoutMs: parseInteger('SHUTDOWN_TIMEOUT_SECONDS', env.SHUTDOWN_TIMEOUT_SECONDS, 60, 1, 3600) * 1000,
    testControlApi: parseTestControlApi(environment, env.TEST_CONTROL_API),
    reconciliationFileHour: parseInteger('RECONCILIATION_FILE_HOUR', env.RECONCILIATION_FILE_HOUR, 2, 0, 5),
    pspEntityId: parsePspEntityId(env.PSP_ENTITY_ID, parsePublicUrl(env.PUBLIC_URL, host, port)),
    settlement: parseSettlement(env),
  };
  // Last, so a setting refused on its own is named first.
  refuseSimulatedInLive(environment, config.acquirers, config.connectors, emptyToUndefined(env.ACQUIRERS) !== undefined);
  return config;
}
