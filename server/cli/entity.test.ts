import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startGateway } from '../gateway.ts';
import { cardPayment, freshStoreLocation } from '../testing/harness.ts';
import { COMMAND_FILE } from './localCommands.ts';
import { packagePath } from '../paths.ts';

const run = promisify(execFile);
const location = await freshStoreLocation('PGlite');
const { dataDir } = location;

/**
 * Runs a command the way an operator does: `wpwl-gateway <args>`, the installed package's command (the compiled
 * gateway, globalSetup's build: the same command line as `npm run gateway --`, without compiling it at each start).
 */
async function gateway(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return gatewayWith({}, ...args);
}

/** `npm run gateway -- <args>` in a checkout: the sources, through tsx, as the npm script runs them. */
async function fromSources(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return commandLine(['--import', 'tsx', 'server/cli/index.ts', ...args], {});
}

async function gatewayWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return commandLine([packagePath('dist/server/bin.js').pathname, ...args], env);
}

async function commandLine(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...argv], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ADMIN_TOKEN: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function field(output: string, label: string): string {
  const match = new RegExp(`^${label}\\s+(\\S+)$`, 'm').exec(output);
  if (!match?.[1]) throw new Error(`no "${label}" in:\n${output}`);
  return match[1];
}

afterAll(() => location.dispose());

describe('the operator command line', () => {
  it('creates entities and tokens that the gateway then accepts, and revokes tokens', async () => {
    const created = await gateway('entity', 'create', '--name', 'Corner shop');
    expect(created.code).toBe(0);
    const entityId = field(created.stdout, 'entityId');
    const token = field(created.stdout, 'access token');
    expect(entityId).toMatch(/^[0-9a-f]{32}$/);

    const firstTokenId = field(created.stdout, 'token id');
    expect(firstTokenId).toMatch(/^[0-9a-f]{32}$/);

    const second = await gateway('token', 'create', '--entity', entityId, '--label', 'backend');
    expect(second.code).toBe(0);
    const secondToken = field(second.stdout, 'access token');
    const secondTokenId = field(second.stdout, 'token id');
    expect((await gateway('token', 'revoke', secondTokenId)).stdout).toContain(`revoked ${secondTokenId}`);
    // Every token of the entity, by id, never the token itself.
    const tokens = await gateway('token', 'list', '--entity', entityId);
    expect(tokens.code).toBe(0);
    const lines = tokens.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${firstTokenId}  active  created \\S+  entity ${entityId}  entities ${entityId}$`));
    expect(lines[1]).toMatch(new RegExp(`^${secondTokenId}  revoked \\S+  created \\S+  backend  entities ${entityId}$`));
    expect(tokens.stdout).not.toContain(token);
    expect(tokens.stdout).not.toContain(secondToken);
    expect((await gateway('token', 'list', '--entity', 'f'.repeat(32))).stdout.trim()).toBe('(no tokens)');

    expect((await gateway('entity', 'update', entityId, '--result-url-base', 'https://shop.example/checkout')).stderr).toContain(
      '--result-url-base must end with a slash',
    );
    expect((await gateway('entity', 'update', entityId, '--result-url-base', 'https://shop.example/checkout/')).code).toBe(0);
    const listed = await gateway('entity', 'list');
    expect(listed.stdout).toContain(`${entityId}  Corner shop  returns under https://shop.example/checkout/`);

    const running = await startGateway({
      ...loadConfig({}),
      port: 0,
      host: '127.0.0.1',
      dataDir,
      demoMerchant: undefined,
      logLevel: 'silent',
    });
    try {
      const pay = (bearer: string) =>
        fetch(`${running.url}/v1/payments`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(cardPayment(entityId)),
        });
      expect((await pay(token)).status).toBe(200);
      expect((await pay(secondToken)).status).toBe(403);
    } finally {
      await running.close();
    }
  }, 120_000);

  it('runs every command in the running gateway whose embedded store it is, through its admin API, with its files where the command line runs', async () => {
    const adminToken = `admin-token-of-the-cli-test-${'0'.repeat(16)}`;
    const running = await startGateway({ ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, demoMerchant: undefined, logLevel: 'silent', adminToken, tokenCacheSeconds: 0 });
    try {
      const beside = { ADMIN_TOKEN: adminToken, GATEWAY_URL: running.url };
      const created = await gatewayWith(beside, 'entity', 'create', '--name', 'Kiosk');
      expect(created.code, created.stderr).toBe(0);
      const entityId = field(created.stdout, 'entityId');
      const token = field(created.stdout, 'access token');
      const tokenId = field(created.stdout, 'token id');
      const pay = () =>
        fetch(`${running.url}/v1/payments`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(cardPayment(entityId)),
        });
      expect((await pay()).status).toBe(200);
      expect((await gatewayWith(beside, 'entity', 'list')).stdout).toContain(`${entityId}  Kiosk`);
      const second = await gatewayWith(beside, 'token', 'create', '--entity', entityId, '--label', 'till');
      expect(second.stdout).toMatch(/^token id {6}[0-9a-f]{32}$/m);
      const listed = (await gatewayWith(beside, 'token', 'list', '--entity', entityId)).stdout.trim().split('\n');
      expect(listed.map((line) => line.split('  ').slice(1, 2).concat(line.split('  ').slice(3, 4)))).toEqual([
        ['active', `entity ${entityId}`],
        ['active', 'till'],
      ]);
      expect((await gatewayWith(beside, 'token', 'revoke', tokenId)).stdout).toContain(`revoked ${tokenId}`);
      expect((await pay()).status).toBe(403);
      // Legacy credentials the same way.
      const pair = await gatewayWith(beside, 'credentials', 'create', '--entity', entityId, '--label', 'shop plugin');
      expect(pair.code, pair.stderr).toBe(0);
      const userId = field(pair.stdout, 'authentication.userId');
      const password = field(pair.stdout, 'authentication.password');
      const payLegacy = () =>
        fetch(`${running.url}/v1/payments`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...cardPayment(entityId), 'authentication.userId': userId, 'authentication.password': password }),
        });
      expect((await payLegacy()).status).toBe(200);
      expect((await gatewayWith(beside, 'credentials', 'list', '--entity', entityId)).stdout).toMatch(new RegExp(`^${userId}  active  entities ${entityId}  shop plugin  created `, 'm'));
      expect((await gatewayWith(beside, 'credentials', 'revoke', userId)).stdout).toContain(`revoked ${userId}`);
      expect((await payLegacy()).status).toBe(403);
      // The other groups run there too, on the gateway's store (it holds the embedded store; nothing else may open it).
      const updated = await gatewayWith(beside, 'entity', 'update', entityId, '--result-url-base', 'https://shop.example/return/');
      expect(updated.stdout).toContain(`${entityId}  shopper result URL base https://shop.example/return/`);
      expect((await gatewayWith(beside, 'brands', 'set', entityId, 'VISA', 'MASTER')).code).toBe(0);
      expect((await gatewayWith(beside, 'brands', 'show', entityId)).stdout).toContain(`${entityId} offers 2 brands`);
      expect((await gatewayWith(beside, 'throttling', 'show', entityId)).stdout).toContain(entityId);
      expect((await gatewayWith(beside, 'settlement', 'show', entityId)).stdout).toContain(`${entityId}  settles in`);
      // Progress streams back as the command goes.
      const rotated = await gatewayWith(beside, 'keys', 'rotate', '--batch', '1');
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/^Re-sealing card data with the current key /m);
      expect((await gatewayWith(beside, 'keys', 'status')).code).toBe(0);
      // A file the command reads is read here and sent; a file it writes comes back and is written here.
      const work = await mkdtemp(join(tmpdir(), 'cli-files-'));
      try {
        await writeFile(join(work, 'ftp-password'), 'ftp-secret-of-the-cli-test\n');
        const set = await gatewayWith(beside, 'reconciliation', 'ftp', 'set', entityId, '--host', 'ftp.example.com', '--user', 'merchant', '--password-file', join(work, 'ftp-password'));
        expect(set.code, set.stderr).toBe(0);
        expect(set.stdout).toContain('"host": "ftp.example.com"');
        expect(set.stdout).not.toContain('ftp-secret-of-the-cli-test');
        const unreadable = await gatewayWith(beside, 'reconciliation', 'ftp', 'set', entityId, '--host', 'ftp.example.com', '--user', 'merchant', '--password-file', join(work, 'absent'));
        expect(unreadable.stderr).toContain(`--password-file: cannot read ${join(work, 'absent')}`);
        const day = new Date().toISOString().slice(0, 10);
        // Run from another directory (where tsx is not found by name): the relative --out is that directory's.
        const tsx = pathToFileURL(join(process.cwd(), 'node_modules/tsx/dist/loader.mjs')).href;
        const downloaded = await run(process.execPath, ['--import', tsx, join(process.cwd(), 'server/cli/index.ts'), 'reconciliation', 'download', entityId, day, '--out', 'day.csv'], {
          cwd: work,
          env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...beside },
        });
        expect(downloaded.stdout).toContain('wrote ');
        expect(await readFile(join(work, 'day.csv'), 'utf8')).toMatch(/^[^\r\n]+\r\n/);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
      // A refused command is refused as it is here: the usage, exit code 1.
      const wrong = await gatewayWith(beside, 'brands', 'show', 'not-an-entity');
      expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('brands show needs the ENTITY_ID')]);
      // Without ADMIN_TOKEN the command runs there through the address and token the gateway wrote in DATA_DIR
      // (localCommands.ts); without that file it says what to do; with a wrong ADMIN_TOKEN, that it was refused.
      const local = await gatewayWith({}, 'entity', 'list');
      expect(local.code, local.stderr).toBe(0);
      expect(local.stdout).toContain(`${entityId}  Kiosk`);
      await rename(join(dataDir, COMMAND_FILE), join(dataDir, `${COMMAND_FILE}.away`));
      const refused = await gatewayWith({ GATEWAY_URL: running.url }, 'entity', 'list');
      await rename(join(dataDir, `${COMMAND_FILE}.away`), join(dataDir, COMMAND_FILE));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is in use by process \d+.*set ADMIN_TOKEN/);
      const wrongToken = await gatewayWith({ ...beside, ADMIN_TOKEN: `${adminToken}x` }, 'entity', 'list');
      expect(wrongToken.stderr).toContain("refused ADMIN_TOKEN: set it to that gateway's");
    } finally {
      await running.close();
    }
  }, 120_000);

  it('prints its usage when asked for help', async () => {
    for (const asked of [['--help'], ['help'], ['-h'], ['token', '--help']]) {
      const answer = await fromSources(...asked);
      expect(answer.code).toBe(0);
      expect(answer.stdout).toContain('Usage: npm run gateway -- <command>');
      expect(answer.stdout).toContain('token list [--entity ID]');
      expect(answer.stderr).toBe('');
    }
  }, 60_000);

  it('explains its usage and exits non-zero on a wrong command', async () => {
    const wrong = await gateway('entity', 'destroy');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('unknown command: entity destroy');
    expect(wrong.stderr).toContain('Usage: npm run gateway');
    const key = await gateway('key', 'generate');
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^[0-9a-f]{64}\n/);
    const keys = await gateway('keys', 'generate');
    expect(keys.code).toBe(0);
    expect(keys.stdout).toMatch(/^[0-9a-f]{64}\n/);
    expect(keys.stdout).not.toBe(key.stdout);
    const badBatch = await gateway('keys', 'rotate', '--batch', 'all');
    expect(badBatch.code).toBe(1);
    expect(badBatch.stderr).toContain('--batch must be an integer between 1 and 100000');
    expect((await gateway('keys', 'destroy')).stderr).toContain('unknown command: keys destroy');
    const badId = await gateway('entity', 'create', '--id', 'XYZ');
    expect(badId.code).toBe(1);
    expect(badId.stderr).toContain('--id must be 32 lowercase hexadecimal characters');
  }, 60_000);
});
