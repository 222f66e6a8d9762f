import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The gateway's own Playwright test on the fixtures a shop uses (issue 36 point 2): ci/pay.spec.ts, two workers, each
 * with a gateway of its own started by ci/fixture.ts from the compiled gateway, in Debian's Chromium. And docs/ci.md
 * shows the example shop's files as they are (ci/package.test.ts runs them in a shop made from `npm pack`).
 */

const ROOT = new URL('..', import.meta.url).pathname;
const CHROMIUM = '/usr/bin/chromium';
const run = promisify(execFile);

describe('the gateway’s own Playwright test, on the shop’s fixtures', () => {
  it('pays, passes a challenge and is declined through the widget, each worker on a gateway of its own', async () => {
    expect(existsSync(CHROMIUM), 'Debian chromium (.ci/run installs it)').toBe(true);
    const result = await run('npx', ['playwright', 'test', '-c', 'ci/playwright.config.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CHROMIUM_PATH: CHROMIUM },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string }) => ({ stdout: `${error.stdout ?? ''}${error.stderr ?? ''}`, stderr: '' }));
    expect(result.stdout).toMatch(/3 passed/);
  }, 180_000);
});

describe('docs/ci.md', () => {
  it('shows the example shop’s files as they are in ci/shop', () => {
    const page = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    for (const [file, lang] of [
      ['package.json', 'json'],
      ['playwright.config.js', 'js'],
      ['tests/checkout.spec.js', 'js'],
      ['.github/workflows/pay.yml', 'yaml'],
      ['.gitlab-ci.yml', 'yaml'],
    ] as const) {
      expect(page, file).toContain(`\`\`\`${lang}\n${readFileSync(join(ROOT, 'ci/shop', file), 'utf8')}\`\`\``);
    }
  });
});
