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

/**
 * A running gateway's admin API: where the entity, token and credentials commands go when the embedded store is that
 * gateway's (index.ts).
 */
export interface AdminApi {
  readonly url: string;
  readonly adminToken: string;
}

export interface AdminAnswer {
  readonly status: number;
  readonly body: { readonly result?: { readonly description?: string }; readonly [field: string]: unknown };
}

export async function callAdmin(api: AdminApi, method: string, path: string, body?: Record<string, unknown>): Promise<AdminAnswer> {
  let response: Response;
  try {
    response = await fetch(`${api.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${api.adminToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw new Error(`the running gateway's admin API at ${api.url} could not be reached (${error instanceof Error ? error.message : String(error)}): set GATEWAY_URL to its address`);
  }
  const answer = { status: response.status, body: (await response.json().catch(() => ({}))) as AdminAnswer['body'] };
  if (answer.status === 401 || answer.status === 403) throw new Error(`the running gateway at ${api.url} refused ADMIN_TOKEN: set it to that gateway's`);
  return answer;
}

export function refusedBy(answer: AdminAnswer): Error {
  return new Error(answer.body.result?.description ?? `the running gateway answered HTTP ${answer.status}`);
}

