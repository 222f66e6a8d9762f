import type { Language } from '../i18n/index.ts';
import type { Texts } from './messages.ts';
import type { WidgetOptions } from './options.ts';

/** What the bootstrap (paymentWidgets.js) tells the widget about its checkout, and the URLs to use. */
export interface CheckoutInfo {
  readonly id: string;
  readonly resourcePath: string;
  readonly gatewayUrl: string;
  readonly staticBaseUrl: string;
}

/**
 * A registration-only checkout (COMPAT §10, loaded as `checkoutId=<id>/registration`): its card form registers the
 * card (the pay button says labels.register) and posts, like its result URL, to `/v1/checkouts/<id>/registration`.
 */
export function isRegistrationOnly(checkout: Pick<CheckoutInfo, 'resourcePath'>): boolean {
  return /\/registration$/.test(checkout.resourcePath);
}

/** A rendered form, as wpwl.executePayment and wpwl.unload reach it. */
export interface FormHandle {
  /** `wpwl-container-card`, `wpwl-container-registration`, `wpwl-container-<family>-<BRAND>` (redirect brands). */
  readonly container: string;
  readonly form: HTMLFormElement;
  submit(): void;
}

/** What every payment form is rendered with (card, stored cards, redirect brands). */
export interface PaymentFormProps {
  readonly checkout: CheckoutInfo;
  /** The merchant form's action: where the shopper goes with the result. */
  readonly shopperResultUrl: string;
  /** Children of the merchant's form.paymentWidgets (a CSRF input...): moved into this form, posted with it. */
  readonly merchantChildren: readonly Node[];
  readonly options: WidgetOptions;
  readonly texts: Texts;
  readonly language: Language;
  readonly register: (handle: FormHandle) => void;
}
