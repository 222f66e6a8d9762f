import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A gateway as an operator runs it (`server/main.ts` in its own process), for tests of start-up refusals, start
 * banners and crashes: what such a test observes is the real process, its exit code and what it printed.
 */

export interface GatewayProcess {
  readonly child: ChildProcess;
  /** Everything the process printed on stderr so far (the start banner, configuration errors). */
  stderr(): string;
  /** Resolves with the banner once the gateway listens; rejects if the process exits first. */
  readonly listening: Promise<string>;
  /** Resolves once the process has printed a line matching `pattern` (rejects if it exits first). */
  printed(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code (null after a signal) once the process has ended. */
  readonly exited: Promise<number | null>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

/**
 * `entry`: the process's script; `server/testing/hangingAcquirerGateway.ts` for crash tests. `args`: its command line
 * (`--in-memory`).
 */
export function startGatewayProcess(env: Readonly<Record<string, string>>, entry = 'server/main.ts', args: readonly string[] = []): GatewayProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      // The banner is one write of a few lines, after the gateway listens.
      if (stderr.includes('Gateway listening')) resolve(stderr);
    });
    void exited.then((code) => reject(new Error(`the gateway exited (${code}) before listening:\n${stderr}`)));
  });
  // A test that only waits for the exit must not see an unhandled rejection.
  listening.catch(() => undefined);
  const printed = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stderr);
        if (!match) return false;
        child.stderr?.off('data', check);
        resolve(match[0]);
        return true;
      };
      if (check()) return;
      child.stderr?.on('data', check);
      void exited.then((code) => reject(new Error(`the gateway exited (${code}) before printing ${pattern}:\n${stderr}`)));
    });
  return {
    child,
    stderr: () => stderr,
    listening,
    printed,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
