import type { StoredCardView } from '../registrations/storedCards.ts';

/**
 * paymentWidgets.js: the small per-checkout script a merchant page loads with a script tag (COMPAT §3).
 * It defines `window.wpwl` and loads the versioned widget bundle. Its bytes depend only on a snapshot
 * taken when the checkout is created, so the SRI hash returned with `integrity=true` keeps matching
 * what is served for that checkout.
 */

export interface BootstrapSnapshot {
  readonly checkoutId: string;
  /** The amount, currency and payment type at creation (a later update does not change these bytes). */
  readonly amount: string | null;
  readonly currency: string | null;
  readonly paymentType: string | null;
  /** `/v1/checkouts/<id>/payment`, or `/registration` for registration-only checkouts. */
  readonly resourcePath: string;
  /** The stored cards offered as one-click payments (registrations[n].id), as the widget shows them. */
  readonly registrations: readonly StoredCardView[];
  /** Base URL of the gateway as handed out to browsers (PUBLIC_URL). */
  readonly gatewayUrl: string;
  /** The widget build the checkout was created with: `<gatewayUrl>/v1/static/<version>`. */
  readonly staticBaseUrl: string;
}

/** A JSON value embedded in a script: `</script>` and U+2028/2029 cannot break out of it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The script for a known checkout, or for an unknown or expired one (`snapshot` null): the page still
 * gets a script, and the widget reports InvalidCheckoutIdError through onError.
 */
export function renderBootstrap(snapshot: BootstrapSnapshot | null, fallback: { gatewayUrl: string; staticBaseUrl: string }): string {
  const state = snapshot
    ? {
        checkout: {
          id: snapshot.checkoutId,
          amount: snapshot.amount,
          currency: snapshot.currency,
          paymentType: snapshot.paymentType,
          resourcePath: snapshot.resourcePath,
          // Snapshots taken before stored cards were shown have no list: nothing to offer.
          config: { registrations: snapshot.registrations ?? [] },
        },
        ndc: snapshot.checkoutId,
        url: snapshot.gatewayUrl,
        staticBaseUrl: snapshot.staticBaseUrl,
      }
    : { checkout: null, ndc: null, url: fallback.gatewayUrl, staticBaseUrl: fallback.staticBaseUrl };
  const staticScript = `${state.staticBaseUrl}/js/static.min.js`;
  // The bundle is an ES module (its payment-method chunks are loaded by dynamic import). It inherits the nonce
  // of this script element, so pages with a strict CSP can run it, and its chunks inherit it in turn. A module
  // runs once per URL: on a reload of the widget the bundle is already in the page, and its start function
  // (wpwl.bundles[url]) renders the new checkout.
  return (
    `(function(){var w=window.wpwl=window.wpwl||{},s=${scriptJson(state)},c=document.currentScript,u=${scriptJson(staticScript)};` +
    `w.checkout=s.checkout;w.ndc=s.ndc;w.apiVersion="v1";w.url=s.url;w.staticBaseUrl=s.staticBaseUrl;` +
    `var e=document.createElement("script");e.type="module";e.src=u;e.async=true;e.crossOrigin="anonymous";` +
    `if(c&&c.nonce)e.nonce=c.nonce;` +
    `(document.head||document.documentElement).appendChild(e);var r=w.bundles&&w.bundles[u];if(r)r();})();\n`
  );
}
