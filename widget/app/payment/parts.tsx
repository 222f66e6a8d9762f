import type { ComponentChildren, Ref } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { isRightToLeft, type Language } from '../../i18n/index.ts';
import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import { isRegistrationOnly, type CheckoutInfo, type PaymentState } from '../types.ts';

/** Pieces every payment form renders the same way (COMPAT §4 classes). */

export const cx = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ');

/**
 * A brand's logo: an image from the gateway's static path (img/brands/<BRAND>.svg, widget/logos.ts), loaded lazily
 * and cached like the widget's other files, `label` its text alternative (empty where the element around it names it).
 */
export const BrandLogo = ({ checkout, brand, label }: { checkout: CheckoutInfo; brand: string; label: string }) => (
  <img class="wpwl-brand-logo" src={`${checkout.staticBaseUrl}/img/brands/${brand}.svg`} alt={label} loading="lazy" />
);

/**
 * One field of a form (COMPAT §4): div.wpwl-group-<field> with its label (when labels are shown) and its wrapper
 * holding the control and, when `error` is given, div.wpwl-hint-<field>Error. `id` makes the form's element ids.
 */
export function fieldGroup(
  field: string,
  label: string,
  control: ComponentChildren,
  error: string | undefined,
  { showLabels, id }: { readonly showLabels: boolean; readonly id: (suffix: string) => string },
) {
  return (
    <div class={cx('wpwl-group', `wpwl-group-${field}`, 'wpwl-clearfix')}>
      {showLabels && (
        <div class={cx('wpwl-label', `wpwl-label-${field}`)} id={id(`label-${field}`)}>
          {label}
        </div>
      )}
      <div class={cx('wpwl-wrapper', `wpwl-wrapper-${field}`)}>
        {control}
        {error !== undefined && (
          <div class={cx('wpwl-hint', `wpwl-hint-${field}Error`)} id={id(`hint-${field}`)} role="alert">
            {error}
          </div>
        )}
      </div>
    </div>
  );
}

/** Form-level error: an expired checkout, a submit refused before any payment, one not sent (a decline is a result). */
function PaymentMessage({ state }: { state: PaymentState }) {
  return state.message === undefined ? null : (
    <div class="wpwl-message wpwl-has-error" role="alert" aria-live="assertive">
      {state.message}
    </div>
  );
}

export function Spinner({ state, options, texts }: { state: PaymentState; options: WidgetOptions; texts: Texts }) {
  if (!options.spinner.enabled || !state.busy) return null;
  return (
    <div
      class="wpwl-spinner"
      role="status"
      aria-label={texts.label('processing')}
      ref={(element) => {
        // CSSOM, not a style attribute: allowed under a strict CSP.
        if (element && options.spinner.color) element.style.setProperty('border-top-color', options.spinner.color);
      }}
    />
  );
}

/** The pay button; on a registration-only checkout it registers the card ("Register", labels.register). */
export function PayButton({ state, texts, invalid, checkout }: { state: PaymentState; texts: Texts; invalid: boolean; checkout: CheckoutInfo }) {
  const busy = state.busy;
  return (
    <div class="wpwl-group wpwl-group-submit wpwl-clearfix">
      <div class="wpwl-wrapper wpwl-wrapper-submit">
        <button type="submit" class={cx('wpwl-button', 'wpwl-button-pay', invalid && 'wpwl-button-error')} disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {busy ? texts.label('processing') : texts.label(isRegistrationOnly(checkout) ? 'register' : 'submit')}
        </button>
      </div>
    </div>
  );
}

/** The children of the merchant's form.paymentWidgets (a CSRF input...), moved into this form and posted with it. */
export function MerchantFields({ nodes }: { nodes: readonly Node[] }) {
  const slot = useRef<HTMLDivElement>(null);
  useEffect(() => {
    for (const node of nodes) slot.current?.appendChild(node);
  }, []);
  return <div class="wpwl-merchant-fields" ref={slot} />;
}

/** The widget's 3-D Secure frame, while a redirect runs in it (its component comes with the redirect chunk). */
function RedirectFrame({ state }: { state: PaymentState }) {
  const request = state.frame;
  return request ? <request.Frame request={request} /> : null;
}

/** A form is hidden (kept in the DOM) while its redirect runs in the widget's frame. */
const hiddenWhileRedirecting = (state: PaymentState) => state.frame !== undefined;

export interface PaymentContainerProps {
  /** The container's own classes besides wpwl-container (`wpwl-container-card`, ...). */
  readonly containerClass: string;
  /** The form's own classes besides wpwl-form (`wpwl-form-card`, ...). */
  readonly formClass: string;
  readonly formRef: Ref<HTMLFormElement>;
  /** The form's accessible name, when it has no visible title of its own to point at. */
  readonly formLabel?: { readonly labelledBy?: string; readonly label?: string };
  readonly checkout: CheckoutInfo;
  readonly options: WidgetOptions;
  readonly language: Language;
  readonly state: PaymentState;
  readonly onSubmit: (event: Event) => void;
  readonly children: ComponentChildren;
}

/**
 * The shell every payment form shares (COMPAT §4): the container in the form's language and direction, the
 * form posting to the checkout (hidden while its redirect runs in the widget's frame), the form-level message
 * first, and the 3-D Secure frame after the form.
 */
export function PaymentContainer(props: PaymentContainerProps) {
  const { checkout, options, state } = props;
  const redirecting = hiddenWhileRedirecting(state);
  return (
    <div
      class={cx('wpwl-container', props.containerClass, `wpwl-style-${options.style}`, 'wpwl-clearfix')}
      lang={props.language === 'en' ? undefined : props.language}
      dir={isRightToLeft(props.language) ? 'rtl' : undefined}
    >
      <form
        ref={props.formRef}
        class={cx('wpwl-form', props.formClass, 'wpwl-clearfix', redirecting && 'wpwl-hidden')}
        hidden={redirecting}
        action={`${checkout.gatewayUrl}${checkout.resourcePath}`}
        method="POST"
        noValidate
        aria-labelledby={props.formLabel?.labelledBy}
        aria-label={props.formLabel?.label}
        onSubmit={(event) => {
          event.preventDefault();
          props.onSubmit(event);
        }}
      >
        <PaymentMessage state={state} />
        {props.children}
      </form>
      <RedirectFrame state={state} />
    </div>
  );
}
