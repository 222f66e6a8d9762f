import { useSignal } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { asyncBrand, paysOnProviderPage, type AsyncBrand, type AsyncForm } from '../../shared/asyncBrands.ts';
import type { LabelKey } from '../messages.ts';
import { BrandLogo, cx, fieldGroup, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { createPaymentState } from '../payment/state.ts';
import { postPageForm } from '../payment/pagePost.ts';
import { randomChannel } from '../random.ts';
import type { FamilyFormProps, PaymentState } from '../types.ts';
import { countryChoice } from './country.ts';

/**
 * The form of an asynchronous brand (shared/asyncBrands.ts), one container per brand (COMPAT §4), by the brand's form:
 * onlineTransfer (SOFORTUEBERWEISUNG, GIROPAY, IDEAL, EPS, BOLETO...), virtualAccount (PAYPAL, KLARNA_*, PAYSAFECARD,
 * SIBS_MULTIBANCO...) or prepayment (PREPAYMENT):
 *
 *   div.wpwl-container.wpwl-container-<form>.wpwl-container-<form>-<BRAND>
 *     form.wpwl-form.wpwl-form-<form>.wpwl-form-<form>-<BRAND>[.wpwl-form-has-inputs]
 *       div.wpwl-group.wpwl-group-brand > div.wpwl-wrapper.wpwl-wrapper-brand > div.wpwl-brand.wpwl-brand-<form>.wpwl-brand-<BRAND>[role=img]
 *       (a brand that needs the bank's country and serves several:)
 *       div.wpwl-group.wpwl-group-country > div.wpwl-label.wpwl-label-country,
 *           div.wpwl-wrapper.wpwl-wrapper-country > select.wpwl-control.wpwl-control-country[name=bankAccount.country]
 *       div.wpwl-group.wpwl-group-<info> > p.wpwl-text.wpwl-text-<info>   (redirectInfo, cashVoucherInfo, prepaymentInfo)
 *       hidden inputs paymentBrand, shopperResultUrl (bankAccount.country when the brand serves one country); the merchant's children
 *       div.wpwl-group.wpwl-group-submit > div.wpwl-wrapper.wpwl-wrapper-submit > button.wpwl-button.wpwl-button-pay
 *
 * Everything else a brand requires (the shopper's name, billing address, tax id...) comes from the merchant's server on
 * the checkout; the gateway says what is missing, shown as the form's message. There is no card data, so the payment is
 * posted straight to the gateway (no hosted field); the answer is handled as for cards: the provider's page, or a cash
 * voucher's printable page, opens in paymentTarget (default the widget's frame), and a prepayment, pending without a
 * redirect, goes straight to the result page with the bank details the merchant's server reads there.
 */

const BEFORE_SUBMIT: Readonly<Record<AsyncForm, string>> = {
  virtualAccount: 'onBeforeSubmitVirtualAccount',
  onlineTransfer: 'onBeforeSubmitOnlineTransfer',
  prepayment: 'onBeforeSubmitPrepayment',
};

/** What the shopper is told happens after paying: taken to the provider, given a voucher, or the bank details. */
function infoOf(brand: AsyncBrand): LabelKey {
  if (paysOnProviderPage(brand.family)) return 'redirectInfo';
  return brand.family === 'cashVoucher' ? 'cashVoucherInfo' : 'prepaymentInfo';
}

/** The container of an asynchronous brand's form (methods.ts), or undefined for a name the catalogue does not know. */
export function asyncContainer(brand: string): string | undefined {
  const form = asyncBrand(brand)?.form;
  return form && `wpwl-container-${form}-${brand}`;
}

/**
 * `inlineFlow`: the brands whose provider page stays in the form — in the widget's own frame, in place of the brand's
 * form — whatever `paymentTarget` says for the others (a page that sends redirects to `_top` keeps an inline brand's
 * shopper on the page).
 */
function inline(props: FamilyFormProps, brand: string): FamilyFormProps {
  const inlineFlow = props.options.raw.inlineFlow;
  return Array.isArray(inlineFlow) && inlineFlow.includes(brand) ? { ...props, options: { ...props.options, paymentTarget: undefined } } : props;
}

async function submitAsyncBrand(props: FamilyFormProps, form: AsyncForm, state: PaymentState, element: HTMLFormElement, trigger: Event | undefined): Promise<void> {
  if (state.busy) return;
  await postPageForm(inline(props, props.brands[0] ?? ''), state, element, trigger, BEFORE_SUBMIT[form]);
}

export function RedirectForm(props: FamilyFormProps) {
  const { options, texts, checkout } = props;
  const brand = props.brands[0] ?? '';
  const info: AsyncBrand = asyncBrand(brand) ?? { family: 'eWallet', form: 'virtualAccount', label: brand };
  const form = info.form;
  const state = useMemo(createPaymentState, []);
  const formRef = useRef<HTMLFormElement>(null);
  const prefix = useMemo(() => `wpwl-${randomChannel().slice(0, 8)}`, []);
  // The bank's country, when the brand needs it: chosen by the shopper among several, or the one it serves.
  const served = info.requires?.includes('bankAccount.country') ? (info.countries ?? []) : [];
  const choice = useMemo(() => (served.length > 1 ? countryChoice(served, options.locale, props.language) : undefined), []);
  const country = useSignal(choice?.selected);
  const submit = (trigger: Event | undefined) => {
    if (formRef.current) void submitAsyncBrand(props, form, state, formRef.current, trigger);
  };

  useEffect(() => {
    const element = formRef.current;
    if (!element) return;
    props.register({ container: `wpwl-container-${form}-${brand}`, form: element, submit: () => submit(undefined) });
    return () => state.dispose();
  }, []);

  const id = (suffix: string) => `${prefix}-${suffix}`;
  const infoKey = infoOf(info);
  return (
    <PaymentContainer
      containerClass={`wpwl-container-${form} wpwl-container-${form}-${brand}`}
      formClass={cx(`wpwl-form-${form} wpwl-form-${form}-${brand}`, choice && 'wpwl-form-has-inputs')}
      formRef={formRef}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      <div class="wpwl-group wpwl-group-brand wpwl-clearfix">
        <div class="wpwl-wrapper wpwl-wrapper-brand">
          <div class={cx('wpwl-brand', `wpwl-brand-${form}`, `wpwl-brand-${brand}`)} role="img" aria-label={info.label}>
            <BrandLogo checkout={checkout} brand={brand} label="" />
          </div>
        </div>
      </div>
      {choice &&
        fieldGroup(
          'country',
          texts.label('country'),
          <select
            class="wpwl-control wpwl-control-country"
            name="bankAccount.country"
            aria-labelledby={options.showLabels ? id('label-country') : undefined}
            aria-label={options.showLabels ? undefined : texts.label('country')}
            autofocus={options.autofocus === 'bankAccount.country'}
            value={country.value}
            onChange={(event) => {
              country.value = (event.currentTarget as HTMLSelectElement).value;
            }}
          >
            {choice.countries.map(({ code, name }) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>,
          undefined,
          { showLabels: options.showLabels, id },
        )}
      <div class={`wpwl-group wpwl-group-${infoKey} wpwl-clearfix`}>
        <p class={`wpwl-text wpwl-text-${infoKey}`}>{texts.label(infoKey, { brand: info.label })}</p>
      </div>
      <input type="hidden" name="paymentBrand" value={brand} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      {served.length === 1 && <input type="hidden" name="bankAccount.country" value={served[0]} />}
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      <PayButton state={state} texts={texts} checkout={checkout} invalid={false} />
    </PaymentContainer>
  );
}
