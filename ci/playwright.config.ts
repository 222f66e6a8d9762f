// Playwright's configuration for the gateway's own test (ci/pay.spec.ts), run by ci/ci.test.ts: two workers, each with
// a gateway of its own (ci/fixture.ts, the compiled gateway). CHROMIUM_PATH: a Chromium already on the machine
// (Debian's /usr/bin/chromium); unset, Playwright's own.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: 'pay.spec.ts',
  timeout: 30_000,
  fullyParallel: true,
  workers: 2,
  reporter: 'line',
  use: {
    browserName: 'chromium',
    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] } } : {}),
  },
});
