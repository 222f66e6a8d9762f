import { ENTITY_ID } from '../domain/ids.ts';

/** What every command group is given and gives back: index.ts parses the command line and runs the group. */

/** Where a command writes (the process's streams, or a test's lines) and the environment it reads. */
export interface CliIO {
  readonly env: NodeJS.ProcessEnv;
  /** A line of progress, before the command's result. */
  readonly progress: (line: string) => void;
  readonly now?: () => Date;
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
