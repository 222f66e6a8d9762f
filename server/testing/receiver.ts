import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A merchant's server for callback tests: a real HTTP server on 127.0.0.1 that records every request and
 * answers 200 unless told otherwise for a path.
 */

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The raw request target, as sent. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
}

/** An HTTP status, 'hang': never answer (until the receiver closes), or a redirect elsewhere. */
export type ReceiverAnswer = number | 'hang' | { readonly redirectTo: string };

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** The requests whose `id` query parameter is `checkoutId`. */
  requestsFor(checkoutId: string): ReceivedRequest[];
  /** The next requests to `path` get these answers, in order; later ones get 200 again. */
  answer(path: string, ...answers: ReceiverAnswer[]): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const planned = new Map<string, ReceiverAnswer[]>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const target = request.url ?? '/';
    const parsed = new URL(target, 'http://receiver');
    requests.push({ method: request.method ?? '', path: parsed.pathname, query: parsed.searchParams, target, headers: request.headers });
    const answer = planned.get(parsed.pathname)?.shift() ?? 200;
    request.resume();
    if (answer === 'hang') {
      hanging.add(response);
      return;
    }
    if (typeof answer === 'object') {
      response.writeHead(302, { location: answer.redirectTo }).end();
      return;
    }
    response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsFor: (checkoutId) => requests.filter((request) => request.query.get('id') === checkoutId),
    answer(path, ...answers) {
      planned.set(path, [...(planned.get(path) ?? []), ...answers]);
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
