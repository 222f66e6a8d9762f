import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';
import { startGatewayProcess } from './testing/gatewayProcess.ts';

/** ACQUIRERS_FILE (acquirerConfig.ts), read as the start reads it, and a live gateway's refusal of simulated acquirers. */

const dir = mkdtempSync(join(tmpdir(), 'gateway-acquirers-'));
let files = 0;
function fileWith(content: unknown): string {
  const path = join(dir, `acquirers-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const KEY = 'A1'.repeat(32);

describe('ACQUIRERS_FILE', () => {
  it('makes the names it describes connectors with their settings; the others stay simulated in test', () => {
    const path = fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'https://eu-prod.oppwa.com/', timeoutSeconds: 20, notificationKey: KEY } } });
    const config = loadConfig({ ACQUIRERS: 'simulator,hyperpay', ACQUIRERS_FILE: path });
    expect(config.connectors).toEqual({
      hyperpay: { kind: 'opp', url: 'https://eu-prod.oppwa.com', timeoutMs: 20_000, neverReceivedAfterMs: 300_000, notificationKey: KEY, maxConnections: 128 },
    });
    expect(config.acquirers).toEqual(['simulator', 'hyperpay']);
    expect(loadConfig({}).connectors).toEqual({});
  });

  it('lets a provider on loopback be chosen: the URL is the operator’s, not a merchant’s', () => {
    const path = fileWith({ acquirers: { upstream: { kind: 'opp', url: 'http://127.0.0.1:9443' } } });
    expect(loadConfig({ ACQUIRERS: 'upstream', ACQUIRERS_FILE: path }).connectors.upstream?.url).toBe('http://127.0.0.1:9443');
  });

  it.each([
    ['a file that cannot be read', () => join(dir, 'missing.json'), /^ACQUIRERS_FILE \S+missing\.json cannot be read \(ENOENT\)$/],
    ['not JSON', () => fileWith('{"acquirers": '), /^ACQUIRERS_FILE \S+: is not JSON/],
    ['no acquirers object', () => fileWith({ connectors: {} }), /^ACQUIRERS_FILE \S+: must be a JSON object with an "acquirers" object$/],
    ['an unknown kind', () => fileWith({ acquirers: { hyperpay: { kind: 'stripe', url: 'https://x.example' } } }), /acquirers\.hyperpay\.kind must be "opp"/],
    ['a URL that is not http(s)', () => fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'ftp://x.example' } } }), /acquirers\.hyperpay\.url must be the provider's http\(s\) base URL/],
    ['a name not in ACQUIRERS', () => fileWith({ acquirers: { other: { kind: 'opp', url: 'https://x.example' } } }), /acquirers\.other is not one of ACQUIRERS \(simulator, hyperpay\)/],
    ['a timeout out of range', () => fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'https://x.example', timeoutSeconds: 0 } } }), /acquirers\.hyperpay\.timeoutSeconds must be an integer between 1 and 120/],
    ['a setting it does not have', () => fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'https://x.example', password: 'x' } } }), /acquirers\.hyperpay\.password is not a setting/],
  ])('stops the start, in one line naming the file and the field, for %s', (_what, path, message) => {
    const env = { ACQUIRERS: 'simulator,hyperpay', ACQUIRERS_FILE: path() };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never quotes a notification key it refuses', () => {
    const secret = 'not-a-key-but-a-secret-of-the-operator';
    const path = fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'https://x.example', notificationKey: secret } } });
    let message = '';
    try {
      loadConfig({ ACQUIRERS: 'hyperpay', ACQUIRERS_FILE: path });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/acquirers\.hyperpay\.notificationKey must be .* 64 hexadecimal characters/);
    expect(message).not.toContain(secret);
  });
});

describe('a live gateway never pretends', () => {
  it('refuses to start while an acquirer it would use is simulated, naming the setting', () => {
    expect(() => loadConfig({ GATEWAY_ENV: 'live' })).toThrow(/^ACQUIRERS is not set \(its default is the simulator\): a live gateway never pays through a simulated acquirer/);
    const path = fileWith({ acquirers: { hyperpay: { kind: 'opp', url: 'https://x.example' } } });
    expect(() => loadConfig({ GATEWAY_ENV: 'live', ACQUIRERS: 'hyperpay,fallback', ACQUIRERS_FILE: path })).toThrow(/^ACQUIRERS names fallback, which ACQUIRERS_FILE does not describe/);
    expect(loadConfig({ GATEWAY_ENV: 'live', ACQUIRERS: 'hyperpay', ACQUIRERS_FILE: path }).connectors.hyperpay?.kind).toBe('opp');
  });

  it('stops a live start in one line naming the setting, with exit code 1, as the operator runs it', async () => {
    for (const env of [{} as Record<string, string>, { ACQUIRERS_FILE: fileWith('{"acquirers": {"hyperpay": {"kind": "opp", "url": "ftp://x"}}}'), ACQUIRERS: 'hyperpay' }]) {
      const gateway = startGatewayProcess({ GATEWAY_ENV: 'live', CARD_DATA_KEY: 'ab'.repeat(32), PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', DATA_DIR: dir, ...env });
      expect(await gateway.exited).toBe(1);
      expect(gateway.stderr().trim().split('\n')).toHaveLength(1);
      expect(gateway.stderr()).toMatch(/^Configuration error: (ACQUIRERS is not set|ACQUIRERS_FILE \S+: acquirers\.hyperpay\.url)/);
    }
  }, 60_000);
});
