import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileSystem, FtpSrv, type FtpConnection } from 'ftp-srv';
import { freePort } from './harness.ts';

/**
 * Test support: a real FTP server (ftp-srv) on loopback, storing into a temporary directory, with the failures a
 * merchant's server has: it can answer the next uploads `452` (disk full), or stop — every connection dropped, the
 * port closed — once an upload has received some bytes, and start again on the same port. Explicit TLS (AUTH TLS)
 * with a certificate made for the test (selfSignedCertificate). Also a port that accepts connections and never
 * answers (a server that hangs).
 */

export const FTP_USER = 'merchant';
export const FTP_PASSWORD = 'Ftp-pa$$w0rd;42';

/** A silent logger: ftp-srv logs every command through bunyan otherwise. */
const quiet = {
  child: () => quiet,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
};

export interface TestFtpServer {
  readonly port: number;
  /** The directory the FTP user's login directory maps to. */
  readonly root: string;
  /** Uploads (STOR commands) the server took so far, across restarts. */
  readonly uploads: number;
  /** The file at `path` (relative to the login directory), or undefined. */
  read(path: string): Buffer | undefined;
  /** The names in the directory `path` (relative to the login directory). */
  list(path: string): string[];
  /** The next `count` uploads are answered 452 (insufficient storage) and store nothing. */
  failUploadsWithDiskFull(count: number): void;
  /** Once the next upload has received `bytes` bytes, the server stops (connections dropped, port closed). */
  stopDuringNextUpload(bytes: number): Promise<void>;
  /** Listens again on the same port (after a stop). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface TestFtpServerOptions {
  /** Explicit TLS with this key and certificate (PEM). */
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Folders to create in the login directory. */
  readonly folders?: readonly string[];
}

export async function startTestFtpServer(options: TestFtpServerOptions = {}): Promise<TestFtpServer> {
  const root = mkdtempSync(join(tmpdir(), 'gateway-ftp-'));
  for (const folder of options.folders ?? []) mkdirSync(join(root, folder), { recursive: true });
  const port = await freePort();
  // Passive data ports from a range of this server's own, well apart from other servers a parallel test may run.
  const pasvMin = 20_000 + Math.floor(Math.random() * 40_000);
  let uploads = 0;
  let diskFull = 0;
  let stopAfter: { bytes: number; stopped: () => void } | undefined;
  let server: FtpSrv | undefined;

  function track(connection: FtpConnection): void {
    // Internals of ftp-srv: every command passes through connection.commands.handle.
    const commands = (connection as unknown as { commands: { parse(raw: string): { directive: string }; handle(command: unknown): Promise<unknown> } }).commands;
    const handle = commands.handle.bind(commands);
    commands.handle = (command: unknown) => {
      const parsed = typeof command === 'string' ? commands.parse(command) : (command as { directive: string });
      if (parsed.directive === 'STOR') {
        uploads += 1;
        if (diskFull > 0) {
          diskFull -= 1;
          (connection as unknown as { connector: { end(): void } }).connector.end();
          return connection.reply(452, 'Insufficient storage space');
        }
      }
      return handle(parsed);
    };
  }

  class StoppingFileSystem extends FileSystem {
    override write(fileName: string, writeOptions?: { append?: boolean; start?: unknown }) {
      const written = super.write(fileName, writeOptions) as { stream: NodeJS.WritableStream; clientPath: string };
      const stop = stopAfter;
      if (stop) {
        stopAfter = undefined;
        let received = 0;
        const write = written.stream.write.bind(written.stream) as (chunk: Buffer, ...rest: unknown[]) => boolean;
        written.stream.write = ((chunk: Buffer, ...rest: unknown[]) => {
          received += chunk.length;
          if (received >= stop.bytes && server) {
            const stopping = server;
            server = undefined;
            void stopping.close().then(stop.stopped);
          }
          return write(chunk, ...rest);
        }) as typeof written.stream.write;
      }
      return written;
    }
  }

  async function start(): Promise<void> {
    const signals = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
    const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
    const created = new FtpSrv({
      url: `ftp://127.0.0.1:${port}`,
      pasv_url: '127.0.0.1',
      pasv_min: pasvMin,
      pasv_max: pasvMin + 200,
      anonymous: false,
      log: quiet,
      ...(options.tls ? { tls: options.tls } : {}),
    });
    // ftp-srv makes the process exit(0) on these signals: a test run interrupted would pass. Not here.
    for (const signal of signals) for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    created.on('login', ({ connection, username, password }, resolve, reject) => {
      if (username !== FTP_USER || password !== FTP_PASSWORD) return reject(new Error('Login incorrect'));
      track(connection);
      resolve({ fs: new StoppingFileSystem(connection, { root, cwd: '/' }) });
    });
    await created.listen();
    server = created;
  }

  await start();
  return {
    port,
    root,
    get uploads() {
      return uploads;
    },
    read: (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path)) : undefined),
    list: (path) => readdirSync(join(root, path)).sort(),
    failUploadsWithDiskFull(count) {
      diskFull = count;
    },
    stopDuringNextUpload(bytes) {
      return new Promise<void>((stopped) => {
        stopAfter = { bytes, stopped };
      });
    },
    start,
    async close() {
      await server?.close();
      server = undefined;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A port that takes connections and never says a word (an FTP server that hangs before its greeting). */
export async function startSilentServer(): Promise<{ readonly port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A key and a self-signed certificate for 127.0.0.1 (subjectAltName IP), made by the openssl command for this test run. */
export function selfSignedCertificate(): { readonly key: string; readonly cert: string } {
  const directory = mkdtempSync(join(tmpdir(), 'gateway-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
        '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(directory, 'key.pem'), '-out', join(directory, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(directory, 'key.pem'), 'utf8'), cert: readFileSync(join(directory, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
