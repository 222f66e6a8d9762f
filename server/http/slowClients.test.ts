import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { cardPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';

/**
 * Slow, idle and flooding clients are cut, and real payments keep being served. The gateway runs with short
 * limits (the defaults are 10 s, 30 s and 5 s; docs/operating.md), so what is awaited here are the server's own timers.
 */

const LIMITS = {
  ...loadConfig({}).http,
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 1000,
  maxConnections: 30,
  maxConnectionsPerClient: 20,
};

let t: TestGateway;
let port: number;
beforeAll(async () => {
  t = await startTestGateway('PGlite', { http: LIMITS });
  port = Number(new URL(t.url).port);
});
afterAll(async () => {
  await t?.close();
});

interface RawClient {
  readonly socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  readonly closed: Promise<string>;
}

/** A raw TCP client from `localAddress` (any 127.x address is this machine, but another client to the server). */
async function rawClient(localAddress = '127.0.0.1'): Promise<RawClient> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed };
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
}

function bodyOf(answer: string): { result: { code: string; description: string }; ndc: string } {
  return JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { result: { code: string; description: string }; ndc: string };
}

const HEAD = (length: number) =>
  `POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n`;

async function payNormally(): Promise<number> {
  return (await t.post('/v1/payments', cardPayment(t.entityId))).status;
}

describe('slow and idle clients', () => {
  it('cuts a connection that sends nothing, answering 408 with the JSON envelope', async () => {
    const idle = await rawClient();
    const answer = await idle.closed;
    expect(statusOf(answer)).toBe(408);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(bodyOf(answer).result.code).toBe('200.100.103');
  });

  it('cuts a head sent a line at a time (slowloris)', async () => {
    const slow = await rawClient();
    slow.socket.write('POST /v1/payments HTTP/1.1\r\n');
    const drip = setInterval(() => slow.socket.writable && slow.socket.write('X-Slow: 1\r\n'), 100);
    const answer = await slow.closed.finally(() => clearInterval(drip));
    expect(statusOf(answer)).toBe(408);
  });

  it('cuts a body shorter than its Content-Length, and one whose chunk never ends', async () => {
    const short = await rawClient();
    short.socket.write(`${HEAD(5000)}entityId=${t.entityId}`);
    const chunked = await rawClient();
    chunked.socket.write('POST /v1/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nffffff\r\nentityId=');
    const [shortAnswer, chunkedAnswer] = await Promise.all([short.closed, chunked.closed]);
    expect(statusOf(shortAnswer)).toBe(408);
    expect(statusOf(chunkedAnswer)).toBe(408);
    expect(await payNormally()).toBe(200);
  });

  it('closes an idle keep-alive connection after a request', async () => {
    const client = await rawClient();
    client.socket.write('GET /v1/nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const answer = await client.closed;
    expect(statusOf(answer)).toBe(404);
  });
});

describe('many connections', () => {
  it('refuses connections beyond the per-client cap, while other clients pay', async () => {
    const flood = await Promise.all(Array.from({ length: LIMITS.maxConnectionsPerClient }, () => rawClient('127.0.0.2')));
    const refused = await rawClient('127.0.0.2');
    const answer = await refused.closed;
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer).result.code).toBe('800.120.100');
    // Another address is served at once, while the flood still holds its connections.
    expect(await payNormally()).toBe(200);
    expect(flood.every((client) => !client.socket.destroyed)).toBe(true);
    // The flood's idle connections are cut by the head timeout, and its address is served again.
    await Promise.all(flood.map((client) => client.closed));
    const again = await rawClient('127.0.0.2');
    again.socket.write('GET /v1/nope HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(statusOf(await again.closed)).toBe(404);
  });

  it('holds at most HTTP_MAX_CONNECTIONS, and serves payments again once idle ones are cut', async () => {
    const addresses = ['127.0.0.3', '127.0.0.4', '127.0.0.5'];
    const flood = await Promise.all(
      Array.from({ length: LIMITS.maxConnections + 5 }, (_, index) => rawClient(addresses[index % addresses.length])),
    );
    const answers = await Promise.all(flood.map((client) => client.closed));
    // Those over the cap were closed unanswered; the others held a slot until the head timeout cut them.
    expect(answers.filter((answer) => answer === '').length).toBeGreaterThanOrEqual(5);
    expect(answers.filter((answer) => statusOf(answer) === 408).length).toBeGreaterThan(0);
    expect(await payNormally()).toBe(200);
  });
});

describe('heads the server cannot take', () => {
  it('answers an oversized head with 431 and the JSON envelope', async () => {
    const client = await rawClient();
    client.socket.write(`GET /v1/payments/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    const answer = await client.closed;
    expect(statusOf(answer)).toBe(431);
    expect(answer).toMatch(/x-content-type-options: nosniff/i);
    expect(bodyOf(answer).result).toEqual({ code: '200.100.103', description: expect.stringContaining('larger than 16 KiB') });
  });

  it('answers a malformed request line with 400 and the JSON envelope', async () => {
    const client = await rawClient();
    client.socket.write('G@T / HTTP/1.1\r\n\r\n');
    const answer = await client.closed;
    expect(statusOf(answer)).toBe(400);
    expect(bodyOf(answer).result.code).toBe('200.100.103');
  });

  it('logged no unexpected error through all of it', () => {
    expect(t.logLines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });
});
