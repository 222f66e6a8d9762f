import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { freePort } from '../server/testing/harness.ts';

/**
 * docs/ci.md's parts run as a pipeline runs them: the GitHub Actions workflow's steps in order, on this checkout (the
 * gateway in memory, waited for on /ready), then the Playwright test that pays through the widget, in Chromium. Left
 * out, and why: `uses:` steps (the checkout and Node are this machine's), `npm ci` (the suite runs after it) and
 * `npx playwright install` (no network here: Debian's Chromium through CHROMIUM_PATH instead).
 */

const ROOT = new URL('..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly 'working-directory'?: string;
}
interface Workflow {
  readonly jobs: Record<string, { readonly env: Record<string, string | number>; readonly steps: readonly Step[] }>;
}

const workflowText = readFileSync(join(ROOT, 'ci/github-actions.yml'), 'utf8');
const workflow = parse(workflowText) as Workflow;
const job = Object.values(workflow.jobs)[0] as Workflow['jobs'][string];
const LEFT_OUT = [/^npm ci$/, /^npx playwright install\b/];

/** Runs a step's script the way the runner does: bash, its own process group (what it leaves running is killed after). */
function runStep(script: string, env: NodeJS.ProcessEnv, groups: number[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) groups.push(child.pid);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('docs/ci.md', () => {
  it('shows the workflow and the Playwright test as they are in ci/', () => {
    const page = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    expect(page).toContain(`\`\`\`yaml\n${workflowText}\`\`\``);
    expect(page).toContain(`\`\`\`ts\n${readFileSync(join(ROOT, 'ci/pay.spec.ts'), 'utf8')}\`\`\``);
  });

  describe('the workflow, run step by step on this checkout', () => {
    const groups: number[] = [];
    let temp: string;
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      temp = await mkdtemp(join(tmpdir(), 'gateway-ci-workflow-'));
      const port = await freePort();
      const declared = Object.fromEntries(Object.entries(job.env).map(([name, value]) => [name, String(value)]));
      // The workflow's own environment, on a free port of this machine.
      env = {
        ...process.env,
        ...declared,
        PORT: String(port),
        GATEWAY_URL: `http://localhost:${port}`,
        RUNNER_TEMP: temp,
        CHROMIUM_PATH: CHROMIUM,
        DATABASE_URL: '',
        LOG_LEVEL: 'warn',
      };
    });
    afterAll(async () => {
      for (const group of groups) {
        try {
          process.kill(-group, 'SIGTERM');
        } catch {
          // Ended already.
        }
      }
      await rm(temp, { recursive: true, force: true });
    });

    it('starts the gateway in memory, and the Playwright test pays through the widget', async () => {
      expect(existsSync(CHROMIUM), 'Debian chromium (.ci/run installs it)').toBe(true);
      const ran: string[] = [];
      for (const step of job.steps) {
        if (step.uses || step.run === undefined || step.if === 'failure()') continue;
        if (LEFT_OUT.some((pattern) => pattern.test((step.run as string).trim()))) continue;
        // Every step works in the gateway's checkout: this one.
        expect(step['working-directory'], step.name).toBe('gateway');
        const { code, output } = await runStep(step.run, env, groups);
        expect(code, `${step.name}\n${output.slice(-4000)}`).toBe(0);
        ran.push(step.name ?? step.run);
        if (/playwright test/.test(step.run)) expect(output).toMatch(/3 passed/);
      }
      expect(ran).toEqual([
        'Start the gateway in memory and wait until it is ready',
        'Pay through the widget (your own browser tests go here, with GATEWAY_URL)',
      ]);
    }, 180_000);
  });
});
