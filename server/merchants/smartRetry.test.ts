import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/index.ts';
import { DEFAULT_SOFT_DECLINE_CODES } from '../domain/smartRetryRules.ts';
import {
  freshStoreLocation,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type ApiResponse,
  type StoreLocation,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('merchants/smartRetry.test.ts');

/**
 * Smart retry settings (COMPAT §15) as the operator sets them: the admin API and the command line, with every kind
 * of bad input answered precisely (200.300.404 and parameterErrors naming the field, or the option at fault) and
 * nothing written by a refused request.
 */

const ADMIN_TOKEN = 'admin-token-for-smart-retry-settings-0123456789';

describe.each(STORE_KINDS)('the smart retry admin API on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, { acquirers: ['simulator', 'fallback', 'backup'], defaultAcquirer: 'simulator', adminToken: ADMIN_TOKEN });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = async (method: string, entityId: string, body?: unknown, token: string | null = ADMIN_TOKEN): Promise<ApiResponse> =>
    readResponse(
      await fetch(`${t.url}/admin/v1/entities/${entityId}/smart-retry`, {
        method,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );
  const show = (entityId: string) => call('GET', entityId);
  const put = (entityId: string, body: unknown) => call('PUT', entityId, body);
  const storedRows = async (entityId: string) =>
    (await t.gateway.store.query('SELECT * FROM smart_retry_settings WHERE entity_id = $1', [entityId])).rows;

  it('shows an entity without settings as off, with the default codes, and sets, replaces and removes its settings', async () => {
    const { entityId } = await t.newMerchant();
    const off = await show(entityId);
    expect(off.status).toBe(200);
    expect(off.body.result.code).toBe('000.000.100');
    expect(off.body.smartRetry).toEqual({
      entityId,
      enabled: false,
      codes: DEFAULT_SOFT_DECLINE_CODES,
      defaultCodes: true,
      standalone: true,
      cardOnFile: true,
      fallbackAcquirer: null,
      updatedAt: null,
      inEffect: false,
      notInEffectBecause: 'smart retry is not set up for this entity',
    });
    expect(DEFAULT_SOFT_DECLINE_CODES).not.toContain('900.100.300');

    const set = await put(entityId, { fallbackAcquirer: 'fallback' });
    expect(set.status).toBe(200);
    expect(set.body.smartRetry).toMatchObject({ enabled: true, codes: DEFAULT_SOFT_DECLINE_CODES, defaultCodes: true, standalone: true, cardOnFile: true, fallbackAcquirer: 'fallback', inEffect: true });
    expect((await show(entityId)).body.smartRetry).toEqual(set.body.smartRetry);

    // PUT replaces: what is left out takes its default again.
    const custom = await put(entityId, { fallbackAcquirer: 'backup', codes: ['800.100.151', '800.100.151', '900.100.100'], cardOnFile: false });
    expect(custom.body.smartRetry).toMatchObject({ codes: ['800.100.151', '900.100.100'], defaultCodes: false, standalone: true, cardOnFile: false, fallbackAcquirer: 'backup' });
    const defaults = await put(entityId, { fallbackAcquirer: 'backup', codes: 'default', enabled: false });
    expect(defaults.body.smartRetry).toMatchObject({ enabled: false, codes: DEFAULT_SOFT_DECLINE_CODES, defaultCodes: true, cardOnFile: true, inEffect: false });

    const removed = await call('DELETE', entityId);
    expect(removed.status).toBe(200);
    expect(removed.body.smartRetry).toMatchObject({ enabled: false, fallbackAcquirer: null, inEffect: false });
    expect(await storedRows(entityId)).toEqual([]);
    expect((await call('DELETE', entityId)).status).toBe(200);
  });

  it('refuses a fallback that is not a configured acquirer, or is the default one, naming the field, and writes nothing', async () => {
    const { entityId } = await t.newMerchant();
    expect((await put(entityId, { fallbackAcquirer: 'fallback', codes: ['800.100.151'] })).status).toBe(200);
    const before = await storedRows(entityId);

    const unknown = await put(entityId, { fallbackAcquirer: 'nowhere' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.result.code).toBe('200.300.404');
    expect(unknown.body.result.parameterErrors).toEqual([
      { name: 'fallbackAcquirer', value: 'nowhere', message: 'is not a configured acquirer (ACQUIRERS: simulator, fallback, backup)' },
    ]);
    const theDefault = await put(entityId, { fallbackAcquirer: 'simulator' });
    expect(theDefault.status).toBe(400);
    expect(theDefault.body.result.parameterErrors).toEqual([
      { name: 'fallbackAcquirer', value: 'simulator', message: 'must not be the default acquirer (simulator): the retry goes to another acquirer' },
    ]);
    const missing = await put(entityId, { codes: ['800.100.152'] });
    expect(missing.body.result.parameterErrors).toEqual([{ name: 'fallbackAcquirer', value: '', message: expect.stringContaining('is required') }]);
    expect(await storedRows(entityId)).toEqual(before);
  });

  it('refuses codes that are not result codes, 900.100.300, and codes that are no rejection, each by its place in the list', async () => {
    const { entityId } = await t.newMerchant();
    const refused = await put(entityId, { fallbackAcquirer: 'fallback', codes: ['800.100.152', '800.100', '900.100.300', '000.100.110', '000.200.000', 'x'.repeat(300)] });
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('200.300.404');
    expect(refused.body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual(['codes[1]', 'codes[2]', 'codes[3]', 'codes[4]', 'codes[5]']);
    expect(refused.body.result.parameterErrors[0]).toEqual({ name: 'codes[1]', value: '800.100', message: 'must be a result code of the form ddd.ddd.ddd' });
    expect(refused.body.result.parameterErrors[1].message).toContain('is never retried');
    // Cut as every value an answer shows back is (domain/sensitive.ts shownText).
    expect(refused.body.result.parameterErrors[4].value).toBe(`${'x'.repeat(256)}…`);
    expect((await put(entityId, { fallbackAcquirer: 'fallback', codes: [] })).body.result.parameterErrors).toEqual([
      { name: 'codes', value: '', message: expect.stringContaining('at least one') },
    ]);
    expect((await put(entityId, { fallbackAcquirer: 'fallback', codes: 'all' })).body.result.parameterErrors).toEqual([
      { name: 'codes', value: 'all', message: 'must be an array of result codes, or "default"' },
    ]);
    const neither = await put(entityId, { fallbackAcquirer: 'fallback', standalone: false, cardOnFile: false });
    expect(neither.body.result.parameterErrors).toEqual([{ name: 'standalone', value: 'false', message: expect.stringContaining('cardOnFile are both false') }]);
    expect(await storedRows(entityId)).toEqual([]);
  });

  it('answers malformed bodies, unknown entities and missing credentials precisely, never with a 500', async () => {
    const { entityId } = await t.newMerchant();
    const bodies: unknown[] = [
      'not json',
      '[]',
      'null',
      { fallbackAcquirer: 7 },
      { fallbackAcquirer: 'fallback', enabled: 'yes' },
      { fallbackAcquirer: 'fallback', codes: [1, 2] },
      { fallbackAcquirer: 'fallback', surprise: true },
      { fallbackAcquirer: 'x'.repeat(10_000) },
      { fallbackAcquirer: 'fallback', codes: Array.from({ length: 101 }, () => '800.100.152') },
    ];
    for (const body of bodies) {
      const answer = await put(entityId, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.result.code).toBe('200.300.404');
      expect(answer.body.result.parameterErrors.length).toBeGreaterThan(0);
    }
    expect(await storedRows(entityId)).toEqual([]);

    const stranger = 'f'.repeat(32);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await call(method, stranger, method === 'PUT' ? { fallbackAcquirer: 'fallback' } : undefined);
      expect(answer.status).toBe(404);
      expect(answer.body.result).toMatchObject({ code: '200.300.404', description: expect.stringContaining(`no entity ${stranger}`) });
    }
    expect((await show('not-an-entity')).status).toBe(404);
    expect((await call('GET', entityId, undefined, null)).status).toBe(401);
    expect((await call('GET', entityId, undefined, 'wrong-token-wrong-token-wrong-token')).status).toBe(403);
    expect((await call('POST', entityId, { fallbackAcquirer: 'fallback' })).status).toBe(405);
  });
});

describe.each(STORE_KINDS)('the smart-retry commands on %s', (kind) => {
  let location: StoreLocation;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
  });
  afterAll(async () => {
    await location?.dispose();
  });
  const env = () => ({
    DATA_DIR: location.dataDir,
    DATABASE_URL: location.databaseUrl ?? '',
    CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
    ACQUIRERS: 'simulator,fallback',
    DEFAULT_ACQUIRER: 'simulator',
  });
  const gateway = (...args: string[]) => runCli(args, { env: env(), progress: () => {} });

  it('shows, sets and switches off an entity’s smart retry, and explains every refusal', async () => {
    const created = await gateway('entity', 'create', '--name', 'Retry shop');
    const entityId = /^entityId\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    expect(entityId).toMatch(/^[0-9a-f]{32}$/);

    const off = await gateway('smart-retry', 'show', entityId);
    expect(off.exitCode).toBe(0);
    expect(off.stdout).toContain('smart retry   off: smart retry is not set up for this entity');

    const unknown = await gateway('smart-retry', 'set', entityId, '--fallback', 'nowhere');
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toBe('smart retry refused: --fallback nowhere is not a configured acquirer (ACQUIRERS: simulator, fallback)\n');
    const theDefault = await gateway('smart-retry', 'set', entityId, '--fallback', 'simulator');
    expect(theDefault.stderr).toContain('--fallback simulator must not be the default acquirer (simulator)');
    expect((await gateway('smart-retry', 'set', entityId)).stderr).toContain('--fallback is required');
    const codes = await gateway('smart-retry', 'set', entityId, '--fallback', 'fallback', '--codes', '800.100.152,80.100.1,900.100.300');
    expect(codes.exitCode).toBe(1);
    expect(codes.stderr).toContain('--codes 80.100.1 must be a result code of the form ddd.ddd.ddd');
    expect(codes.stderr).toContain('--codes 900.100.300 is never retried');
    const flag = await gateway('smart-retry', 'set', entityId, '--fallback', 'fallback', '--standalone', 'maybe');
    expect(flag.stderr).toContain('--standalone must be true or false');
    expect((await gateway('smart-retry', 'show', entityId)).stdout).toContain('not set up');

    const set = await gateway('smart-retry', 'set', entityId, '--fallback', 'fallback', '--codes', '800.100.152,800.100.151', '--card-on-file', 'false');
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toContain('smart retry   on');
    expect(set.stdout).toContain('codes         800.100.152,800.100.151\n');
    expect(set.stdout).toContain('card on file  no');
    const shown = await gateway('smart-retry', 'show', entityId);
    expect(shown.stdout).toContain('fallback      fallback');
    expect(shown.stdout).toContain('standalone    yes');

    const defaults = await gateway('smart-retry', 'set', entityId, '--fallback', 'fallback', '--codes', 'default');
    expect(defaults.stdout).toContain(`codes         ${DEFAULT_SOFT_DECLINE_CODES.join(',')} (the default list)`);

    const switchedOff = await gateway('smart-retry', 'off', entityId);
    expect(switchedOff.stdout).toContain(`${entityId}  smart retry off (its settings are removed)`);
    expect((await gateway('smart-retry', 'show', entityId)).stdout).toContain('not set up');

    const stranger = 'e'.repeat(32);
    for (const action of ['show', 'off']) expect((await gateway('smart-retry', action, stranger)).stderr).toBe(`no entity ${stranger}\n`);
    expect((await gateway('smart-retry', 'set', stranger, '--fallback', 'fallback')).stderr).toBe(`no entity ${stranger}: smart retry not changed\n`);
    expect((await gateway('smart-retry', 'show', 'nope')).stderr).toContain('smart-retry show needs the ENTITY_ID');
    expect((await gateway('smart-retry', 'destroy', entityId)).stderr).toContain('unknown command: smart-retry destroy');
  }, 240_000);
});
