import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, type GatewayConfig } from '../../server/config.ts';
import { startGateway, type RunningGateway } from '../../server/gateway.ts';
import { createEntity, grantToken, newAccessToken } from '../../server/merchants/repository.ts';
import { freePort, freshStoreLocation, type StoreLocation } from '../../server/testing/harness.ts';

/**
 * What an end-to-end test runs against: a real gateway on one loopback port, and a small merchant site on
 * another (so a different origin, as in production). The merchant site's server creates checkouts through
 * the gateway's public API with its own token, serves the pages in e2e/pages/ with the checkout id filled
 * in, and renders a result page from the gateway's answer, like a real merchant integration.
 */

export interface MerchantSite {
  readonly gatewayUrl: string;
  readonly merchantUrl: string;
  readonly gateway: RunningGateway;
  readonly entityId: string;
  readonly token: string;
  /** URL of a page: `page` is a file in e2e/pages without .html; query options create the checkout. */
  pageUrl(page: string, checkout?: Record<string, string>): string;
  /** Creates a checkout as the merchant's server would, returning its id. */
  createCheckout(params?: Record<string, string>): Promise<string>;
  /**
   * Creates a registration-only checkout (createRegistration=true, no amount, currency or paymentType), returning
   * its id; its page is `pageUrl(page, { checkoutId: `${id}/registration` })`, as COMPAT §10 loads the widget.
   */
  createRegistrationCheckout(params?: Record<string, string>): Promise<string>;
  /** Creates a checkout with integrity=true, returning its id and the SRI hash of its paymentWidgets.js. */
  createCheckoutWithIntegrity(params?: Record<string, string>): Promise<{ id: string; integrity: string }>;
  /**
   * Moves the gateway's clock forward (expiry, timeouts and jobs follow it; run what fell due with
   * `gateway.jobs.runDueJobs()`). The browser's and the merchant's clocks are not moved.
   */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

const PAGES = new URL('../pages/', import.meta.url);

/**
 * The Content-Security-Policy of issue 4: what a locked-down merchant page allows, and nothing more; `sdkOrigins`: the
 * origins docs/widget.md tells a merchant to add for a third party's SDK (the card networks' for Click to Pay in live).
 */
export function strictMerchantCsp(gatewayUrl: string, merchantUrl: string, nonce: string, sdkOrigins: readonly string[] = []): string {
  const sdks = sdkOrigins.map((origin) => ` ${origin}`).join('');
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' ${gatewayUrl}${sdks}`,
    `style-src ${gatewayUrl}`,
    `frame-src ${gatewayUrl}${sdks}`,
    `connect-src ${gatewayUrl}${sdks}`,
    `img-src ${gatewayUrl} data:${sdks}`,
    `form-action ${gatewayUrl} ${merchantUrl}`,
  ].join('; ');
}


function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A gateway of another configuration (a live one in front of a provider), and what its merchant needs there first. */
export interface MerchantSiteOptions {
  readonly config?: Partial<GatewayConfig>;
  readonly prepare?: (gateway: RunningGateway, entityId: string) => Promise<void>;
}

export async function startMerchantSite(options: MerchantSiteOptions = {}): Promise<MerchantSite> {
  const location: StoreLocation = await freshStoreLocation('PGlite');
  const gatewayPort = await freePort();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  let offsetMs = 0;
  const gateway = await startGateway({
    ...loadConfig({}),
    port: gatewayPort,
    host: '127.0.0.1',
    publicUrl: gatewayUrl,
    dataDir: location.dataDir,
    databaseUrl: undefined,
    demoMerchant: undefined,
    logLevel: 'silent',
    ...options.config,
  }, { now: () => new Date(Date.now() + offsetMs) });
  const token = newAccessToken();
  const entity = await createEntity(gateway.store, 'E2E shop');
  await grantToken(gateway.store, token, 'e2e', [entity.id]);
  await options.prepare?.(gateway, entity.id);

  const paymentDefaults = { amount: '92.00', currency: 'EUR', paymentType: 'DB' };
  const postCheckout = async (params: Record<string, string>, defaults: Record<string, string> = paymentDefaults) => {
    const response = await fetch(`${gatewayUrl}/v1/checkouts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: entity.id, ...defaults, ...params }),
    });
    const body = (await response.json()) as { id?: string; integrity?: string; result: { code: string; description: string } };
    if (!body.id) throw new Error(`checkout not created: ${JSON.stringify(body.result)}`);
    return { id: body.id, integrity: body.integrity ?? '' };
  };
  const createCheckout = async (params: Record<string, string> = {}) => (await postCheckout(params)).id;
  const createCheckoutWithIntegrity = (params: Record<string, string> = {}) => postCheckout({ ...params, integrity: 'true' });
  const createRegistrationCheckout = async (params: Record<string, string> = {}) => (await postCheckout({ createRegistration: 'true', ...params }, {})).id;

  let merchantUrl = '';
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', merchantUrl);
    if (url.pathname === '/result') {
      // The merchant's server reads the result with its token, as the resourcePath says.
      const resourcePath = url.searchParams.get('resourcePath') ?? '';
      const answer = await fetch(`${gatewayUrl}${resourcePath}?entityId=${entity.id}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const text = await answer.text();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html lang="en"><head><title>Result</title></head><body><h1>Result</h1><pre id="result">${escapeHtml(text)}</pre></body></html>`);
      return;
    }
    if (url.pathname === '/checkout' && request.method === 'POST') {
      // The merchant's own endpoint a fast checkout's createCheckout calls (issue 35): a checkout of the query's values.
      const checkoutId = await createCheckout(Object.fromEntries(url.searchParams));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ checkoutId }));
      return;
    }
    const page = /^\/pages\/([a-z0-9-]+)$/.exec(url.pathname)?.[1];
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    const given = url.searchParams.get('checkoutId');
    const checkout = given ? { id: given, integrity: url.searchParams.get('integrity') ?? '' } : await postCheckout(Object.fromEntries(url.searchParams));
    const nonce = randomBytes(16).toString('base64');
    const html = readFileSync(new URL(`${page}.html`, PAGES), 'utf8')
      .replaceAll('{{NONCE}}', nonce)
      .replaceAll('{{GATEWAY}}', gatewayUrl)
      .replaceAll('{{CHECKOUT_ID}}', checkout.id)
      .replaceAll('{{INTEGRITY}}', checkout.integrity)
      .replaceAll('{{RESULT_URL}}', `${merchantUrl}/result`);
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      // Pages named csp-* run under the strictest policy docs/widget.md tells merchants they can use (with the SDK
      // origins the query's `sdkOrigins` names, space-separated, as docs/widget.md tells a merchant to add them).
      ...(page.startsWith('csp')
        ? { 'content-security-policy': strictMerchantCsp(gatewayUrl, merchantUrl, nonce, (url.searchParams.get('sdkOrigins') ?? '').split(' ').filter((origin) => /^https:\/\/[a-z0-9.-]+$/.test(origin))) }
        : {}),
    });
    response.end(html);
  };
  const merchant: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;

  return {
    gatewayUrl,
    merchantUrl,
    gateway,
    entityId: entity.id,
    token,
    pageUrl: (page, checkout = {}) => `${merchantUrl}/pages/${page}?${new URLSearchParams(checkout)}`,
    createCheckout,
    createCheckoutWithIntegrity,
    createRegistrationCheckout,
    advanceClock(ms) {
      offsetMs += ms;
    },
    async close() {
      await new Promise<void>((resolve) => merchant.close(() => resolve()));
      await gateway.close();
      await location.dispose();
    },
  };
}
