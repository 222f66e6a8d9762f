import type { ComponentType } from 'preact';
import type { Texts } from './messages.ts';
import type { WidgetOptions } from './options.ts';
import type { CheckoutInfo } from './types.ts';

/**
 * What the page's options ask for beyond the forms, set here by the extras chunk (extras/index.ts) before the forms
 * render, and read synchronously by the forms and the submit path: a page that does not ask never loads any of it,
 * and a form pays one property read per feature.
 */
export interface Features {
  /** The billing address fields inside the card form (`billingAddress`, `mandatoryBillingFields`). */
  BillingFields?: ComponentType<BillingFieldsProps>;
  /** The gateway's BIN list (`brandDetectionType: 'binlist'`): the brands of a card's first digits. */
  binlist?: (bin: string, checkout: CheckoutInfo) => Promise<readonly string[] | undefined>;
  /**
   * The summary page (`useSummaryPage`): the card form's data is saved for the checkout instead of paid; the submit path
   * calls it in place of the payment.
   */
  saveTransactionData?: (fields: [string, string][], checkout: CheckoutInfo, options: WidgetOptions) => Promise<unknown>;
  /**
   * Fast checkout (`createCheckout` on a page loaded without a checkout id): asks the merchant's function for the
   * checkout id when the shopper pays, and fills it into `checkout` and the form's action; false when there is none.
   */
  ensureCheckout?: (checkout: CheckoutInfo, form: HTMLFormElement, json: Record<string, unknown>) => Promise<boolean>;
}

export interface BillingFieldsProps {
  readonly options: WidgetOptions;
  readonly texts: Texts;
  /** The form's element ids (`wpwl-<channel>-<suffix>`). */
  readonly id: (suffix: string) => string;
}

export const features: Features = {};
