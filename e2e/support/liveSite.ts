import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { saveCredentials } from '../../server/acquirers/credentials.ts';
import { connectorTo } from '../../server/testing/harness.ts';
import { startUpstream, type Upstream } from '../../server/testing/upstream.ts';
import { useMerchantSiteAndBrowser, type BrowserTestEnvironment } from './shopper.ts';

export interface LiveBrowserTestEnvironment extends BrowserTestEnvironment {
  /** The provider: this gateway in test mode, a process of its own. */
  readonly upstream: Upstream;
}

/**
 * What a browser test of a live gateway needs, for the file: the provider, then a live gateway whose one acquirer is
 * a connector to it (the merchant's credentials there set) with the merchant's site and one Chromium
 * (useMerchantSiteAndBrowser). The provider starts before them and stops after them: hooks run in the order they are
 * registered, after-hooks in reverse.
 */
export function useLiveMerchantSiteAndBrowser(): LiveBrowserTestEnvironment {
  let upstream: Upstream | undefined;
  beforeAll(async () => {
    upstream = await startUpstream();
  }, 90_000);
  afterAll(async () => {
    await upstream?.close();
  });
  const env = useMerchantSiteAndBrowser(() => {
    const provider = upstream as Upstream;
    return {
      config: { environment: 'live', acquirers: ['hyperpay'], defaultAcquirer: 'hyperpay', connectors: { hyperpay: connectorTo(provider.url) }, cardDataKey: randomBytes(32) },
      prepare: (gateway, entityId) =>
        gateway.store.transaction(async (tx) => {
          await saveCredentials(tx, gateway.payments.vault, entityId, 'hyperpay', provider.credentials, new Date());
        }),
    };
  }, 90_000);
  return {
    get upstream() {
      return upstream as Upstream;
    },
    get site() {
      return env.site;
    },
    get browser() {
      return env.browser;
    },
    track: env.track,
  };
}
