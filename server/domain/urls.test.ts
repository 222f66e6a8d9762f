import { describe, expect, it } from 'vitest';
import { checkHttpUrl, describeUrl, isUnderBase, resultUrlBaseProblem, withQuery } from './urls.ts';

describe('URLs the gateway sends browsers and calls to', () => {
  it('accepts only absolute http(s) URLs without credentials', () => {
    expect(checkHttpUrl('https://shop.example/result')).toMatchObject({ ok: true });
    expect(checkHttpUrl('ftp://shop.example/x')).toEqual({ ok: false, problem: 'scheme', scheme: 'ftp' });
    expect(checkHttpUrl('javascript:alert(1)')).toMatchObject({ ok: false, problem: 'scheme' });
    expect(checkHttpUrl('/relative')).toEqual({ ok: false, problem: 'notAbsolute' });
    expect(checkHttpUrl('not a url')).toEqual({ ok: false, problem: 'notAbsolute' });
    expect(checkHttpUrl('https://user:pw@shop.example/')).toEqual({ ok: false, problem: 'credentials' });
  });

  it("appends parameters after the merchant's own query, as sent, and drops a fragment", () => {
    const url = withQuery(new URL('https://shop.example/r?a=1%202&b=x+y#frag'), { id: 'ID.x', resourcePath: '/v1/checkouts/ID.x/payment' });
    expect(url.href).toBe('https://shop.example/r?a=1%202&b=x+y&id=ID.x&resourcePath=%2Fv1%2Fcheckouts%2FID.x%2Fpayment');
    expect(withQuery(new URL('https://shop.example/r'), { id: '1' }).href).toBe('https://shop.example/r?id=1');
  });

  it('describes a URL for logs by scheme, host and path only', () => {
    expect(describeUrl(new URL('https://shop.example:8443/result?token=secret#x'))).toBe('https://shop.example:8443/result');
  });

  it('takes a return address base that ends with a slash and has no query (doc 1 §3 rule 3)', () => {
    expect(resultUrlBaseProblem('https://shop.example/')).toBeUndefined();
    expect(resultUrlBaseProblem('https://shop.example/checkout/')).toBeUndefined();
    expect(resultUrlBaseProblem('https://shop.example/checkout')).toBe('must end with a slash');
    expect(resultUrlBaseProblem('https://shop.example/?a=1')).toBe('must not have a query or fragment');
    expect(resultUrlBaseProblem('ftp://shop.example/')).toMatch(/http or https/);
  });

  it('says whether a URL lies under a base: same origin, path below the base', () => {
    const base = 'https://shop.example/checkout/';
    expect(isUnderBase('https://shop.example/checkout/result?order=1', base)).toBe(true);
    expect(isUnderBase('https://shop.example/checkout/', base)).toBe(true);
    expect(isUnderBase('https://shop.example/other/result', base)).toBe(false);
    expect(isUnderBase('https://shop.example.evil.test/checkout/result', base)).toBe(false);
    expect(isUnderBase('http://shop.example/checkout/result', base)).toBe(false);
    expect(isUnderBase('https://shop.example:8443/checkout/result', base)).toBe(false);
    expect(isUnderBase('https://shop.example/checkout/../admin', base)).toBe(false);
  });
});
