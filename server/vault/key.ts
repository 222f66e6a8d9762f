import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConfigError, type GatewayConfig } from '../config.ts';

/**
 * Where the card-data key comes from. The key is what makes sealed card data worthless to someone holding the
 * data files, so it is kept apart from them wherever that matters:
 *
 * - CARD_DATA_KEY (64 hex) or CARD_DATA_KEY_FILE (a file holding them), whichever is set;
 * - neither, with DATABASE_URL: refused. Each instance would make its own key, and a challenge started on one
 *   or a card stored by one could not be opened by another;
 * - neither, live with the embedded store: refused. A key kept beside the data opens every card in it;
 * - neither, test with the embedded store: a key generated on first start and kept in DATA_DIR/card-data.key
 *   (mode 0600), so `npm start` works without any setting.
 *
 * Besides that current key, CARD_DATA_PREVIOUS_KEYS (comma-separated) and CARD_DATA_PREVIOUS_KEYS_FILE (one per line)
 * list keys that still open card data sealed before a rotation but never seal anything (docs/operating.md,
 * "Rotating the card-data key"). Their file obeys the same rule as the key's: in live, not inside DATA_DIR.
 */

export type KeySettings = Pick<GatewayConfig, 'cardDataKey' | 'cardDataKeyFile' | 'databaseUrl' | 'dataDir' | 'environment'>;
export type KeyringSettings = KeySettings & Partial<Pick<GatewayConfig, 'cardDataPreviousKeys' | 'cardDataPreviousKeysFile'>>;

/** The keys a gateway holds: the one it seals with, and the ones that only open what was sealed before a rotation. */
export interface CardDataKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

const KEY_HEX = /^[0-9a-fA-F]{64}$/;
const GENERATED_KEY_FILE = 'card-data.key';
const HOW_TO_GET_ONE = 'print a new one with `npm run gateway -- key generate`';

/** A new random key as the 64 hex characters CARD_DATA_KEY takes. */
export function newCardDataKey(): string {
  return randomBytes(32).toString('hex');
}

function isInside(directory: string, file: string): boolean {
  const path = relative(resolve(directory), resolve(file));
  return path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

function readKeyFile(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`CARD_DATA_KEY_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!KEY_HEX.test(text)) throw new ConfigError(`CARD_DATA_KEY_FILE ${file} must hold 64 hexadecimal characters (32 bytes)`);
  return Buffer.from(text, 'hex');
}

/** The generated key of a test gateway's embedded store, created on first start. */
function generatedKey(dataDir: string): Buffer {
  // A database in memory (memory://) ends with its process, and so may its key: nothing is written to disk.
  if (dataDir.startsWith('memory://')) return randomBytes(32);
  const file = join(dataDir, GENERATED_KEY_FILE);
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (KEY_HEX.test(stored)) return Buffer.from(stored, 'hex');
    throw new ConfigError(`${file} does not hold a 64-hex-character key`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process on the same directory created it first: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return generatedKey(dataDir);
    throw error;
  }
  return key;
}

/** The key card data is sealed with, by the rules above; a ConfigError names the variable to set. */
export function loadCardDataKey(settings: KeySettings): Buffer {
  const { cardDataKey, cardDataKeyFile, databaseUrl, dataDir, environment } = settings;
  if (cardDataKey && cardDataKeyFile) throw new ConfigError('set CARD_DATA_KEY or CARD_DATA_KEY_FILE, not both');
  if (cardDataKey) return cardDataKey;
  if (cardDataKeyFile) {
    if (environment === 'live' && !databaseUrl && isInside(dataDir, cardDataKeyFile)) {
      throw new ConfigError('CARD_DATA_KEY_FILE must not be inside DATA_DIR in live: a key kept beside the data opens every card in it');
    }
    return readKeyFile(cardDataKeyFile);
  }
  if (databaseUrl) {
    throw new ConfigError(
      `CARD_DATA_KEY (or CARD_DATA_KEY_FILE) is required with DATABASE_URL: every gateway instance sharing the database must seal card data with the same key; ${HOW_TO_GET_ONE}`,
    );
  }
  if (environment === 'live') {
    throw new ConfigError(
      `CARD_DATA_KEY (or CARD_DATA_KEY_FILE, outside DATA_DIR) is required in live: a key kept beside the data would open every card in it; ${HOW_TO_GET_ONE}`,
    );
  }
  return generatedKey(dataDir);
}

/** The previous keys a file lists, one per line (blank lines and lines starting with # are skipped). */
function readPreviousKeysFile(file: string): Buffer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`CARD_DATA_PREVIOUS_KEYS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const keys: Buffer[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    // The line number, never the line: it may be a key with a typo.
    if (!KEY_HEX.test(line)) throw new ConfigError(`CARD_DATA_PREVIOUS_KEYS_FILE ${file}: line ${index + 1} must hold 64 hexadecimal characters (32 bytes)`);
    keys.push(Buffer.from(line, 'hex'));
  }
  return keys;
}

/**
 * The current key (loadCardDataKey's rules) and the previous keys, without duplicates and without the current one
 * (a previous list still naming the key that is now current changes nothing).
 */
export function loadCardDataKeys(settings: KeyringSettings): CardDataKeys {
  const { cardDataPreviousKeys = [], cardDataPreviousKeysFile, databaseUrl, dataDir, environment } = settings;
  if (cardDataPreviousKeysFile && environment === 'live' && !databaseUrl && isInside(dataDir, cardDataPreviousKeysFile)) {
    throw new ConfigError('CARD_DATA_PREVIOUS_KEYS_FILE must not be inside DATA_DIR in live: a key kept beside the data opens every card sealed with it');
  }
  const current = loadCardDataKey(settings);
  const listed = [...cardDataPreviousKeys, ...(cardDataPreviousKeysFile ? readPreviousKeysFile(cardDataPreviousKeysFile) : [])];
  const previous: Buffer[] = [];
  for (const key of listed) {
    if (!key.equals(current) && !previous.some((kept) => kept.equals(key))) previous.push(key);
  }
  return { current, previous };
}
