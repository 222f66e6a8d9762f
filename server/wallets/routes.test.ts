import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveApp, startTestGateway, type TestGateway } from '../testing/harness.ts';

/** /v1/wallets: what the wallet buttons are told, and the test environment's simulated sheet (issue 35, point 2). */
describe('the wallet buttons’ routes', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const sheet = (query: string) => fetch(`${t.url}/v1/wallets/sheet?${query}`);

  it('tells the widget the environment and Google Pay’s gateway name, to any page', async () => {
    const answer = await fetch(`${t.url}/v1/wallets/config`);
    expect([answer.status, answer.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    expect(await answer.json()).toMatchObject({ environment: 'test', googlePay: { gateway: 'wpwlgateway' }, result: { code: '000.000.100' } });
    // The operator's registered name (GOOGLE_PAY_GATEWAY) where it has one: what a live gateway's buttons send.
    const operated = await startTestGateway('PGlite', { googlePayGateway: 'examplepsp' });
    try {
      expect(await (await fetch(`${operated.url}/v1/wallets/config`)).json()).toMatchObject({ googlePay: { gateway: 'examplepsp' } });
    } finally {
      await operated.close();
    }
    const live = await (await liveApp(t)).request('/v1/wallets/config');
    expect(((await live.json()) as { environment: string }).environment).toBe('live');
  });

  it('serves the sheet in the shopper’s language with the wallet’s test cards, under a policy without inline script or style, framable by any page', async () => {
    const answer = await sheet('brand=GOOGLEPAY&amount=92.00&currency=EUR&merchant=%3Cb%3EShop%3C%2Fb%3E&networks=VISA,MASTERCARD&authMethods=PAN_ONLY&lang=ar&contact=email,address,shoeSize');
    const html = await answer.text();
    expect(answer.status).toBe(200);
    const policy = answer.headers.get('content-security-policy') ?? '';
    expect(policy).toContain('frame-ancestors *');
    expect(policy).toMatch(/script-src http:\/\/127\.0\.0\.1:\d+;/);
    expect(policy).not.toMatch(/unsafe-inline|nonce-/);
    expect(html).not.toMatch(/<script>|<style>|style="/);
    expect(html).toContain('<html lang="ar" dir="rtl">');
    // The merchant's name is text, never markup.
    expect(html).toContain('&#60;b&#62;Shop&#60;/b&#62;');
    // Visa and Mastercard cards saved in the Google account only, as the merchant allows.
    expect([...html.matchAll(/name="card" value="(\w+)"/g)].map((match) => match[1])).toEqual(['panChallenge', 'panFrictionless', 'panMaster']);
    expect(html).toContain('data-contact="email,address"');
  });

  it('answers a clear 400 for a sheet it cannot show, and 404 in live, where the wallets’ own sheets are used', async () => {
    for (const [query, message] of [
      ['brand=SAMSUNGPAY&amount=1.00&currency=EUR', 'brand must be APPLEPAY or GOOGLEPAY'],
      ['brand=APPLEPAY&amount=1,00&currency=EUR', 'amount must be a decimal amount such as 92.00'],
      ['brand=APPLEPAY&amount=1.00&currency=euro', 'currency must be a three-letter ISO 4217 code'],
    ] as const) {
      const answer = await sheet(query);
      expect([answer.status, (await answer.text()).trim()], query).toEqual([400, message]);
    }
    const live = await (await liveApp(t)).request('/v1/wallets/sheet?brand=APPLEPAY&amount=1.00&currency=EUR');
    expect(live.status).toBe(404);
  });
});
