import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { saveCredentials } from '../../server/acquirers/credentials.ts';
import { connectorTo } from '../../server/testing/harness.ts';
import { startUpstream, type Upstream } from '../../server/testing/upstream.ts';
import { launchBrowser } from './browser.ts';
import { startMerchantSite, type MerchantSite } from './merchantSite.ts';

export interface LiveBrowserTestEnvironment {
  /** The provider: this gateway in test mode, a process of its own. */
  readonly upstream: Upstream;
  /** The live gateway in front of it (`hyperpay`, the `opp` connector) and the merchant's site. */
  readonly site: MerchantSite;
  readonly browser: Browser;
  /** Closes the page's context after the current test. */
  track(page: Page): Page;
}

/**
 * What a browser test of a live gateway needs, for the file: the provider, a live gateway whose one acquirer is a
 * connector to it (the merchant's credentials there set), the merchant's site, and one Chromium.
 */
export function useLiveMerchantSiteAndBrowser(): LiveBrowserTestEnvironment {
  let upstream: Upstream | undefined;
  let site: MerchantSite | undefined;
  let browser: Browser | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    const provider = await startUpstream();
    upstream = provider;
    [site, browser] = await Promise.all([
      startMerchantSite({
        config: { environment: 'live', acquirers: ['hyperpay'], defaultAcquirer: 'hyperpay', connectors: { hyperpay: connectorTo(provider.url) }, cardDataKey: randomBytes(32) },
        prepare: (gateway, entityId) =>
          gateway.store.transaction(async (tx) => {
            await saveCredentials(tx, gateway.payments.vault, entityId, 'hyperpay', provider.credentials, new Date());
          }),
      }),
      launchBrowser(),
    ]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await upstream?.close();
  });
  afterEach(async () => {
    for (const page of pages.splice(0)) await page.context().close();
  });
  return {
    get upstream() {
      return upstream as Upstream;
    },
    get site() {
      return site as MerchantSite;
    },
    get browser() {
      return browser as Browser;
    },
    track(page) {
      pages.push(page);
      return page;
    },
  };
}
