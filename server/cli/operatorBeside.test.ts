import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStoreLocation, STORE_KINDS, warnIfPostgresSkipped, type StoreLocation } from '../testing/harness.ts';
import { startGatewayProcess, type GatewayProcess } from '../testing/gatewayProcess.ts';
import { COMMAND_FILE } from './localCommands.ts';
import { packagePath } from '../paths.ts';

/**
 * Found first (issue 34): a gateway started as a newcomer starts it (`npm start`, its own process) names the back
 * office and how to get in, and `npm run gateway -- operator create` run beside it — another process, no ADMIN_TOKEN,
 * the same store settings — makes an operator who signs in to that running gateway at once, with no restart: on the
 * embedded store (the command runs in the gateway holding it, through the address and token it wrote in DATA_DIR) and
 * on PostgreSQL (the command writes to the shared database).
 */

warnIfPostgresSkipped('the operator made beside a running gateway');

const run = promisify(execFile);
const PASSWORD = 'a password long enough for an operator';

describe.each(STORE_KINDS)('an operator made beside a running gateway on %s', (kind) => {
  let location: StoreLocation;
  let gateway: GatewayProcess;
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    location = await freshStoreLocation(kind);
    env = {
      DATA_DIR: location.dataDir,
      DATABASE_URL: location.databaseUrl ?? '',
      CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
      ADMIN_TOKEN: '',
      GATEWAY_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
    };
    gateway = startGatewayProcess(env);
    const banner = await gateway.listening;
    url = /Gateway listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? '';
  }, 90_000);
  afterAll(async () => {
    await gateway?.kill();
    await location?.dispose();
  });

  /**
   * The command line as an operator runs it beside the gateway (`wpwl-gateway <args>`, the compiled gateway of
   * globalSetup's build): another process, the same settings, PORT unset.
   */
  async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [packagePath('dist/server/bin.js').pathname, ...args], { env: { ...process.env, ...env, PORT: '' } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  const signIn = async (operator: string, password: string) => {
    const response = await fetch(`${url}/dashboard/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ operator, password }) });
    await response.body?.cancel();
    return response.status;
  };

  it('names /dashboard in its banner with the command that makes an operator, and says there is none yet', () => {
    const banner = gateway.stderr();
    expect(banner).toMatch(/^Dashboard http:\/\/\S+\/dashboard \(the back office\): sign in as an operator — no operator yet; make one beside this running gateway:$/m);
    expect(banner).toMatch(/^ {2}npm run gateway -- operator create NAME {3}\(with this (DATABASE_URL|DATA_DIR); it prints the password once\)$/m);
  });

  it('makes an operator beside it who signs in at once, without a restart', { timeout: 120_000 }, async () => {
    if (kind === 'PGlite') {
      // The gateway holding the embedded store told the command line where it listens, in a file only its user reads.
      const file = join(location.dataDir, COMMAND_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } else {
      expect(existsSync(join(location.dataDir, COMMAND_FILE))).toBe(false);
    }
    expect(await signIn('olivia', PASSWORD)).toBe(401);
    const work = mkdtempSync(join(tmpdir(), 'operator-beside-'));
    const passwordFile = join(work, 'password');
    writeFileSync(passwordFile, `${PASSWORD}\n`);
    const created = await cli('operator', 'create', 'olivia', '--password-file', passwordFile);
    expect(created.code, created.stderr).toBe(0);
    rmSync(work, { recursive: true, force: true });
    expect(created.stdout).toBe('operator olivia created\n');
    const generated = await cli('operator', 'create', 'oscar');
    expect(generated.code, generated.stderr).toBe(0);
    const oscar = /^password {2}(\S+)$/m.exec(generated.stdout)?.[1] ?? '';

    expect(await signIn('olivia', PASSWORD)).toBe(200);
    expect(await signIn('oscar', oscar)).toBe(200);
    expect(await signIn('olivia', 'not the password of olivia')).toBe(401);
    expect((await cli('operator', 'list')).stdout).toMatch(/^olivia {2}created \S+\noscar {2}created \S+\n$/);
    expect(gateway.child.exitCode).toBeNull();
  });

  it('removes the command file when it stops', { timeout: 60_000 }, async () => {
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(existsSync(join(location.dataDir, COMMAND_FILE))).toBe(false);
    // With no gateway running, the command opens the store itself.
    expect((await cli('operator', 'list')).stdout).toContain('olivia');
  });
});
