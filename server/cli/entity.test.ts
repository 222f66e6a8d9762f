import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startGateway } from '../gateway.ts';
import { cardPayment, freshStoreLocation } from '../testing/harness.ts';

const run = promisify(execFile);
const location = await freshStoreLocation('PGlite');
const { dataDir } = location;

/** Runs `npm run gateway -- <args>` the way an operator does (through tsx, as the npm script does). */
async function gateway(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return gatewayWith({}, ...args);
}

async function gatewayWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'server/cli/index.ts', ...args], {
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

  it('sends entity and token commands to the running gateway whose embedded store it is, through its admin API', async () => {
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
      // Without the gateway's ADMIN_TOKEN the command says what to do; commands with no admin API need it stopped.
      const refused = await gatewayWith({ GATEWAY_URL: running.url }, 'entity', 'list');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/is in use by process \d+.*set ADMIN_TOKEN/);
      expect((await gatewayWith(beside, 'entity', 'update', entityId, '--result-url-base', 'none')).stderr).toContain('needs the gateway stopped');
      expect((await gatewayWith(beside, 'brands', 'list', entityId)).stderr).toContain('is in use by process');
    } finally {
      await running.close();
    }
  }, 120_000);

  it('prints its usage when asked for help', async () => {
    for (const asked of [['--help'], ['help'], ['-h'], ['token', '--help']]) {
      const answer = await gateway(...asked);
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
