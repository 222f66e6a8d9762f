import { randomBytes } from 'node:crypto';
import { TEST_CHALLENGE_CODE } from '../acquirers/threeDSecure.ts';
import { formatAmount } from '../domain/money.ts';
import { escapeHtml } from '../http/html.ts';
import { asyncBrand, type AsyncFamily } from '../../widget/shared/asyncBrands.ts';
import { REDIRECT_COMPLETE } from '../../widget/shared/protocol.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import type { RedirectRecord } from '../payments/store/paymentRedirects.ts';
import type { PageTexts } from './texts.ts';

/**
 * The HTML of the gateway's own shopper pages: the simulated issuer's challenge, the simulated provider's
 * page of an asynchronous brand, a cash voucher's printable page, and the page that hands the shopper back. They run inside any merchant's frame (the
 * widget's 3-D Secure frame, a named frame) or at the top, so each answer carries its own strict policy:
 * nothing but its own nonce-tagged style and script, forms posting only to the gateway.
 */

export interface Page {
  readonly status: 200 | 400 | 404 | 409 | 410;
  readonly html: string;
  readonly headers: Readonly<Record<string, string>>;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;background:#f5f7fa}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem}
h1{font-size:1.3rem;margin:0 0 .75rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0;padding:.75rem 1rem;background:#fff;border:1px solid #cbd2d9;border-radius:6px}
dt{color:#52606d}dd{margin:0;font-weight:600}
label{display:block;font-weight:600;margin-top:1rem}
input{width:100%;font:inherit;padding:.6rem .75rem;margin-top:.25rem;border:1px solid #7b8794;border-radius:4px;letter-spacing:.2em}
.hint{font-size:.9rem;color:#52606d;margin:.35rem 0 1rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1rem}
button,a.continue{font:inherit;font-weight:600;padding:.65rem 1.25rem;border-radius:4px;border:1px solid #1d4ed8;cursor:pointer;text-decoration:none}
button.primary,a.continue{background:#1d4ed8;color:#fff}
button.secondary{background:#fff;color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.status{padding:.75rem 1rem;background:#fff;border-left:4px solid #1d4ed8;border-radius:4px}
`;

function page(texts: PageTexts, status: Page['status'], title: string, body: string, script?: string): Page {
  const nonce = randomBytes(16).toString('base64');
  const html = `<!doctype html>
<html lang="${texts.language}" dir="${texts.rightToLeft ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
${script ? `<script nonce="${nonce}">${script}</script>` : ''}
</body>
</html>
`;
  return {
    status,
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors *`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  };
}

/**
 * A card verification (a registration-only checkout's zero-amount preauthorization that stores the card): the
 * shopper confirms a card, not a payment, and no amount is shown.
 */
function isCardVerification(redirect: RedirectRecord, payment: PaymentRecord): boolean {
  return redirect.createRegistration && payment.amountMinor === 0;
}

function summary(texts: PageTexts, redirect: RedirectRecord, payment: PaymentRecord): string {
  const amount = isCardVerification(redirect, payment)
    ? ''
    : `\n<dt>${escapeHtml(texts.text('threeDSecure.amount'))}</dt><dd dir="ltr">${escapeHtml(`${formatAmount(payment.amountMinor)} ${payment.currency}`)}</dd>`;
  return `<dl>
<dt>${escapeHtml(texts.text('threeDSecure.merchant'))}</dt><dd>${escapeHtml(redirect.merchantName)}</dd>${amount}
</dl>`;
}

/** A button of the answer form: its action (`submit` is the primary one; the others skip the fields' validation). */
type AnswerAction = readonly [action: 'submit' | 'decline' | 'pending' | 'cancel', label: string];

function answerForm(redirect: RedirectRecord, payment: PaymentRecord, fields: string, actions: readonly AnswerAction[]): string {
  const buttons = actions.map(([action, label]) =>
    action === 'submit'
      ? `<button id="submit" class="primary" type="submit" name="action" value="submit">${escapeHtml(label)}</button>`
      : `<button id="${action}" class="secondary" type="submit" name="action" value="${action}" formnovalidate>${escapeHtml(label)}</button>`,
  );
  return `<form id="challenge" method="post" action="/v1/redirects/${redirect.id}/answer">
<input type="hidden" name="paymentId" value="${payment.id}">
${fields}
<div class="actions">
${buttons.join('\n')}
</div>
</form>`;
}

/** The simulated issuer asks for a one-time code; the test code is on the page, as test ACS pages show it. */
export function challengePage(texts: PageTexts, redirect: RedirectRecord, payment: PaymentRecord): Page {
  const verification = isCardVerification(redirect, payment);
  const title = texts.text(verification ? 'threeDSecure.cardPageTitle' : 'threeDSecure.pageTitle');
  const fields = `<label for="otp">${escapeHtml(texts.text('threeDSecure.codeLabel'))}</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required aria-describedby="otp-hint" dir="ltr">
<p id="otp-hint" class="hint">${escapeHtml(texts.text('threeDSecure.codeHint', { code: TEST_CHALLENGE_CODE }))}</p>`;
  const body = `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(texts.text(verification ? 'threeDSecure.cardInfo' : 'threeDSecure.info'))}</p>
${summary(texts, redirect, payment)}
${answerForm(redirect, payment, fields, [['submit', texts.text('threeDSecure.submit')], ['cancel', texts.text('threeDSecure.cancel')]])}`;
  return page(texts, 200, title, body);
}

/** What the provider page of each family asks the shopper to do. */
const PROVIDER_INFO: Readonly<Record<AsyncFamily, string>> = {
  onlineTransfer: 'redirect.infoTransfer',
  eWallet: 'redirect.info',
  invoice: 'redirect.infoInvoice',
  voucher: 'redirect.infoVoucher',
  cashVoucher: 'redirect.info',
  prepayment: 'redirect.info',
};

function brandLabelOf(payment: PaymentRecord): string {
  return asyncBrand(payment.paymentBrand ?? '')?.label ?? payment.paymentBrand ?? '';
}

/**
 * The simulated provider of an asynchronous brand (COMPAT §7): the tester decides how the provider answers — approve,
 * decline, leave the payment pending (the provider confirms it later), or cancel. A prepaid voucher's page asks for
 * its PIN first (`pinMissing`: the answer came without one).
 */
export function providerPage(texts: PageTexts, redirect: RedirectRecord, payment: PaymentRecord, pinMissing = false): Page {
  const family = asyncBrand(payment.paymentBrand ?? '')?.family ?? 'eWallet';
  const title = texts.text('redirect.pageTitle', { brand: brandLabelOf(payment) });
  const pin =
    family === 'voucher'
      ? `<label for="pin">${escapeHtml(texts.text('redirect.pinLabel'))}</label>
<input id="pin" name="pin" type="text" inputmode="numeric" autocomplete="off" maxlength="19" required aria-describedby="pin-hint"${pinMissing ? ' aria-invalid="true"' : ''} dir="ltr">
<p id="pin-hint" class="hint">${escapeHtml(texts.text(pinMissing ? 'redirect.pinMissing' : 'redirect.pinHint'))}</p>`
      : '';
  const body = `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(texts.text(PROVIDER_INFO[family], { merchant: redirect.merchantName }))}</p>
${summary(texts, redirect, payment)}
<p class="hint">${escapeHtml(texts.text('redirect.simulated'))}</p>
${answerForm(redirect, payment, pin, [
  ['submit', texts.text('redirect.approve')],
  ['decline', texts.text('redirect.decline')],
  ['pending', texts.text('redirect.leavePending')],
  ['cancel', texts.text('threeDSecure.cancel')],
])}`;
  return page(texts, pinMissing ? 400 : 200, title, body);
}

/**
 * A cash voucher (BOLETO, OXXO, Multibanco, ...): what the shopper takes to the shop, bank or ATM — the amount, the
 * voucher's number (and a boleto's digitable line), the day it must be paid by. The payment stays pending until the
 * money arrives; "continue" hands the shopper back to the shop (the widget's frame, or the top window).
 */
export function voucherPage(texts: PageTexts, redirect: RedirectRecord, payment: PaymentRecord): Page {
  const details = payment.resultDetails ?? {};
  const title = texts.text('redirect.voucherTitle', { brand: brandLabelOf(payment) });
  const row = (label: string, value: string | undefined, id: string) =>
    value === undefined ? '' : `
<dt>${escapeHtml(label)}</dt><dd id="${id}" dir="ltr">${escapeHtml(value)}</dd>`;
  const body = `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(texts.text('redirect.voucherInfo', { merchant: redirect.merchantName }))}</p>
<dl>
<dt>${escapeHtml(texts.text('threeDSecure.amount'))}</dt><dd dir="ltr">${escapeHtml(`${formatAmount(payment.amountMinor)} ${payment.currency}`)}</dd>${row(
    texts.text('redirect.voucherNumber'),
    details.VoucherNumber,
    'voucher-number',
  )}${row(texts.text('redirect.barcode'), details.DigitableLine, 'voucher-barcode')}${row(texts.text('redirect.voucherExpiry'), details.VoucherExpiry, 'voucher-expiry')}
</dl>
<p><a id="continue" class="continue" href="${escapeHtml(redirect.returnUrl)}" target="_top">${escapeHtml(texts.text('threeDSecure.continue'))}</a></p>`;
  // Framed (the widget's frame), the page around it decides where the shopper goes; at the top the link does it.
  const script = `(function(){var m=${JSON.stringify(REDIRECT_COMPLETE)};document.getElementById('continue').addEventListener('click',function(e){` +
    `if(window.parent!==window){e.preventDefault();window.parent.postMessage(m,'*');}});})();`;
  return page(texts, 200, title, body, script);
}

/**
 * The shopper goes back to the shop. A checkout's payment, framed (the widget's frame, a merchant's named frame): the
 * page around it is told and the widget decides where to go; at the top (paymentTarget `_top`) the page goes to the
 * return URL itself, even in a window that has an opener. A server-to-server payment's (`returnInPlace`) goes to the
 * return URL itself wherever it is, as the platform sends the shopper to shopperResultUrl: a merchant's own frame, or
 * the frame of a gateway in front of this one, whose return page follows (issue 33). The link works without script.
 */
export function completionPage(texts: PageTexts, target: Pick<RedirectRecord, 'returnUrl' | 'returnInPlace'>, message: string, status: Page['status'] = 200): Page {
  const title = texts.text('threeDSecure.pageTitle');
  const body = `<h1>${escapeHtml(title)}</h1>
<p id="status" class="status" role="status">${escapeHtml(message)}</p>
<p><a id="continue" class="continue" href="${escapeHtml(target.returnUrl)}" target="_top">${escapeHtml(texts.text('threeDSecure.continue'))}</a></p>`;
  const returnUrl = JSON.stringify(target.returnUrl).replace(/</g, '\\u003c');
  const script = target.returnInPlace
    ? `window.location.replace(${returnUrl});`
    : `(function(){var m=${JSON.stringify(REDIRECT_COMPLETE)};` + `if(window.parent!==window){window.parent.postMessage(m,'*');}else{window.location.replace(${returnUrl});}})();`;
  return page(texts, status, title, body, script);
}

/** A request the page cannot act on: said plainly, nothing changed, no way forward from here. */
export function messagePage(texts: PageTexts, status: Page['status'], message: string): Page {
  const title = texts.text('threeDSecure.pageTitle');
  return page(texts, status, title, `<h1>${escapeHtml(title)}</h1>\n<p class="status" role="alert">${escapeHtml(message)}</p>`);
}
