import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import { loadCardDataKey, loadCardDataKeys, newCardDataKey, type KeyringSettings, type KeySettings } from './key.ts';

describe('the card-data key', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'vault-key-'));
    dirs.push(dir);
    return dir;
  }
  const settings = (changes: Partial<KeySettings>): KeySettings => ({ ...loadConfig({}), dataDir: tempDir(), ...changes });

  it('is generated for a test gateway on the embedded store, kept readable by its owner only, and reused', () => {
    const test = settings({});
    const created = loadCardDataKey(test);
    const file = join(test.dataDir, 'card-data.key');
    expect(readFileSync(file, 'utf8').trim()).toBe(created.toString('hex'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadCardDataKey(test).equals(created)).toBe(true);
    // A configured key wins over the file.
    expect(loadCardDataKey({ ...test, cardDataKey: Buffer.alloc(32, 9) }).equals(Buffer.alloc(32, 9))).toBe(true);
  });

  it('is required with DATABASE_URL, so instances sharing a database never seal with different keys', () => {
    const shared = settings({ databaseUrl: 'postgres://db/gateway' });
    expect(() => loadCardDataKey(shared)).toThrow(ConfigError);
    expect(() => loadCardDataKey(shared)).toThrow(/CARD_DATA_KEY .*required with DATABASE_URL.*npm run gateway -- key generate/);
    expect(() => loadCardDataKey({ ...shared, environment: 'live' })).toThrow(/required with DATABASE_URL/);
    expect(loadCardDataKey({ ...shared, cardDataKey: Buffer.alloc(32, 3) }).equals(Buffer.alloc(32, 3))).toBe(true);
  });

  it('is required in live, from outside the data directory, and never generated there', () => {
    const live = settings({ environment: 'live' });
    expect(() => loadCardDataKey(live)).toThrow(/CARD_DATA_KEY .*required in live/);
    expect(() => loadCardDataKey(live)).toThrow(ConfigError);
    expect(() => readFileSync(join(live.dataDir, 'card-data.key'))).toThrow();

    const inside = join(live.dataDir, 'key.hex');
    writeFileSync(inside, newCardDataKey());
    expect(() => loadCardDataKey({ ...live, cardDataKeyFile: inside })).toThrow(/must not be inside DATA_DIR/);

    const outside = join(tempDir(), 'key.hex');
    const key = newCardDataKey();
    writeFileSync(outside, `${key}\n`);
    expect(loadCardDataKey({ ...live, cardDataKeyFile: outside }).toString('hex')).toBe(key);
  });

  it('refuses a key file that cannot be read or holds no key, and both variables at once', () => {
    const test = settings({});
    expect(() => loadCardDataKey({ ...test, cardDataKeyFile: join(test.dataDir, 'missing') })).toThrow(/CARD_DATA_KEY_FILE .* cannot be read/);
    const wrong = join(test.dataDir, 'wrong');
    writeFileSync(wrong, 'not a key');
    expect(() => loadCardDataKey({ ...test, cardDataKeyFile: wrong })).toThrow(/must hold 64 hexadecimal characters/);
    expect(() => loadCardDataKey({ ...test, cardDataKey: Buffer.alloc(32), cardDataKeyFile: wrong })).toThrow(/not both/);
  });

  it('is printed fresh by newCardDataKey as 64 hex characters', () => {
    expect(newCardDataKey()).toMatch(/^[0-9a-f]{64}$/);
    expect(newCardDataKey()).not.toBe(newCardDataKey());
  });
});

describe('the previous card-data keys (rotation)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'vault-keys-'));
    dirs.push(dir);
    return dir;
  }
  const settings = (changes: Partial<KeyringSettings>): KeyringSettings => ({ ...loadConfig({}), dataDir: tempDir(), ...changes });
  const current = Buffer.alloc(32, 7);
  const [a, b, c] = [newCardDataKey(), newCardDataKey(), newCardDataKey()];

  it('come from CARD_DATA_PREVIOUS_KEYS and CARD_DATA_PREVIOUS_KEYS_FILE, without duplicates or the current key', () => {
    const file = join(tempDir(), 'previous.keys');
    writeFileSync(file, `# retired in March\n${b}\n\n${c}\n${a}\n`);
    const keys = loadCardDataKeys(
      settings({
        cardDataKey: current,
        cardDataPreviousKeys: loadConfig({ CARD_DATA_PREVIOUS_KEYS: `${a}, ${current.toString('hex')}` }).cardDataPreviousKeys,
        cardDataPreviousKeysFile: file,
      }),
    );
    expect(keys.current.equals(current)).toBe(true);
    expect(keys.previous.map((key) => key.toString('hex'))).toEqual([a, b, c]);
    // Nothing configured: no previous key, and the current key follows loadCardDataKey's rules.
    expect(loadCardDataKeys(settings({ cardDataKey: current })).previous).toEqual([]);
    expect(() => loadCardDataKeys(settings({ databaseUrl: 'postgres://db/gateway', cardDataPreviousKeys: [current] }))).toThrow(/required with DATABASE_URL/);
  });

  it('refuse a file that cannot be read or holds something else than keys, naming the line but never showing it', () => {
    const dir = tempDir();
    expect(() => loadCardDataKeys(settings({ cardDataKey: current, cardDataPreviousKeysFile: join(dir, 'missing') }))).toThrow(
      /CARD_DATA_PREVIOUS_KEYS_FILE .* cannot be read \(ENOENT\)/,
    );
    const typo = `${a.slice(0, 63)}g`;
    const wrong = join(dir, 'wrong');
    writeFileSync(wrong, `${b}\n${typo}\n`);
    let message = '';
    try {
      loadCardDataKeys(settings({ cardDataKey: current, cardDataPreviousKeysFile: wrong }));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(/line 2 must hold 64 hexadecimal characters/);
    expect(message).not.toContain(typo.slice(0, 32));
    expect(message).not.toContain(b);
  });

  it('must not be kept inside DATA_DIR in live', () => {
    const live = settings({ environment: 'live', cardDataKey: current });
    const inside = join(live.dataDir, 'previous.keys');
    writeFileSync(inside, `${a}\n`);
    expect(() => loadCardDataKeys({ ...live, cardDataPreviousKeysFile: inside })).toThrow(/CARD_DATA_PREVIOUS_KEYS_FILE must not be inside DATA_DIR in live/);
    const outside = join(tempDir(), 'previous.keys');
    writeFileSync(outside, `${a}\n`);
    expect(loadCardDataKeys({ ...live, cardDataPreviousKeysFile: outside }).previous.map((key) => key.toString('hex'))).toEqual([a]);
  });
});
