import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DEMO_MERCHANT, loadConfig } from './config.ts';

/** A live environment as it can start: its one acquirer a connector (ACQUIRERS_FILE), never a simulator. */
const LIVE_ACQUIRERS_FILE = join(mkdtempSync(join(tmpdir(), 'gateway-config-')), 'acquirers.json');
writeFileSync(LIVE_ACQUIRERS_FILE, JSON.stringify({ acquirers: { simulator: { kind: 'opp', url: 'https://provider.example' } } }));
const LIVE = { GATEWAY_ENV: 'live', ACQUIRERS_FILE: LIVE_ACQUIRERS_FILE };

describe('configuration from the environment', () => {
  it('has working defaults: port 8080, ./data, embedded store, test environment, demo merchant', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: 'localhost',
      dataDir: './data',
      databaseUrl: undefined,
      publicUrl: 'http://localhost:8080',
      environment: 'test',
      demoMerchant: DEFAULT_DEMO_MERCHANT,
      tokenCacheSeconds: 10,
      cardDataKey: undefined,
      cardDataKeyFile: undefined,
      cardDataPreviousKeys: [],
      cardDataPreviousKeysFile: undefined,
      googlePayGateway: 'wpwlgateway',
    });
  });

  it('reads GOOGLE_PAY_GATEWAY, the name Google registered for the operator, refusing what cannot be one', () => {
    expect(loadConfig({ GOOGLE_PAY_GATEWAY: 'examplepsp' }).googlePayGateway).toBe('examplepsp');
    expect(() => loadConfig({ GOOGLE_PAY_GATEWAY: 'Example PSP' })).toThrow(/GOOGLE_PAY_GATEWAY must be the gateway name Google registered/);
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '9090',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/gateway',
      DATABASE_URL: 'postgres://db/gateway',
      PUBLIC_URL: 'https://pay.example.com/',
      GATEWAY_ENV: 'test',
      DEMO_ENTITY_ID: '0123456789abcdef0123456789abcdef',
      DEMO_ACCESS_TOKEN: 'a-token-of-sufficient-length',
      DEMO_USER_ID: 'fedcba9876543210fedcba9876543210',
      DEMO_PASSWORD: 'a-demo-password',
      CARD_DATA_KEY: 'ab'.repeat(32),
      CARD_DATA_KEY_FILE: '/run/secrets/card-data-key',
      CARD_DATA_PREVIOUS_KEYS: ` ${'cd'.repeat(32)},${'EF'.repeat(32)} `,
      CARD_DATA_PREVIOUS_KEYS_FILE: '/run/secrets/previous-card-data-keys',
    });
    expect(config.cardDataKey?.toString('hex')).toBe('ab'.repeat(32));
    expect(config.cardDataPreviousKeys.map((key) => key.toString('hex'))).toEqual(['cd'.repeat(32), 'ef'.repeat(32)]);
    expect(config.cardDataPreviousKeysFile).toBe('/run/secrets/previous-card-data-keys');
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/var/lib/gateway',
      databaseUrl: 'postgres://db/gateway',
      publicUrl: 'https://pay.example.com',
      cardDataKeyFile: '/run/secrets/card-data-key',
      demoMerchant: {
        entityId: '0123456789abcdef0123456789abcdef',
        accessToken: 'a-token-of-sufficient-length',
        userId: 'fedcba9876543210fedcba9876543210',
        password: 'a-demo-password',
      },
    });
  });

  it('has no demo merchant in live, and refuses demo credentials there', () => {
    expect(loadConfig(LIVE).demoMerchant).toBeUndefined();
    for (const env of [
      { DEMO_ENTITY_ID: '0123456789abcdef0123456789abcdef' },
      { DEMO_ACCESS_TOKEN: 'a-token-of-sufficient-length' },
      { DEMO_ENTITY_ID: '0123456789abcdef0123456789abcdef', DEMO_ACCESS_TOKEN: 'a-token-of-sufficient-length' },
      { DEMO_USER_ID: '0123456789abcdef0123456789abcdef' },
      { DEMO_PASSWORD: 'a-demo-password' },
    ]) {
      expect(() => loadConfig({ GATEWAY_ENV: 'live', ...env })).toThrow(ConfigError);
      expect(() => loadConfig({ GATEWAY_ENV: 'live', ...env })).toThrow(
        /DEMO_ENTITY_ID, DEMO_ACCESS_TOKEN, DEMO_USER_ID and DEMO_PASSWORD belong to the test environment/,
      );
    }
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ GATEWAY_ENV: 'production' }, /GATEWAY_ENV/],
    [{ PUBLIC_URL: 'ftp://example.com' }, /PUBLIC_URL/],
    [{ PUBLIC_URL: 'not a url' }, /PUBLIC_URL/],
    [{ DEMO_ENTITY_ID: 'XYZ' }, /DEMO_ENTITY_ID/],
    [{ DEMO_ACCESS_TOKEN: 'short' }, /DEMO_ACCESS_TOKEN/],
    [{ DEMO_USER_ID: 'not-hex' }, /DEMO_USER_ID/],
    [{ DEMO_PASSWORD: 'short' }, /DEMO_PASSWORD/],
    [{ DEMO_PASSWORD: 'with a space' }, /DEMO_PASSWORD/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ TOKEN_CACHE_SECONDS: '-1' }, /TOKEN_CACHE_SECONDS/],
    [{ CARD_DATA_KEY: 'ab'.repeat(31) }, /CARD_DATA_KEY/],
    [{ CARD_DATA_KEY: 'zz'.repeat(32) }, /CARD_DATA_KEY/],
    [{ CARD_DATA_PREVIOUS_KEYS: `${'ab'.repeat(32)},${'ab'.repeat(31)}` }, /CARD_DATA_PREVIOUS_KEYS .*entry 2 is not/],
  ])('rejects %o with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never repeats a malformed previous card-data key in its message (it may be a key with a typo)', () => {
    const typo = `${'ab'.repeat(31)}zz`;
    expect(() => loadConfig({ CARD_DATA_PREVIOUS_KEYS: typo })).toThrow(/entry 1 is not/);
    try {
      loadConfig({ CARD_DATA_PREVIOUS_KEYS: typo });
    } catch (error) {
      expect((error as Error).message).not.toContain('abab');
    }
  });

  it('reads SIMULATED_ACQUIRER_LATENCY_MS in test (default 0) and refuses anything but 0 in live', () => {
    expect(loadConfig({}).simulatedAcquirerLatencyMs).toBe(0);
    expect(loadConfig({ SIMULATED_ACQUIRER_LATENCY_MS: '200' }).simulatedAcquirerLatencyMs).toBe(200);
    expect(loadConfig({ ...LIVE, SIMULATED_ACQUIRER_LATENCY_MS: '0' }).simulatedAcquirerLatencyMs).toBe(0);
    expect(() => loadConfig({ GATEWAY_ENV: 'live', SIMULATED_ACQUIRER_LATENCY_MS: '200' })).toThrow(/SIMULATED_ACQUIRER_LATENCY_MS must be 0 in live/);
    for (const wrong of ['-1', '1.5', 'fast', '60001']) {
      expect(() => loadConfig({ SIMULATED_ACQUIRER_LATENCY_MS: wrong })).toThrow(ConfigError);
    }
  });

  it('reads ADMIN_TOKEN (unset: no admin API), refusing a short one without repeating it', () => {
    expect(loadConfig({}).adminToken).toBeUndefined();
    expect(loadConfig({ ADMIN_TOKEN: '' }).adminToken).toBeUndefined();
    const token = 'a'.repeat(32);
    expect(loadConfig({ ADMIN_TOKEN: token }).adminToken).toBe(token);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short-admin-token' })).toThrow(/ADMIN_TOKEN must be between 32 and 512 characters/);
    expect(() => loadConfig({ ADMIN_TOKEN: `${'b'.repeat(32)} c` })).toThrow(/ADMIN_TOKEN must be printable ASCII/);
    try {
      loadConfig({ ADMIN_TOKEN: 'short-admin-token' });
    } catch (error) {
      expect((error as Error).message).not.toContain('short-admin-token');
    }
  });

  it('requires METRICS_TOKEN in live when METRICS_PORT listens beyond loopback (issue 34 §4)', () => {
    const token = 'm'.repeat(32);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'metrics.internal', '0']) {
      const env = { ...LIVE, METRICS_PORT: '9464', METRICS_HOST: host };
      expect(() => loadConfig(env), host).toThrow(ConfigError);
      expect(() => loadConfig(env), host).toThrow(/METRICS_TOKEN/);
      expect(() => loadConfig({ ...env, METRICS_TOKEN: '' }), host).toThrow(/METRICS_TOKEN/);
      expect(loadConfig({ ...env, METRICS_TOKEN: token }).metrics, host).toEqual({ port: 9464, host, token });
    }
    // On loopback (the default), or in test, no token is needed; without METRICS_PORT there is no such listener.
    for (const host of [undefined, '127.0.0.1', '127.0.0.2', 'localhost', '::1']) {
      expect(loadConfig({ ...LIVE, METRICS_PORT: '9464', ...(host === undefined ? {} : { METRICS_HOST: host }) }).metrics.token, host).toBeUndefined();
    }
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0', token: undefined });
    expect(loadConfig({ ...LIVE, METRICS_HOST: '0.0.0.0' }).metrics.port).toBeUndefined();
    try {
      loadConfig({ ...LIVE, METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });
});
