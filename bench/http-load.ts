import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadMeasuring, LoadReply, LoadResult, LoadSpec } from './load-protocol.ts';

const LOADGEN = fileURLToPath(new URL('./loadgen.ts', import.meta.url));

/**
 * Runs a warm-up and a measured autocannon run against `spec.url` from a separate process (the
 * process inherits tsx's loader through execArgv) and returns the figures. The child is killed
 * if it overruns or if this call fails. `onMeasuring` is called when the warm-up is over and the measured run starts.
 */
export function measureHttp(spec: LoadSpec, onMeasuring?: () => void): Promise<LoadResult> {
  const child = fork(LOADGEN, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const limitMs = (spec.warmupSeconds + spec.durationSeconds + 30) * 1000;
  return new Promise<LoadResult>((resolve, reject) => {
    let settled = false;
    let reply: LoadReply | undefined;
    const finish = (error: Error | undefined, result?: LoadResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill();
      if (error) reject(error);
      else resolve(result as LoadResult);
    };
    const timer = setTimeout(() => finish(new Error(`load generator did not finish within ${limitMs / 1000} s`)), limitMs);
    const settle = () => {
      if (reply?.ok) finish(undefined, reply.result);
      else if (reply) finish(new Error(`load generator failed: ${reply.error}`));
    };
    child.on('message', (message: LoadReply | LoadMeasuring) => {
      if ('measuring' in message) {
        onMeasuring?.();
        return;
      }
      if (reply) return;
      reply = message;
      // The child exits by itself right after replying; give it a moment before killing it.
      setTimeout(settle, 3000).unref();
    });
    child.once('error', (error) => finish(error));
    child.once('close', (code, signal) => {
      if (reply) settle();
      else finish(new Error(`load generator exited before replying (code ${code}, signal ${signal})`));
    });
    child.send(spec);
  });
}
