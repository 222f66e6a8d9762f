import { useEffect, useMemo, useRef } from 'preact/hooks';
import { REDIRECT_BRANDS, type RedirectFamily } from '../../shared/redirectBrands.ts';
import { cx, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { createPaymentState, loadPaymentFlow, useRerender, type PaymentState } from '../payment/state.ts';
import type { FamilyFormProps } from '../methods.ts';

/**
 * The form of a redirect brand (PAYPAL: virtualAccount; SOFORTUEBERWEISUNG, GIROPAY, IDEAL: onlineTransfer), one container
 * per brand (COMPAT §4):
 *
 *   div.wpwl-container.wpwl-container-<family>.wpwl-container-<family>-<BRAND>
 *     form.wpwl-form.wpwl-form-<family>.wpwl-form-<family>-<BRAND>
 *       div.wpwl-group.wpwl-group-brand > div.wpwl-wrapper.wpwl-wrapper-brand > div.wpwl-brand.wpwl-brand-<BRAND>[role=img]
 *       div.wpwl-group.wpwl-group-redirectInfo > p.wpwl-text.wpwl-text-redirectInfo
 *       hidden inputs paymentBrand, shopperResultUrl; the merchant's children
 *       div.wpwl-group.wpwl-group-submit > div.wpwl-wrapper.wpwl-wrapper-submit > button.wpwl-button.wpwl-button-pay
 *
 * There is no card data, so the payment is posted straight to the gateway (no hosted field); the answer is
 * handled as for cards: the provider page opens in paymentTarget (default the widget's frame).
 */

/** One redirect brand's form: `brands` holds that brand (methods.ts renders one form per redirect brand). */
export type RedirectFormProps = FamilyFormProps;

const BEFORE_SUBMIT: Readonly<Record<RedirectFamily, string>> = {
  virtualAccount: 'onBeforeSubmitVirtualAccount',
  onlineTransfer: 'onBeforeSubmitOnlineTransfer',
};

async function submitRedirectBrand(props: RedirectFormProps, family: RedirectFamily, state: PaymentState, form: HTMLFormElement, trigger: Event | undefined): Promise<void> {
  if (state.busy) return;
  const flow = await loadPaymentFlow(state, props.options, props.texts);
  await flow?.postPageForm(props, state, form, trigger, BEFORE_SUBMIT[family]);
}

export function RedirectForm(props: RedirectFormProps) {
  const { options, texts, checkout } = props;
  const brand = props.brands[0] ?? '';
  const info = REDIRECT_BRANDS[brand] ?? { label: brand, family: 'virtualAccount' as const };
  const family = info.family;
  const rerender = useRerender();
  const state = useMemo(() => createPaymentState(rerender), []);
  const formRef = useRef<HTMLFormElement>(null);
  const submit = (trigger: Event | undefined) => {
    if (formRef.current) void submitRedirectBrand(props, family, state, formRef.current, trigger);
  };

  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    props.register({ container: `wpwl-container-${family}-${brand}`, form, submit: () => submit(undefined) });
    return () => state.dispose();
  }, []);

  return (
    <PaymentContainer
      containerClass={`wpwl-container-${family} wpwl-container-${family}-${brand}`}
      formClass={`wpwl-form-${family} wpwl-form-${family}-${brand}`}
      formRef={formRef}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      <div class="wpwl-group wpwl-group-brand wpwl-clearfix">
        <div class="wpwl-wrapper wpwl-wrapper-brand">
          <div class={cx('wpwl-brand', `wpwl-brand-${family}`, `wpwl-brand-${brand}`)} role="img" aria-label={info.label} />
        </div>
      </div>
      <div class="wpwl-group wpwl-group-redirectInfo wpwl-clearfix">
        <p class="wpwl-text wpwl-text-redirectInfo">{texts.label('redirectInfo', { brand: info.label })}</p>
      </div>
      <input type="hidden" name="paymentBrand" value={brand} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      <PayButton state={state} texts={texts} checkout={checkout} invalid={false} />
    </PaymentContainer>
  );
}
