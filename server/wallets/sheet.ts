import { escapeHtml } from '../http/html.ts';
import type { PageTexts } from '../redirects/texts.ts';
import { sheetCards, WALLET_NETWORK_NAMES, type ContactField, type WalletBrand, type WalletTestCard } from '../../widget/shared/walletSheet.ts';

/**
 * The simulated wallet sheet of the test environment (widget/shared/walletSheet.ts says how the widget uses it): the
 * wallet's name, the merchant and the amount, a choice of test cards, Pay and Cancel. Its script and stylesheet are
 * files of the widget build (widget/walletSheet/, the same versioned path as the hosted fields'), so its policy allows no
 * inline script or style at all.
 */

export interface SheetRequest {
  readonly brand: WalletBrand;
  /** What the wallet shows: the merchant's name (applePay.displayName / total.label, googlePay.merchantName). */
  readonly merchant: string;
  /** A decimal amount (the checkout's, or the wallet options' for a fast checkout) and its currency. */
  readonly amount: string;
  readonly currency: string;
  /** Card networks the merchant accepts (brand codes), and Google Pay's auth methods; empty: all. */
  readonly networks: readonly string[];
  readonly authMethods: readonly string[];
  /** The shopper's data the merchant asked the wallet for (a fast checkout's createCheckout receives it). */
  readonly contact: readonly ContactField[];
}

const WALLET_NAMES: Readonly<Record<WalletBrand, string>> = { APPLEPAY: 'Apple Pay', GOOGLEPAY: 'Google Pay' };

/** The amount in the shopper's language, or as sent when the currency is not one Intl knows. */
function shownAmount(request: SheetRequest, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency: request.currency }).format(Number(request.amount));
  } catch {
    return `${request.amount} ${request.currency}`;
  }
}

function cardChoice(texts: PageTexts, request: SheetRequest, card: WalletTestCard, index: number): string {
  const name = `${WALLET_NETWORK_NAMES[card.network].label} •••• ${card.number.slice(-4)}`;
  const saved = request.brand === 'GOOGLEPAY' && card.authMethod === 'PAN_ONLY' ? `, ${texts.text('wallet.savedCard')}` : '';
  return (
    `<label class="card"><input type="radio" name="card" value="${escapeHtml(card.id)}"${index === 0 ? ' checked' : ''}>` +
    `<span class="card-name">${escapeHtml(name)}${escapeHtml(saved)}</span>` +
    `<span class="card-outcome">${escapeHtml(texts.text(`wallet.${card.outcome}`))}</span></label>`
  );
}

export function sheetPage(texts: PageTexts, request: SheetRequest, staticBaseUrl: string): { html: string; headers: Record<string, string> } {
  const wallet = WALLET_NAMES[request.brand];
  const title = texts.text('wallet.sheetTitle', { wallet });
  const offered = sheetCards(request.brand, request.networks, request.authMethods);
  // A merchant accepting none of the test cards' networks still gets a sheet to test with: every card of the wallet.
  const cards = offered.length > 0 ? offered : sheetCards(request.brand, [], []);
  const html = `<!doctype html>
<html lang="${texts.language}" dir="${texts.rightToLeft ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(staticBaseUrl)}/css/walletSheet.min.css">
<script src="${escapeHtml(staticBaseUrl)}/js/walletSheet.min.js" defer></script>
</head>
<body class="sheet sheet-${request.brand === 'APPLEPAY' ? 'apple' : 'google'}" data-brand="${request.brand}" data-contact="${request.contact.join(',')}">
<main>
<form id="sheet" novalidate>
<h1 id="title">${escapeHtml(title)}</h1>
<p class="notice">${escapeHtml(texts.text('wallet.testNotice'))}</p>
<dl>
<dt>${escapeHtml(texts.text('wallet.merchant'))}</dt><dd>${escapeHtml(request.merchant)}</dd>
<dt>${escapeHtml(texts.text('wallet.total'))}</dt><dd id="total">${escapeHtml(shownAmount(request, texts.language))}</dd>
</dl>
<fieldset>
<legend>${escapeHtml(texts.text('wallet.chooseCard'))}</legend>
${cards.map((card, index) => cardChoice(texts, request, card, index)).join('\n')}
</fieldset>
<div class="actions">
<button type="submit" class="primary" id="pay" disabled data-processing="${escapeHtml(texts.text('wallet.processing'))}">${escapeHtml(texts.text('wallet.pay'))}</button>
<button type="button" class="secondary" id="cancel" disabled>${escapeHtml(texts.text('wallet.cancel'))}</button>
</div>
<p id="status" role="status"></p>
</form>
</main>
</body>
</html>
`;
  const origin = new URL(staticBaseUrl).origin;
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // Framed by any merchant's page (the widget's overlay), posting only to the gateway's own checkout endpoint.
      'content-security-policy': `default-src 'none'; script-src ${origin}; style-src ${origin}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors *`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
  };
}
