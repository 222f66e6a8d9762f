import { describe, expect, it } from 'vitest';
import { href, matchRoute, placeOf } from '../app/router.ts';

const ROUTES = [
  { name: 'payments', pattern: '/payments' },
  { name: 'payment', pattern: '/payments/:id' },
] as const;

describe('the app’s addresses', () => {
  it('reads the place below /dashboard, without trailing slashes', () => {
    expect(placeOf('/dashboard')).toEqual({ path: '/', search: '' });
    expect(placeOf('/dashboard/')).toEqual({ path: '/', search: '' });
    expect(placeOf('/dashboard/payments/', '?status=declined')).toEqual({ path: '/payments', search: 'status=declined' });
    expect(placeOf('/dashboardx')).toBeUndefined();
    expect(placeOf('/v1/payments')).toBeUndefined();
  });

  it('matches routes by segment, decoding parameters', () => {
    expect(matchRoute('/payments', ROUTES)).toEqual({ name: 'payments', params: {} });
    expect(matchRoute('/payments/abc%20d', ROUTES)).toEqual({ name: 'payment', params: { id: 'abc d' } });
    expect(matchRoute('/payments/a/b', ROUTES)).toBeUndefined();
    expect(matchRoute('/payments/%E0%A4%A', ROUTES)).toBeUndefined();
    expect(matchRoute('/unknown', ROUTES)).toBeUndefined();
  });

  it('writes addresses with the query of the set values', () => {
    expect(href('/payments')).toBe('/dashboard/payments');
    expect(href('/')).toBe('/dashboard');
    expect(href('/payments', { status: 'declined', q: '', cursor: undefined })).toBe('/dashboard/payments?status=declined');
    expect(href('/payments', new URLSearchParams({ q: 'a&b' }))).toBe('/dashboard/payments?q=a%26b');
  });
});
