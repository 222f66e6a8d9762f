import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import { dashboardClient, merchantUser } from '../testing/dashboardClient.ts';
import { createTestClock, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestClock, type TestGateway } from '../testing/harness.ts';
import { createOperator } from './operators.ts';
import { delayAfter, MAX_DELAY_MS } from './signInDelays.ts';

/**
 * The per-account sign-in limit (issue 34 §4), beside the per-address one (switched off here): five attempts for a
 * name without a sign-in, then each next one waits twice as long, at most 15 minutes; the right password during the
 * wait is refused as a wrong one is, without its hash being computed (the scrypt calls are counted); after the wait
 * it works and forgets the count; another account is not slowed; an unknown name counts like a known one. The clock
 * is moved, never waited for.
 */

const hashing = vi.hoisted(() => ({ verifications: 0 }));
vi.mock('../merchants/passwordHash.ts', async (original) => {
  const real = await original<typeof import('../merchants/passwordHash.ts')>();
  return {
    ...real,
    verifyPassword: (password: string, stored: string) => {
      hashing.verifications++;
      return real.verifyPassword(password, stored);
    },
  };
});

warnIfPostgresSkipped('the per-account sign-in limit test');

const PASSWORD = 'an operator password of length';

it('waits 2^n seconds after the fifth attempt, capped at 15 minutes', () => {
  expect([0, 1, 4, 5, 6, 7, 13, 14, 40].map(delayAfter)).toEqual([0, 0, 0, 2000, 4000, 8000, 512_000, MAX_DELAY_MS, MAX_DELAY_MS]);
  expect(MAX_DELAY_MS).toBe(15 * 60_000);
});

describe.each(STORE_KINDS)('the per-account sign-in limit on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let user: { email: string; password: string };

  beforeAll(async () => {
    clock = createTestClock(new Date('2026-12-02T08:00:00Z'));
    // No per-address limit: what is refused here is the account's.
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway(kind, { limits }, { now: clock.now });
    await createOperator(t.gateway.store, 'olivia', PASSWORD, clock.now());
    await createOperator(t.gateway.store, 'oscar', PASSWORD, clock.now());
    user = await merchantUser(t.gateway.store, t.entityId, 'viewer');
  });
  afterAll(async () => {
    await t?.close();
  });

  const { call } = dashboardClient(() => t.url);
  const attempt = async (credentials: Record<string, string>) => {
    const before = hashing.verifications;
    const answer = await call({}, 'POST', '/session', credentials);
    return { status: answer.status, code: answer.body.result?.code as string, retryAfter: Number(answer.headers.get('retry-after') ?? 0), hashed: hashing.verifications - before };
  };
  const refused = (seconds: number) => ({ status: 400, code: '800.120.100', retryAfter: seconds, hashed: 0 });
  const wrong = { status: 401, code: '800.900.300', retryAfter: 0, hashed: 1 };

  it('delays an account after five failures, refuses even the right password unhashed, and forgets after a sign-in', async () => {
    for (let guess = 0; guess < 5; guess++) expect(await attempt({ operator: 'olivia', password: `guess ${guess}` })).toEqual(wrong);
    // The sixth waits 2 s: the right password is refused, before any hash.
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toEqual(refused(2));
    expect(await attempt({ operator: 'Olivia', password: PASSWORD })).toEqual(refused(2));
    // Another account is not slowed.
    expect(await attempt({ operator: 'oscar', password: PASSWORD })).toMatchObject({ status: 200, hashed: 1 });

    clock.advance(2000);
    expect(await attempt({ operator: 'olivia', password: 'guess 5' })).toEqual(wrong);
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toEqual(refused(4));
    clock.advance(3000);
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toEqual(refused(1));
    clock.advance(1000);
    expect(await attempt({ operator: 'olivia', password: 'guess 6' })).toEqual(wrong);
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toEqual(refused(8));
    clock.advance(8000);
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toMatchObject({ status: 200, hashed: 1 });
    // Forgotten: the next failures are free again.
    for (let guess = 0; guess < 4; guess++) expect(await attempt({ operator: 'olivia', password: `again ${guess}` })).toEqual(wrong);
    expect(await attempt({ operator: 'olivia', password: PASSWORD })).toMatchObject({ status: 200 });
  });

  it('counts an unknown name or address like a known one, and caps the wait at 15 minutes', async () => {
    for (const [field, name] of [['operator', 'nobody'], ['email', 'nobody@example.com']] as const) {
      for (let guess = 0; guess < 5; guess++) expect(await attempt({ [field]: name, password: PASSWORD })).toEqual(wrong);
      expect(await attempt({ [field]: name.toUpperCase(), password: PASSWORD })).toEqual(refused(2));
    }
    // A merchant user's address is an account of its own.
    for (let guess = 0; guess < 5; guess++) expect(await attempt({ email: user.email, password: `guess ${guess}` })).toEqual(wrong);
    expect(await attempt({ email: user.email, password: user.password })).toEqual(refused(2));
    // Failures each once its wait has passed: the wait doubles to 15 minutes (at the fourteenth) and no further.
    let retryAfter = 2;
    for (let failures = 6; failures <= 15; failures++) {
      clock.advance(retryAfter * 1000);
      expect(await attempt({ email: user.email, password: `guess ${failures}` })).toEqual(wrong);
      retryAfter = (await attempt({ email: user.email, password: user.password })).retryAfter;
      expect(retryAfter).toBe(Math.min(2 ** (failures - 4), 900));
    }
    clock.advance(MAX_DELAY_MS);
    expect(await attempt({ email: user.email, password: user.password })).toMatchObject({ status: 200, hashed: 1 });
  });

  it('forgets a count a day old', async () => {
    for (let guess = 0; guess < 5; guess++) expect(await attempt({ operator: 'oscar', password: `guess ${guess}` })).toEqual(wrong);
    expect(await attempt({ operator: 'oscar', password: PASSWORD })).toEqual(refused(2));
    clock.advance(24 * 60 * 60_000 + 1000);
    for (let guess = 0; guess < 4; guess++) expect(await attempt({ operator: 'oscar', password: `later ${guess}` })).toEqual(wrong);
    expect(await attempt({ operator: 'oscar', password: PASSWORD })).toMatchObject({ status: 200 });
  });
});
