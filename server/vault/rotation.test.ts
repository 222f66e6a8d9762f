import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../cli/command.ts';
import { runCli } from '../cli/index.ts';
import type { GatewayConfig } from '../config.ts';
import { newResourceId } from '../domain/ids.ts';
import { startGateway, type RunningGateway } from '../gateway.ts';
import { findJobsOfKind } from '../jobs/repository.ts';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  TEST_DATABASE_URL,
  warnIfPostgresSkipped,
  type ApiResponse,
  type StoreLocation,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { containsAny, storeFiles } from '../testing/dataAtRest.ts';
import { createCardVault, keyIdOf, type HeldCard } from './cardVault.ts';
import { VAULT_COMPACTION_JOB } from './repository.ts';
import { rotateSealedValues, VAULT_ROTATION_JOB } from './rotation.ts';

/**
 * Rotating the card-data key (docs/operating.md, "Rotating the card-data key"): data sealed under key A keeps working on
 * gateways that seal with B and still hold A; `keys rotate` re-seals it under B while gateways serve; afterwards a
 * gateway holding only B pays with it, and after the vault's compaction no ciphertext sealed under A is left in the
 * data files. Key material never shows in answers, logs or the command's output.
 */

warnIfPostgresSkipped('card-data key rotation');

const hex = (key: Buffer) => key.toString('hex');


/** The files a value could be read back from: PGlite's whole directory, or the vault table's files on the server. */
const dataFiles = (location: StoreLocation) => storeFiles(location, ['vault_items']);


/** Every form a key could be printed in: none may appear in an answer, a log line or the command's output. */
function expectNoKeyMaterial(texts: readonly string[], keys: readonly Buffer[]): void {
  const forms = keys.flatMap((key) => [hex(key), hex(key).toUpperCase(), key.toString('base64'), key.toString('base64url')]);
  for (const text of texts) for (const form of forms) expect(text).not.toContain(form);
}

/** A merchant's POST to a gateway started outside the harness (a restart on the harness's store). */
async function postTo(gateway: RunningGateway, token: string, path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return readResponse(
    await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    }),
  );
}

async function getFrom(gateway: RunningGateway, token: string, path: string, entityId: string): Promise<ApiResponse> {
  return readResponse(await fetch(`${gateway.url}${path}?entityId=${entityId}`, { headers: { Authorization: `Bearer ${token}` } }));
}

/** The environment an operator runs `npm run gateway -- keys ...` with, on the test's store. */
function operatorEnv(location: StoreLocation, current: Buffer, previous: readonly Buffer[]): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: location.databaseUrl ?? '',
    DATA_DIR: location.dataDir,
    CARD_DATA_KEY: hex(current),
    CARD_DATA_PREVIOUS_KEYS: previous.map(hex).join(','),
  };
}

/** `keys ...` in-process, its progress lines kept. */
async function keysCommand(
  args: readonly string[],
  location: StoreLocation,
  keys: { current: Buffer; previous: readonly Buffer[] },
  clock: TestClock,
): Promise<CliResult & { progress: string[] }> {
  const progress: string[] = [];
  const result = await runCli(['keys', ...args], { env: operatorEnv(location, keys.current, keys.previous), progress: (line) => progress.push(line), now: clock.now });
  return { ...result, progress };
}

async function vaultRows(db: RunningGateway['store']): Promise<{ id: string; key_id: string; iv: string; data: string }[]> {
  return (await db.query<{ id: string; key_id: string; iv: string; data: string }>('SELECT id, key_id, iv, data FROM vault_items ORDER BY id')).rows;
}

const pendingChallenge = (t: TestGateway) =>
  t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }));

describe.each(STORE_KINDS)('rotating the card-data key on %s', (kind) => {
  it('keeps stored cards, held challenge cards and idempotency keys working through the rotation, then drops the old key and its ciphertexts', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const clock = createTestClock();
    const logLines: string[] = [];
    const outputs: string[] = [];
    const t = await startTestGateway(kind, { cardDataKey: keyA }, { now: clock.now });
    const started = (config: Partial<GatewayConfig>) =>
      startGateway({ ...t.gateway.config, ...config }, { now: clock.now, jobPollMs: 0, logSink: (line) => logLines.push(line) });
    let running: RunningGateway = t.gateway;
    try {
      // Under key A: a stored card, two cards held for their challenges, and a payment under an idempotency key.
      const registered = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }));
      const registrationId = registered.body.registrationId as string;
      expect(registrationId).toMatch(/^[0-9a-f]{32}$/);
      const [beforeRotation, afterRotation] = [await pendingChallenge(t), await pendingChallenge(t)];
      expect(beforeRotation.body.result.code).toBe('000.200.000');
      const idempotent = cardPayment(t.entityId, { amount: '12.00', merchantTransactionId: 'before-rotation' });
      const first = await t.post('/v1/payments', idempotent, { headers: { 'Idempotency-Key': 'order-77' } });
      expect(first.status).toBe(200);
      const underA = await vaultRows(t.gateway.store);
      expect(underA.map((row) => row.key_id)).toEqual([keyIdOf(keyA), keyIdOf(keyA), keyIdOf(keyA)]);
      await t.gateway.close();

      // (a) Restarted with B current and A previous: all of it still works.
      running = await started({ cardDataKey: keyB, cardDataPreviousKeys: [keyA] });
      const payWithRegistration = () => postTo(running, t.token, '/v1/payments', { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB', registrationId });
      expect((await payWithRegistration()).body.result.code).toBe('000.100.110');
      expect((await answerRedirect(beforeRotation)).status).toBeLessThan(500);
      expect((await getFrom(running, t.token, `/v1/payments/${beforeRotation.body.id}`, t.entityId)).body.result.code).toBe('000.100.110');
      const replayed = await postTo(running, t.token, '/v1/payments', idempotent, { 'Idempotency-Key': 'order-77' });
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(first.body);
      // Matching under a previous key is no blanket pass: other parameters are still refused.
      const other = await postTo(running, t.token, '/v1/payments', { ...idempotent, amount: '13.00' }, { 'Idempotency-Key': 'order-77' });
      expect(other.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'Idempotency-Key', message: expect.stringMatching(/other parameters/) })]);
      // New cards are sealed with B.
      const registeredUnderB = (await postTo(running, t.token, '/v1/payments', cardPayment(t.entityId, { createRegistration: 'true', 'card.number': '5454545454545454', paymentBrand: 'MASTER' }))).body
        .registrationId as string;
      expect(registeredUnderB).toMatch(/^[0-9a-f]{32}$/);

      const status = await keysCommand(['status'], t.location, { current: keyB, previous: [keyA] }, clock);
      // On the embedded store the command runs in the gateway that holds it (cli/localCommands.ts), under its keys.
      expect(status.stderr).toBe('');
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`${keyIdOf(keyB)}\\s+1\\s+current`));
      expect(status.stdout).toMatch(new RegExp(`${keyIdOf(keyA)}\\s+2\\s+previous`));
      outputs.push(status.stdout);
      const oldCiphertexts = (await vaultRows(running.store)).filter((row) => row.key_id === keyIdOf(keyA)).flatMap((row) => [row.data, row.iv]);
      expect(oldCiphertexts).toHaveLength(4);

      // (b) The rotation: on PostgreSQL while this gateway serves, on the embedded store with its gateway stopped.
      if (kind === 'PGlite') await running.close();
      const rotated = await keysCommand(['rotate', '--batch', '1'], t.location, { current: keyB, previous: [keyA] }, clock);
      outputs.push(rotated.stdout, rotated.stderr, ...rotated.progress);
      expect(rotated.stderr).toBe('');
      expect(rotated.exitCode).toBe(0);
      expect(rotated.progress).toEqual([expect.stringMatching(/^Re-sealing card data with the current key/), '  re-sealed 1 (1 so far)', '  re-sealed 1 (2 so far)']);
      expect(rotated.stdout).toContain(`Re-sealed 2 sealed value(s) with key ${keyIdOf(keyB)}; 0 left under other keys.`);
      expect(rotated.stdout).toContain('Scheduled the vault compaction');
      expect(rotated.stdout).toMatch(/previous key\(s\) seal nothing any more and can be dropped/);
      expect(rotated.stdout).toMatch(new RegExp(`${keyIdOf(keyA)}\\s+0\\s+previous`));
      if (kind === 'PostgreSQL') await running.close();

      // (c) A gateway with B only: the stored card and the card held for its challenge, both re-sealed, still pay.
      running = await started({ cardDataKey: keyB, cardDataPreviousKeys: [] });
      expect((await vaultRows(running.store)).map((row) => row.key_id)).toEqual([keyIdOf(keyB), keyIdOf(keyB), keyIdOf(keyB)]);
      expect((await payWithRegistration()).body.result.code).toBe('000.100.110');
      expect((await answerRedirect(afterRotation)).status).toBeLessThan(500);
      expect((await getFrom(running, t.token, `/v1/payments/${afterRotation.body.id}`, t.entityId)).body.result.code).toBe('000.100.110');
      // The 24 hours docs/operating.md speaks of: with A dropped, a key used under A no longer matches (a clean refusal).
      const afterDrop = await postTo(running, t.token, '/v1/payments', idempotent, { 'Idempotency-Key': 'order-77' });
      expect(afterDrop.status).toBe(400);
      expect(afterDrop.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'Idempotency-Key' })]);

      // (d) The compaction the rotation scheduled takes the old ciphertexts out of the data files.
      expect(containsAny(await dataFiles(t.location), oldCiphertexts)).toBe(true);
      const compactions = await findJobsOfKind(running.store, VAULT_COMPACTION_JOB);
      expect(compactions.some((job) => job.uniqueKey?.startsWith(`${VAULT_COMPACTION_JOB}:rotation:`) && job.runAt.getTime() <= clock.now().getTime())).toBe(true);
      expect(await running.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
      expect((await findJobsOfKind(running.store, VAULT_COMPACTION_JOB)).filter((job) => job.uniqueKey?.includes(':rotation:')).every((job) => job.doneAt)).toBe(true);
      if (kind === 'PostgreSQL') expect(containsAny(await dataFiles(t.location), oldCiphertexts)).toBe(false);
      await running.close();
      if (kind === 'PGlite') expect(containsAny(await dataFiles(t.location), oldCiphertexts)).toBe(false);

      expectNoKeyMaterial([...outputs, ...logLines, ...t.logLines, JSON.stringify([first.body, replayed.body, other.body, afterDrop.body])], [keyA, keyB]);
    } finally {
      await running.close().catch(() => undefined);
      await t.location.dispose();
    }
  }, 120_000);

  it('refuses cleanly what a key it does not hold sealed, and the rotation reports those values by id and exits non-zero', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const clock = createTestClock();
    const logLines: string[] = [];
    const t = await startTestGateway(kind, { cardDataKey: keyA }, { now: clock.now });
    let running: RunningGateway = t.gateway;
    try {
      const registrationId = (await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }))).body.registrationId as string;
      const pending = await pendingChallenge(t);
      const sealedUnderA = await vaultRows(t.gateway.store);
      expect(sealedUnderA).toHaveLength(2);
      await t.gateway.close();

      // A dropped too early: B only.
      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB }, { now: clock.now, jobPollMs: 0, logSink: (line) => logLines.push(line) });
      const refused = await postTo(running, t.token, '/v1/payments', { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB', registrationId });
      expect(refused.status).toBeLessThan(500);
      expect(refused.body.result.code).toBe('100.150.203');
      const answered = await answerRedirect(pending);
      expect(answered.status).toBeLessThan(500);
      const challenged = await getFrom(running, t.token, `/v1/payments/${pending.body.id}`, t.entityId);
      expect(challenged.status).toBeLessThan(500);
      expect(challenged.body.result.code).not.toBe('000.100.110');
      // What is left under A (the failed challenge's card may have been erased with its payment).
      const before = await vaultRows(running.store);
      expect(before.length).toBeGreaterThanOrEqual(1);
      expect(before.every((row) => row.key_id === keyIdOf(keyA))).toBe(true);
      await running.close();

      const status = await keysCommand(['status'], t.location, { current: keyB, previous: [] }, clock);
      expect(status.stdout).toMatch(new RegExp(`${keyIdOf(keyA)}\\s+${before.length}\\s+not configured`));
      const rotated = await keysCommand(['rotate'], t.location, { current: keyB, previous: [] }, clock);
      expect(rotated.exitCode).toBe(1);
      expect(rotated.stdout).toContain(`${before.length} sealed value(s) no configured key opens`);
      for (const row of before) expect(rotated.stdout).toContain(`vault item ${row.id}`);
      // Left as they were: with A back among the previous keys, they open and are re-sealed.
      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB }, { now: clock.now, jobPollMs: 0, logSink: (line) => logLines.push(line) });
      expect(await vaultRows(running.store)).toEqual(before);
      await running.close();
      const again = await keysCommand(['rotate'], t.location, { current: keyB, previous: [keyA] }, clock);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toContain(`Re-sealed ${before.length} sealed value(s)`);

      // Nothing of a key, nor of the sealed data, in any answer, log line or output.
      const texts = [JSON.stringify([refused.body, challenged.body]), await answered.text(), ...logLines, ...t.logLines];
      for (const result of [status, rotated, again]) texts.push(result.stdout, result.stderr, ...result.progress);
      expectNoKeyMaterial(texts, [keyA, keyB]);
      for (const text of texts) for (const row of sealedUnderA) expect(text).not.toContain(row.data);
    } finally {
      await running.close().catch(() => undefined);
      await t.location.dispose();
    }
  }, 120_000);
});

describe('rotating on the embedded store, by the gateway itself', () => {
  it('schedules the re-sealing at start when a previous key still seals values, runs it in batches, then the compaction', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const clock = createTestClock();
    const logLines: string[] = [];
    const t = await startTestGateway('PGlite', { cardDataKey: keyA }, { now: clock.now });
    let running: RunningGateway = t.gateway;
    try {
      const registrationId = (await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }))).body.registrationId as string;
      const pending = await pendingChallenge(t);
      // Without a previous key, nothing is scheduled.
      expect(await findJobsOfKind(t.gateway.store, VAULT_ROTATION_JOB)).toEqual([]);
      await t.gateway.close();

      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB, cardDataPreviousKeys: [keyA] }, { now: clock.now, jobPollMs: 0, logSink: (line) => logLines.push(line) });
      expect(await findJobsOfKind(running.store, VAULT_ROTATION_JOB)).toHaveLength(1);
      expect(await running.jobs.runDueJobs()).toBeGreaterThanOrEqual(1);
      expect((await vaultRows(running.store)).map((row) => row.key_id)).toEqual([keyIdOf(keyB), keyIdOf(keyB)]);
      expect(logLines.some((line) => line.includes('card data re-sealed with the current key') && line.includes('"resealed":2'))).toBe(true);
      expect((await findJobsOfKind(running.store, VAULT_COMPACTION_JOB)).some((job) => job.uniqueKey?.includes(':rotation:'))).toBe(true);
      await running.jobs.runDueJobs();
      expect(logLines.some((line) => line.includes('vault compacted'))).toBe(true);
      await running.close();

      // No previous key any more: the stored card and the held one pay.
      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB, cardDataPreviousKeys: [] }, { now: clock.now, jobPollMs: 0, logSink: (line) => logLines.push(line) });
      const paid = await postTo(running, t.token, '/v1/payments', { entityId: t.entityId, amount: '15.00', currency: 'EUR', paymentType: 'DB', registrationId });
      expect(paid.body.result.code).toBe('000.100.110');
      await answerRedirect(pending);
      expect((await getFrom(running, t.token, `/v1/payments/${pending.body.id}`, t.entityId)).body.result.code).toBe('000.100.110');
      expectNoKeyMaterial([...logLines, ...t.logLines], [keyA, keyB]);
    } finally {
      await running.close().catch(() => undefined);
      await t.location.dispose();
    }
  }, 120_000);

  it('walks the table in id order, batch by batch, and can stop and go on where it stopped', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const t = await startTestGateway('PGlite', { cardDataKey: keyA });
    try {
      const old = createCardVault(keyA);
      const ids = Array.from({ length: 5 }, () => newResourceId()).sort();
      for (const [index, id] of ids.entries()) {
        const sealed = old.seal({ n: index });
        await t.gateway.store.query('INSERT INTO vault_items (id, key_id, iv, tag, data, created_at) VALUES ($1, $2, $3, $4, $5, now())', [
          id,
          sealed.keyId,
          sealed.iv,
          sealed.tag,
          sealed.data,
        ]);
      }
      const ring = createCardVault(keyB, [keyA]);
      const part = await rotateSealedValues(t.gateway.store, ring, { batchSize: 2, maxBatches: 1 });
      expect(part).toMatchObject({ resealed: 2, complete: false, cursor: ids[1], left: 3 });
      const rest = await rotateSealedValues(t.gateway.store, ring, { batchSize: 2, after: part.cursor });
      expect(rest).toMatchObject({ resealed: 3, complete: true, left: 0, unopenable: [] });
      const onlyB = createCardVault(keyB);
      const rows = await t.gateway.store.query<{ id: string; key_id: string; iv: string; tag: string; data: string }>(
        'SELECT id, key_id, iv, tag, data FROM vault_items WHERE id = ANY($1::text[]) ORDER BY id',
        [ids],
      );
      expect(rows.rows.map((row) => onlyB.open({ keyId: row.key_id, iv: row.iv, tag: row.tag, data: row.data }))).toEqual(ids.map((_, n) => ({ n })));
    } finally {
      await t.close();
    }
  });
});

describe.runIf(TEST_DATABASE_URL)('rotating on PostgreSQL while gateways serve', () => {
  it('leaves a row a payment holds to its second pass instead of waiting for it in the first', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const t = await startTestGateway('PostgreSQL', { cardDataKey: keyA });
    const holder = new pg.Client({ connectionString: t.location.databaseUrl });
    await holder.connect();
    try {
      const old = createCardVault(keyA);
      const ids = Array.from({ length: 3 }, () => newResourceId()).sort();
      for (const id of ids) {
        const sealed = old.seal({ id });
        await t.gateway.store.query('INSERT INTO vault_items (id, key_id, iv, tag, data, created_at) VALUES ($1, $2, $3, $4, $5, now())', [
          id,
          sealed.keyId,
          sealed.iv,
          sealed.tag,
          sealed.data,
        ]);
      }
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM vault_items WHERE id = $1 FOR UPDATE', [ids[1]]);
      const batches: number[] = [];
      let released: Promise<unknown> | undefined;
      const result = await rotateSealedValues(t.gateway.store, createCardVault(keyB, [keyA]), {
        batchSize: 10,
        onBatch: ({ resealed }) => {
          batches.push(resealed);
          // The first pass is over: the payment holding the row commits, and the second pass takes the row.
          released ??= holder.query('COMMIT');
        },
      });
      await released;
      expect(batches).toEqual([2, 1]);
      expect(result).toMatchObject({ resealed: 3, left: 0, unopenable: [] });
    } finally {
      await holder.end();
      await t.close();
    }
  });

  it('re-seals everything as a child process (`npx tsx server/cli/index.ts keys rotate`) while a gateway takes payments: none fails, no row is lost', async () => {
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    const t = await startTestGateway('PostgreSQL', { cardDataKey: keyA });
    let running: RunningGateway = t.gateway;
    try {
      // Under A: stored cards and held challenge cards made through the API, and many more sealed values.
      const registrations: string[] = [];
      for (let i = 0; i < 10; i++) registrations.push((await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }))).body.registrationId as string);
      const challenges: ApiResponse[] = [];
      for (let i = 0; i < 10; i++) challenges.push(await pendingChallenge(t));
      const old = createCardVault(keyA);
      const filler = Array.from({ length: 3000 }, (_, n) => ({ id: newResourceId(), sealed: old.seal({ n }) }));
      await t.gateway.store.query(
        `INSERT INTO vault_items (id, key_id, iv, tag, data, created_at)
         SELECT id, key_id, iv, tag, data, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS v(id, key_id, iv, tag, data)`,
        [filler.map((f) => f.id), filler.map((f) => f.sealed.keyId), filler.map((f) => f.sealed.iv), filler.map((f) => f.sealed.tag), filler.map((f) => f.sealed.data)],
      );
      const underA = (await vaultRows(t.gateway.store)).length;
      expect(underA).toBe(3020);
      await t.gateway.close();
      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB, cardDataPreviousKeys: [keyA] }, { jobPollMs: 0, logSink: () => undefined });

      const child = spawn('npx', ['tsx', 'server/cli/index.ts', 'keys', 'rotate', '--batch', '25'], {
        env: { ...process.env, ...operatorEnv(t.location, keyB, [keyA]) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      let exited = false;
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))).finally(() => (exited = true));

      // Payments until the command has finished: with stored cards, new stored cards, challenges answered.
      const failures: string[] = [];
      const newRegistrations: string[] = [];
      let duringRotation = 0;
      const check = (what: string, response: ApiResponse, code: string) => {
        if (response.status >= 500 || response.body?.result?.code !== code) failures.push(`${what}: ${response.status} ${JSON.stringify(response.body?.result)}`);
        // Counted only while the command is between its first and its last batch.
        if (/re-sealed \d+/.test(stdout) && !/Re-sealed \d+ sealed value/.test(stdout)) duringRotation++;
      };
      const worker = async (n: number) => {
        for (let i = 0; !exited; i++) {
          const registrationId = registrations[(n + i) % registrations.length] as string;
          check('stored card', await postTo(running, t.token, '/v1/payments', { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', registrationId }), '000.100.110');
          const stored = await postTo(running, t.token, '/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }));
          check('new stored card', stored, '000.100.110');
          if (stored.body.registrationId) newRegistrations.push(stored.body.registrationId as string);
          const pending = challenges.pop();
          if (pending) {
            const answered = await answerRedirect(pending);
            if (answered.status >= 500) failures.push(`challenge answer: ${answered.status}`);
            check('challenge', await getFrom(running, t.token, `/v1/payments/${pending.body.id}`, t.entityId), '000.100.110');
          }
        }
      };
      await Promise.all([worker(0), worker(1), worker(2), worker(3)]);
      expect(await exit).toBe(0);
      expect(failures).toEqual([]);
      expect(duringRotation).toBeGreaterThan(0);
      expect(stdout).toMatch(/re-sealed 25 \(25 so far\)/);
      expect(stdout).toMatch(/previous key\(s\) seal nothing any more/);
      expectNoKeyMaterial([stdout, stderr], [keyA, keyB]);

      // Every row under B, none lost: the filler opens to what it held, every stored card pays with B alone.
      const rows = await vaultRows(running.store);
      expect(rows.every((row) => row.key_id === keyIdOf(keyB))).toBe(true);
      expect(rows.length).toBe(3010 + newRegistrations.length + challenges.length);
      await running.close();
      running = await startGateway({ ...t.gateway.config, cardDataKey: keyB, cardDataPreviousKeys: [] }, { jobPollMs: 0, logSink: () => undefined });
      const onlyB = createCardVault(keyB);
      const byId = new Map(
        (await running.store.query<{ id: string; key_id: string; iv: string; tag: string; data: string }>('SELECT id, key_id, iv, tag, data FROM vault_items')).rows.map((row) => [
          row.id.trim(),
          row,
        ]),
      );
      for (const { id } of filler) {
        const row = byId.get(id);
        expect(row).toBeDefined();
      }
      expect(filler.every(({ id }, n) => {
        const row = byId.get(id) as { key_id: string; iv: string; tag: string; data: string };
        return (onlyB.open<{ n: number }>({ keyId: row.key_id, iv: row.iv, tag: row.tag, data: row.data })).n === n;
      })).toBe(true);
      for (const registrationId of [...registrations, ...newRegistrations.slice(0, 5)]) {
        const paid = await postTo(running, t.token, '/v1/payments', { entityId: t.entityId, amount: '2.00', currency: 'EUR', paymentType: 'DB', registrationId });
        expect(paid.body.result.code).toBe('000.100.110');
      }
      // The held card type is a HeldCard: a registration's card opens to one with B alone.
      const card = await running.store.query<{ key_id: string; iv: string; tag: string; data: string }>(
        'SELECT v.key_id, v.iv, v.tag, v.data FROM registrations r JOIN vault_items v ON v.id = r.sealed_card_id WHERE r.id = $1',
        [registrations[0]],
      );
      const opened = onlyB.open<HeldCard>({ keyId: card.rows[0]?.key_id as string, iv: card.rows[0]?.iv as string, tag: card.rows[0]?.tag as string, data: card.rows[0]?.data as string });
      expect(opened.number).toBe('4200000000000000');
    } finally {
      await running.close().catch(() => undefined);
      await t.location.dispose();
    }
  }, 180_000);
});
