import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startGateway } from '../gateway.ts';
import { configAt, freshStoreLocation } from '../testing/harness.ts';
import { runCli } from './index.ts';
import { packagePath } from '../paths.ts';

/**
 * `npm run gateway -- acquirer credentials ...` and `routing ...` (issue 33) on the embedded store: credentials set
 * from a file and shown without the token, routing rules set from a file of JSON and shown. Then beside a running
 * gateway on that store (each command runs in it, which spares opening the store each time): every refusal in one
 * line, never the token; removals; and the token piped into a real command line's standard input, read there and sent
 * to the gateway, whose connector then has it.
 */

const location = await freshStoreLocation('PGlite');
const work = mkdtempSync(join(tmpdir(), 'acquirer-cli-'));
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await location.dispose();
});

const TOKEN = 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8Q2xpVG9rZW4=';
const PROVIDER_ENTITY_ID = '8a8294174b7ecb28014b9699220015ca';
const ACQUIRERS_FILE = join(work, 'acquirers.json');
writeFileSync(ACQUIRERS_FILE, JSON.stringify({ acquirers: { hyperpay: { kind: 'opp', url: 'http://127.0.0.1:9' } } }));
const ENV = { DATA_DIR: location.dataDir, DATABASE_URL: '', ACQUIRERS: 'simulator,fallback,hyperpay', ACQUIRERS_FILE };
const ADMIN_TOKEN = `admin-token-of-the-acquirer-cli-test-${'0'.repeat(12)}`;

const gateway = (env: Record<string, string>, ...args: string[]) => runCli(args, { env: { ...ENV, ...env }, progress: () => {} });

function file(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

/**
 * The command line as an operator runs it, in its own process (`wpwl-gateway <args>`: the compiled gateway of
 * globalSetup's build, the same command line as `npm run gateway --`), `input` on its standard input.
 */
function commandLine(env: Record<string, string>, input: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [packagePath('dist/server/bin.js').pathname, ...args], { env: { ...process.env, ...ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('the acquirer credentials and routing commands', () => {
  let entityId = '';
  const tokenFile = file('token', `${TOKEN}\n`);
  const rulesShown = (id: string) =>
    new RegExp(`^${id}  2 routing rule\\(s\\), set \\S+Z\\n  1  fallback  when brand MASTER or VISA, currency EUR, amount up to 100\\.00\\n  2  hyperpay  every payment\\notherwise  simulator \\(DEFAULT_ACQUIRER\\)\\n$`);

  it('set and show credentials (the token from a file, never shown) and routing rules (from a file of JSON)', async () => {
    const local = (...args: string[]) => gateway({}, ...args);
    entityId = /^entityId\s+(\S+)$/m.exec((await local('entity', 'create', '--name', 'Live shop')).stdout)?.[1] ?? '';
    expect(entityId).toMatch(/^[0-9a-f]{32}$/);
    expect((await local('acquirer', 'credentials', 'show', entityId)).stdout).toBe(`entity  ${entityId}\nhyperpay  not set\n`);
    const set = await local('acquirer', 'credentials', 'set', entityId, 'hyperpay', '--provider-entity-id', PROVIDER_ENTITY_ID, '--access-token-file', tokenFile);
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toMatch(new RegExp(`^${entityId}  hyperpay  set  provider entity id ${PROVIDER_ENTITY_ID}  updated \\S+Z\\n\\(the access token is sealed; it is never shown\\)\\n$`));
    const shown = await local('acquirer', 'credentials', 'show', entityId);
    expect(shown.stdout).toMatch(new RegExp(`^hyperpay  set  provider entity id ${PROVIDER_ENTITY_ID}  updated `, 'm'));
    expect(shown.stdout).not.toContain(TOKEN);

    const rules = [{ acquirer: 'fallback', brands: ['MASTER', 'VISA'], currencies: ['EUR'], maxAmount: '100.00' }, { acquirer: 'hyperpay' }];
    const routed = await local('routing', 'set', entityId, '--rules-file', file('rules.json', JSON.stringify(rules)));
    expect(routed.exitCode, routed.stderr).toBe(0);
    expect(routed.stdout).toMatch(rulesShown(entityId));
    expect((await local('routing', 'show', entityId)).stdout).toBe(routed.stdout);
  }, 60_000);

  it('refuse in one line and remove beside a running gateway, the token read from standard input where the command line runs', async () => {
    const running = await startGateway(
      configAt(location, {
        adminToken: ADMIN_TOKEN,
        acquirers: ['simulator', 'fallback', 'hyperpay'],
        connectors: { hyperpay: { kind: 'opp', url: 'http://127.0.0.1:9', timeoutMs: 1000, neverReceivedAfterMs: 2000, notificationKey: undefined, maxConnections: 1 } },
      }),
      { jobPollMs: 0 },
    );
    try {
      const beside = (...args: string[]) => gateway({ ADMIN_TOKEN, GATEWAY_URL: running.url }, ...args);
      const refused = async (...args: string[]) => {
        const answer = await beside(...args);
        expect(answer.exitCode, args.join(' ')).toBe(1);
        expect(answer.stderr).not.toContain(TOKEN);
        return answer.stderr;
      };
      expect(await refused('acquirer', 'credentials', 'set', entityId, 'hyperpay', '--provider-entity-id', 'has space', '--access-token-file', file('short', `${TOKEN.slice(0, 4)}\n`))).toBe(
        'credentials refused: --provider-entity-id must be the entity id the provider gave: 1 to 64 printable characters without spaces; the token in --access-token-file must be the access token the provider gave: 8 to 512 printable characters without spaces\n',
      );
      expect(await refused('acquirer', 'credentials', 'set', entityId, 'simulator', '--provider-entity-id', 'x', '--access-token-file', tokenFile)).toBe(
        'no connector simulator: only a connector takes credentials (the connectors are hyperpay)\n',
      );
      expect(await refused('acquirer', 'credentials', 'set', 'f'.repeat(32), 'hyperpay', '--provider-entity-id', 'x', '--access-token-file', tokenFile)).toBe(`no entity ${'f'.repeat(32)}\n`);
      expect(await refused('acquirer', 'credentials', 'set', entityId, 'hyperpay', '--provider-entity-id', 'x', '--access-token-file', join(work, 'absent'))).toBe(
        `--access-token-file: cannot read ${join(work, 'absent')}\n`,
      );
      expect(await refused('acquirer', 'credentials', 'set', entityId, 'hyperpay', '--provider-entity-id', 'x')).toContain('needs --access-token-file FILE (- for standard input): the token is never an argument');
      expect(await refused('routing', 'set', entityId, '--rules-file', file('wrong.json', '[{"acquirer": "nope"}, {"acquirer": "fallback", "minAmount": "1,00"}]'))).toBe(
        'routing refused: rules[0].acquirer must be one of ACQUIRERS (simulator, fallback, hyperpay); rules[1].minAmount must be an amount such as "100.00"\n',
      );
      expect(await refused('routing', 'set', entityId, '--rules-file', file('broken.json', '[{'))).toMatch(/^routing refused: --rules-file \S+broken\.json is not JSON \(.+\)\n$/);
      expect(await refused('routing', 'show', 'f'.repeat(32))).toBe(`no entity ${'f'.repeat(32)}\n`);
      // Nothing refused was written.
      expect((await beside('routing', 'show', entityId)).stdout).toMatch(rulesShown(entityId));
      expect(await running.payments.acquirers.credentials.get(entityId, 'hyperpay')).toEqual({ entityId: PROVIDER_ENTITY_ID, accessToken: TOKEN });

      const piped = await commandLine({ ADMIN_TOKEN, GATEWAY_URL: running.url }, `${TOKEN}x\n`, 'acquirer', 'credentials', 'set', entityId, 'hyperpay', '--provider-entity-id', 'piped-entity', '--access-token-file', '-');
      expect(piped.code, piped.stderr).toBe(0);
      expect(piped.stdout).toContain('hyperpay  set  provider entity id piped-entity');
      // Read afresh: a command reaches no gateway's cache of credentials (its connector uses them within CREDENTIALS_CACHE_MS).
      running.payments.acquirers.credentials.forget(entityId, 'hyperpay');
      expect(await running.payments.acquirers.credentials.get(entityId, 'hyperpay')).toEqual({ entityId: 'piped-entity', accessToken: `${TOKEN}x` });

      expect((await beside('acquirer', 'credentials', 'remove', entityId, 'hyperpay')).stdout).toBe(`${entityId}  hyperpay  credentials removed (the token erased)\n`);
      expect((await beside('acquirer', 'credentials', 'remove', entityId, 'hyperpay')).stdout).toBe(`${entityId}  hyperpay  had no credentials\n`);
      expect((await beside('acquirer', 'credentials', 'show', entityId)).stdout).toContain('hyperpay  not set');
      expect((await beside('routing', 'remove', entityId)).stdout).toBe(`${entityId}  routing rules removed: every payment goes to simulator (DEFAULT_ACQUIRER)\n`);
      expect((await beside('routing', 'show', entityId)).stdout).toBe(`${entityId}  no routing rules\notherwise  simulator (DEFAULT_ACQUIRER)\n`);
    } finally {
      await running.close();
    }
  }, 60_000);
});
