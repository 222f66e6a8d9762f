import { launchBrowser } from '../e2e/support/browser.ts';
import { startMerchantSite } from '../e2e/support/merchantSite.ts';
import { buildWidget } from '../widget/build.ts';
import { loadWidgetBuild } from '../server/widget/build.ts';
import { BUDGETS, measureWidgetSizes } from '../widget/sizes.ts';

/**
 * Widget figures: gzip sizes of the artifacts against the issues' budgets, and the time from the
 * script tag to onReady in headless Chromium on loopback (median of LOADS fresh page loads).
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

  const site = await startMerchantSite();
  const browser = await launchBrowser();
  try {
    const timings: number[] = [];
    for (let load = 0; load < LOADS; load++) {
      const page = await browser.newPage();
      await page.goto(site.pageUrl('timing'));
      await page.waitForFunction(() => typeof (window as unknown as { readyAt?: number }).readyAt === 'number');
      timings.push(await page.evaluate(() => {
        const w = window as unknown as { readyAt: number; scriptTagAt: number };
        return w.readyAt - w.scriptTagAt;
      }));
      await page.close();
    }
    timings.sort((a, b) => a - b);
    const median = ((timings[LOADS / 2 - 1] ?? 0) + (timings[LOADS / 2] ?? 0)) / 2;
    console.log(`  script tag → onReady, headless Chromium, loopback: median ${median.toFixed(1)} ms of ${LOADS} loads (min ${timings[0]?.toFixed(1)}, max ${timings[LOADS - 1]?.toFixed(1)})`);
  } finally {
    await browser.close();
    await site.close();
  }
}
