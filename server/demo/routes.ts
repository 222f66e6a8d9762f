import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { generateCookie, getCookie } from 'hono/cookie';
import type { DemoMerchant } from '../config.ts';
import type { AppEnv } from '../http/context.ts';
import { escapeHtml } from '../http/html.ts';
import { RESOURCE_ID } from '../domain/ids.ts';
import { describeResultCode, isPendingCode, isSuccessfulCode } from '../domain/resultCodes.ts';
import { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import { DEMO_ASYNC_BRANDS, DEMO_CHALLENGE, DEMO_ORDER, DEMO_TEST_CARDS, type DemoTestCard } from './offer.ts';

/**
 * The demo shop `npm start` serves at /demo: a merchant page with the card widget and the asynchronous brands, an
 * account page that saves the card paid with and offers it on the next order (one-click), and their result pages.
 * Its server part is a merchant integration like any other: it creates the checkouts and reads the results
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

/** A page of the demo shop: its nonce, and how to answer with it (with a cookie the shop sets, if any). */
function demoPage(c: Context<AppEnv>, publicUrl: string) {
  const nonce = randomBytes(16).toString('base64');
  const respond = (status: number, title: string, body: string, cookie?: string) => {
    const headers = new Headers(htmlHeaders(c, publicUrl, nonce));
    if (cookie) headers.set('set-cookie', cookie);
    return new Response(page(title, body, nonce), { status, headers });
  };
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

/** A checkout as its creation answers: its id, or why there is none. */
interface CheckoutAnswer {
  readonly id?: string;
  readonly result: { readonly description: string };
}

interface DemoPayment {
  readonly amount?: string;
  readonly currency?: string;
  readonly paymentBrand?: string;
  readonly registrationId?: string;
  readonly card?: { readonly last4Digits?: string };
  readonly result: { readonly code: string; readonly description: string };
  readonly resultDetails?: Record<string, string>;
}

function instructions(title: string, id: string, rows: readonly (readonly [string, string | undefined])[]): string {
  const shown = rows.filter((row): row is readonly [string, string] => row[1] !== undefined);
  return `\n<h2>${title}</h2><table id="${id}">${shown.map(([label, value]) => `<tr><td>${label}</td><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`;
}

/**
 * What a payment waiting for the customer's money asks them to do, as a shop shows it: a prepayment's bank details,
 * a cash voucher's number (with Multibanco's entity and reference). Both stay pending until the money arrives.
 */
function paymentInstructions(payment: DemoPayment): string {
  const details = payment.resultDetails ?? {};
  const amount = `${payment.amount ?? ''} ${payment.currency ?? ''}`;
  if (details.BankAccountIban) {
    return instructions('Please transfer the amount', 'transfer', [
      ['Amount', amount],
      ['Account holder', details.BankAccountHolder],
      ['IBAN', details.BankAccountIban],
      ['BIC', details.BankAccountBic],
      ['Reference', details.TransferReference],
      ['Transfer by', details.TransferDeadline],
    ]);
  }
  if (details.VoucherNumber) {
    return instructions('Please pay the voucher', 'voucher', [
      ['Amount', amount],
      ['Voucher', details.VoucherNumber],
      ['Entity', details.ptmntEntty],
      ['Reference', details.pmtRef],
      ['Pay by', details.VoucherExpiry],
    ]);
  }
  return '';
}

const BRAND_LABELS: Readonly<Record<DemoTestCard['brand'], string>> = { VISA: 'VISA', MASTER: 'Mastercard', AMEX: 'American Express (4-digit CVV)' };

/** What a test card leads to, in the words of the page (the codes are those server/demo/offer.test.ts pays for). */
function outcomeText(card: DemoTestCard): string {
  const code = card.code ? ` (<code>${card.code}</code>)` : '';
  switch (card.outcome) {
    case 'approved':
      return `${BRAND_LABELS[card.brand]}, approved${code}`;
    case 'frictionless':
      return `3-D Secure without a challenge, approved${code}`;
    case 'challenge':
      return `3-D Secure challenge: the code <code>${DEMO_CHALLENGE.otp}</code> approves${code}, another code declines (<code>${DEMO_CHALLENGE.failedCode}</code>)`;
    case 'declinedByBank':
      return `declined by the bank: ${escapeHtml(describeResultCode(card.code ?? ''))}${code}`;
    case 'refusedByForm':
      return 'refused by the payment form: wrong check digit (never sent to the gateway)';
  }
}

function testCardsTable(): string {
  const rows = DEMO_TEST_CARDS.map(
    (card) => `<tr data-outcome="${card.outcome}"><td><code>${card.number}</code></td><td>${card.holder ? `<code>${card.holder}</code>` : 'any name'}</td><td>${outcomeText(card)}</td></tr>`,
  );
  return `<table id="test-cards"><tr><th>Card number</th><th>Card holder</th><th>What happens</th></tr>\n${rows.join('\n')}</table>`;
}

/** The card brands every demo form offers: those of the test cards. */
const CARD_BRANDS = [...new Set(DEMO_TEST_CARDS.map((card) => card.brand))];

/** The shop's memory of the card a customer saved (a real shop keeps it on the customer's account). */
const STORED_CARD_COOKIE = 'demo_stored_card';

export function demoRoutes(options: { publicUrl: string; merchant: DemoMerchant }): Hono<AppEnv> {
  const { publicUrl, merchant } = options;
  const authorization = { Authorization: `Bearer ${merchant.accessToken}` };
  const cookieOptions = { path: '/demo', httpOnly: true, sameSite: 'Lax', secure: publicUrl.startsWith('https:') } as const;
  const router = new Hono<AppEnv>();

  async function createCheckout(extra: Record<string, string> = {}): Promise<CheckoutAnswer> {
    const created = await fetch(`${publicUrl}/v1/checkouts`, {
      method: 'POST',
      headers: { ...authorization, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: merchant.entityId, ...DEMO_ORDER, merchantTransactionId: `demo-${Date.now()}`, ...extra }),
    });
    return (await created.json()) as CheckoutAnswer;
  }

  function widget(nonce: string, checkoutId: string, resultPath: string, brands: readonly string[]): string {
    return `<script nonce="${nonce}" src="${publicUrl}/v1/paymentWidgets.js?checkoutId=${encodeURIComponent(checkoutId)}"></script>
<form action="${publicUrl}/demo${resultPath}" class="paymentWidgets" data-brands="${brands.join(' ')}"></form>`;
  }

  router.get('/', async (c) => {
    const { nonce, respond } = demoPage(c, publicUrl);
    const checkout = await createCheckout();
    if (!checkout.id) {
      return respond(502, 'Demo shop', `<p>Could not create a checkout: ${escapeHtml(checkout.result.description)}</p>`);
    }
    const asyncBrands = DEMO_ASYNC_BRANDS.map(({ brand, text }) => `<li data-brand="${brand}">${escapeHtml(text)}</li>`).join('\n');
    const body = `<h1>Demo shop</h1><p>2 × wool socks — <strong>${DEMO_ORDER.amount} ${DEMO_ORDER.currency}</strong></p>
${widget(nonce, checkout.id, '/result', [...CARD_BRANDS, ...DEMO_ASYNC_BRANDS.map(({ brand }) => brand)])}
<h2>Test cards</h2>${testCardsTable()}
<p>Any future expiry date, and any CVV of 3 digits (4 for American Express). A card holder naming a result code makes
the simulated bank answer that code.</p>
<h2>Other ways to pay</h2><ul id="async-brands">
${asyncBrands}</ul>
<p><a id="account" href="${publicUrl}/demo/account">Your account</a>: save a card and pay with it on your next order.</p>`;
    return respond(200, 'Demo shop', body);
  });

  /**
   * The account page's checkout saves the card paid with (createRegistration=true) and offers the one saved before
   * (registrations[0].id, COMPAT §2, §10). A saved card the gateway no longer has (deleted, expired, another store
   * behind the same address) is forgotten, and the page offers the card form alone.
   */
  async function accountCheckout(stored: string | undefined): Promise<CheckoutAnswer & { readonly offered: boolean }> {
    if (stored) {
      const offering = await createCheckout({ createRegistration: 'true', 'registrations[0].id': stored });
      if (offering.id) return { ...offering, offered: true };
    }
    return { ...(await createCheckout({ createRegistration: 'true' })), offered: false };
  }

  router.get('/account', async (c) => {
    const { nonce, respond } = demoPage(c, publicUrl);
    const remembered = getCookie(c, STORED_CARD_COOKIE);
    const stored = remembered !== undefined && RESOURCE_ID.test(remembered) ? remembered : undefined;
    const checkout = await accountCheckout(stored);
    if (!checkout.id) {
      return respond(502, 'Demo shop', `<p>Could not create a checkout: ${escapeHtml(checkout.result.description)}</p>`);
    }
    const forget = remembered !== undefined && !checkout.offered ? generateCookie(STORED_CARD_COOKIE, '', { ...cookieOptions, maxAge: 0 }) : undefined;
    const intro = checkout.offered
      ? 'Your saved card is offered first: pay with it without typing it again, or pay with another card, which the shop then saves instead.'
      : 'Pay with a card and the shop saves it: your next order here offers it, with no card number to type.';
    const body = `<h1>Your account</h1><p>2 × wool socks — <strong>${DEMO_ORDER.amount} ${DEMO_ORDER.currency}</strong></p>
<p id="account-intro">${intro}</p>
${widget(nonce, checkout.id, '/account/result', CARD_BRANDS)}
<p>The test cards are <a href="${publicUrl}/demo">the shop's</a>.</p>`;
    return respond(200, 'Demo shop', body, forget);
  });

  /** The payment of a checkout, as the merchant's server reads it at the result URL; undefined when resourcePath names none. */
  async function readResult(resourcePath: string): Promise<DemoPayment | undefined> {
    if (!/^\/v1\/checkouts\/[A-Za-z0-9.-]+\/payment$/.test(resourcePath)) return undefined;
    const answer = await fetch(`${publicUrl}${resourcePath}?entityId=${merchant.entityId}`, { headers: authorization });
    return (await answer.json()) as DemoPayment;
  }

  /** A result page: the outcome, what to do next (`shop`: where a new checkout starts), and what the server read. */
  function resultBody(payment: DemoPayment, shop: string, saved = ''): string {
    const { code, description } = payment.result;
    // A decline is a result like an approval (COMPAT §6): the shop shows it and, for another try, a new checkout.
    const declined = !isSuccessfulCode(code) && !isPendingCode(code);
    const outcome = declined
      ? `<h1>The payment did not go through</h1><p id="result-class">${escapeHtml(resultClassText(code))}</p>`
      : `<h1>${isPendingCode(code) ? 'Your payment is being processed' : 'Thank you for your order'}</h1>`;
    const next = declined ? `<a id="try-again" href="${publicUrl}${shop}">Try again</a> (a new checkout)` : `<a href="${publicUrl}${shop}">Back to the shop</a>`;
    return `${outcome}
<p id="result-description">${escapeHtml(description)} (<code>${escapeHtml(code)}</code>)</p>${paymentInstructions(payment)}${saved}
<p>${next}</p><h2>What the merchant's server received</h2><pre>${escapeHtml(JSON.stringify(payment, null, 2))}</pre>`;
  }

  router.get('/result', async (c) => {
    const { respond } = demoPage(c, publicUrl);
    const payment = await readResult(c.req.query('resourcePath') ?? '');
    if (!payment) return respond(400, 'Demo shop', '<p>No payment to show.</p>');
    return respond(200, 'Demo shop', resultBody(payment, '/demo'));
  });

  /** The account's result page remembers the card an approved payment saved or was made with (its registrationId). */
  router.get('/account/result', async (c) => {
    const { respond } = demoPage(c, publicUrl);
    const payment = await readResult(c.req.query('resourcePath') ?? '');
    if (!payment) return respond(400, 'Demo shop', '<p>No payment to show.</p>');
    const registrationId = isSuccessfulCode(payment.result.code) ? payment.registrationId : undefined;
    if (!registrationId) return respond(200, 'Demo shop', resultBody(payment, '/demo/account'));
    const card = `${payment.paymentBrand ?? ''} ending ${payment.card?.last4Digits ?? ''}`;
    const saved = `\n<p id="saved-card">Your card (${escapeHtml(card)}) is saved for your next order: <a id="pay-with-saved-card" href="${publicUrl}/demo/account">pay with it</a>.</p>`;
    return respond(200, 'Demo shop', resultBody(payment, '/demo/account', saved), generateCookie(STORED_CARD_COOKIE, registrationId, cookieOptions));
  });

  return router;
}
