import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { DemoMerchant } from '../config.ts';
import type { AppEnv } from '../http/context.ts';
import { escapeHtml } from '../http/html.ts';
import { isPendingCode, isSuccessfulCode } from '../domain/resultCodes.ts';
import { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';

/**
 * The demo shop `npm start` serves at /demo: a merchant page with the card widget, and a result page.
 * Its server part is a merchant integration like any other: it creates the checkout and reads the result
 * through the public API with the demo merchant's token, over HTTP.
 */

/**
 * The demo shop is a merchant page and locks itself down the way docs/widget.md (Content-Security-Policy) tells merchants to: a nonce for its
 * own style and the widget's script tag (the widget copies it onto what it adds), the gateway for everything else.
 */
function htmlHeaders(c: Context<AppEnv>, publicUrl: string, nonce: string): Record<string, string> {
  const gateway = new URL(publicUrl).origin;
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...c.get('baseHeaders'),
    'referrer-policy': 'strict-origin-when-cross-origin',
    'content-security-policy':
      `default-src 'none'; script-src 'nonce-${nonce}' ${gateway}; style-src 'nonce-${nonce}' ${gateway}; ` +
      `frame-src ${gateway}; connect-src ${gateway}; img-src ${gateway} data:; form-action 'self' ${gateway}; ` +
      "base-uri 'none'; frame-ancestors 'none'",
  };
}

function page(title: string, body: string, nonce: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:640px;margin:2rem auto;padding:0 1rem;color:#1f2937}
code{background:#f3f4f6;padding:0 .25rem}pre{background:#f3f4f6;padding:1rem;overflow:auto}table{border-collapse:collapse}td{padding:.25rem .75rem .25rem 0}</style>
</head><body>${body}</body></html>`;
}

/** A page of the demo shop: its nonce, and how to answer with it. */
function demoPage(c: Context<AppEnv>, publicUrl: string) {
  const nonce = randomBytes(16).toString('base64');
  const respond = (status: number, title: string, body: string) =>
    new Response(page(title, body, nonce), { status, headers: htmlHeaders(c, publicUrl, nonce) });
  return { nonce, respond };
}

/**
 * What a result code's class (COMPAT §8) says about a payment that did not go through, as a shop would tell its
 * customer; the description and code follow it on the page.
 */
const RESULT_CLASS_TEXTS: readonly (readonly [RegExp, string])[] = [
  [RESULT_CLASSES.rejectedByBank, 'Declined by the bank.'],
  [RESULT_CLASSES.rejectedThreeDSecureOrRisk, 'Declined: 3-D Secure or risk check.'],
  [/^(100\.380|100\.390)/, 'Declined: the card could not be authenticated (3-D Secure).'],
  [RESULT_CLASSES.rejectedAsync, 'Cancelled or abandoned on the payment page.'],
  [RESULT_CLASSES.softDecline, 'Declined: the bank asks for authentication.'],
  [RESULT_CLASSES.rejectedCommunication, 'Declined: a communication error.'],
  [RESULT_CLASSES.rejectedSystem, 'Declined: a system error.'],
  [RESULT_CLASSES.rejectedFormat, 'Refused: invalid or missing data.'],
  [RESULT_CLASSES.rejectedConfiguration, 'Refused: this payment method is not set up.'],
  [/^100\.100\./, 'Declined: the card data is invalid.'],
];

function resultClassText(code: string): string {
  return RESULT_CLASS_TEXTS.find(([pattern]) => pattern.test(code))?.[1] ?? 'Declined.';
}

/** A prepayment's bank details (pending until the transfer arrives), as a shop shows them to its customer. */
function transferInstructions(payment: { amount?: string; currency?: string; resultDetails?: Record<string, string> }): string {
  const details = payment.resultDetails ?? {};
  if (!details.BankAccountIban) return '';
  const rows = [
    ['Amount', `${payment.amount ?? ''} ${payment.currency ?? ''}`],
    ['Account holder', details.BankAccountHolder],
    ['IBAN', details.BankAccountIban],
    ['BIC', details.BankAccountBic],
    ['Reference', details.TransferReference],
    ['Transfer by', details.TransferDeadline],
  ].filter((row): row is [string, string] => row[1] !== undefined);
  return `\n<h2>Please transfer the amount</h2><table id="transfer">${rows.map(([label, value]) => `<tr><td>${label}</td><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`;
}

export function demoRoutes(options: { publicUrl: string; merchant: DemoMerchant }): Hono<AppEnv> {
  const { publicUrl, merchant } = options;
  const authorization = { Authorization: `Bearer ${merchant.accessToken}` };
  const router = new Hono<AppEnv>();

  router.get('/', async (c) => {
    const { nonce, respond } = demoPage(c, publicUrl);
    const created = await fetch(`${publicUrl}/v1/checkouts`, {
      method: 'POST',
      headers: { ...authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        entityId: merchant.entityId,
        amount: '92.00',
        currency: 'EUR',
        paymentType: 'DB',
        merchantTransactionId: `demo-${Date.now()}`,
        'cart.items[0].name': 'Wool socks',
        'cart.items[0].quantity': '2',
      }),
    });
    const checkout = (await created.json()) as { id?: string; result: { description: string } };
    if (!checkout.id) {
      return respond(502, 'Demo shop', `<p>Could not create a checkout: ${escapeHtml(checkout.result.description)}</p>`);
    }
    const body = `<h1>Demo shop</h1><p>2 × wool socks — <strong>92.00 EUR</strong></p>
<script nonce="${nonce}" src="${publicUrl}/v1/paymentWidgets.js?checkoutId=${encodeURIComponent(checkout.id)}"></script>
<form action="${publicUrl}/demo/result" class="paymentWidgets" data-brands="VISA MASTER AMEX PAYPAL SOFORTUEBERWEISUNG PREPAYMENT"></form>
<h2>Test cards</h2><table>
<tr><td><code>4200 0000 0000 0000</code></td><td>VISA, approved</td></tr>
<tr><td><code>5454 5454 5454 5454</code></td><td>Mastercard, approved</td></tr>
<tr><td><code>3777 777777 77770</code></td><td>American Express (4-digit CVV), approved</td></tr>
<tr><td><code>4444 4444 4444 4444</code></td><td>declined, invalid card</td></tr>
<tr><td><code>4200 0000 0000 0091</code></td><td>3-D Secure, frictionless</td></tr>
<tr><td><code>4200 0000 0000 0042</code></td><td>3-D Secure challenge: the code <code>1234</code> succeeds</td></tr></table>
<p>Any future expiry date and any CVV. A card holder of <code>800.100.203</code> makes the bank decline (insufficient funds).
PayPal and Sofort open a simulated provider page to approve or cancel. Prepayment ends on the result page with the
bank details to transfer to; the payment stays pending until the simulated transfer arrives.</p>`;
    return respond(200, 'Demo shop', body);
  });

  router.get('/result', async (c) => {
    const { respond } = demoPage(c, publicUrl);
    const resourcePath = c.req.query('resourcePath') ?? '';
    if (!/^\/v1\/checkouts\/[A-Za-z0-9.-]+\/payment$/.test(resourcePath)) {
      return respond(400, 'Demo shop', '<p>No payment to show.</p>');
    }
    const answer = await fetch(`${publicUrl}${resourcePath}?entityId=${merchant.entityId}`, { headers: authorization });
    const payment = (await answer.json()) as { amount?: string; currency?: string; result: { code: string; description: string }; resultDetails?: Record<string, string> };
    const { code, description } = payment.result;
    // A decline is a result like an approval (COMPAT §6): the shop shows it and, for another try, a new checkout.
    const declined = !isSuccessfulCode(code) && !isPendingCode(code);
    const outcome = declined
      ? `<h1>The payment did not go through</h1><p id="result-class">${escapeHtml(resultClassText(code))}</p>`
      : `<h1>${isPendingCode(code) ? 'Your payment is being processed' : 'Thank you for your order'}</h1>`;
    const next = declined ? `<a id="try-again" href="${publicUrl}/demo">Try again</a> (a new checkout)` : `<a href="${publicUrl}/demo">Back to the shop</a>`;
    const body = `${outcome}
<p id="result-description">${escapeHtml(description)} (<code>${escapeHtml(code)}</code>)</p>${transferInstructions(payment)}
<p>${next}</p><h2>What the merchant's server received</h2><pre>${escapeHtml(JSON.stringify(payment, null, 2))}</pre>`;
    return respond(200, 'Demo shop', body);
  });

  return router;
}
