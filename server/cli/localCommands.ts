import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the command line finds the running gateway that holds an embedded store, without ADMIN_TOKEN: that gateway
 * writes, beside the store's pid file in DATA_DIR, a file only its user may read (0600) naming where it listens and a
 * random token that `POST /admin/v1/commands` accepts (and nothing else of the admin API). `npm run gateway -- ...`
 * run by that user with the same DATA_DIR finds the store in use, reads the file and sends the command there
 * (remote.ts), so an operator is created beside a running gateway without a restart. Whoever can read the file can
 * read the store's files already: the token gives nothing more. The file goes when the gateway stops; a crashed
 * gateway's is replaced at the next start, and never used while no gateway holds the store.
 */

export const COMMAND_FILE = 'gateway.commands.json';

/** Where a running gateway takes commands, as its file says. */
export interface LocalCommands {
  readonly url: string;
  readonly token: string;
}

/** A token for this gateway's commands: 256 random bits, base64url. */
export const newCommandToken = (): string => randomBytes(32).toString('base64url');

/**
 * The address the command line reaches a listener at: its own, or loopback for one that listens on every address
 * (0.0.0.0, ::).
 */
export function reachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

/** Writes the file (replacing a crashed gateway's); returns what removes it. */
export function writeCommandFile(dataDir: string, commands: LocalCommands): () => void {
  const path = join(dataDir, COMMAND_FILE);
  rmSync(path, { force: true });
  writeFileSync(path, `${JSON.stringify({ url: reachableUrl(commands.url), token: commands.token })}\n`, { mode: 0o600, flag: 'wx' });
  return () => {
    try {
      const written = JSON.parse(readFileSync(path, 'utf8')) as Partial<LocalCommands>;
      // Another gateway's file (this one's store was taken over after a lost lock) stays.
      if (written.token === commands.token) rmSync(path, { force: true });
    } catch {
      // Gone already.
    }
  };
}

/** The running gateway's address and command token from DATA_DIR, or undefined (no file, or one that is not ours). */
export function readCommandFile(dataDir: string): LocalCommands | undefined {
  try {
    const read = JSON.parse(readFileSync(join(dataDir, COMMAND_FILE), 'utf8')) as Partial<LocalCommands>;
    return typeof read.url === 'string' && typeof read.token === 'string' ? { url: read.url, token: read.token } : undefined;
  } catch {
    return undefined;
  }
}
