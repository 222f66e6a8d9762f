import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileServer } from '../server/compile.ts';
import { DEFAULT_DEMO_MERCHANT } from '../server/config.ts';
import { cardPayment, freePort } from '../server/testing/harness.ts';
import { measureHttp } from './http-load.ts';
import type { BenchSectionContext } from './section.ts';
import { formatRate } from './stats.ts';

/**
 * S (issues 24, 36): how soon a gateway answers after its command, as a CI pipeline and an operator start it:
 * `wpwl-gateway --ci` (the installed package's command, compiled: node dist/server/bin.js --ci, as a shop's
 * node_modules/.bin runs it), `npm run start:ci` (the same from the sources, through npm and tsx) and `npm start` on a
 * migrated embedded store, each STARTS times, alternated: milliseconds from the spawn to the first 200 from GET
 * /health (polled every 20 ms), and the CPU-seconds the command's processes spent until then (/proc: the process
 * group's, with its children's that ended). Then payments per second on each (the bench's load, the demo merchant).
 */

const STARTS = 5;
const ROOT = new URL('..', import.meta.url).pathname;

interface Started {
  readonly url: string;
  readonly ms: number;
  readonly cpuSeconds: number;
  stop(): Promise<void>;
}

type Command = 'wpwl-gateway --ci' | 'start:ci' | 'start';
const COMMANDS: readonly Command[] = ['wpwl-gateway --ci', 'start:ci', 'start'];

/** The CPU-seconds of a process group so far: its live processes', and what its leader's ended children spent. */
function cpuSecondsOf(group: number): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fields: string[];
    try {
      fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    } catch {
      continue;
    }
    // After the command: state, ppid, pgrp (index 2), ..., utime (11), stime (12), cutime (13), cstime (14).
    if (Number(fields[2]) !== group) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + (Number(pid) === group ? Number(fields[13]) + Number(fields[14]) : 0);
  }
  return ticks / 100;
}

function spawnCommand(command: Command, env: NodeJS.ProcessEnv) {
  const options = { cwd: ROOT, env, stdio: 'ignore' as const, detached: true };
  return command === 'wpwl-gateway --ci' ? spawn(process.execPath, [join(ROOT, 'dist/server/bin.js'), '--ci'], options) : spawn('npm', ['run', '--silent', command], options);
}

async function start(command: Command, env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  const began = performance.now();
  const child = spawnCommand(command, { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: '' });
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
    if (ok) return { url, ms: performance.now() - began, cpuSeconds: cpuSecondsOf(child.pid as number), stop };
    if (child.exitCode !== null || performance.now() - began > 60_000) {
      await stop();
      throw new Error(`${command} did not answer within 60 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function benchStartup(context: BenchSectionContext): Promise<void> {
  console.log(`\n[S] start to first answer: wpwl-gateway --ci (compiled), npm run start:ci (from the sources, in memory) and npm start (a migrated embedded store), ${STARTS} each`);
  await compileServer();
  await context.withScope(async (scope) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bench-start-'));
    scope.defer('remove the start bench store', () => rm(dataDir, { recursive: true, force: true }));
    const onDisk = { DATA_DIR: dataDir };
    const envOf = (command: Command) => (command === 'start' ? onDisk : {});
    // Migrated once before the measured starts (the first start creates the store).
    await (await start('start', onDisk)).stop();
    const times = Object.fromEntries(COMMANDS.map((command) => [command, [] as number[]])) as Record<Command, number[]>;
    const cpu = Object.fromEntries(COMMANDS.map((command) => [command, [] as number[]])) as Record<Command, number[]>;
    const loads: number[] = [];
    for (let round = 0; round < STARTS; round++) {
      for (const command of COMMANDS) {
        loads.push(loadavg()[0] as number);
        const started = await start(command, envOf(command));
        times[command].push(started.ms);
        cpu[command].push(started.cpuSeconds);
        await started.stop();
      }
    }
    const rates: Partial<Record<Command, number>> = {};
    // The throughput of each start, its request limits lifted: the demo merchant's 6,000 payments a minute is less than
    // a run of this length makes.
    const unlimited = { THROTTLE_PAYMENT_CREATIONS_PER_MINUTE: '0', THROTTLE_REQUESTS_PER_MINUTE: '0' };
    for (const command of COMMANDS) {
      const started = await start(command, { ...envOf(command), ...unlimited });
      scope.defer(`stop ${command}`, () => started.stop());
      const label = `S  POST /v1/payments, ${command}`;
      const result = await measureHttp({
        url: `${started.url}/v1/payments`,
        method: 'POST',
        headers: { Authorization: `Bearer ${DEFAULT_DEMO_MERCHANT.accessToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(cardPayment(DEFAULT_DEMO_MERCHANT.entityId)).toString(),
        ...context.load,
      });
      context.row(label, result.measured, context.checkHttp(label, result));
      rates[command] = result.measured.rate;
      await started.stop();
    }
    const [targetMs, targetCpu] = [2000, 2];
    const ci = median(times['wpwl-gateway --ci']);
    const ciCpu = median(cpu['wpwl-gateway --ci']);
    const list = (values: number[], digits: number) => values.map((value) => value.toFixed(digits)).join(', ');
    context.ratio(
      `CI start (wpwl-gateway --ci), median of ${STARTS}: ${ci.toFixed(0)} ms to first answer (target ≤ ${targetMs}) and ${ciCpu.toFixed(2)} CPU-s (target ≤ ${targetCpu}) — ` +
        `${ci <= targetMs && ciCpu <= targetCpu ? 'meets both targets' : 'BELOW target'}; 1-min load average during the starts ${list(loads, 2)}`,
    );
    context.ratio(
      `from the sources: npm run start:ci ${median(times['start:ci']).toFixed(0)} ms, ${median(cpu['start:ci']).toFixed(2)} CPU-s; npm start on a migrated store ${median(times.start).toFixed(0)} ms, ${median(cpu.start).toFixed(2)} CPU-s`,
    );
    context.ratio(
      `payments: wpwl-gateway --ci ${formatRate(rates['wpwl-gateway --ci'] ?? 0)}/s, npm run start:ci ${formatRate(rates['start:ci'] ?? 0)}/s, npm start (embedded store on disk) ${formatRate(rates.start ?? 0)}/s`,
    );
    for (const command of COMMANDS) console.log(`  ${command}: ${list(times[command], 0)} ms; ${list(cpu[command], 2)} CPU-s`);
  });
}
