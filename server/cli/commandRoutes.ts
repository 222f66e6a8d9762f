import { Hono } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import type { HttpDependencies } from '../http/access.ts';
import { adminJsonBody, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import type { CommandFiles } from './command.ts';
import { runCliIn } from './index.ts';
import type { CommandAnswerLine } from './remote.ts';

/**
 * `POST /admin/v1/commands` (ADMIN_TOKEN, or the token a gateway holding an embedded store writes in DATA_DIR for the
 * command line: localCommands.ts): an operator command run in this gateway, on its store, configuration and
 * clock — what the command line does when the embedded store it was given is this gateway's (cli/remote.ts). The body
 * is `{"args": [...], "files": {PATH: TEXT}}` (the files the command reads, sent by the command line); the answer a
 * stream of JSON lines: progress, the files the command writes (to be written where the command line runs), and the
 * result (exit code, standard output and error) last. A command that is refused is a result with exit code 1, as on
 * the command line; only a body that is not a command is a 400.
 */

const MAX_ARGUMENTS = 64;

/** `tokens`: ADMIN_TOKEN, and the command line's token of a gateway holding an embedded store (localCommands.ts). */
export function commandAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'>, tokens: string | readonly string[]): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('*', requireAdminToken(deps, tokens));
  routes.post('/', async (c) => {
    const body = await adminJsonBody(c, { args: 'strings', files: 'object' });
    const args = body.args as string[] | undefined;
    if (!args || args.length === 0 || args.length > MAX_ARGUMENTS) {
      throw invalidParameters([{ name: 'args', value: '', message: `must be the command line: 1 to ${MAX_ARGUMENTS} strings` }]);
    }
    const sent = (body.files ?? {}) as Record<string, unknown>;
    const unreadable = Object.entries(sent).filter(([, text]) => typeof text !== 'string');
    if (unreadable.length > 0) throw invalidParameters(unreadable.map(([path]) => ({ name: 'files', value: path, message: 'must map each path to its text' })));

    const encoder = new TextEncoder();
    const stream = new TransformStream<CommandAnswerLine, Uint8Array>({
      transform: (line, controller) => controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`)),
    });
    const writer = stream.writable.getWriter();
    const files: CommandFiles = {
      read(path) {
        const text = sent[path];
        if (typeof text !== 'string') throw new Error(`${path} was not sent`);
        return text;
      },
      async write(path, chunks) {
        const parts: Buffer[] = [];
        for await (const chunk of chunks) parts.push(chunk);
        await writer.write({ file: { path, base64: Buffer.concat(parts).toString('base64') } });
      },
    };
    void (async () => {
      const result = await runCliIn(deps, args, { env: {}, files, progress: (line) => void writer.write({ progress: line }) });
      await writer.write(result);
      await writer.close();
    })().catch(() => writer.abort());
    return new Response(stream.readable, { headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' } });
  });
  routes.all('/', () => {
    throw methodNotAllowed(['POST']);
  });
  return routes;
}
