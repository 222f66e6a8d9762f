/**
 * The Click to Pay form's styles, added with its chunk (CSSOM: allowed under a strict CSP), in logical properties so
 * an Arabic page mirrors them.
 */
const STYLES = `
.wpwl-clickToPay-mark{display:flex;align-items:center;gap:6px;flex-wrap:wrap;min-height:32px;color:#111827;overflow:hidden}
.wpwl-clickToPay-mark.wpwl-clickToPay-dark{background:#111827;color:#fff;border-radius:4px;padding:4px 8px}
.wpwl-clickToPay-markText{font-weight:700;margin-inline-end:4px}
.wpwl-wrapper-brand{display:flex;align-items:center;justify-content:space-between;gap:8px;flex-wrap:wrap}
.wpwl-clickToPay-link{background:none;border:0;padding:8px 4px;min-height:44px;font:inherit;color:#1d4ed8;text-decoration:underline;cursor:pointer}
.wpwl-clickToPay-link:focus-visible{outline:2px solid #2563eb;outline-offset:1px}
.wpwl-clickToPay-learnMore{margin:8px 0;padding:12px;border:1px solid #d1d5db;border-radius:4px;background:#f9fafb}
.wpwl-clickToPay-secondary{margin-inline-end:8px}
.wpwl-clickToPay-notice{margin:8px 0;padding:10px 12px;border-radius:4px;background:#fef3c7;color:#78350f}
.wpwl-clickToPay-header{margin:8px 0;font-size:1.1em;font-weight:700}
.wpwl-group-clickToPayAccessMyCards .wpwl-text,.wpwl-group-clickToPayOtp .wpwl-text{margin:8px 0}
.wpwl-label-clickToPayAccessMyCards,.wpwl-label-clickToPayOtp{display:block;margin:8px 0 4px}
.wpwl-control-clickToPayOtp{letter-spacing:.3em;max-width:12em}
.wpwl-button-clickToPay{width:100%;margin-top:12px}
.wpwl-clickToPay-check{display:flex;align-items:center;gap:8px;min-height:44px}
.wpwl-clickToPay-actions{display:flex;flex-wrap:wrap;gap:4px 12px;margin-top:4px}
.wpwl-clickToPay-cards{display:grid;gap:8px;margin:8px 0}
.wpwl-clickToPay-grid{grid-template-columns:repeat(auto-fill,minmax(200px,1fr))}
.wpwl-clickToPay-card{display:flex;align-items:center;gap:10px;min-height:44px;padding:10px 12px;border:1px solid #d1d5db;border-radius:6px;background:#fff;cursor:pointer}
.wpwl-clickToPay-card.wpwl-selected{border-color:#1d4ed8;box-shadow:0 0 0 1px #1d4ed8}
.wpwl-clickToPay-card:focus-within{outline:2px solid #2563eb;outline-offset:1px}
.wpwl-clickToPay-card input{width:18px;height:18px;margin:0;accent-color:#1d4ed8}
.wpwl-clickToPay-unaccepted{opacity:.6;cursor:not-allowed}
.wpwl-clickToPay-cardText{display:flex;flex-direction:column}
.wpwl-clickToPay-cardName{font-weight:600}
.wpwl-clickToPay-cardExpiry{color:#4b5563;font-size:.9em}
.wpwl-clickToPay-preferred{margin-inline-start:auto;color:#b45309}`;

let styled = false;

export function addStyles(): void {
  if (styled) return;
  styled = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}
