import english from 'wpwl:locale/wallet';
import { languageOf } from '../../i18n/index.ts';
import type { WalletBrand } from '../../shared/walletSheet.ts';
import { reportError } from '../callbacks.ts';
import { featureTexts, type FeatureText } from '../extras/texts.ts';
import { features } from '../features.ts';
import { readOptions, type WidgetOptions } from '../options.ts';
import { postToGateway } from '../payment/pagePost.ts';
import { cx, MerchantFields, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { createPaymentState, loadPaymentFlow } from '../payment/state.ts';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { CheckoutInfo, FamilyFormProps, OwnFormChunk, PaymentState } from '../types.ts';
import { liveWallet, type LiveWallet } from './live.ts';
import { openTestSheet } from './testSheet.ts';
import { walletSettings } from './walletOptions.ts';

/**
 * The wallet buttons (APPLEPAY, GOOGLEPAY in data-brands; issue 35), a brand's own form of the asynchronous family
 * (otherMethods.ts OWN_FORMS), in the platform's DOM:
 *
 *   div.wpwl-container.wpwl-container-virtualAccount.wpwl-container-virtualAccount-<BRAND>
 *     form.wpwl-form.wpwl-form-virtualAccount.wpwl-form-virtualAccount-<BRAND>
 *       hidden inputs paymentBrand, shopperResultUrl; the merchant's children
 *       button.wpwl-apple-pay-button (Apple Pay) | div.wpwl-google-pay-button > button (Google Pay)
 *
 * In the test environment (GET /v1/wallets/config) a button opens the gateway's simulated wallet sheet (testSheet.ts),
 * which keeps the token and posts the payment itself; both buttons show in every browser, so a pipeline's Chromium can
 * pay with them. In live, Apple's ApplePaySession and Google's pay.js (live.ts) make the token, posted with the page's
 * fields; a button shows only where its wallet can pay (ApplePaySession.canMakePayments(), isReadyToPay).
 *
 * The payment goes through the checkout's submit as any form's (payment/flow.ts sendPayment): onBeforeSubmitVirtualAccount
 * first, then a fast checkout's createCheckout (features.ensureCheckout) once the shopper approved, then the answer —
 * the result page, or a Google Pay card saved in the account (PAN_ONLY) authenticated by 3-D Secure in the widget's frame.
 */

interface WalletConfig {
  readonly environment: 'test' | 'live';
  readonly googlePay: { readonly gateway: string };
}

interface WalletContext {
  readonly brand: WalletBrand;
  readonly config: WalletConfig;
  readonly text: FeatureText;
  readonly live: LiveWallet | undefined;
}

const WALLET_NAMES: Readonly<Record<WalletBrand, string>> = { APPLEPAY: 'Apple Pay', GOOGLEPAY: 'Google Pay' };

// A wallet's form is its button alone: no card-style box around it (the 3-D Secure frame of a PAN_ONLY card keeps its own).
const STYLES = `.wpwl-container-virtualAccount-APPLEPAY,.wpwl-container-virtualAccount-GOOGLEPAY{margin-bottom:10px}
.wpwl-style-card .wpwl-form-virtualAccount-APPLEPAY,.wpwl-style-card .wpwl-form-virtualAccount-GOOGLEPAY{padding:0;border:0;background:none;box-shadow:none}
.wpwl-apple-pay-button,.wpwl-google-pay-button>button{display:flex;align-items:center;justify-content:center;width:100%;min-height:44px;padding:0 16px;border-radius:6px;font:600 16px/1 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;cursor:pointer}
.wpwl-apple-pay-button{border:1px solid #000;background:#000;color:#fff}
.wpwl-apple-pay-button-white,.wpwl-apple-pay-button-white-with-line{background:#fff;color:#000}
.wpwl-apple-pay-button-white{border-color:#fff}
.wpwl-google-pay-button>button{border:1px solid #000;background:#000;color:#fff}
.wpwl-google-pay-button-white>button{border-color:#747775;background:#fff;color:#1f1f1f}
.wpwl-google-pay-button>button:disabled,.wpwl-apple-pay-button:disabled{opacity:.6;cursor:default}
@supports (-webkit-appearance:-apple-pay-button){.wpwl-apple-pay-live{-webkit-appearance:-apple-pay-button;-apple-pay-button-type:plain;-apple-pay-button-style:black;font-size:0}}`;

let styled = false;

function addStyles(): void {
  if (styled) return;
  styled = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

interface BootstrapState {
  readonly checkout?: { readonly amount?: string | null; readonly currency?: string | null } | null;
  readonly url?: string;
  readonly staticBaseUrl?: string;
}

const bootstrap = (): BootstrapState => (window as { wpwl?: BootstrapState }).wpwl ?? {};


let configLoad: Promise<WalletConfig> | undefined;

const isConfig = (value: unknown): value is WalletConfig =>
  typeof value === 'object' && value !== null && ((value as WalletConfig).environment === 'test' || (value as WalletConfig).environment === 'live');

/**
 * The gateway's environment for the wallets, asked once per page (a failed answer is asked again next time): the
 * answer otherMethods.ts asked for while this chunk loaded, else asked now.
 */
async function walletConfig(gatewayUrl: string, asked: Promise<unknown> | undefined): Promise<WalletConfig> {
  const early = await asked;
  if (isConfig(early)) return early;
  configLoad ??= fetch(`${gatewayUrl}/v1/wallets/config`, { credentials: 'omit' })
    .then((response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return response.json() as Promise<WalletConfig>;
    })
    .catch((error: unknown) => {
      configLoad = undefined;
      throw error;
    });
  return configLoad;
}

/**
 * The wallet's form for a page (OWN_FORMS): its texts, the gateway's environment and, in live, whether this browser can
 * pay with the wallet. No container (no form) when it cannot, or when the gateway cannot be asked (onError told).
 */
export async function walletForm(brand: WalletBrand, asked?: Promise<unknown>): Promise<OwnFormChunk> {
  const options = readOptions();
  const { url = '', staticBaseUrl = '', checkout } = bootstrap();
  const none: OwnFormChunk = { Form: () => null, container: () => undefined };
  try {
    const [config, text] = await Promise.all([
      walletConfig(url, asked),
      featureTexts('wallet', english, languageOf(options.locale), staticBaseUrl, options.labels),
    ]);
    const live = config.environment === 'live' ? await liveWallet(brand, walletSettings(brand, options, checkout), config.googlePay.gateway) : undefined;
    if (config.environment === 'live' && !live) return none;
    addStyles();
    const context: WalletContext = { brand, config, text, live };
    return {
      Form: (props: FamilyFormProps) => <WalletForm {...props} wallet={context} />,
      container: () => `wpwl-container-virtualAccount-${brand}`,
    };
  } catch (error) {
    reportError(options, { name: 'WidgetError', message: `the ${brand} button could not be shown: ${String(error)}`, brand });
    return none;
  }
}

/** A fast checkout's checkout, created now (createCheckout) when the page was loaded without one; false: none. */
async function checkoutReady(checkout: CheckoutInfo, form: HTMLFormElement, json: Record<string, unknown>, options: WidgetOptions): Promise<boolean> {
  if (checkout.id !== '') return true;
  if (features.ensureCheckout) return features.ensureCheckout(checkout, form, json);
  reportError(options, { name: 'WidgetError', message: 'createCheckout: the fast checkout could not be loaded; nothing was paid' });
  return false;
}

async function payWithWallet(props: FamilyFormProps, context: WalletContext, state: PaymentState, form: HTMLFormElement, trigger: Event | undefined, button: HTMLElement | null): Promise<void> {
  const { options, checkout, texts } = props;
  if (state.busy) return;
  const settings = walletSettings(context.brand, options, bootstrap().checkout);
  // Apple's sheet must be asked for in the shopper's click itself: before anything is awaited.
  const livePayment = context.live?.start(settings);
  const flow = await loadPaymentFlow(state, options, texts);
  if (!flow || flow.cancelledByMerchant(options, 'onBeforeSubmitVirtualAccount', form, trigger)) {
    livePayment?.abort();
    return;
  }
  const paymentContext = { form, options, texts, checkout, shopperResultUrl: props.shopperResultUrl, state, errors: { unsent: 'WidgetError', failed: 'WidgetError' } } as const;
  if (livePayment) {
    const approved = await livePayment.approved;
    if (!approved) return;
    if (!(await checkoutReady(checkout, form, { paymentBrand: context.brand, ...approved.json }, options))) {
      approved.finish(false);
      return;
    }
    let paid = false;
    await flow.sendPayment(paymentContext, [...flow.formFields(form), ...approved.fields], async (fields) => {
      const answer = await postToGateway(form.action, fields);
      paid = answer.status === 200;
      return answer;
    });
    approved.finish(paid);
    return;
  }
  const title = context.text('sheetTitle', { wallet: WALLET_NAMES[context.brand] });
  const sheet = openTestSheet(checkout.gatewayUrl, settings, props.language, title, button);
  // wpwl.unload() while the sheet is open removes it too (the form's state runs its cleanups).
  state.cleanups.add(sheet.close);
  try {
    const approval = await sheet.approved;
    if (!approval || !(await checkoutReady(checkout, form, { paymentBrand: context.brand, ...approval.contact }, options))) return;
    await flow.sendPayment(paymentContext, flow.formFields(form), async (fields) => {
      const answer = await sheet.submit(form.action, fields);
      // Back on the page for the answer: the result page, or a PAN_ONLY card's 3-D Secure in the widget's frame.
      sheet.close();
      return answer;
    });
  } finally {
    sheet.close();
    state.cleanups.delete(sheet.close);
  }
}

function WalletForm(props: FamilyFormProps & { wallet: WalletContext }) {
  const { options, texts, checkout, wallet } = props;
  const brand = wallet.brand;
  const state = useMemo(createPaymentState, []);
  const formRef = useRef<HTMLFormElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const liveButton = useRef<HTMLDivElement>(null);
  const settings = useMemo(() => walletSettings(brand, options, bootstrap().checkout), []);
  const label = wallet.text('payWith', { wallet: WALLET_NAMES[brand] });
  const submit = (trigger: Event | undefined) => {
    if (formRef.current) void payWithWallet(props, wallet, state, formRef.current, trigger, buttonRef.current ?? liveButton.current?.querySelector('button') ?? null);
  };

  useEffect(() => {
    const element = formRef.current;
    if (!element) return;
    props.register({ container: `wpwl-container-virtualAccount-${brand}`, form: element, submit: () => submit(undefined) });
    // Google's own button (pay.js createButton), in live: its click is the shopper's.
    if (wallet.live && brand === 'GOOGLEPAY' && liveButton.current) liveButton.current.appendChild(wallet.live.button(settings, () => submit(undefined)));
    return () => state.dispose();
  }, []);

  const live = wallet.live !== undefined;
  const button =
    brand === 'APPLEPAY' ? (
      <button
        ref={buttonRef}
        type="submit"
        class={cx('wpwl-apple-pay-button', `wpwl-apple-pay-button-${settings.buttonStyle}`, `wpwl-apple-pay-button-type-${settings.buttonType}`, live && 'wpwl-apple-pay-live')}
        lang={props.language}
        aria-label={label}
        disabled={state.busy}
      >
        {label}
      </button>
    ) : live ? (
      <div ref={liveButton} class="wpwl-google-pay-button" />
    ) : (
      <div class={cx('wpwl-google-pay-button', `wpwl-google-pay-button-${settings.buttonStyle}`, `wpwl-google-pay-button-type-${settings.buttonType}`)}>
        <button ref={buttonRef} type="submit" aria-label={label} disabled={state.busy}>
          {label}
        </button>
      </div>
    );
  return (
    <PaymentContainer
      containerClass={`wpwl-container-virtualAccount wpwl-container-virtualAccount-${brand}`}
      formClass={`wpwl-form-virtualAccount wpwl-form-virtualAccount-${brand}`}
      formRef={formRef}
      formLabel={{ label }}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      <input type="hidden" name="paymentBrand" value={brand} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      {button}
    </PaymentContainer>
  );
}
