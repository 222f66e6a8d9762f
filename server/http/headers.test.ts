import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_MERCHANT } from '../config.ts';
import { BROWSER_DATA, cardPayment, startTestGateway, type TestGateway } from '../testing/harness.ts';

/**
 * Security headers on every kind of answer: JSON, preflight, scripts, static files, the gateway's HTML pages and
 * the demo shop. HSTS whenever the gateway is reached over https.
 */

interface Answer {
  readonly what: string;
  readonly status: number;
  readonly headers: Headers;
}

async function answer(what: string, url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { what, status: response.status, headers: response.headers };
}

/** Every kind of answer a gateway gives, one of each. */
async function everyKindOfAnswer(t: TestGateway): Promise<{ all: Answer[]; html: Answer[] }> {
  const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB' });
  const script = await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.body.id}`);
  const staticBase = /https?:\/\/[^"']+\/v1\/static\/[^/"']+/.exec(await script.text())?.[0] as string;
  const staticPath = new URL(staticBase).pathname;
  const challenge = await t.post(
    '/v1/payments',
    cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/r', ...BROWSER_DATA }),
  );
  const challengePath = new URL(challenge.body.redirect.url as string).pathname;
  const auth = { Authorization: `Bearer ${t.token}` };
  const html = [
    await answer('3-D Secure challenge page', `${t.url}${challengePath}`),
    await answer('hosted-field page', `${t.url}${staticPath}/fields.html`),
  ];
  const all = [
    ...html,
    await answer('payment (JSON)', `${t.url}/v1/payments/${challenge.body.id}?entityId=${t.entityId}`, { headers: auth }),
    await answer('unknown path (JSON 404)', `${t.url}/v1/nothing-here`),
    await answer('CORS preflight', `${t.url}/v1/payments`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' },
    }),
    await answer('paymentWidgets.js', `${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.body.id}`),
    await answer('widget bundle', `${t.url}${staticPath}/js/static.min.js`),
    await answer('unknown static file', `${t.url}${staticPath}/nothing.js`),
  ];
  return { all, html };
}

describe('a gateway reached over https', () => {
  let t: TestGateway;
  beforeAll(async () => {
    // The gateway itself listens on plain http behind a TLS proxy; PUBLIC_URL says how browsers reach it.
    t = await startTestGateway('PGlite', { publicUrl: 'https://pay.example.test' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends nosniff and HSTS on every answer, a CSP and a Referrer-Policy on every HTML page', async () => {
    const { all, html } = await everyKindOfAnswer(t);
    for (const { what, headers } of all) {
      expect(headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(headers.get('strict-transport-security'), what).toBe('max-age=31536000');
    }
    for (const { what, headers } of html) {
      expect(headers.get('content-type'), what).toMatch(/^text\/html/);
      expect(headers.get('content-security-policy'), what).toContain("default-src 'none'");
      expect(headers.get('referrer-policy'), what).toBe('no-referrer');
    }
  });
});

describe('a gateway reached over plain http, with its demo shop', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { demoMerchant: DEFAULT_DEMO_MERCHANT });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends nosniff everywhere and no HSTS', async () => {
    const { all } = await everyKindOfAnswer(t);
    for (const { what, headers } of all) {
      expect(headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(headers.get('strict-transport-security'), what).toBeNull();
    }
  });

  it('locks the demo shop down like a merchant page: a nonce CSP and a Referrer-Policy', async () => {
    const shop = await fetch(`${t.url}/demo`);
    const page = await shop.text();
    expect(shop.status).toBe(200);
    const policy = shop.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(page).toContain(`<script nonce="${nonce}" src=`);
    expect(page).toContain(`<style nonce="${nonce}">`);
    expect(shop.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(shop.headers.get('x-content-type-options')).toBe('nosniff');
    const result = await answer('demo result page', `${t.url}/demo/result`);
    expect(result.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(result.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
  });
});
