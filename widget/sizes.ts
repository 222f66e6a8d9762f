import { gzipSync } from 'node:zlib';
import { renderBootstrap } from '../server/widget/bootstrap.ts';
import type { WidgetBuild } from '../server/widget/build.ts';

/**
 * Gzip sizes of what a shopper's browser downloads, measured one way for the size test (which enforces
 * the budgets) and for `npm run bench` (which prints them).
 */

const KB = 1024;

/** Issue 3 and 4 budgets, gzip. */
export const BUDGETS = { bootstrap: 2 * KB, widget: 30 * KB, hostedFields: 6 * KB, language: 2 * KB } as const;

export interface WidgetSizes {
  /** paymentWidgets.js of a checkout with five stored cards (with their holders) and a long gateway URL. */
  readonly bootstrap: number;
  /** Widget JS + CSS for English. */
  readonly widget: number;
  /** fields.html with its script and stylesheet. */
  readonly hostedFields: number;
  /** The i18next engine, loaded for languages other than English only. */
  readonly i18nEngine: number;
  /** Each language file, by code. */
  readonly languages: ReadonlyMap<string, number>;
}

function gzipped(bytes: Uint8Array | string): number {
  return gzipSync(bytes, { level: 9 }).length;
}

export function measureWidgetSizes(build: WidgetBuild): WidgetSizes {
  const size = (name: string) => {
    const file = build.files.get(name);
    if (!file) throw new Error(`${name} is missing from the widget build`);
    return gzipped(file.bytes);
  };
  const checkoutId = '7A987D6B411CE700AFFCA163D679703E.sbx01-gw01';
  const gatewayUrl = 'https://payments.example-gateway.com';
  const bootstrap = renderBootstrap(
    {
      checkoutId,
      amount: '1234567.89',
      currency: 'EUR',
      paymentType: 'DB',
      resourcePath: `/v1/checkouts/${checkoutId}/payment`,
      registrations: Array.from({ length: 5 }, (_, index) => ({
        id: `8ac7a4a27b4c7867017b510d33dd718${index}`,
        brand: index % 2 === 0 ? 'VISA' : 'MASTER',
        last4Digits: `${1000 + index}`,
        expiryMonth: '05',
        expiryYear: '2034',
        holder: 'Jane Jones-Rutherford',
      })),
      gatewayUrl,
      staticBaseUrl: `${gatewayUrl}/v1/static/${build.version}`,
    },
    { gatewayUrl, staticBaseUrl: `${gatewayUrl}/v1/static/${build.version}` },
  );
  const languages = new Map(
    [...build.files.keys()].filter((name) => name.startsWith('locales/')).map((name) => [name.slice('locales/'.length, -'.json'.length), size(name)] as const),
  );
  return {
    bootstrap: gzipped(bootstrap),
    widget: size('js/static.min.js') + size('css/static.min.css'),
    hostedFields: size('fields.html') + size('js/fields.min.js') + size('css/fields.min.css'),
    i18nEngine: size('js/i18n.min.js'),
    languages,
  };
}
