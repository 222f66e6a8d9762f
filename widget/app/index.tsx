import { render } from 'preact';
import './widget.css';
import { CardForm } from './card/CardForm.tsx';
import { isCardBrand, isRedirectBrand, REDIRECT_BRANDS } from './brands.ts';
import { invoke, reportError } from './callbacks.ts';
import { textsFor, type Texts } from './messages.ts';
import { languageOf, loadLanguage } from '../i18n/index.ts';
import { readOptions, type WidgetOptions } from './options.ts';
import { isRegistrationOnly } from './payment/answer.ts';
import { RedirectForm } from './redirect/RedirectForm.tsx';
import { RegistrationForm } from './registration/RegistrationForm.tsx';
import { storedCardsOf } from './registration/stored.ts';
import type { CheckoutInfo, FormHandle } from './types.ts';

/**
 * The widget bundle (static.min.js), loaded by paymentWidgets.js, which has already defined
 * `window.wpwl` with the checkout. For each `form.paymentWidgets` it renders, when the page is ready and
 * reading wpwlOptions at that moment, a card container for the card brands, then one container per
 * redirect brand (PAYPAL, SOFORTUEBERWEISUNG); it offers wpwl.unload() and wpwl.executePayment().
 * When the checkout offers stored cards, the one-click form (div#wpwl-registrations) comes first, above
 * the first form; with registrations.hideInitialPaymentForms the other forms wait for the shopper's
 * "Show other payment methods". A registration-only checkout gets the card form alone, which registers the card.
 */

interface Wpwl {
  checkout?: { id: string; resourcePath: string; config?: { registrations?: unknown } } | null;
  url?: string;
  staticBaseUrl?: string;
  unload?: () => void;
  executePayment?: (container: string) => void;
  isReady?: boolean;
}

const wpwl: Wpwl = ((window as { wpwl?: Wpwl }).wpwl ??= {});
const hosts: HTMLElement[] = [];
const handles: FormHandle[] = [];
const hiddenForms: { form: HTMLFormElement; children: Node[] }[] = [];
let stylesheet: HTMLLinkElement | undefined;
let unloaded = false;

/** The nonce of the script element that loaded this bundle, for what the widget adds to the page (strict CSP). */
const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;

/** Brands from data-brands, or, on older pages, from the form's own text. */
function brandsOf(form: HTMLFormElement): string[] {
  const text =
    form.getAttribute('data-brands') ??
    Array.from(form.childNodes)
      .filter((node) => node.nodeType === Node.TEXT_NODE)
      .map((node) => node.textContent ?? '')
      .join(' ');
  return text
    .split(/\s+/)
    .map((brand) => brand.trim().toUpperCase())
    .filter((brand, index, all) => brand !== '' && all.indexOf(brand) === index);
}

function loadStylesheet(options: WidgetOptions, staticBaseUrl: string): void {
  if (options.style === 'none' || stylesheet) return;
  stylesheet = document.createElement('link');
  stylesheet.rel = 'stylesheet';
  stylesheet.href = `${staticBaseUrl}/css/static.min.css`;
  if (nonce) stylesheet.nonce = nonce;
  document.head.appendChild(stylesheet);
}

function showInvalidCheckout(options: WidgetOptions, texts: Texts, forms: HTMLFormElement[]): void {
  for (const form of forms) {
    const message = document.createElement('div');
    message.className = 'wpwl-message wpwl-has-error';
    message.setAttribute('role', 'alert');
    message.textContent = texts.error('invalidCheckout');
    form.parentNode?.insertBefore(message, form.nextSibling);
    hosts.push(message);
  }
  reportError(options, { name: 'InvalidCheckoutIdError', message: 'The checkout id is unknown or has expired' });
}

async function renderForms(): Promise<void> {
  if (unloaded) return;
  const options = readOptions();
  const forms = Array.from(document.querySelectorAll<HTMLFormElement>('form.paymentWidgets'));
  const checkout = wpwl.checkout;
  const gatewayUrl = wpwl.url ?? '';
  const staticBaseUrl = wpwl.staticBaseUrl ?? '';
  loadStylesheet(options, staticBaseUrl);
  const language = languageOf(options.locale);
  const texts = textsFor(options, await loadLanguage(language, staticBaseUrl, nonce));
  // The page may have unloaded the widget while the language was loading.
  if (unloaded) return;
  if (!checkout) {
    showInvalidCheckout(options, texts, forms);
    return;
  }
  const info: CheckoutInfo = { id: checkout.id, resourcePath: checkout.resourcePath, gatewayUrl, staticBaseUrl };
  const rendered: { container: string; brands: string[] }[] = [];
  // A registration-only checkout registers a card the shopper types: no redirect brands, no stored cards.
  const registrationOnly = isRegistrationOnly(info);
  const storedCards = registrationOnly ? [] : storedCardsOf(checkout.config?.registrations);
  let storedCardsRendered = false;
  /** The other forms' hosts, hidden while registrations.hideInitialPaymentForms holds them back. */
  const initialHosts: HTMLElement[] = [];
  const hideInitial = storedCards.length > 0 && options.registrations.hideInitialPaymentForms;
  const showInitialForms = () => {
    for (const host of initialHosts) {
      host.hidden = false;
      host.classList.remove('wpwl-hidden');
    }
    // The button that was clicked is gone: focus goes to the first control of the forms it revealed.
    initialHosts[0]?.querySelector<HTMLElement>('select, input:not([type="hidden"]), button')?.focus();
  };
  for (const form of forms) {
    const brands = brandsOf(form);
    const cardBrands = brands.filter(isCardBrand);
    const redirectBrands = registrationOnly ? [] : brands.filter(isRedirectBrand);
    if (cardBrands.length === 0 && redirectBrands.length === 0) continue;
    // The merchant's form stays in the page, hidden, so a reload of the widget finds it again.
    const children = Array.from(form.childNodes).filter((node) => node.nodeType === Node.ELEMENT_NODE);
    hiddenForms.push({ form, children });
    form.classList.add('wpwl-hidden');
    const host = document.createElement('div');
    host.className = 'wpwl-host';
    form.parentNode?.insertBefore(host, form.nextSibling);
    hosts.push(host);
    initialHosts.push(host);
    if (hideInitial) {
      host.hidden = true;
      host.classList.add('wpwl-hidden');
    }
    const common = {
      checkout: info,
      shopperResultUrl: new URL(form.getAttribute('action') ?? location.href, location.href).href,
      options,
      texts,
      language,
      register: (handle: FormHandle) => handles.push(handle),
    };
    // The merchant's children (a CSRF input...) move into the first form; the others post copies of them.
    const childrenFor = (index: number) => (index === 0 ? children : children.map((child) => child.cloneNode(true)));
    const offset = cardBrands.length > 0 ? 1 : 0;
    if (storedCards.length > 0 && !storedCardsRendered) {
      // The stored cards, once per page, above the first form; they post copies of its merchant children.
      const registrations = document.createElement('div');
      registrations.id = 'wpwl-registrations';
      host.parentNode?.insertBefore(registrations, host);
      hosts.push(registrations);
      render(
        <RegistrationForm
          {...common}
          cards={storedCards}
          merchantChildren={children.map((child) => child.cloneNode(true))}
          showInitialForms={hideInitial ? showInitialForms : undefined}
        />,
        registrations,
      );
      rendered.push({ container: 'wpwl-container-registration', brands: [...new Set(storedCards.map((card) => card.brand).filter(Boolean))] });
      storedCardsRendered = true;
    }
    render(
      <>
        {cardBrands.length > 0 && <CardForm {...common} brands={cardBrands} merchantChildren={childrenFor(0)} />}
        {redirectBrands.map((brand, index) => (
          <RedirectForm key={brand} {...common} brand={brand} merchantChildren={childrenFor(index + offset)} />
        ))}
      </>,
      host,
    );
    if (cardBrands.length > 0) rendered.push({ container: 'wpwl-container-card', brands: cardBrands });
    for (const brand of redirectBrands) rendered.push({ container: `wpwl-container-${REDIRECT_BRANDS[brand]?.family}-${brand}`, brands: [brand] });
  }
  wpwl.isReady = true;
  invoke(options, 'onReady', undefined, rendered);
}

wpwl.unload = () => {
  unloaded = true;
  for (const host of hosts.splice(0)) {
    render(null, host);
    host.remove();
  }
  for (const { form, children } of hiddenForms.splice(0)) {
    for (const child of children) form.appendChild(child);
    form.classList.remove('wpwl-hidden');
  }
  handles.splice(0);
  stylesheet?.remove();
  stylesheet = undefined;
  wpwl.isReady = false;
};

wpwl.executePayment = (container: string) => {
  const handle =
    handles.find((candidate) => candidate.container === container) ??
    handles.find((candidate) => container.includes(candidate.container)) ??
    // A family's container (`wpwl-container-virtualAccount`) names its first brand's form.
    handles.find((candidate) => candidate.container.startsWith(`${container}-`));
  if (handle) handle.submit();
  else reportError(readOptions(), { name: 'WidgetError', message: `executePayment: no ${container} on this page` });
};

// A turn after DOMContentLoaded, so options a page assigns in its own DOMContentLoaded handlers are seen.
const renderSoon = () =>
  setTimeout(() => {
    renderForms().catch((error: unknown) => reportError(readOptions(), { name: 'WidgetError', message: String(error) }));
  }, 0);
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderSoon, { once: true });
else renderSoon();
