import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_DEMO_MERCHANT } from '../server/config.ts';
import { cardPayment, freePort } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import type { BenchSectionContext } from './section.ts';
import { formatRate } from './stats.ts';

/**
 * S (issue 24): how soon a gateway answers after its command, as a CI pipeline and an operator start it. `npm run
 * start:ci` (the database in memory, from the migrated image) and `npm start` on a migrated embedded store, each
 * STARTS times, alternated: milliseconds from the spawn of the npm command to the first 200 from GET /health (polled
 * every 20 ms). Then payments per second on each (the bench's load, the demo merchant).
 */

const STARTS = 5;
const ROOT = new URL('..', import.meta.url).pathname;

interface Started {
  readonly url: string;
  readonly ms: number;
  stop(): Promise<void>;
}

async function start(script: 'start' | 'start:ci', env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  const began = performance.now();
  const child = spawn('npm', ['run', '--silent', script], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: '' },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {
      // Gone already.
    }
    await exited;
  };
  for (;;) {
    const ok = await fetch(`${url}/health`).then((answer) => answer.status === 200, () => false);
    if (ok) return { url, ms: performance.now() - began, stop };
    if (child.exitCode !== null || performance.now() - began > 60_000) {
      await stop();
      throw new Error(`npm run ${script} did not answer within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function benchStartup(context: BenchSectionContext): Promise<void> {
  console.log(`\n[S] start to first answer: npm run start:ci (in memory) and npm start (a migrated embedded store), ${STARTS} each`);
  await context.withScope(async (scope) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-start-'));
    scope.defer('remove the start bench store', () => rm(dataDir, { recursive: true, force: true }));
    const onDisk = { DATA_DIR: dataDir };
    // Migrated once before the measured starts (the first start creates the store).
    await (await start('start', onDisk)).stop();
    const times: Record<'start:ci' | 'start', number[]> = { 'start:ci': [], start: [] };
    for (let round = 0; round < STARTS; round++) {
      for (const script of ['start:ci', 'start'] as const) {
        const started = await start(script, script === 'start' ? onDisk : {});
        times[script].push(started.ms);
        await started.stop();
      }
    }
    const rates: Record<string, number> = {};
    for (const script of ['start:ci', 'start'] as const) {
      const started = await start(script, script === 'start' ? onDisk : {});
      scope.defer(`stop npm run ${script}`, () => started.stop());
      const label = `S  POST /v1/payments, npm run ${script}`;
      const result = await measureHttp({
        url: `${started.url}/v1/payments`,
        method: 'POST',
        headers: { Authorization: `Bearer ${DEFAULT_DEMO_MERCHANT.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(DEFAULT_DEMO_MERCHANT.entityId)).toString(),
        ...context.load,
      });
      context.row(label, result.measured, context.checkHttp(label, result));
      rates[script] = result.measured.rate;
      await started.stop();
    }
    const target = 2000;
    const ci = median(times['start:ci']);
    context.ratio(
      `start to first answer (median of ${STARTS}): npm run start:ci ${ci.toFixed(0)} ms (target ≤ ${target} ms) — ${ci <= target ? 'meets target' : 'BELOW target'}; ` +
        `npm start on a migrated store ${median(times.start).toFixed(0)} ms; every start: start:ci ${times['start:ci'].map((ms) => ms.toFixed(0)).join(', ')}; start ${times.start.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
    context.ratio(`payments in memory (npm run start:ci) ${formatRate(rates['start:ci'] ?? 0)}/s next to the embedded store on disk (npm start) ${formatRate(rates.start ?? 0)}/s`);
    console.log(`  start:ci ${times['start:ci'].map((ms) => ms.toFixed(0)).join(', ')} ms; start ${times.start.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  });
}
