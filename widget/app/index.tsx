import { render } from 'preact';
import './widget.css';
import { invoke, reportError } from './callbacks.ts';
import { textsFor, type Texts } from './messages.ts';
import { languageOf, loadLanguage } from '../i18n/index.ts';
import { formsFor, loadRegistrationForm, METHOD_FAMILIES, type BrandFamily } from './methods.ts';
import { readOptions, type WidgetOptions } from './options.ts';
import { paymentFlow } from './payment/state.ts';
import { isRegistrationOnly, type CheckoutInfo, type FormHandle } from './types.ts';

/**
 * The widget bundle (static.min.js, an ES module), loaded by paymentWidgets.js, which has already defined
 * `window.wpwl` with the checkout. For each `form.paymentWidgets` it renders, when the page is ready and
 * reading wpwlOptions at that moment, one form per payment-method family of its brands (methods.ts: the card
 * form for the card brands, one form per asynchronous or direct-debit brand); it offers wpwl.unload() and
 * wpwl.executePayment(). A family's code is loaded (its own chunk) only when a form of it is shown, while
 * the language loads. When the checkout offers stored cards, the one-click form (div#wpwl-registrations) comes
 * first, above the first form; with registrations.hideInitialPaymentForms the other forms wait for the
 * shopper's "Show other payment methods". A registration-only checkout gets the card form alone, which
 * registers the card. The submit path (payment/flow.ts) is a chunk too, requested as soon as the forms are
 * rendered: no form needs it to be shown, and a card-only page fits issue 14's 25 KB before onReady without it.
 *
 * A module runs once per URL: when a merchant reloads the widget (removes the scripts, wpwl.unload(), inserts
 * paymentWidgets.js again), the bootstrap finds this bundle's `start` in `wpwl.bundles` and calls it again.
 */

// Shared by the forms' chunks: kept in this entry (see payment/common.ts).
import './payment/common.ts';

interface Wpwl {
  checkout?: { id: string; resourcePath: string; config?: { registrations?: unknown } } | null;
  url?: string;
  staticBaseUrl?: string;
  unload?: () => void;
  executePayment?: (container: string) => void;
  isReady?: boolean;
  /** The start function of each bundle evaluated in this page, by its URL (for the bootstrap of a reload). */
  bundles?: Record<string, () => void>;
}

const wpwl: Wpwl = ((window as { wpwl?: Wpwl }).wpwl ??= {});
const hosts: HTMLElement[] = [];
const handles: FormHandle[] = [];
const hiddenForms: { form: HTMLFormElement; children: Node[] }[] = [];
let stylesheet: HTMLLinkElement | undefined;
let unloaded = false;

/**
 * The nonce of the script element that loaded this bundle, for what the widget adds to the page (strict CSP).
 * Its chunks need none: a module's imports are fetched with its own nonce.
 */
let nonce: string | undefined;
const scriptNonce = () =>
  Array.from(document.scripts)
    .reverse()
    .find((script) => script.src === import.meta.url)?.nonce || undefined;

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

/**
 * Options that ask for the extras chunk (extras/index.ts): the billing address, the summary page, fast checkout, the
 * BIN list, and callbacks other than onReady and onError (their `this.$form` on a page without jQuery). A false
 * positive costs a small request.
 */
const EXTRA_OPTIONS = /^(billingAddress|mandatoryBillingFields|useSummaryPage|createCheckout|brandDetectionType|on(?!Ready$|Error$))/;

/** A family's chunk that could not be loaded: its forms are left out, and the merchant hears of it. */
function failedChunk(options: WidgetOptions, family: BrandFamily | 'registration' | 'extras', error: unknown): undefined {
  reportError(options, { name: 'WidgetError', message: `the ${family} form could not be loaded: ${String(error)}` });
  return undefined;
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
  // Fast checkout: a page loaded without a checkout id, whose createCheckout gives one when the shopper pays
  // (features.ensureCheckout fills it in).
  const info: CheckoutInfo | undefined =
    checkout || typeof options.raw.createCheckout == 'function'
      ? { id: checkout?.id ?? '', resourcePath: checkout?.resourcePath ?? '', gatewayUrl, staticBaseUrl }
      : undefined;
  // A registration-only checkout registers a card the shopper types: no other family, no stored cards.
  const registrationOnly = info !== undefined && isRegistrationOnly(info);
  // Stored cards are read (registration/stored.ts) by the stored-card form's chunk, loaded only when the checkout lists some.
  const registrations = !checkout || registrationOnly ? undefined : checkout.config?.registrations;
  const offersStoredCards = Array.isArray(registrations) && registrations.length > 0;
  const pageForms = forms.map((form) => ({
    form,
    methods: info ? formsFor(brandsOf(form)).filter((method) => !registrationOnly || method.family === 'card') : [],
  }));
  // Every family's chunk the page needs, loaded together and while the language loads.
  const families = [...new Set(pageForms.flatMap(({ methods }) => methods.map((method) => method.family)))];
  const pageBrands = pageForms.flatMap(({ methods }) => methods.flatMap((method) => method.brands));
  const loading = Promise.all([
    Promise.all(families.map((family) => METHOD_FAMILIES[family].load(pageBrands).catch((error: unknown) => failedChunk(options, family, error)))),
    offersStoredCards ? loadRegistrationForm().catch((error: unknown) => failedChunk(options, 'registration', error)) : undefined,
    // What the options ask for beyond the forms (extras/index.ts), set up before they render.
    Object.keys(options.raw).some((name) => EXTRA_OPTIONS.test(name))
      ? import('./extras/index.ts').then((extras) => extras.ready).catch((error: unknown) => failedChunk(options, 'extras', error))
      : undefined,
  ]);
  const texts = textsFor(options, await loadLanguage(language, staticBaseUrl, nonce));
  // The page may have unloaded the widget while the language was loading.
  if (unloaded) return;
  if (!info) {
    showInvalidCheckout(options, texts, forms);
    return;
  }
  // Which options the page set, for the merchant's integration report: a beacon nothing waits for.
  if (checkout?.id) navigator.sendBeacon?.(`${gatewayUrl}/v1/checkouts/${checkout.id}/widgetReport`, JSON.stringify(Object.keys(options.raw).slice(0, 60)));
  const rendered: { container: string; brands: string[] }[] = [];
  let storedCardsRendered = false;
  /** The other forms' hosts, hidden while registrations.hideInitialPaymentForms holds them back (the stored cards show them). */
  const initialHosts: HTMLElement[] = [];
  const [chunks, registration] = await loading;
  // Several methods in one form, in the card style: one chooser for them, from the chunk of a family that makes them
  // several (methods.ts); in `plain` and `none` the forms follow one another.
  const Chooser = options.style === 'card' ? chunks.find((chunk) => chunk?.Chooser)?.Chooser : undefined;
  if (unloaded) return;
  const storedCards = registration ? registration.storedCardsOf(registrations) : [];
  const Registration = storedCards.length > 0 ? registration?.RegistrationForm : undefined;
  const hideInitial = Registration !== undefined && options.registrations.hideInitialPaymentForms;
  const chunkOf = new Map(families.map((family, index) => [family, chunks[index]]));
  for (const { form, methods: named } of pageForms) {
    // Each form with its family's component and container; a brand no family offers (an unknown name) gets none.
    const methods = named.flatMap((method) => {
      const chunk = chunkOf.get(method.family);
      const container = chunk?.container(method.brands[0] ?? '');
      return chunk && container ? [{ ...method, Form: chunk.Form, container }] : [];
    });
    if (methods.length === 0) continue;
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
    if (Registration && !storedCardsRendered) {
      // The stored cards, once per page, above the first form; they post copies of its merchant children.
      const registrations = document.createElement('div');
      registrations.id = 'wpwl-registrations';
      host.parentNode?.insertBefore(registrations, host);
      hosts.push(registrations);
      render(
        <Registration
          {...common}
          cards={storedCards}
          merchantChildren={children.map((child) => child.cloneNode(true))}
          hiddenForms={hideInitial ? initialHosts : undefined}
        />,
        registrations,
      );
      rendered.push(registration!.readyForm(storedCards));
      storedCardsRendered = true;
    }
    // The merchant's children (a CSRF input...) move into the first form; the others post copies of them.
    const rendering = methods.map((method, index) => (
      <method.Form
        key={method.container}
        {...common}
        brands={method.brands}
        merchantChildren={index === 0 ? children : children.map((child) => child.cloneNode(true))}
      />
    ));
    render(Chooser && methods.length > 1 ? <Chooser methods={methods} texts={texts} checkout={info}>{rendering}</Chooser> : <>{rendering}</>, host);
    for (const method of methods) {
      rendered.push({ container: method.container, brands: method.brands });
    }
  }
  // The submit path is a chunk of its own (payment/state.ts): it starts loading now, before any submit, which
  // awaits it (and tells the shopper if it failed to load).
  if (rendered.length > 0) paymentFlow().catch(() => undefined);
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

/** Renders the page's forms (again, after wpwl.unload(), when the bootstrap of a reload calls it). */
function start(): void {
  unloaded = false;
  nonce = scriptNonce();
  // A turn after DOMContentLoaded, so options a page assigns in its own DOMContentLoaded handlers are seen.
  const renderSoon = () =>
    setTimeout(() => {
      renderForms().catch((error: unknown) => reportError(readOptions(), { name: 'WidgetError', message: String(error) }));
    }, 0);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderSoon, { once: true });
  else renderSoon();
}

(wpwl.bundles ??= {})[import.meta.url] = start;
start();
