// The shop's Playwright configuration. The fixtures of `payment-gateway/playwright/test` start, per worker, a gateway
// (`wpwl-gateway --ci`: in memory, its own clock) and the shop's server told that gateway (`shop` below), so workers
// run in parallel without sharing a payment or a clock. CHROMIUM_PATH: a Chromium already on the machine (Debian's
// /usr/bin/chromium), so nothing is downloaded.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'tests',
  fullyParallel: true,
  workers: 2,
  // What ran, for people and for the CI job's artifact (beside each worker's gateway integration report in test-results/).
  reporter: [[process.env.CI ? 'line' : 'list'], ['json', { outputFile: 'playwright-report/results.json' }]],
  use: {
    shop: { command: 'node shop.js' },
    browserName: 'chromium',
    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] } } : {}),
  },
});
