import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './index.ts';
import { startGateway } from '../gateway.ts';
import { configAt, freshStoreLocation } from '../testing/harness.ts';

/** `npm run gateway -- operator ...`: the dashboard's operators, made, listed, given a password, removed. */

const location = await freshStoreLocation('PGlite');
afterAll(() => location.dispose());

const gateway = (...args: string[]) => runCli(args, { env: { DATA_DIR: location.dataDir, DATABASE_URL: '' }, progress: () => {} });

async function signIn(url: string, operator: string, password: string): Promise<number> {
  const response = await fetch(`${url}/dashboard/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ operator, password }) });
  await response.body?.cancel();
  return response.status;
}

describe('the operator commands', () => {
  // Each command opens the embedded store, and each password is a scrypt hash: slow by design.
  it('create an operator who signs in to the dashboard, change the password, list and remove them', { timeout: 120_000 }, async () => {
    const created = await gateway('operator', 'create', 'olivia');
    expect(created.exitCode, created.stderr).toBe(0);
    const password = /^password {2}(\S+)$/m.exec(created.stdout)?.[1] ?? '';
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(created.stdout).toContain('shown once');

    const dir = mkdtempSync(join(tmpdir(), 'operator-'));
    const file = join(dir, 'password');
    writeFileSync(file, 'a new password of some length\n');
    const fromFile = await gateway('operator', 'create', 'oscar', '--password-file', file);
    expect(fromFile.stdout).toBe('operator oscar created\n');
    expect((await gateway('operator', 'create', 'olivia')).stderr).toContain('an operator named olivia exists');
    expect((await gateway('operator', 'create', 'x')).stderr).toContain('3 to 64');
    writeFileSync(join(dir, 'short'), 'short\n');
    expect((await gateway('operator', 'create', 'oskar', '--password-file', join(dir, 'short'))).stderr).toContain('at least 12 characters');
    expect((await gateway('operator', 'list')).stdout).toMatch(/^olivia {2}created \S+\noscar {2}created \S+\n$/);

    const running = await startGateway(configAt(location, { logLevel: 'silent' }), { jobPollMs: 0 });
    try {
      expect(await signIn(running.url, 'olivia', password)).toBe(200);
      expect(await signIn(running.url, 'oscar', 'a new password of some length')).toBe(200);
      expect(await signIn(running.url, 'oscar', 'a wrong password')).toBe(401);
    } finally {
      await running.close();
    }
    writeFileSync(file, 'another password, longer\n');
    expect((await gateway('operator', 'password', 'oscar', '--password-file', file)).stdout).toContain('their sessions ended');
    expect((await gateway('operator', 'remove', 'olivia')).exitCode).toBe(0);
    expect((await gateway('operator', 'remove', 'olivia')).stderr).toContain('no operator olivia');
    expect((await gateway('operator', 'list')).stdout).toMatch(/^oscar {2}created \S+\n$/);

    const again = await startGateway(configAt(location, { logLevel: 'silent' }), { jobPollMs: 0 });
    try {
      expect(await signIn(again.url, 'olivia', password)).toBe(401);
      expect(await signIn(again.url, 'oscar', 'a new password of some length')).toBe(401);
      expect(await signIn(again.url, 'oscar', 'another password, longer')).toBe(200);
    } finally {
      await again.close();
    }
  });
});
