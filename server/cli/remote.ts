import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { INPUT_FILE_OPTIONS, type CliIO, type CliResult, type CommandFiles } from './command.ts';

/**
 * A command sent to a running gateway: when the embedded store is that gateway's (the store admits one process), the
 * command line sends the whole command to its admin API (`POST /admin/v1/commands`, ADMIN_TOKEN), which runs the
 * same code on its store (cli/commandRoutes.ts). The files the command names stay where the command line runs: the
 * files it reads go with the request, the files it writes come back with the answer.
 *
 * The answer is a stream of JSON lines, so a long command (`keys rotate`) shows its progress as it goes:
 * `{"progress": LINE}`, `{"file": {"path", "base64"}}`, then `{"exitCode", "stdout", "stderr"}` last.
 */

export const COMMANDS_PATH = '/admin/v1/commands';

/** One line of the answer's stream. */
export type CommandAnswerLine = { readonly progress: string } | { readonly file: { readonly path: string; readonly base64: string } } | CliResult;

/** The paths of the files `args` names for the command to read. */
function inputFilesOf(args: readonly string[]): string[] {
  const paths: string[] = [];
  args.forEach((arg, index) => {
    for (const option of INPUT_FILE_OPTIONS) {
      if (arg === option && args[index + 1] !== undefined) paths.push(args[index + 1] as string);
      else if (arg.startsWith(`${option}=`)) paths.push(arg.slice(option.length + 1));
    }
  });
  return paths;
}

/** Sends `args` to the gateway at `url` and gives its result back, its progress and files handled on the way. */
export async function runInGateway(gateway: { readonly url: string; readonly adminToken: string }, args: readonly string[], io: CliIO, files: CommandFiles): Promise<CliResult> {
  const sent: Record<string, string> = {};
  for (const path of inputFilesOf(args)) {
    try {
      sent[path] = files.read(path);
    } catch {
      // Not sent: the command answers that it cannot read it, as it does here.
    }
  }
  let response: Response;
  try {
    response = await fetch(`${gateway.url}${COMMANDS_PATH}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gateway.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ args, files: sent }),
    });
  } catch (error) {
    throw new Error(`the running gateway's admin API at ${gateway.url} could not be reached (${error instanceof Error ? error.message : String(error)}): set GATEWAY_URL to its address`);
  }
  if (response.status === 401 || response.status === 403) throw new Error(`the running gateway at ${gateway.url} refused ADMIN_TOKEN: set it to that gateway's`);
  if (response.status !== 200 || !response.body) {
    const refused = (await response.json().catch(() => ({}))) as { result?: { description?: string } };
    throw new Error(refused.result?.description ?? `the running gateway at ${gateway.url} answered HTTP ${response.status}`);
  }
  for await (const text of createInterface({ input: Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), crlfDelay: Infinity })) {
    if (!text) continue;
    const line = JSON.parse(text) as CommandAnswerLine;
    if ('progress' in line) io.progress(line.progress);
    else if ('file' in line) await files.write(line.file.path, [Buffer.from(line.file.base64, 'base64')]);
    else return line;
  }
  throw new Error(`the running gateway at ${gateway.url} ended the command without its result`);
}
