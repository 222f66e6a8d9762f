import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendOutbound, type OutboundPolicy } from './http.ts';

/** Outbound calls keep their connections between calls, never to an address other than the one each call checked. */

interface CountingServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: Socket[];
  /** Per request: the address it came in on, and which request of its connection it was (1, 2, ...). */
  readonly requests: { localAddress: string | undefined; onConnection: number }[];
  close(): Promise<void>;
}

const servers: CountingServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server on every address (127.0.0.2 too) that answers `answer(request n of its connection)`. */
async function countingServer(answer: (onConnection: number, request: IncomingMessage, response: ServerResponse) => void): Promise<CountingServer> {
  const connections: Socket[] = [];
  const requests: CountingServer['requests'] = [];
  const perConnection = new Map<Socket, number>();
  const server: Server = createServer((request, response) => {
    const onConnection = (perConnection.get(request.socket) ?? 0) + 1;
    perConnection.set(request.socket, onConnection);
    requests.push({ localAddress: request.socket.localAddress, onConnection });
    request.resume();
    request.once('end', () => answer(onConnection, request, response));
  });
  server.on('connection', (socket: Socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const counting: CountingServer = {
    port: (server.address() as AddressInfo).port,
    connections,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(counting);
  return counting;
}

const loopback: OutboundPolicy = { allowPrivateAddresses: true };
const post = (url: string, policy: OutboundPolicy = loopback, timeoutMs = 2000, signal?: AbortSignal) =>
  sendOutbound(new URL(url), { method: 'POST', body: 'notification', timeoutMs, ...(signal ? { signal } : {}) }, policy);

describe('outbound calls', () => {
  it('keep one connection for calls that follow each other to one receiver', async () => {
    const server = await countingServer((_n, _request, response) => response.end('ok'));
    for (let call = 0; call < 5; call++) expect(await post(`http://127.0.0.1:${server.port}/hook`)).toBe(200);
    expect(server.connections).toHaveLength(1);
    expect(server.requests.map((request) => request.onConnection)).toEqual([1, 2, 3, 4, 5]);
  });

  it('try once more, on a new connection, when the receiver closed the reused one as the call went out', async () => {
    // The second request on a connection finds it closed, as when a receiver's idle timeout strikes just then.
    const server = await countingServer((n, request, response) => (n === 2 ? request.socket.destroy() : response.end('ok')));
    expect(await post(`http://127.0.0.1:${server.port}/hook`)).toBe(200);
    expect(await post(`http://127.0.0.1:${server.port}/hook`)).toBe(200);
    expect(server.connections).toHaveLength(2);
    expect(server.requests.map((request) => request.onConnection)).toEqual([1, 2, 1]);
    // A fresh connection closed without an answer is a failed call: no second try.
    const closing = await countingServer((_n, request) => request.socket.destroy());
    await expect(post(`http://127.0.0.1:${closing.port}/hook`)).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(closing.requests).toHaveLength(1);
  });

  it('never reuse a connection to the address a name resolved to before: each call goes where it checked', async () => {
    const server = await countingServer((_n, _request, response) => response.end('ok'));
    const answers = ['127.0.0.1', '127.0.0.2', '127.0.0.2'];
    const policy: OutboundPolicy = { allowPrivateAddresses: true, resolve: async () => [{ address: answers.shift() as string, family: 4 }] };
    for (let call = 0; call < 3; call++) expect(await post(`http://receiver.test:${server.port}/hook`, policy)).toBe(200);
    expect(server.requests.map((request) => request.localAddress)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.2']);
    expect(server.connections).toHaveLength(2);
  });

  it('give up on a receiver that does not answer in time, or when stopped, and close that connection', async () => {
    // Answers the first call only.
    const server = await countingServer((_n, _request, response) => {
      if (server.requests.length === 1) response.end('ok');
    });
    const url = `http://127.0.0.1:${server.port}/hook`;
    expect(await post(url)).toBe(200);
    await expect(post(url, loopback, 200)).rejects.toThrow(`POST http://127.0.0.1:${server.port}/hook failed: no answer within 200 ms`);
    const stopping = new AbortController();
    const stopped = post(url, loopback, 5000, stopping.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    stopping.abort();
    await expect(stopped).rejects.toThrow(/failed: the worker stopped$/);
    // Neither waiting connection is used again: the next call opens one of its own.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.connections.filter((socket) => !socket.destroyed)).toHaveLength(0);
    await expect(post(url, loopback, 200)).rejects.toThrow(/no answer within 200 ms/);
    expect(server.connections).toHaveLength(3);
    expect(server.requests.map((request) => request.onConnection)).toEqual([1, 2, 1, 1]);
  });

  it('share one stop signal among many calls at once without a listener warning, and stop them all', async () => {
    const server = await countingServer(() => undefined);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const stopping = new AbortController();
      const calls = Array.from({ length: 40 }, () => post(`http://127.0.0.1:${server.port}/hook`, loopback, 5000, stopping.signal));
      await vi.waitFor(() => expect(server.requests).toHaveLength(40));
      stopping.abort();
      const outcomes = await Promise.allSettled(calls);
      expect(outcomes.every((outcome) => outcome.status === 'rejected' && /the worker stopped$/.test(String(outcome.reason)))).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
