import { isSheetEnvelope, sheetEnvelope, type SheetContact, type SheetMessage, type WalletNetwork, type GoogleAuthMethod } from '../../shared/walletSheet.ts';
import type { PaymentAnswer } from '../payment/answer.ts';
import { randomChannel } from '../random.ts';
import type { WalletSettings } from './walletOptions.ts';

/**
 * The gateway's simulated wallet sheet (test environment), in an overlay frame over the merchant's page: a modal
 * dialog holding the sheet's page (server/wallets/sheet.ts), which talks to this side over the protocol of
 * shared/walletSheet.ts. The sheet keeps the token; `submit` has it post the payment and answers with the gateway's answer.
 */

export interface Approval {
  readonly network: WalletNetwork;
  readonly authMethod: GoogleAuthMethod | undefined;
  readonly contact: SheetContact;
}

export interface OpenSheet {
  /** The tester's answer: the card approved, or undefined when the sheet was cancelled (or closed). */
  readonly approved: Promise<Approval | undefined>;
  /** Asks the sheet to post the payment to `action` with the page's `fields` and its token. */
  submit(action: string, fields: [string, string][]): Promise<PaymentAnswer>;
  close(): void;
}

const STYLES = `.wpwl-wallet-overlay{position:fixed;inset:0;z-index:2147483000;display:flex;align-items:center;justify-content:center;padding:16px;background:rgba(17,24,39,.55)}
.wpwl-wallet-sheet{width:100%;max-width:440px;height:min(640px,calc(100vh - 32px));border:0;border-radius:12px;background:#fff;box-shadow:0 12px 40px rgba(0,0,0,.35)}`;

let styled = false;

function addStyles(): void {
  if (styled) return;
  styled = true;
  // CSSOM, not a style element: allowed under a strict CSP.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

export function openTestSheet(gatewayUrl: string, settings: WalletSettings, language: string, title: string, returnFocus: HTMLElement | null): OpenSheet {
  addStyles();
  const channel = randomChannel().slice(0, 32);
  const gatewayOrigin = new URL(gatewayUrl, location.href).origin;
  const query = new URLSearchParams({
    brand: settings.brand,
    lang: language,
    amount: settings.amount,
    currency: settings.currency,
    merchant: settings.merchantName.slice(0, 64),
    networks: settings.networks.join(','),
    authMethods: settings.authMethods.join(','),
    contact: settings.contact.join(','),
  });
  const overlay = document.createElement('div');
  overlay.className = 'wpwl-wallet-overlay';
  overlay.setAttribute('role', 'dialog');
  overlay.setAttribute('aria-modal', 'true');
  overlay.setAttribute('aria-label', title);
  const frame = document.createElement('iframe');
  frame.className = 'wpwl-wallet-sheet';
  frame.title = title;
  frame.src = `${gatewayUrl}/v1/wallets/sheet?${query}#${encodeURIComponent(JSON.stringify({ channel, parentOrigin: location.origin }))}`;
  overlay.appendChild(frame);
  // A modal dialog: the rest of the page is inert while it is open (focus and screen readers stay in the sheet).
  const madeInert = [...document.body.children].filter((element): element is HTMLElement => element instanceof HTMLElement && !element.inert);
  for (const element of madeInert) element.inert = true;
  document.body.appendChild(overlay);
  frame.focus();

  let answerApproval: (approval: Approval | undefined) => void = () => undefined;
  const approved = new Promise<Approval | undefined>((resolve) => (answerApproval = resolve));
  const pending = new Map<string, (answer: PaymentAnswer) => void>();
  const onMessage = (event: MessageEvent) => {
    if (event.origin !== gatewayOrigin || event.source !== frame.contentWindow || !isSheetEnvelope(event.data, channel)) return;
    const message = event.data as unknown as SheetMessage;
    if (message.type === 'approved') answerApproval({ network: message.network, authMethod: message.authMethod, contact: message.contact ?? {} });
    else if (message.type === 'cancelled') close();
    else if (message.type === 'result') {
      pending.get(message.requestId)?.({ status: message.status, body: message.body });
      pending.delete(message.requestId);
    }
  };
  window.addEventListener('message', onMessage);

  function close(): void {
    window.removeEventListener('message', onMessage);
    for (const answer of pending.values()) answer({ status: 0, body: {} });
    pending.clear();
    answerApproval(undefined);
    if (overlay.isConnected) {
      overlay.remove();
      for (const element of madeInert) element.inert = false;
      returnFocus?.focus();
    }
  }

  return {
    approved,
    submit(action, fields) {
      const requestId = randomChannel().slice(0, 16);
      return new Promise<PaymentAnswer>((resolve) => {
        if (!overlay.isConnected) return resolve({ status: 0, body: {} });
        pending.set(requestId, resolve);
        frame.contentWindow?.postMessage(sheetEnvelope({ type: 'submit', requestId, action, fields }, channel), gatewayOrigin);
      });
    },
    close,
  };
}
