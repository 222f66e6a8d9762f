import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppEnv } from './context.ts';
import { GatewayError, withReason } from '../domain/errors.ts';

/** Largest accepted body: a full cart of 1000 items with every field fits with room to spare. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

function tooLarge(): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidParameter, `request body larger than ${MAX_BODY_BYTES} bytes`), 413);
}

function incompleteBody(): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidParameter, 'the request body ended before its announced length'), 400);
}

function readIncoming(incoming: HttpBindings['incoming']): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        incoming.off('data', onData);
        // Let the rest drain unread; the answer closes the connection (see app.ts).
        incoming.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(Buffer.concat(chunks, size)));
    // A client that goes away mid-body ('aborted' error, or a close without 'end'): settle, never wait forever.
    incoming.once('error', () => reject(incompleteBody()));
    incoming.once('close', () => {
      if (!incoming.complete) reject(incompleteBody());
    });
  });
}

/**
 * The request body, at most MAX_BODY_BYTES (413 beyond). Under Node it is read straight from the
 * IncomingMessage: building a WHATWG Request only to read a small form costs more than the rest of a
 * payment's HTTP handling. Elsewhere (app.request in tests) the standard Request body is used.
 */
export async function readBody(c: Context<AppEnv>): Promise<Uint8Array> {
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  const bytes = incoming ? await readIncoming(incoming) : new Uint8Array(await c.req.arrayBuffer());
  if (bytes.length > MAX_BODY_BYTES) throw tooLarge();
  c.set('bodyConsumed', true);
  return bytes;
}
