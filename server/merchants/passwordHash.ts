import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords of legacy credentials (COMPAT §1), kept only as salted scrypt hashes in the PHC string format:
 * `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64 without padding).
 *
 * Why scrypt: it is memory-hard (a guessing rig pays for memory as well as for work), and Node ships it, so no native
 * package is needed. The asynchronous `crypto.scrypt` runs on libuv's thread pool: a verification never holds up the
 * event loop, where every other request is served. The parameters are OWASP's (Password Storage Cheat Sheet) minimum in
 * its 32 MiB form: N = 2^15, r = 8, p = 3 — the same work as N = 2^17, p = 1 with a quarter of its memory, so
 * the four threads of the pool hold at most 128 MiB. About 0.2 s of one core each on the development machine; the
 * request path pays it once per pair and process (merchants/legacyAccessCache.ts). Each hash records its parameters,
 * so raising them later leaves the hashes made before valid.
 */

const COST_LOG2 = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 3;
const SALT_BYTES = 16;
const HASH_BYTES = 32;

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function derive(password: string, salt: Buffer, length: number, logCost: number, blockSize: number, parallelism: number): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** logCost,
    r: blockSize,
    p: parallelism,
    // Node's default ceiling (32 MiB) is exactly what N = 2^15, r = 8 needs: room for OpenSSL's own overhead.
    maxmem: 2 * 128 * 2 ** logCost * blockSize,
  };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

const unpadded = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');

/** A new salted hash of `password` (a fresh random salt each time). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, HASH_BYTES, COST_LOG2, BLOCK_SIZE, PARALLELISM);
  return `$scrypt$ln=${COST_LOG2},r=${BLOCK_SIZE},p=${PARALLELISM}$${unpadded(salt)}$${unpadded(hash)}`;
}

/**
 * Whether `password` is the one `stored` was made from, compared in constant time. A stored value that is not such a
 * hash (or asks for absurd parameters) matches nothing.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [, logCost, blockSize, parallelism, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const [ln, r, p] = [Number(logCost), Number(blockSize), Number(parallelism)];
  if (ln < 10 || ln > 20 || r < 1 || r > 32 || p < 1 || p > 16 || expected.length < 16) return false;
  const derived = await derive(password, Buffer.from(salt, 'base64'), expected.length, ln, r, p);
  return timingSafeEqual(derived, expected);
}
