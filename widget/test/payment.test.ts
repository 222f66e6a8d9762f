import { afterEach, describe, expect, it, vi } from 'vitest';
import { isCardBrand } from '../shared/cards.ts';
import { isRedirectBrand, REDIRECT_BRANDS } from '../shared/redirectBrands.ts';
import { readOptions } from '../app/options.ts';
import { outcomeOf, redirectOf, resultUrl } from '../app/payment/answer.ts';
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

  it('follows the redirect of a pending answer', () => {
    expect(outcomeOf({ status: 200, body: { result: { code: '000.200.000' }, redirect: gatewayRedirect } })).toEqual({ kind: 'redirect', redirect: gatewayRedirect });
  });

  it('refuses declines (even with a redirect in them) and unsent payments', () => {
    expect(outcomeOf({ status: 400, body: { result: { code: '100.380.401', description: 'x' }, redirect: gatewayRedirect } })).toEqual({
      kind: 'refused',
      code: '100.380.401',
      description: 'x',
    });
    expect(outcomeOf({ status: 0, body: {} })).toEqual({ kind: 'unsent' });
  });

  it('follows only http(s) redirect URLs with string parameters', () => {
    expect(redirectOf({ redirect: { url: 'javascript:alert(1)', parameters: [] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: '/relative', parameters: [] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: gatewayRedirect.url, parameters: [{ name: 'a', value: 1 }] } })).toBeUndefined();
    expect(redirectOf({ redirect: { url: gatewayRedirect.url } })).toEqual({ url: gatewayRedirect.url, parameters: [] });
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
    expect(readOptions().threeDIframeSize).toEqual({ width: '100%', height: '580px' });
  });

  it('takes numbers as pixels and CSS lengths, and ignores anything else', () => {
    setOptions({ paymentTarget: '_top', threeDIframeSize: { width: 400, height: '60vh' } });
    expect(readOptions()).toMatchObject({ paymentTarget: '_top', threeDIframeSize: { width: '400px', height: '60vh' } });
    setOptions({ paymentTarget: 42, threeDIframeSize: { width: 'calc(100% + 1px); background:red', height: -5 } });
    expect(readOptions()).toMatchObject({ paymentTarget: undefined, threeDIframeSize: { width: '100%', height: '580px' } });
    setOptions({ threeDIframeSize: '400x600' });
    expect(readOptions().threeDIframeSize).toEqual({ width: '100%', height: '580px' });
    setOptions({ threeDIframeSize: { width: '350' } });
    expect(readOptions().threeDIframeSize).toEqual({ width: '350px', height: '580px' });
  });
});

describe('redirect brands', () => {
  it('knows PAYPAL (wallet) and SOFORTUEBERWEISUNG (bank transfer), apart from the card brands', () => {
    expect(REDIRECT_BRANDS.PAYPAL?.family).toBe('virtualAccount');
    expect(REDIRECT_BRANDS.SOFORTUEBERWEISUNG?.family).toBe('onlineTransfer');
    expect(isRedirectBrand('PAYPAL')).toBe(true);
    expect(isCardBrand('PAYPAL')).toBe(false);
    expect(isRedirectBrand('VISA')).toBe(false);
    expect(isRedirectBrand('TOSTRING')).toBe(false);
  });
});
