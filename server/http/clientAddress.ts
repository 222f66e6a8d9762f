import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The address a request comes from, for per-client limits: the connection's peer, or behind a reverse proxy the
 * last entry of the header it names (the address the proxy itself saw; earlier entries are the client's to write).
 */
export function clientAddressOf(c: Context<AppEnv>, header: string | undefined): string {
  if (header !== undefined) {
    const forwarded = c.req.header(header)?.split(',').pop()?.trim();
    if (forwarded) return forwarded;
  }
  const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
  return (socket?.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}
