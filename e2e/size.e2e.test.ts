import type { CDPSession } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { BUDGETS } from '../widget/sizes.ts';
import { useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * What a shopper's browser really downloads from the gateway for a card-only page (issue 14: at most 25 KB gzip
 * before onReady), measured in Chromium over the DevTools protocol rather than summed from the build: the body
 * bytes as they came over the wire (gzip: the gateway compresses its scripts, stylesheets and pages), per
 * response, until the card form can be used: onReady has fired, both hosted fields (number and CVV) have said
 * they are ready, the submit path's chunk (loaded right after the forms render) has been requested, and every
 * gateway request the page made by then has finished. That window holds more than "before onReady" (the hosted
 * fields are created as the form renders and load after onReady; the submit path too), so the budget holds a
 * fortiori. A response the browser took from its cache counts zero: the two hosted fields load the same
 * versioned, immutable page, script and stylesheet, and the second frame gets them from the cache.
 */

const env = useMerchantSiteAndBrowser();

interface Download {
  readonly url: string;
  /** Header bytes received (responseReceived), and all bytes received (loadingFinished): the body is the difference. */
  headerBytes?: number;
  totalBytes?: number;
  encoding?: string;
  fromCache: boolean;
  done: boolean;
}

/** Every request of the page (and its same-process frames, as the gateway's hosted fields are here), by id. */
function recordDownloads(cdp: CDPSession): Map<string, Download> {
  const downloads = new Map<string, Download>();
  cdp.on('Network.requestWillBeSent', (event) => {
    if (!downloads.has(event.requestId)) downloads.set(event.requestId, { url: event.request.url, fromCache: false, done: false });
  });
  cdp.on('Network.requestServedFromCache', (event) => {
    const download = downloads.get(event.requestId);
    if (download) download.fromCache = true;
  });
  cdp.on('Network.responseReceived', (event) => {
    const download = downloads.get(event.requestId);
    if (!download) return;
    download.headerBytes = event.response.encodedDataLength;
    download.encoding = event.response.headers['content-encoding'] ?? event.response.headers['Content-Encoding'];
    if (event.response.fromDiskCache || event.response.fromPrefetchCache) download.fromCache = true;
  });
  cdp.on('Network.loadingFinished', (event) => {
    const download = downloads.get(event.requestId);
    if (!download) return;
    download.totalBytes = event.encodedDataLength;
    download.done = true;
  });
  cdp.on('Network.loadingFailed', (event) => {
    const download = downloads.get(event.requestId);
    if (download) download.done = true;
  });
  return downloads;
}

/** Body bytes as received: what loadingFinished counts minus the headers; zero for what came from the cache. */
const bodyBytes = (download: Download) => (download.fromCache ? 0 : (download.totalBytes ?? 0) - (download.headerBytes ?? 0));

describe('what a card-only page downloads from the gateway, measured in Chromium', () => {
  it(`stays within ${BUDGETS.cardOnlyPage / 1024} KB gzip until the card form is ready, every file gzipped, the second hosted field from the cache`, async () => {
    // A fresh context: an empty HTTP cache, as for a shopper's first visit.
    const context = await env.browser.newContext();
    const page = env.track(await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    const downloads = recordDownloads(cdp);
    const gateway = () => [...downloads.values()].filter((download) => download.url.startsWith(`${env.site.gatewayUrl}/`));

    await page.goto(env.site.pageUrl('size'));
    await page.waitForFunction(() => (window as unknown as { widgetReady: boolean }).widgetReady);
    // Both hosted fields talked to the page: each got its configuration (its placeholder).
    for (const field of ['cardNumber', 'cvv']) await page.frameLocator(`iframe.wpwl-control-${field}`).locator('input.wpwl-field[placeholder]').waitFor();
    // The submit path's chunk is requested right after the forms render, before any submit: it is part of the
    // window (so the figure is the same on every run), and the test waits for it.
    await expect.poll(() => gateway().some((download) => /\/js\/flow-[\w-]+\.min\.js$/.test(download.url))).toBe(true);
    await expect.poll(() => gateway().filter((download) => !download.done).map((download) => download.url)).toEqual([]);

    // The brand logos are images the page shows once they arrive (lazy, cached): they hold nothing up, and are not counted.
    const logo = (download: Download) => /\/img\/brands\/\w+\.svg$/.test(download.url);
    const logos = gateway().filter(logo);
    console.log(`[size] brand logos, after the form is ready: ${logos.map((download) => `${new URL(download.url).pathname.split('/').pop()} ${bodyBytes(download)}`).join(', ')}`);
    const files = gateway().filter((download) => !logo(download)).map((download) => ({
      file: new URL(download.url).pathname.replace(/^\/v1\/static\/[0-9a-f]+\//, '').replace(/^\/v1\//, ''),
      bytes: bodyBytes(download),
      download,
    }));
    const total = files.reduce((sum, { bytes }) => sum + bytes, 0);
    console.log(
      `[size] card-only page, Chromium, gateway → page until the card form is ready: ${total} bytes (${(total / 1024).toFixed(1)} KB) gzip\n` +
        files.map(({ file, bytes, download }) => `  ${file.padEnd(36)} ${String(bytes).padStart(6)}${download.fromCache || download.totalBytes === 0 ? ' (browser cache)' : ''}`).join('\n'),
    );

    // What a card page needs, and nothing of the other families.
    const names = files.map(({ file }) => file);
    for (const expected of [/^paymentWidgets\.js$/, /^js\/static\.min\.js$/, /^js\/card-[\w-]+\.min\.js$/, /^css\/static\.min\.css$/, /^fields\.html$/, /^js\/fields\.min\.js$/, /^css\/fields\.min\.css$/]) {
      expect(names.some((name) => expected.test(name)), String(expected)).toBe(true);
    }
    expect(names.filter((name) => /otherMethods|RegistrationForm|target|i18n|locales\//.test(name))).toEqual([]);
    // Both hosted fields loaded their page, script and stylesheet; the second frame's came from the browser cache.
    for (const file of ['fields.html', 'js/fields.min.js', 'css/fields.min.css']) {
      const loads = files.filter((entry) => entry.file === file);
      expect(loads.length, file).toBe(2);
      expect(loads.filter(({ bytes }) => bytes > 0).length, file).toBe(1);
    }
    // Everything that came over the wire came gzipped.
    expect(files.filter(({ bytes, download }) => bytes > 0 && download.encoding !== 'gzip').map(({ file }) => file)).toEqual([]);
    expect(total).toBeLessThanOrEqual(BUDGETS.cardOnlyPage);
  });
});
