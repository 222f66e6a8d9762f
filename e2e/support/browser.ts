import { chromium, type Browser } from 'playwright-core';

/**
 * The system Chromium (Debian's package), driven by Playwright. Playwright's own browser download cannot
 * work here; background networking is off because this machine has no network beyond loopback.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-gpu'],
  });
}
