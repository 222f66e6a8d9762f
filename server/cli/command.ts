import { createWriteStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ENTITY_ID } from '../domain/ids.ts';

/** What every command group is given and gives back: index.ts parses the command line and runs the group. */

/** Where a command writes (the process's streams, or a test's lines) and the environment it reads. */
export interface CliIO {
  readonly env: NodeJS.ProcessEnv;
  /** A line of progress, before the command's result. */
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
  /** The files a command reads and writes (`--password-file`, `--out`): this machine's unless given. */
  readonly files?: CommandFiles;
}

/**
 * The files a command names: read and written where the command line runs, also when the command itself runs in a
 * gateway (cli/remote.ts carries their contents both ways).
 */
export interface CommandFiles {
  /** The file's text; throws when it cannot be read. */
  read(path: string): string;
  write(path: string, chunks: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void>;
}

/** This machine's files; `-` names standard input (a secret piped in from where it is kept never touches the disk). */
export const LOCAL_FILES: CommandFiles = {
  read: (path) => readFileSync(path === '-' ? 0 : path, 'utf8'),
  write: (path, chunks) => pipeline(Readable.from(chunks), createWriteStream(path)),
};

/** The text of the file an option names; an unreadable one is refused naming both (`refused` makes the error). */
export function optionFile(files: CommandFiles, path: string, option: string, refused: (message: string) => Error = (message) => new Error(message)): string {
  try {
    return files.read(path);
  } catch {
    throw refused(`${option}: cannot read ${path}`);
  }
}

/** A secret read from a file (not the command line, where ps and the shell's history would keep it): one final line break dropped. */
export function secretFromFile(files: CommandFiles, path: string, option: string, refused?: (message: string) => Error): string {
  return optionFile(files, path, option, refused).replace(/\r?\n$/, '');
}

/** The options that name a file the command reads: where the command line runs (cli/remote.ts sends them along). */
export const INPUT_FILE_OPTIONS = ['--password-file', '--tls-certificate-file', '--access-token-file', '--rules-file'] as const;

/** What a command printed and how it ended. */
export interface CliResult {
  readonly exitCode: number;
  /** The command's result (progress lines went to `io.progress` before). */
  readonly stdout: string;
  readonly stderr: string;
}

/** A command's result: what it prints on standard output, and its exit code. */
export interface Outcome {
  readonly output: string;
  readonly exitCode: number;
}

/** Makes the error that prints the usage text (index.ts): what a group throws for a mistyped command. */
export type Usage = (message: string) => Error;

/** The ENTITY_ID argument of `command`, refused with the usage text unless it is one. */
export function entityIdArgument(value: string | undefined, command: string, usage: Usage): string {
  if (!value || !ENTITY_ID.test(value)) throw usage(`${command} needs the ENTITY_ID (32 lowercase hexadecimal characters)`);
  return value;
}

/** A `true` or `false` option; absent: undefined. */
export function booleanOption(raw: string | undefined, option: string, usage: Usage): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw usage(`${option} must be true or false`);
  return raw === 'true';
}
