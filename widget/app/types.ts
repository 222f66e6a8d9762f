/** What the bootstrap (paymentWidgets.js) tells the widget about its checkout, and the URLs to use. */
export interface CheckoutInfo {
  readonly id: string;
  readonly resourcePath: string;
  readonly gatewayUrl: string;
  readonly staticBaseUrl: string;
}

/** A rendered form, as wpwl.executePayment and wpwl.unload reach it. */
export interface FormHandle {
  /** `wpwl-container-card`, `wpwl-container-registration`, `wpwl-container-<family>-<BRAND>` (redirect brands). */
  readonly container: string;
  readonly form: HTMLFormElement;
  submit(): void;
}
