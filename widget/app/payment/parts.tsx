import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import { ThreeDSecureFrame } from '../redirect/ThreeDSecureFrame.tsx';
import type { PaymentState } from './flow.ts';

/** Pieces every payment form renders the same way (COMPAT §4 classes). */

export const cx = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ');

/** Form-level error: a refused payment, an expired checkout. */
export function PaymentMessage({ state }: { state: PaymentState }) {
  return state.message.value === undefined ? null : (
    <div class="wpwl-message wpwl-has-error" role="alert" aria-live="assertive">
      {state.message.value}
    </div>
  );
}

export function Spinner({ state, options, texts }: { state: PaymentState; options: WidgetOptions; texts: Texts }) {
  if (!options.spinner.enabled || !state.busy.value) return null;
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

export function PayButton({ state, texts, invalid }: { state: PaymentState; texts: Texts; invalid: boolean }) {
  const busy = state.busy.value;
  return (
    <div class="wpwl-group wpwl-group-submit wpwl-clearfix">
      <div class="wpwl-wrapper wpwl-wrapper-submit">
        <button type="submit" class={cx('wpwl-button', 'wpwl-button-pay', invalid && 'wpwl-button-error')} disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {busy ? texts.label('processing') : texts.label('submit')}
        </button>
      </div>
    </div>
  );
}

/** The widget's 3-D Secure frame, while a redirect runs in it. */
export function RedirectFrame({ state }: { state: PaymentState }) {
  const request = state.frame.value;
  return request ? <ThreeDSecureFrame request={request} /> : null;
}

/** A form is hidden (kept in the DOM) while its redirect runs in the widget's frame. */
export const hiddenWhileRedirecting = (state: PaymentState) => state.frame.value !== undefined;
