// Playwright's configuration for ci/pay.spec.ts. CHROMIUM_PATH: a Chromium already on the machine (Debian's
// /usr/bin/chromium); unset, Playwright's own (`npx playwright install chromium`).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: 'pay.spec.ts',
  timeout: 30_000,
  workers: 1,
  reporter: 'line',
  use: {
    browserName: 'chromium',
    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] } } : {}),
  },
});
