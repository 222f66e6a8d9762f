import { afterEach, describe, expect, it, vi } from 'vitest';
import { readOptions } from '../app/options.ts';
import { threeDIframeSize } from '../app/redirect/frameSize.ts';
import { outcomeOf, redirectOf, refusalMessage, resultUrl } from '../app/payment/answer.ts';
import type { Texts } from '../app/messages.ts';
import { isRegistrationOnly } from '../app/types.ts';
import { browserFields, withBrowserData } from '../app/payment/browser.ts';

const gatewayRedirect = {
  url: 'https://pay.example.com/v1/redirects/0123456789abcdef0123456789abcdef',
  parameters: [
    { name: 'MD', value: 'abc' },
    { name: 'TermUrl', value: 'https://pay.example.com/x?y=1&z=2' },
  ],
};

describe('the gateway answer to a submitted payment', () => {
  it('goes to the result page on success, and on pending without a redirect', () => {
    expect(outcomeOf({ status: 200, body: { result: { code: '000.100.110' } } })).toEqual({ kind: 'final' });
    expect(outcomeOf({ status: 200, body: { result: { code: '000.200.000' } } })).toEqual({ kind: 'final' });
  });

  it('follows the redirect of a pending answer, by POST unless it asks for GET (a provider’s page behind a connector)', () => {
    expect(outcomeOf({ status: 200, body: { result: { code: '000.200.000' }, redirect: gatewayRedirect } })).toEqual({ kind: 'redirect', redirect: { ...gatewayRedirect, method: 'POST' } });
    expect(redirectOf({ redirect: { ...gatewayRedirect, method: 'GET' } })).toEqual({ ...gatewayRedirect, method: 'GET' });
    expect(redirectOf({ redirect: { ...gatewayRedirect, method: 'DELETE' } })).toEqual({ ...gatewayRedirect, method: 'POST' });
  });

  it('goes to the result page with a declined payment: the answer names the recorded payment (COMPAT §6)', () => {
    const paymentId = '8ac7a4a27b4c7867017b510d33dd7188';
    for (const code of ['800.100.203', '800.100.151', '100.100.101', '100.380.401', '100.396.101', '600.200.201']) {
      expect(outcomeOf({ status: 400, body: { id: paymentId, result: { code, description: 'x' } } }), code).toEqual({ kind: 'final' });
    }
    // Even with a redirect in it: a declined payment has nothing left to follow.
    expect(outcomeOf({ status: 400, body: { id: paymentId, result: { code: '100.380.401' }, redirect: gatewayRedirect } })).toEqual({ kind: 'final' });
  });

  it('refuses on the form what made no payment (no id, or not a payment id), and unsent payments', () => {
    const expired = { code: '200.300.404', description: 'No payment session found for the requested id: the checkout expired 30 minutes after it was created' };
    expect(outcomeOf({ status: 400, body: { result: expired, ndc: 'ABC.sbx01-gw01' } })).toEqual({ kind: 'refused', status: 400, ...expired, parameters: [] });
    const invalid = { code: '200.300.404', description: 'invalid or missing parameter', parameterErrors: [{ name: 'card.cvv', value: '', message: 'x' }, { name: 7 }] };
    expect(outcomeOf({ status: 400, body: { result: invalid } })).toEqual({
      kind: 'refused',
      status: 400,
      code: '200.300.404',
      description: 'invalid or missing parameter',
      parameters: ['card.cvv'],
    });
    for (const id of ['', 'ABC.sbx01-gw01', '8AC7A4A27B4C7867017B510D33DD7188', 42]) {
      expect(outcomeOf({ status: 400, body: { id, result: { code: '800.100.203' } } }).kind, String(id)).toBe('refused');
    }
    expect(outcomeOf({ status: 502, body: {} }).kind).toBe('refused');
    expect(outcomeOf({ status: 0, body: {} })).toEqual({ kind: 'unsent' });
  });

  it('tells the shopper what to do about a refusal: start again, send again, correct the card', () => {
    const texts = { label: (key: string) => key, error: (key: string) => key } as Texts;
    const message = (status: number, result: Record<string, unknown>) => {
      const outcome = outcomeOf({ status, body: { result } });
      if (outcome.kind !== 'refused') throw new Error(outcome.kind);
      return refusalMessage(outcome, texts);
    };
    expect(message(400, { code: '200.300.404', description: 'No payment session found for the requested id: its final result has already been read' })).toBe('expiredCheckout');
    expect(message(400, { code: '800.120.100', description: 'Rejected by Throttling.' })).toBe('communication');
    expect(message(500, { code: '999.999.999', description: 'unexpected error' })).toBe('communication');
    expect(message(502, {})).toBe('communication');
    expect(message(400, { code: '100.100.101', description: 'invalid card', parameterErrors: [{ name: 'card.number' }] })).toBe('invalidCard');
    expect(message(400, { code: '200.300.404', description: 'invalid or missing parameter', parameterErrors: [{ name: 'card.cvv' }] })).toBe('invalidCard');
    expect(message(400, { code: '200.300.404', description: 'invalid or missing parameter', parameterErrors: [{ name: 'registrationId' }] })).toBe('invalidCard');
    expect(message(400, { code: '200.300.404', description: 'checkout already paid: a successful payment has closed this checkout' })).toBe('invalidCheckout');
    expect(message(400, { code: '200.300.404', description: 'this checkout has had 10 declined payments and takes no more' })).toBe('invalidCheckout');
  });

  it('follows only http(s) redirect URLs with string parameters', () => {
    expect(redirectOf({ redirect: { url: 'javascript:alert(1)', parameters: [] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: '/relative', parameters: [] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: gatewayRedirect.url, parameters: [{ name: 'a', value: 1 }] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: gatewayRedirect.url } })).toEqual({ url: gatewayRedirect.url, method: 'POST', parameters: [] });
    expect(redirectOf(null)).toBeUndefined();
  });

  it('builds the result URL from the merchant form action', () => {
    const checkout = { id: 'ABC.sbx01-gw01', resourcePath: '/v1/checkouts/ABC.sbx01-gw01/payment', gatewayUrl: '', staticBaseUrl: '' };
    expect(resultUrl('https://shop.example/result', checkout)).toBe(
      'https://shop.example/result?id=ABC.sbx01-gw01&resourcePath=%2Fv1%2Fcheckouts%2FABC.sbx01-gw01%2Fpayment',
    );
    expect(resultUrl('https://shop.example/result?order=7', checkout)).toMatch(/\?order=7&id=ABC/);
  });

  it('names /registration in the result URL of a registration-only checkout', () => {
    const checkout = { id: 'ABC.sbx01-gw01', resourcePath: '/v1/checkouts/ABC.sbx01-gw01/registration', gatewayUrl: '', staticBaseUrl: '' };
    expect(isRegistrationOnly(checkout)).toBe(true);
    expect(isRegistrationOnly({ resourcePath: '/v1/checkouts/ABC.sbx01-gw01/payment' })).toBe(false);
    expect(resultUrl('https://shop.example/result', checkout)).toBe(
      'https://shop.example/result?id=ABC.sbx01-gw01&resourcePath=%2Fv1%2Fcheckouts%2FABC.sbx01-gw01%2Fregistration',
    );
  });
});

describe('browser data for 3-D Secure', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('adds every customer.browser field, the language cut to 8 characters', () => {
    vi.stubGlobal('navigator', { language: 'de-DE-x-private', userAgent: 'TestBrowser/1.0' });
    vi.stubGlobal('screen', { height: 900, width: 1440, colorDepth: 24 });
    const fields = Object.fromEntries(browserFields());
    expect(fields).toEqual({
      'customer.browser.language': 'de-DE-x-',
      'customer.browser.screenHeight': '900',
      'customer.browser.screenWidth': '1440',
      'customer.browser.timezone': String(new Date().getTimezoneOffset()),
      'customer.browser.javaEnabled': 'false',
      'customer.browser.screenColorDepth': '24',
      'customer.browser.userAgent': 'TestBrowser/1.0',
    });
  });

  it('keeps the form fields first and a field the merchant set, without sending a name twice', () => {
    vi.stubGlobal('navigator', { language: 'en', userAgent: 'UA' });
    vi.stubGlobal('screen', { height: 1, width: 2, colorDepth: 24 });
    const fields = withBrowserData([
      ['paymentBrand', 'PAYPAL'],
      ['customer.browser.language', 'fr'],
    ]);
    expect(fields.slice(0, 2)).toEqual([
      ['paymentBrand', 'PAYPAL'],
      ['customer.browser.language', 'fr'],
    ]);
    const names = fields.map(([name]) => name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('customer.browser.userAgent');
  });
});

describe('3-D Secure and redirect options', () => {
  const setOptions = (value: unknown) => {
    (globalThis as { window?: unknown }).window = { wpwlOptions: value };
  };
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('defaults to the widget frame at 100% × 580px', () => {
    setOptions({});
    expect(readOptions().paymentTarget).toBeUndefined();
    expect(threeDIframeSize(readOptions().raw)).toEqual({ width: '100%', height: '580px' });
  });

  it('takes numbers as pixels and CSS lengths, and ignores anything else', () => {
    setOptions({ paymentTarget: '_top', threeDIframeSize: { width: 400, height: '60vh' } });
    expect(readOptions().paymentTarget).toBe('_top');
    expect(threeDIframeSize(readOptions().raw)).toEqual({ width: '400px', height: '60vh' });
    setOptions({ paymentTarget: 42, threeDIframeSize: { width: 'calc(100% + 1px); background:red', height: -5 } });
    expect(readOptions().paymentTarget).toBeUndefined();
    expect(threeDIframeSize(readOptions().raw)).toEqual({ width: '100%', height: '580px' });
    setOptions({ threeDIframeSize: '400x600' });
    expect(threeDIframeSize(readOptions().raw)).toEqual({ width: '100%', height: '580px' });
    setOptions({ threeDIframeSize: { width: '350' } });
    expect(threeDIframeSize(readOptions().raw)).toEqual({ width: '350px', height: '580px' });
  });
});
