import { spawn, type ChildProcess } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Webhook receivers for delivery tests: real servers on 127.0.0.1 that decrypt notifications with the code the
 * platform publishes for merchants (Node and PHP), so a test proves a merchant's receiver reads what the gateway sends.
 */

// ---------------------------------------------------------------------------------------------------------------
// Node receiver

/**
 * How the Node receiver answers a notification it could decrypt (one it cannot decrypt always gets 500, as the
 * published code throwing would, and does not advance a script):
 * - a number: that status, body `OK`;
 * - an array of numbers: these statuses for the next requests in order, then the last one for every later request
 *   (`[500, 500, 500, 200]`; an empty array answers 200);
 * - `hang`: never answer (until `close()`);
 * - `slow`: `bytes` bytes of body (default 3,600), one every `intervalMs` (default 1,000: an hour in all); with
 *   `headFirst` (the default) the status line and headers go at once, without it they trickle byte by byte too;
 * - `huge`: a `bytes`-long body (default 20 MiB), chunked (no Content-Length), written as fast as the client reads;
 * - `redirect`: `status` (default 302) with `Location: location`;
 * - `close`: the connection is destroyed without an answer.
 */
export type ReceiverBehaviour =
  | number
  | readonly number[]
  | { readonly kind: 'hang' }
  | { readonly kind: 'slow'; readonly status?: number; readonly bytes?: number; readonly intervalMs?: number; readonly headFirst?: boolean }
  | { readonly kind: 'huge'; readonly status?: number; readonly bytes?: number }
  | { readonly kind: 'redirect'; readonly location: string; readonly status?: number }
  | { readonly kind: 'close' };

export interface ReceivedNotification {
  /** `Date.now()` when the whole request body had arrived. */
  readonly at: number;
  readonly method: string;
  /** The request target (path and query). */
  readonly path: string;
  /** Node's lower-cased headers. */
  readonly headers: IncomingHttpHeaders;
  /** Names and values as sent, casing included (`X-Initialization-Vector`). */
  readonly rawHeaders: readonly string[];
  /** The raw request body. */
  readonly body: string;
  /** `JSON` when the Content-Type is application/json (the body is `{"encryptedBody": ...}`), else `NONE`. */
  readonly wrapper: 'NONE' | 'JSON';
  /** The decrypted notification; undefined when it could not be decrypted. */
  readonly plaintext: string | undefined;
  /** The plaintext parsed as JSON; undefined when there is none or it is not JSON. */
  readonly json: unknown;
  /** Why decryption failed (never carries the secret). */
  readonly error?: string;
  /** The status answered; null when none was (hang, close). */
  readonly status: number | null;
}

export interface NodeReceiver {
  /** `http://127.0.0.1:<port>/webhook` (any path is accepted). */
  readonly url: string;
  /** Every request, in the order their bodies arrived. */
  readonly received: ReceivedNotification[];
  /** Changes the answer of later requests (a script starts again from its first status). */
  setBehaviour(behaviour: ReceiverBehaviour): void;
  /** Resolves with `received` once it holds at least `count` requests; rejects after `timeoutMs` (default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedNotification[]>;
  /** Stops the server, destroying every connection (hanging and slow answers included). */
  close(): Promise<void>;
}

/** What the published Node receiver does: hex → Buffer, createDecipheriv('aes-256-gcm', key, iv), setAuthTag(tag). */
function decryptAsPublished(bodyHex: string, secretHex: string, ivHex: string | undefined, tagHex: string | undefined): string {
  if (ivHex === undefined || tagHex === undefined) throw new Error('X-Initialization-Vector or X-Authentication-Tag missing');
  const key = Buffer.from(secretHex, 'hex');
  const iv = Buffer.from(ivHex, 'hex');
  const authTag = Buffer.from(tagHex, 'hex');
  const cipherText = Buffer.from(bodyHex, 'hex');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(authTag);
  return decipher.update(cipherText, undefined, 'utf8') + decipher.final('utf8');
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The notification in a request body: the hex itself, or the `encryptedBody` of the JSON wrapper. */
function encryptedHex(body: string, wrapper: 'NONE' | 'JSON'): string {
  if (wrapper === 'NONE') return body;
  const parsed = parseJson(body) as { encryptedBody?: unknown } | undefined;
  if (typeof parsed?.encryptedBody !== 'string') throw new Error('JSON wrapper without a string encryptedBody');
  return parsed.encryptedBody;
}

export async function startNodeReceiver(secretHex: string, behaviour: ReceiverBehaviour = 200): Promise<NodeReceiver> {
  const received: ReceivedNotification[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  let current = behaviour;
  let scriptPosition = 0;

  const nextAnswer = (): Exclude<ReceiverBehaviour, readonly number[]> => {
    if (typeof current === 'number' || !Array.isArray(current)) return current as Exclude<ReceiverBehaviour, readonly number[]>;
    const script = current as readonly number[];
    const status = script[Math.min(scriptPosition, script.length - 1)] ?? 200;
    scriptPosition += 1;
    return status;
  };

  const trickle = (write: (byte: string) => boolean, chunks: string, intervalMs: number, done: () => void) => {
    let position = 0;
    const timer = setInterval(() => {
      if (position >= chunks.length) {
        clearInterval(timer);
        timers.delete(timer);
        done();
        return;
      }
      write(chunks[position]!);
      position += 1;
    }, intervalMs);
    timers.add(timer);
    return () => {
      clearInterval(timer);
      timers.delete(timer);
    };
  };

  /** Answers `answer`; resolves with the status sent (null: none). */
  const respond = (answer: Exclude<ReceiverBehaviour, readonly number[]>, response: ServerResponse): number | null => {
    if (typeof answer === 'number') {
      response.writeHead(answer, { 'Content-Type': 'text/plain' }).end('OK');
      return answer;
    }
    switch (answer.kind) {
      case 'hang':
        return null;
      case 'close':
        response.socket?.destroy();
        return null;
      case 'redirect': {
        const status = answer.status ?? 302;
        response.writeHead(status, { Location: answer.location }).end();
        return status;
      }
      case 'slow': {
        const status = answer.status ?? 200;
        const body = 'x'.repeat(answer.bytes ?? 3_600);
        const intervalMs = answer.intervalMs ?? 1_000;
        if (answer.headFirst ?? true) {
          response.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': String(body.length) });
          response.flushHeaders();
          const stop = trickle((byte) => response.write(byte), body, intervalMs, () => response.end());
          response.once('close', stop);
        } else {
          const socket = response.socket!;
          const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
          const stop = trickle((byte) => socket.write(byte), head + body, intervalMs, () => socket.end());
          socket.once('close', stop);
        }
        return status;
      }
      case 'huge': {
        const status = answer.status ?? 200;
        let remaining = answer.bytes ?? 20 * 1024 * 1024;
        const chunk = Buffer.alloc(64 * 1024, 'x');
        response.writeHead(status, { 'Content-Type': 'text/plain' });
        const pump = () => {
          while (remaining > 0 && !response.destroyed) {
            const piece = remaining >= chunk.length ? chunk : chunk.subarray(0, remaining);
            remaining -= piece.length;
            if (!response.write(piece)) {
              response.once('drain', pump);
              return;
            }
          }
          if (!response.destroyed) response.end();
        };
        pump();
        return status;
      }
    }
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const contentType = request.headers['content-type'] ?? '';
      const wrapper = /^application\/json\b/i.test(contentType) ? 'JSON' : 'NONE';
      let plaintext: string | undefined;
      let error: string | undefined;
      if (request.method === 'POST') {
        try {
          plaintext = decryptAsPublished(
            encryptedHex(body, wrapper),
            secretHex,
            single(request.headers['x-initialization-vector']),
            single(request.headers['x-authentication-tag']),
          );
        } catch (failure) {
          error = failure instanceof Error ? failure.message : 'decryption failed';
        }
      } else {
        error = `${request.method} is not a notification`;
      }
      const status = plaintext === undefined ? respond(request.method === 'POST' ? 500 : 405, response) : respond(nextAnswer(), response);
      received.push({
        at: Date.now(),
        method: request.method ?? '',
        path: request.url ?? '/',
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body,
        wrapper,
        plaintext,
        json: parseJson(plaintext),
        ...(error === undefined ? {} : { error }),
        status,
      });
      for (const wake of [...waiters]) wake();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    setBehaviour(next) {
      current = next;
      scriptPosition = 0;
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`The webhook receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// PHP receiver

/**
 * The published PHP receiver, as a router script for `php -S`: it reads the IV and tag from `$_SERVER`, the body from
 * php://input (or its `encryptedBody` for the JSON wrapper), decrypts with openssl_decrypt exactly as published,
 * appends a JSON line of what it got to the file the test reads, and answers 200 (500 if decryption failed).
 */
const PHP_ROUTER = String.raw`<?php
ini_set('display_errors', '0');
$secret = getenv('WEBHOOK_SECRET');
$received_file = getenv('WEBHOOK_RECEIVED_FILE');

$http_body = file_get_contents('php://input');
$iv_from_http_header = $_SERVER['HTTP_X_INITIALIZATION_VECTOR'] ?? '';
$auth_tag_from_http_header = $_SERVER['HTTP_X_AUTHENTICATION_TAG'] ?? '';
$content_type = $_SERVER['CONTENT_TYPE'] ?? ($_SERVER['HTTP_CONTENT_TYPE'] ?? '');

$wrapper = 'NONE';
$body = $http_body;
if (stripos($content_type, 'application/json') === 0) {
    $wrapper = 'JSON';
    $decoded = json_decode($http_body, true);
    $body = (is_array($decoded) && is_string($decoded['encryptedBody'] ?? null)) ? $decoded['encryptedBody'] : '';
}

$result = openssl_decrypt(hex2bin($body), 'aes-256-gcm', hex2bin($secret), OPENSSL_RAW_DATA, hex2bin($iv_from_http_header), hex2bin($auth_tag_from_http_header));

file_put_contents($received_file, json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'wrapper' => $wrapper,
    'ok' => $result !== false,
    'plaintext' => $result === false ? null : $result,
], JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE) . "\n", FILE_APPEND | LOCK_EX);

http_response_code($result === false ? 500 : 200);
header('Content-Type: text/plain');
echo $result === false ? 'decryption failed' : 'OK';
`;

export interface PhpNotification {
  readonly method: string;
  readonly wrapper: 'NONE' | 'JSON';
  /** Whether openssl_decrypt succeeded (the receiver answered 200; else 500). */
  readonly ok: boolean;
  /** What openssl_decrypt gave; null when it failed. */
  readonly plaintext: string | null;
  /** The plaintext parsed as JSON; undefined when there is none or it is not JSON. */
  readonly json: unknown;
}

export interface PhpReceiver {
  /** `http://127.0.0.1:<port>/webhook.php` (any path reaches the router). */
  readonly url: string;
  /** What the PHP receiver decrypted so far, in order. */
  received(): PhpNotification[];
  /** Resolves once `received()` holds at least `count` entries; rejects after `timeoutMs` (default 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<PhpNotification[]>;
  /** Kills the php process and removes its files. */
  close(): Promise<void>;
}

/** The `php` executable on PATH (Debian's php-cli), if any. */
export function phpBinary(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, 'php');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Says loudly that a suite's PHP receiver tests are skipped (php missing: `apt-get install php-cli`, as .ci/run does). */
export function warnIfPhpMissing(suite: string): void {
  if (phpBinary() !== undefined) return;
  process.stderr.write(`\n!!! SKIPPED: ${suite} did NOT run the PHP receiver: php is not on PATH (apt-get install php-cli) !!!\n\n`);
}

async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Stops a child we started: SIGTERM, then SIGKILL if it has not exited within 3 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(killer);
}

/**
 * Starts `php -S` on a free loopback port with the published receiver as its router; undefined when php is not
 * installed (tests use `it.runIf(phpBinary() !== undefined)`). Resolves once the server accepts connections.
 */
export async function startPhpReceiver(secretHex: string): Promise<PhpReceiver | undefined> {
  const php = phpBinary();
  if (php === undefined) return undefined;
  const directory = mkdtempSync(join(tmpdir(), 'php-webhook-receiver-'));
  const receivedFile = join(directory, 'received.jsonl');
  writeFileSync(join(directory, 'router.php'), PHP_ROUTER, { mode: 0o600 });

  const read = (): PhpNotification[] =>
    existsSync(receivedFile)
      ? readFileSync(receivedFile, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => {
            const entry = JSON.parse(line) as Omit<PhpNotification, 'json'>;
            return { ...entry, json: parseJson(entry.plaintext ?? undefined) };
          })
      : [];

  let lastError = '';
  // A port found free may be taken before php binds it: then php exits, and the next attempt takes another.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    const child = spawn(php, ['-d', 'display_errors=stderr', '-S', `127.0.0.1:${port}`, '-t', directory, join(directory, 'router.php')], {
      cwd: directory,
      env: { ...process.env, WEBHOOK_SECRET: secretHex, WEBHOOK_RECEIVED_FILE: receivedFile, PHP_CLI_SERVER_WORKERS: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    // php -S logs every request on stderr: keep reading it (a full pipe would block php), remembering the end.
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
    });
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));

    const deadline = Date.now() + 10_000;
    let up = false;
    while (!up && Date.now() < deadline && child.exitCode === null && child.signalCode === null && spawnError === undefined) {
      up = await accepts(port);
      if (!up) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (up) {
      return {
        url: `http://127.0.0.1:${port}/webhook.php`,
        received: read,
        async waitFor(count, timeoutMs = 10_000) {
          const until = Date.now() + timeoutMs;
          for (;;) {
            const entries = read();
            if (entries.length >= count) return entries;
            if (Date.now() >= until) throw new Error(`The PHP webhook receiver got ${entries.length} of ${count} requests within ${timeoutMs} ms`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        },
        async close() {
          process.removeListener('exit', killOnExit);
          await stopChild(child);
          rmSync(directory, { recursive: true, force: true });
        },
      };
    }
    process.removeListener('exit', killOnExit);
    await stopChild(child);
    lastError = spawnError?.message ?? (stderr.trim() || 'it did not accept connections within 10 s');
  }
  rmSync(directory, { recursive: true, force: true });
  throw new Error(`php -S did not start: ${lastError}`);
}
