import { launchBrowser } from '../e2e/support/browser.ts';
import { startMerchantSite } from '../e2e/support/merchantSite.ts';
import { buildWidget } from '../widget/build.ts';
import { loadWidgetBuild } from '../server/widget/build.ts';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import type { MerchantSite } from '../e2e/support/merchantSite.ts';
import { BUDGETS, measureWidgetSizes, onDemandChunks } from '../widget/sizes.ts';

/**
 * Widget figures: gzip sizes of the artifacts against the issues' budgets, every chunk loaded on demand (a family's
 * forms, a feature an option or a brand asks for), and the time from the script tag to onReady in headless Chromium on
 * loopback (median of LOADS fresh page loads) of a card-only page and of a page with the wallet buttons and the card
 * form, measured side by side.
 */

const LOADS = 20;
const KB = 1024;

function kb(bytes: number): string {
  return `${(bytes / KB).toFixed(1)} KB`;
}

export async function measureWidget(): Promise<void> {
  await buildWidget();
  const build = loadWidgetBuild();
  if (!build) throw new Error('the widget build is missing');
  const sizes = measureWidgetSizes(build);
  const languages = [...sizes.languages];
  const largest = languages.reduce((max, entry) => (entry[1] > max[1] ? entry : max), ['', 0]);
  console.log('\n[widget] sizes (gzip -9)');
  console.log(`  bootstrap paymentWidgets.js: ${kb(sizes.bootstrap)} (budget ${kb(BUDGETS.bootstrap)})`);
  console.log(`  widget JS + CSS (English):   ${kb(sizes.widget)} (budget ${kb(BUDGETS.widget)})`);
  console.log(`  hosted-field page:           ${kb(sizes.hostedFields)} (budget ${kb(BUDGETS.hostedFields)})`);
  console.log(
    `  language files (${languages.length}): largest ${largest[0]} ${kb(largest[1])} (budget ${kb(BUDGETS.language)} each); ` +
      `i18next engine, loaded for them only: ${kb(sizes.i18nEngine)}`,
  );
  console.log(`  per language: ${languages.map(([code, bytes]) => `${code} ${bytes}`).join(', ')} bytes`);
  const sum = (files: ReadonlyMap<string, number>) => [...files.values()].reduce((total, bytes) => total + bytes, 0);
  const cardOnly = sum(sizes.cardOnlyPage) + sum(sizes.cardOnlyAfterReady);
  console.log(
    `  card-only page until ready to pay: ${kb(cardOnly)} (${cardOnly} B; budget ${kb(BUDGETS.cardOnlyPage)}, with @preact/signals; hosted-field ` +
      `files once, the second frame's come from the browser cache; the submit path included): ` +
      `${[...sizes.cardOnlyPage, ...sizes.cardOnlyAfterReady].map(([file, bytes]) => `${file} ${bytes}`).join(', ')}`,
  );
  console.log(`  the same counting both frames' files: ${kb(sum(sizes.cardOnlyPageUncached))} before the submit path (ceiling ${kb(BUDGETS.cardOnlyCeiling)})`);

  const chunks = onDemandChunks(build).map((file) => `${file.replace(/^js\/|-[\w-]+\.min\.js$/g, '')} ${gzipSync(build.files.get(file)?.bytes ?? new Uint8Array(), { level: 9 }).length}`);
  console.log(`  chunks loaded on demand (gzip bytes): ${chunks.join(', ')}`);

  const site = await startMerchantSite();
  const browser = await launchBrowser();
  try {
    // The two pages' loads alternate, so a busy moment of the machine weighs on both alike.
    const pages = { 'card only (VISA MASTER)': 'timing', 'wallet buttons + card form (VISA MASTER AMEX APPLEPAY GOOGLEPAY)': 'timing-wallets' };
    const timings = new Map(Object.keys(pages).map((name) => [name, [] as number[]]));
    for (let load = 0; load < LOADS; load++) {
      for (const [name, page] of Object.entries(pages)) timings.get(name)?.push(await timeToReady(browser, site, page));
    }
    for (const [name, times] of timings) {
      times.sort((a, b) => a - b);
      const median = ((times[LOADS / 2 - 1] ?? 0) + (times[LOADS / 2] ?? 0)) / 2;
      console.log(`  script tag → onReady, ${name}, headless Chromium, loopback: median ${median.toFixed(1)} ms of ${LOADS} loads (min ${times[0]?.toFixed(1)}, max ${times[LOADS - 1]?.toFixed(1)})`);
    }
  } finally {
    await browser.close();
    await site.close();
  }
}

/** Milliseconds from the page's script tag to onReady, on a fresh page (the browser's cache shared, as for a shopper's next visit). */
async function timeToReady(browser: Browser, site: MerchantSite, pageName: string): Promise<number> {
  const page = await browser.newPage();
  try {
    await page.goto(site.pageUrl(pageName));
    await page.waitForFunction(() => typeof (window as unknown as { readyAt?: number }).readyAt === 'number');
    return await page.evaluate(() => {
      const w = window as unknown as { readyAt: number; scriptTagAt: number };
      return w.readyAt - w.scriptTagAt;
    });
  } finally {
    await page.close();
  }
}
