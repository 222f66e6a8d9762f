import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.ts';
import { startMerchantSite } from '../e2e/support/merchantSite.ts';
import { renderBootstrap } from '../server/widget/bootstrap.ts';
import { buildWidget } from '../widget/build.ts';
import { loadWidgetBuild } from '../server/widget/build.ts';

/**
 * Widget figures: gzip sizes of the three artifacts against the issue's budgets, and the time from the
 * script tag to onReady in headless Chromium on loopback (median of LOADS fresh page loads).
 */

const LOADS = 20;
const KB = 1024;

function gz(bytes: Uint8Array | string): number {
  return gzipSync(bytes, { level: 9 }).length;
}

function kb(bytes: number): string {
  return `${(bytes / KB).toFixed(1)} KB`;
}

export async function measureWidget(): Promise<void> {
  await buildWidget();
  const build = loadWidgetBuild();
  if (!build) throw new Error('the widget build is missing');
  const size = (name: string) => gz(build.files.get(name)?.bytes ?? new Uint8Array());
  const bootstrap = gz(
    renderBootstrap(
      {
        checkoutId: '7A987D6B411CE700AFFCA163D679703E.sbx01-gw01',
        amount: '92.00',
        currency: 'EUR',
        paymentType: 'DB',
        resourcePath: '/v1/checkouts/7A987D6B411CE700AFFCA163D679703E.sbx01-gw01/payment',
        registrationIds: [],
        gatewayUrl: 'https://gateway.example.com',
        staticBaseUrl: `https://gateway.example.com/v1/static/${build.version}`,
      },
      { gatewayUrl: '', staticBaseUrl: '' },
    ),
  );
  const widget = size('js/static.min.js') + size('css/static.min.css');
  const fields = size('fields.html') + size('js/fields.min.js') + size('css/fields.min.css');
  console.log('\n[widget] sizes (gzip -9)');
  console.log(`  bootstrap paymentWidgets.js: ${kb(bootstrap)} (budget 2 KB)`);
  console.log(`  widget JS + CSS (English):   ${kb(widget)} (budget 30 KB)`);
  console.log(`  hosted-field page:           ${kb(fields)} (budget 6 KB)`);
  const languages = [...build.files.keys()].filter((name) => name.startsWith('locales/')).map((name) => [name.slice(8, -5), size(name)] as const);
  const largest = languages.reduce((max, entry) => (entry[1] > max[1] ? entry : max), ['', 0] as readonly [string, number]);
  console.log(`  language files (${languages.length}): largest ${largest[0]} ${kb(largest[1])} (budget 2 KB each); i18next engine, loaded for them only: ${kb(size('js/i18n.min.js'))}`);
  console.log(`  per language: ${languages.map(([code, bytes]) => `${code} ${bytes}`).join(', ')} bytes`);

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
