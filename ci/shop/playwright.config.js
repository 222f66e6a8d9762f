// The shop's Playwright configuration: the CI gateway from its devDependencies (`wpwl-gateway --ci`, in memory) and
// the shop's own server, both started by Playwright and stopped after the run. CHROMIUM_PATH: a Chromium already on
// the machine (Debian's /usr/bin/chromium), so nothing is downloaded.
import { defineConfig } from '@playwright/test';

const GATEWAY_PORT = process.env.GATEWAY_PORT ?? '8080';
const SHOP_PORT = process.env.SHOP_PORT ?? '3000';
const GATEWAY_URL = `http://localhost:${GATEWAY_PORT}`;

export default defineConfig({
  testDir: 'tests',
  reporter: 'line',
  webServer: [
    { command: 'wpwl-gateway --ci', url: `${GATEWAY_URL}/ready`, env: { PORT: GATEWAY_PORT }, reuseExistingServer: false },
    { command: 'node shop.js', url: `http://localhost:${SHOP_PORT}/`, env: { GATEWAY_URL, SHOP_PORT }, reuseExistingServer: false },
  ],
  use: {
    baseURL: `http://localhost:${SHOP_PORT}`,
    browserName: 'chromium',
    ...(process.env.CHROMIUM_PATH ? { launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ['--no-sandbox'] } } : {}),
  },
});
