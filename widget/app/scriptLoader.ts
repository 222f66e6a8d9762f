/**
 * Loads a third party's SDK into the merchant's page once (Google's pay.js, the card networks' SRC SDKs), with the
 * nonce the widget's own scripts run with, so a page with a strict CSP needs only the SDK's origin in `script-src`
 * (docs/widget.md). A failed load is tried again by the next call.
 */

/** The nonce the widget's scripts run with (strict CSP pages). */
const widgetNonce = () => Array.from(document.scripts).find((script) => /\/js\/static\.min\.js$/.test(script.src))?.nonce || undefined;

const loading = new Map<string, Promise<void>>();

export function loadScript(src: string): Promise<void> {
  let load = loading.get(src);
  if (!load) {
    load = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      const nonce = widgetNonce();
      if (nonce) script.nonce = nonce;
      script.onload = () => resolve();
      script.onerror = () => {
        loading.delete(src);
        script.remove();
        reject(new Error(`${src} could not be loaded`));
      };
      document.head.appendChild(script);
    });
    loading.set(src, load);
  }
  return load;
}
