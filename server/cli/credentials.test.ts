import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './index.ts';
import { startGateway } from '../gateway.ts';
import { cardPayment, configAt, freshStoreLocation } from '../testing/harness.ts';

/** `npm run gateway -- credentials ...`: legacy credentials (COMPAT §1) issued, listed and revoked by the operator. */

const location = await freshStoreLocation('PGlite');
afterAll(() => location.dispose());

const gateway = (...args: string[]) => runCli(args, { env: { DATA_DIR: location.dataDir, DATABASE_URL: '' }, progress: () => {} });

function field(output: string, label: string): string {
  const match = new RegExp(`^${label.replace('.', '\\.')}\\s+(\\S+)$`, 'm').exec(output);
  if (!match?.[1]) throw new Error(`no "${label}" in:\n${output}`);
  return match[1];
}

/** A debit as php-oppwa sends it: the pair in the body, no Authorization header. */
async function payWith(url: string, entityId: string, userId: string, password: string): Promise<number> {
  const { entityId: _entityId, ...payment } = cardPayment(entityId);
  const response = await fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ 'authentication.userId': userId, 'authentication.password': password, 'authentication.entityId': entityId, ...payment }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('the credentials commands', () => {
  it('issue a pair the gateway accepts, list it without its password, and revoke it', async () => {
    const entityId = field((await gateway('entity', 'create', '--name', 'Legacy shop')).stdout, 'entityId');
    const created = await gateway('credentials', 'create', '--entity', entityId, '--label', 'php shop');
    expect(created.exitCode).toBe(0);
    const userId = field(created.stdout, 'authentication.userId');
    const password = field(created.stdout, 'authentication.password');
    expect(userId).toMatch(/^[0-9a-f]{32}$/);
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(created.stdout).toContain('the password is shown once');

    const listed = await gateway('credentials', 'list', '--entity', entityId);
    expect(listed.stdout).toMatch(new RegExp(`^${userId}  active  entities ${entityId}  php shop  created \\S+$`, 'm'));
    expect(listed.stdout).not.toContain(password);

    const running = await startGateway(configAt(location, { logLevel: 'silent' }), { jobPollMs: 0 });
    try {
      expect(await payWith(running.url, entityId, userId, password)).toBe(200);
    } finally {
      await running.close();
    }

    expect((await gateway('credentials', 'revoke', userId)).stdout).toBe(`revoked ${userId}\n`);
    expect((await gateway('credentials', 'list')).stdout).toMatch(new RegExp(`^${userId}  revoked \\S+  entities ${entityId}`, 'm'));
  }, 60_000);

  it('explain what they need', async () => {
    const noEntity = await gateway('credentials', 'create');
    expect(noEntity.exitCode).toBe(1);
    expect(noEntity.stderr).toContain('credentials create needs at least one --entity ID');
    expect(noEntity.stderr).toContain('credentials revoke USER_ID');
    expect((await gateway('credentials', 'create', '--entity', 'f'.repeat(32))).stderr).toContain(`no entity ${'f'.repeat(32)}`);
    expect((await gateway('credentials', 'revoke', 'nope')).stderr).toContain('credentials revoke needs the USER_ID');
  });
});
