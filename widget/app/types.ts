import type { ComponentType } from 'preact';
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

/** What a brand family's form is rendered with: its brands (the card form takes all of them, the others one). */
export interface FamilyFormProps extends PaymentFormProps {
  readonly brands: readonly string[];
}

/**
 * A brand of the asynchronous family with a form of its own instead of the redirect form (otherMethods.ts OWN_FORMS:
 * the wallet buttons, Click to Pay): its chunk's form and container (undefined: no form for the brand on this page,
 * such as a wallet this browser cannot pay with).
 */
export interface OwnFormChunk {
  readonly Form: ComponentType<FamilyFormProps>;
  container(brand: string): string | undefined;
}

/**
 * The widget's own frame a redirect is posted into (redirect/target.ts), rendered by the form's container while the
 * payment state holds it.
 */
export interface FrameRequest {
  /** The frame's name, the redirect form's target. */
  readonly name: string;
  readonly width: string;
  readonly height: string;
  readonly title: string;
  /** The frame's component (the redirect chunk's ThreeDSecureFrame), rendered by the form's container. */
  readonly Frame: ComponentType<{ request: FrameRequest }>;
  /** The frame is in the page: post the redirect into it. */
  mounted(iframe: HTMLIFrameElement): void;
  loaded(iframe: HTMLIFrameElement): void;
}

/** A payment form's state (payment/state.ts creates it): what the form shows while a payment runs. */
export interface PaymentState {
  readonly busy: boolean;
  /** The form-level message (a submit refused before any payment, one not sent), shown in div.wpwl-message. */
  readonly message: string | undefined;
  /** The widget's own 3-D Secure frame while a redirect runs in it; the form is hidden meanwhile. */
  readonly frame: FrameRequest | undefined;
  /** Undo steps of a running redirect (message listener, redirect form), run on completion or unmount. */
  readonly cleanups: Set<() => void>;
  /** Changes busy, message or frame, re-rendering the form if one changed. */
  update(changes: Partial<Pick<PaymentState, 'busy' | 'message' | 'frame'>>): void;
  /** Removes whatever a running redirect added (wpwl.unload unmounts the form). */
  dispose(): void;
}
