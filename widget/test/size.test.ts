import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderBootstrap } from '../../server/widget/bootstrap.ts';
import { loadWidgetBuild } from '../../server/widget/build.ts';

/** Size budgets of issue 3, checked on the build the suite made (globalSetup). Figures: npm run bench. */
const KB = 1024;

function gzipped(bytes: Uint8Array | string): number {
  return gzipSync(bytes, { level: 9 }).length;
}

describe('widget size budgets', () => {
  const build = loadWidgetBuild();
  const file = (name: string) => {
    const found = build?.files.get(name);
    if (!found) throw new Error(`${name} is missing from the widget build`);
    return found.bytes;
  };

  it('keeps the bootstrap (paymentWidgets.js) within 2 KB gzip', () => {
    const script = renderBootstrap(
      {
        checkoutId: '7A987D6B411CE700AFFCA163D679703E.sbx01-gw01',
        amount: '1234567.89',
        currency: 'EUR',
        paymentType: 'DB',
        resourcePath: '/v1/checkouts/7A987D6B411CE700AFFCA163D679703E.sbx01-gw01/payment',
        registrationIds: Array.from({ length: 5 }, (_, index) => `8ac7a4a27b4c7867017b510d33dd718${index}`),
        gatewayUrl: 'https://payments.example-gateway.com',
        staticBaseUrl: 'https://payments.example-gateway.com/v1/static/0123456789abcdef',
      },
      { gatewayUrl: '', staticBaseUrl: '' },
    );
    expect(gzipped(script)).toBeLessThanOrEqual(2 * KB);
  });

  it('keeps the widget JavaScript and CSS for English within 30 KB gzip', () => {
    expect(gzipped(file('js/static.min.js')) + gzipped(file('css/static.min.css'))).toBeLessThanOrEqual(30 * KB);
  });

  it('keeps the hosted-field page within 6 KB gzip', () => {
    expect(gzipped(file('fields.html')) + gzipped(file('js/fields.min.js')) + gzipped(file('css/fields.min.css'))).toBeLessThanOrEqual(6 * KB);
  });
});
