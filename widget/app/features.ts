import type { ComponentType } from 'preact';
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
   * The summary page (`useSummaryPage`): the card form's submit carries `useSummaryPage=true`, and the gateway saves the
   * card for the checkout instead of paying it; the submit path hands the answer of a submit to it, which, for a save,
   * calls `onSaveTransactionData(data)` and says true (the merchant's page goes to its summary page), else false.
   */
  saveTransactionData?: (answer: unknown, options: WidgetOptions) => boolean;
  /**
   * Fast checkout (`createCheckout` on a page loaded without a checkout id): asks the merchant's function for the
   * checkout id when the shopper pays, and fills it into `checkout` and the form's action; false when there is none.
   */
  ensureCheckout?: (checkout: CheckoutInfo, form: HTMLFormElement, json: Record<string, unknown>) => Promise<boolean>;
}

/** The billing fields' own chunk has the options and its texts: the card form passes only what is the form's. */
export interface BillingFieldsProps {
  /** The form's element ids (`wpwl-<channel>-<suffix>`). */
  readonly id: (suffix: string) => string;
  /** The card form's model, which the fields join: their validity (by field) and its calm errors. */
  readonly form: {
    set(changes: { readonly billing: Readonly<Record<string, boolean>> }): void;
    hasError(field: string): boolean;
    edit(field: string): void;
    leave(field: string): void;
  };
}

export const features: Features = {};
