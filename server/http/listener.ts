import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { newRequestId } from '../domain/ids.ts';
import { envelope } from './envelope.ts';
import { CORS_HEADERS } from './respond.ts';
import { throttledResult, withReason } from '../domain/errors.ts';

/**
 * What keeps slow, idle and flooding clients from holding the server (the Node HTTP server under Hono):
 *
 * - a request head must arrive within `headersTimeoutMs` (a socket that connects and sends nothing, slowloris);
 * - a whole request within `requestTimeoutMs` (a Content-Length larger than the body, a chunk that never ends);
 * - an idle keep-alive connection closes after `keepAliveTimeoutMs` (Node adds a second);
 * - at most `maxConnections` connections in all, and `maxConnectionsPerClient` from one address, so one client
 *   cannot take every socket the process may open. Behind a reverse proxy every client has the proxy's address:
 *   set the per-client cap to 0 there and let the proxy limit its clients.
 *
 * Answers Node would give on its own for a malformed or oversized head, or a timeout (headers only, no body), are
 * given as the JSON envelope instead, so merchant code that parses every answer keeps working.
 */

export function serverOptions(limits: HttpLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often Node checks the two timeouts above: often enough that they hold to within a fifth.
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headersTimeoutMs / 5))),
  };
}

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** A complete HTTP answer written straight to a socket that never reached the app: the JSON envelope, then close. */
function rawAnswer(status: number, result: Result): string {
  const body = JSON.stringify(envelope(result, newRequestId()));
  const headers = {
    'content-type': 'application/json',
    ...CORS_HEADERS,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

function answerAndClose(socket: Socket, answer: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer);
  socket.once('finish', () => socket.destroy());
  // A client that does not read its answer does not keep the socket either.
  setTimeout(() => socket.destroy(), 1000).unref();
}

function clientErrorAnswer(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawAnswer(431, withReason(RESULTS.invalidRequestStructure, 'the request head is larger than 16 KiB'));
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawAnswer(408, withReason(RESULTS.invalidRequestStructure, 'the request did not arrive in time'));
    default:
      return rawAnswer(400, withReason(RESULTS.invalidRequestStructure, 'the request is not well-formed HTTP'));
  }
}

/** The address a connection counts against: IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d. */
function clientAddress(socket: Socket): string {
  return (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

export function protectServer(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections;

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A reset by the client, or an answer already on its way: nothing to say any more.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || started) {
      socket.destroy();
      return;
    }
    answerAndClose(socket, clientErrorAnswer(error.code));
  });

  if (limits.maxConnectionsPerClient <= 0) return;
  const perClient = new Map<string, number>();
  // Before the HTTP server's own listener, so a refused socket never becomes a request.
  server.prependListener('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const open = perClient.get(address) ?? 0;
    if (open >= limits.maxConnectionsPerClient) {
      answerAndClose(socket, rawAnswer(400, throttledResult('Too many connections from this address')));
      return;
    }
    perClient.set(address, open + 1);
    socket.once('close', () => {
      const left = (perClient.get(address) ?? 1) - 1;
      if (left > 0) perClient.set(address, left);
      else perClient.delete(address);
    });
  });
}

type FetchHandler = (request: Request, ...rest: never[]) => Response | Promise<Response>;

/**
 * Counts requests being handled, so a stopping gateway can let them finish before it closes the store under them. A
 * handler runs on after its client hung up (a payment is recorded whether or not anyone waits for the answer).
 */
export function trackInFlight<F extends FetchHandler>(fetch: F): { fetch: F; drained(limitMs: number): Promise<boolean> } {
  let inFlight = 0;
  let waiting: (() => void)[] = [];
  const tracked = (async (request: Request, ...rest: never[]) => {
    inFlight++;
    try {
      return await fetch(request, ...rest);
    } finally {
      inFlight--;
      if (inFlight === 0) {
        for (const resolve of waiting) resolve();
        waiting = [];
      }
    }
  }) as F;
  return {
    fetch: tracked,
    /** Resolves true once no request is being handled, false if some still are after `limitMs`. */
    drained(limitMs) {
      if (inFlight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), limitMs);
        timer.unref();
        waiting.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
