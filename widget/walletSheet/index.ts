import {
  isSheetEnvelope,
  isSheetPaymentTarget,
  parseSheetLaunch,
  sheetEnvelope,
  testContact,
  testWalletToken,
  CONTACT_FIELDS,
  type ContactField,
  WALLET_TEST_CARDS,
  walletTokenFields,
  type SheetMessage,
  type SheetRequest,
  type WalletBrand,
} from '../shared/walletSheet.ts';
import './sheet.css';

/**
 * The script of the gateway's simulated wallet sheet (server/wallets/sheet.ts renders the page; the protocol is
 * shared/walletSheet.ts). Pay makes the chosen card's test token and tells the widget `approved`; the token stays here
 * until the widget asks to `submit` the payment, which this frame posts to the checkout on its own origin. Cancel (or
 * Escape) tells the widget `cancelled`. Without a valid launch in the hash (the page opened on its own) nothing is
 * enabled.
 */

const launch = parseSheetLaunch(location.hash);
const form = document.getElementById('sheet') as HTMLFormElement | null;
const pay = document.getElementById('pay') as HTMLButtonElement | null;
const cancel = document.getElementById('cancel') as HTMLButtonElement | null;
const status = document.getElementById('status');
const brand = document.body.dataset.brand as WalletBrand;

if (launch && form && pay && cancel && status) {
  const post = (message: SheetMessage) => window.parent.postMessage(sheetEnvelope(message, launch.channel), launch.parentOrigin);
  let token: string | undefined;

  const chosenCard = () => {
    const checked = form.querySelector<HTMLInputElement>('input[name="card"]:checked');
    return WALLET_TEST_CARDS.find((card) => card.id === checked?.value);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const card = chosenCard();
    if (token !== undefined || !card) return;
    token = testWalletToken(brand, card, new Date());
    pay.disabled = true;
    cancel.disabled = true;
    for (const input of form.querySelectorAll<HTMLInputElement>('input')) input.disabled = true;
    status.textContent = pay.dataset.processing ?? '';
    const wanted = (document.body.dataset.contact ?? '').split(',').filter((field): field is ContactField => (CONTACT_FIELDS as readonly string[]).includes(field));
    post({ type: 'approved', network: card.network, authMethod: brand === 'GOOGLEPAY' ? card.authMethod : undefined, contact: testContact(brand, wanted) });
  });
  cancel.addEventListener('click', () => post({ type: 'cancelled' }));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && token === undefined) post({ type: 'cancelled' });
  });

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent || event.origin !== launch.parentOrigin || !isSheetEnvelope(event.data, launch.channel)) return;
    const request = event.data as unknown as SheetRequest;
    if (request.type !== 'submit' || token === undefined || typeof request.requestId !== 'string' || !Array.isArray(request.fields)) return;
    const answer = (status: number, body: unknown) => post({ type: 'result', requestId: request.requestId, status, body });
    const target = isSheetPaymentTarget(String(request.action), location.origin);
    if (!target) {
      answer(0, {});
      return;
    }
    // The page's fields, without any card data or wallet token it put among them: the token is this frame's own.
    const body = new URLSearchParams(
      request.fields.filter((field): field is [string, string] => Array.isArray(field) && typeof field[0] === 'string' && typeof field[1] === 'string' && !/^(card|applePay|googlePay|samsungPay)\.|^virtualAccount\.paymentToken$/.test(field[0])),
    );
    for (const [name, value] of walletTokenFields(brand, token)) body.set(name, value);
    fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' }, body: body.toString(), credentials: 'omit' }).then(
      async (response) => answer(response.status, await response.json().catch(() => ({}))),
      () => answer(0, {}),
    );
  });

  pay.disabled = false;
  cancel.disabled = false;
  form.querySelector<HTMLInputElement>('input[name="card"]:checked')?.focus();
  post({ type: 'ready' });
}
