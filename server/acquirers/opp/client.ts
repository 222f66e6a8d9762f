import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';

/**
 * The `opp` connector's HTTP client: one provider, kept-alive connections, and the one distinction the gateway's money
 * depends on — whether a request may have reached the provider. A call ends in one of three ways:
 *
 * - `response`: the provider answered (any status); translate.ts reads it;
 * - `notSent`: the request never left (no connection could be made, or none was free before the deadline): nothing
 *   can have happened, so the payment may go elsewhere (smart retry) or be declined as unreachable;
 * - `lost`: it was written to a connection and no whole answer came back (a timeout, a reset, a closed connection):
 *   the provider may have made the operation. Never sent again: the connector asks the provider instead.
 *
 * A request on a kept-alive connection the provider closes at that very moment is `lost` too: it may have been read.
 * Idle connections are dropped before a provider's usual keep-alive limit, so that race is rare.
 */

export type CallResult =
  | { readonly kind: 'response'; readonly status: number; readonly body: string }
  | { readonly kind: 'notSent'; readonly reason: string }
  | { readonly kind: 'lost'; readonly reason: string; readonly timedOut: boolean };

export interface OppClient {
  /** POSTs the form (UTF-8, form-encoded) with the bearer token. */
  post(path: string, form: readonly (readonly [string, string])[], token: string, timeoutMs?: number): Promise<CallResult>;
  /** GETs with the query and the bearer token (an inquiry: nothing is changed by it). */
  get(path: string, query: Readonly<Record<string, string>>, token: string, timeoutMs?: number): Promise<CallResult>;
  close(): void;
}

/** Answers larger than this are not the API's (a payment is a few kilobytes; a query page of 500 a few hundred). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Idle connections are closed after this: shorter than the keep-alive time servers commonly allow (5 s and up). */
const IDLE_CONNECTION_MS = 4000;

export interface OppClientSettings {
  /** The provider's base URL (no trailing slash). */
  readonly url: string;
  readonly timeoutMs: number;
  readonly maxConnections: number;
}

export function createOppClient(settings: OppClientSettings): OppClient {
  const base = new URL(settings.url);
  const https = base.protocol === 'https:';
  const agentOptions = { keepAlive: true, maxSockets: settings.maxConnections, maxFreeSockets: settings.maxConnections, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
  const agent = https ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const send = https ? httpsRequest : httpRequest;
  const basePath = base.pathname.replace(/\/+$/, '');

  function call(method: 'GET' | 'POST', path: string, token: string, body: string | undefined, timeoutMs: number): Promise<CallResult> {
    return new Promise((resolve) => {
      let settled = false;
      // Whether the request went out on a connection (a reused one, or a new one once connected, TLS included).
      let written = false;
      const finish = (result: CallResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(result);
      };
      const headers: Record<string, string | number> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=UTF-8';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const request: ClientRequest = send({ protocol: base.protocol, hostname: base.hostname, port: base.port, path: `${basePath}${path}`, method, headers, agent });
      const failed = (reason: string, timedOut: boolean) => {
        finish(written ? { kind: 'lost', reason, timedOut } : { kind: 'notSent', reason });
        request.destroy();
      };
      const deadline = setTimeout(() => failed(`no answer within ${timeoutMs} ms`, true), timeoutMs);
      request.on('socket', (socket: Socket) => {
        if (!socket.connecting) {
          written = true;
          return;
        }
        socket.once(https ? 'secureConnect' : 'connect', () => {
          written = true;
        });
      });
      request.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.message, false));
      request.on('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            failed(`an answer over ${MAX_ANSWER_BYTES} bytes`, false);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => finish({ kind: 'response', status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('aborted', () => failed('the answer was cut off', false));
        response.on('error', (error: NodeJS.ErrnoException) => failed(error.code ?? error.message, false));
      });
      request.end(body);
    });
  }

  return {
    post: (path, form, token, timeoutMs = settings.timeoutMs) => call('POST', path, token, new URLSearchParams(form as [string, string][]).toString(), timeoutMs),
    get: (path, query, token, timeoutMs = settings.timeoutMs) => {
      const search = new URLSearchParams(query).toString();
      return call('GET', search === '' ? path : `${path}?${search}`, token, undefined, timeoutMs);
    },
    close: () => agent.destroy(),
  };
}
