import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock, startTestGateway, type TestGateway } from '../testing/harness.ts';
import { cachedLegacyAccess } from './legacyAccessCache.ts';
import { issueLegacyCredentials, revokeLegacyCredentials, type IssuedCredentials } from './legacyCredentials.ts';
import { hashPassword, verifyPassword } from './passwordHash.ts';

/**
 * The slow KDF (scrypt) checks a legacy pair once per process, not once per request (COMPAT §1, issue 20): what a
 * verified pair may act for is cached as access tokens are, and the KDF's outcome on its own.
 */

let t: TestGateway;
let pair: IssuedCredentials;

beforeAll(async () => {
  t = await startTestGateway('PGlite');
  pair = await issueLegacyCredentials(t.gateway.store, [t.entityId], 'cache tests');
});
afterAll(async () => {
  await t?.close();
});

/** The real KDF, counted. */
function countedVerify(): { verify: typeof verifyPassword; readonly calls: () => number } {
  let calls = 0;
  return {
    verify: (password, hash) => {
      calls++;
      return verifyPassword(password, hash);
    },
    calls: () => calls,
  };
}

describe('the legacy access cache', () => {
  it('runs the KDF once for a pair used by many requests, concurrent first ones included', async () => {
    const counted = countedVerify();
    const lookup = cachedLegacyAccess(t.gateway.store, 10_000, () => new Date(), counted);
    const first = await Promise.all(Array.from({ length: 8 }, () => lookup(pair.userId, pair.password)));
    for (const access of first) expect(access).toEqual({ known: true, userId: pair.userId, entityIds: new Set([t.entityId]) });
    for (let request = 0; request < 20; request++) expect((await lookup(pair.userId, pair.password)).known).toBe(true);
    expect(counted.calls()).toBe(1);
  });

  it('with TOKEN_CACHE_SECONDS=0 reads the store on every request, still with one KDF run per pair, and sees a revocation at once', async () => {
    const revocable = await issueLegacyCredentials(t.gateway.store, [t.entityId], 'revoked at once');
    const counted = countedVerify();
    const lookup = cachedLegacyAccess(t.gateway.store, 0, () => new Date(), counted);
    for (let request = 0; request < 5; request++) expect((await lookup(revocable.userId, revocable.password)).known).toBe(true);
    expect(counted.calls()).toBe(1);
    await revokeLegacyCredentials(t.gateway.store, revocable.userId);
    expect(await lookup(revocable.userId, revocable.password)).toEqual({ known: false });
  });

  it('refuses a revoked pair once its cached access has expired', async () => {
    const revocable = await issueLegacyCredentials(t.gateway.store, [t.entityId], 'revoked later');
    const clock = createTestClock();
    const lookup = cachedLegacyAccess(t.gateway.store, 10_000, clock.now);
    expect((await lookup(revocable.userId, revocable.password)).known).toBe(true);
    await revokeLegacyCredentials(t.gateway.store, revocable.userId);
    clock.advance(9_000);
    expect((await lookup(revocable.userId, revocable.password)).known).toBe(true);
    clock.advance(1_001);
    expect((await lookup(revocable.userId, revocable.password)).known).toBe(false);
  });

  it('never takes a wrong password for a right one, nor the other way round, and checks a retried wrong one once', async () => {
    const counted = countedVerify();
    const lookup = cachedLegacyAccess(t.gateway.store, 10_000, () => new Date(), counted);
    const wrong = `${pair.password.slice(0, -1)}${pair.password.endsWith('A') ? 'B' : 'A'}`;
    for (let retry = 0; retry < 5; retry++) expect(await lookup(pair.userId, wrong)).toEqual({ known: false });
    expect(counted.calls()).toBe(1);
    expect((await lookup(pair.userId, pair.password)).known).toBe(true);
    expect(await lookup(pair.userId, wrong)).toEqual({ known: false });
    // The password of one pair is no key to another userId.
    const other = await issueLegacyCredentials(t.gateway.store, [t.entityId], 'other');
    expect(await lookup(other.userId, pair.password)).toEqual({ known: false });
    expect((await lookup(other.userId, other.password)).known).toBe(true);
  });

  it('refuses what cannot be a pair without the store or the KDF', async () => {
    const counted = countedVerify();
    const lookup = cachedLegacyAccess(t.gateway.store, 10_000, () => new Date(), counted);
    for (const [userId, password] of [
      [pair.userId.toUpperCase(), pair.password],
      [`${pair.userId}0`, pair.password],
      ['', pair.password],
      [pair.userId, ''],
      [pair.userId, 'p'.repeat(256)],
    ] as const) {
      expect(await lookup(userId, password)).toEqual({ known: false });
    }
    expect(await lookup('0'.repeat(32), pair.password)).toEqual({ known: false });
    expect(counted.calls()).toBe(0);
  });
});

describe('legacy passwords at rest', () => {
  it('are salted scrypt hashes that name their parameters, never the password', async () => {
    const stored = await t.gateway.store.query<{ password_hash: string }>('SELECT password_hash FROM legacy_credentials WHERE user_id = $1', [pair.userId]);
    const hash = stored.rows[0]?.password_hash as string;
    expect(hash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(hash).not.toContain(pair.password);
    // The same password twice: two salts, two hashes, each verifying it.
    const again = await hashPassword(pair.password);
    expect(again).not.toBe(hash);
    expect(await verifyPassword(pair.password, again)).toBe(true);
    expect(await verifyPassword(pair.password, '$scrypt$ln=15,r=8,p=3$broken')).toBe(false);
  });
});
