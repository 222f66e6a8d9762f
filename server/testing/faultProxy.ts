import { createServer, Socket, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A real TCP proxy between the gateway and a provider, for the connector's fault tests (issue 33): it forwards
 * bytes both ways, and the next request whose first line matches a planned fault meets that fault instead —
 * the faults that make an outcome unknown, made by the network, not by a stubbed client:
 *
 * - `hang`: the request is taken and never forwarded, never answered (a hung provider);
 * - `reset`: the connection is reset as the request arrives (it never reaches the provider);
 * - `dropAfterRequest`: forwarded, then the gateway's connection is closed before any answer;
 * - `dropAfterAnswer`: forwarded; the provider's answer is swallowed and the connection closed;
 * - `badGateway`: forwarded; the provider's answer is replaced by a 502;
 * - `hangAfterForward`: forwarded; the provider's answer is held forever;
 * - `{ delayMs }`: forwarded that much later (on a connection of its own: it arrives even if the gateway gave up);
 * - `holdRequest` / `holdAnswer`: held until the test releases them (`release`), forwarded then or dropped — so a
 *   test can kill the gateway at that very step.
 *
 * A request's first chunk carries its request line (the gateway writes a payment's headers and form at once).
 */

export type Fault = 'hang' | 'reset' | 'dropAfterRequest' | 'dropAfterAnswer' | 'badGateway' | 'hangAfterForward' | 'holdRequest' | 'holdAnswer' | { readonly delayMs: number };

export interface Held {
  /** The request line, e.g. `POST /v1/payments HTTP/1.1`. */
  readonly requestLine: string;
  /** Forwards what was held (the request, or the answer to the gateway). */
  forward(): void;
  /** Drops it: the gateway's connection closes (and, for a held request, the provider never sees it). */
  drop(): void;
}

export interface FaultProxy {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The next request whose request line matches `pattern` meets `fault`. */
  plan(pattern: RegExp, fault: Fault): void;
  /** Resolves with the next request or answer held by `holdRequest` / `holdAnswer`. */
  nextHeld(): Promise<Held>;
  /** The request lines that passed through (or met a fault), in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  const planned: { pattern: RegExp; fault: Fault }[] = [];
  const requests: string[] = [];
  const heldQueue: Held[] = [];
  const waiting: ((held: Held) => void)[] = [];
  const sockets = new Set<Socket>();
  const hold = (held: Held) => {
    const waiter = waiting.shift();
    if (waiter) waiter(held);
    else heldQueue.push(held);
  };

  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = new Socket();
    sockets.add(upstream);
    upstream.connect(Number(port), hostname);
    // What to do with the provider's next answer: pass it on, or (during a fault) something else; a held answer's
    // bytes are kept, in order, until it is released.
    let onAnswer: (() => void) | undefined;
    let swallowing = false;
    let holding: Buffer[] | undefined;
    upstream.on('data', (chunk: Buffer) => {
      if (holding) {
        holding.push(chunk);
      } else if (!swallowing && !onAnswer && !client.destroyed) {
        client.write(chunk);
      }
      if (onAnswer) {
        const handle = onAnswer;
        onAnswer = undefined;
        handle();
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    upstream.on('close', () => client.end());
    client.on('error', end);
    client.on('close', () => upstream.destroy());
    let hung = false;
    client.on('data', (chunk: Buffer) => {
      if (hung) return;
      const requestLine = chunk.subarray(0, Math.max(0, chunk.indexOf('\r\n'))).toString('latin1');
      const index = /^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(requestLine) ? planned.findIndex((entry) => entry.pattern.test(requestLine)) : -1;
      if (/^[A-Z]+ /.test(requestLine)) requests.push(requestLine);
      const fault = index >= 0 ? planned.splice(index, 1)[0]?.fault : undefined;
      if (fault === undefined) {
        upstream.write(chunk);
        return;
      }
      // A request sent later goes on a connection of its own, so it still arrives after the gateway gave up (or died)
      // and hung up; its answer goes to the gateway if it is still there.
      const deliverLate = () => {
        const late = new Socket();
        sockets.add(late);
        late.on('data', (answer: Buffer) => {
          if (!client.destroyed) client.write(answer);
        });
        late.on('error', () => late.destroy());
        late.connect(Number(port), hostname, () => late.write(chunk));
      };
      if (typeof fault === 'object') {
        setTimeout(deliverLate, fault.delayMs);
        return;
      }
      switch (fault) {
        case 'hang':
          hung = true;
          return;
        case 'reset':
          client.resetAndDestroy();
          upstream.destroy();
          return;
        case 'dropAfterRequest':
          upstream.write(chunk);
          client.destroy();
          return;
        case 'dropAfterAnswer':
          upstream.write(chunk);
          swallowing = true;
          onAnswer = () => end();
          return;
        case 'badGateway':
          upstream.write(chunk);
          swallowing = true;
          onAnswer = () => {
            client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 11\r\nConnection: close\r\n\r\nBad Gateway');
          };
          return;
        case 'hangAfterForward':
          upstream.write(chunk);
          swallowing = true;
          return;
        case 'holdRequest':
          hung = true;
          hold({ requestLine, forward: deliverLate, drop: end });
          return;
        case 'holdAnswer': {
          upstream.write(chunk);
          const kept: Buffer[] = [];
          holding = kept;
          onAnswer = () =>
            hold({
              requestLine,
              forward: () => {
                holding = undefined;
                for (const part of kept) client.write(part);
              },
              drop: end,
            });
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    plan: (pattern, fault) => {
      planned.push({ pattern, fault });
    },
    nextHeld: () => {
      const held = heldQueue.shift();
      return held ? Promise.resolve(held) : new Promise((resolve) => waiting.push(resolve));
    },
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
