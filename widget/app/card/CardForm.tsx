import { effect } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { FieldMessage } from '../../shared/protocol.ts';
import { CARD_BRANDS } from '../brands.ts';
import { invoke } from '../callbacks.ts';
import { features } from '../features.ts';
import { attachHostedField, postableStyles, type HostedField } from '../hostedField.ts';
import { randomChannel } from '../random.ts';
import type { Texts } from '../messages.ts';
import { BrandLogo, cx, fieldGroup, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { createPaymentState } from '../payment/state.ts';
import type { PaymentFormProps } from '../types.ts';
import { formatExpiry, parseExpiry } from './expiry.ts';
import { createCardModel, type CardFieldName } from './model.ts';
import { submitCard } from './submit.ts';

export interface CardFormProps extends PaymentFormProps {
  readonly brands: readonly string[];
}

/** The card form, in the DOM shape merchant CSS and scripts select (COMPAT §4). */
export function CardForm(props: CardFormProps) {
  const { checkout, options, texts } = props;
  const model = useMemo(() => createCardModel(props.brands, options), []);
  const state = useMemo(createPaymentState, []);
  const channel = useMemo(randomChannel, []);
  const formRef = useRef<HTMLFormElement>(null);
  const numberFrame = useRef<HTMLIFrameElement>(null);
  const cvvFrame = useRef<HTMLIFrameElement>(null);
  const fields = useRef<{ number?: HostedField; cvv?: HostedField }>({});
  const id = (suffix: string) => `wpwl-${channel.slice(0, 8)}-${suffix}`;

  const blurCallbacks: Record<CardFieldName, string> = {
    cardNumber: 'onBlurCardNumber',
    cvv: 'onBlurSecurityCode',
    expiry: 'onBlurExpiryDate',
    cardHolder: 'onBlurCardHolder',
  };
  const blurred = (field: CardFieldName) => {
    model.leave(field);
    invoke(options, blurCallbacks[field], formRef.current, model.validity.value[field]);
  };

  const selectBrand = (brand: string) => {
    if (brand === model.selectedBrand) return;
    model.set({ selectedBrand: brand });
    invoke(options, 'onChangeBrand', formRef.current, brand);
  };

  /** Brand detection on the number's first digits: from the brand table, or from the brands `found` in the BIN list. */
  const detect = (bin: string, found?: readonly string[]) => {
    const brand = model.detect(bin, found);
    if (brand) selectBrand(brand);
    if (bin) invoke(options, 'onDetectBrand', formRef.current, model.detectedBrands, model.selectedBrand);
  };

  const submit = (trigger: Event | undefined) => {
    const form = formRef.current;
    if (!form || !fields.current.number) return;
    void submitCard({ form, trigger, model, state, options, texts, checkout, number: fields.current.number, cvv: fields.current.cvv, shopperResultUrl: props.shopperResultUrl });
  };

  useEffect(() => {
    const form = formRef.current;
    if (!form || !numberFrame.current || !cvvFrame.current) return;
    const onFieldMessage = (message: FieldMessage) => {
      const field = 'field' in message && message.field === 'cvv' ? 'cvv' : 'cardNumber';
      switch (message.type) {
        case 'state':
          // Typed in, or filled by the browser: from now on the field shows its error when left.
          if (!message.empty) model.edit(field);
          if (field === 'cvv') model.set({ cvvState: message });
          else {
            model.set({ numberState: message });
            // `brandDetectionType: 'binlist'`: the gateway's answer for these digits, if the number still has them.
            if (features.binlist && message.bin) void features.binlist(message.bin, checkout).then((found) => model.numberState?.bin === message.bin && detect(message.bin, found));
            else detect(message.bin);
          }
          // Sent when the field was left (a submit shows every error itself: submit.ts).
          if (message.showErrors) model.leave(field);
          break;
        case 'blur':
          blurred(field);
          break;
        case 'autofill':
          if (message.expiryMonth && message.expiryYear) {
            model.set({ expiry: `${message.expiryMonth} / ${message.expiryYear.slice(-2)}` });
            model.edit('expiry');
          }
          if (message.holder && model.holder === '') {
            model.set({ holder: message.holder });
            model.edit('cardHolder');
          }
          break;
        default:
          break;
      }
    };
    const styles = options.iframeStyles as Record<string, unknown>;
    const common = { channel, staticBaseUrl: checkout.staticBaseUrl, options, submit: () => submit(undefined), onMessage: onFieldMessage };
    fields.current.number = attachHostedField(numberFrame.current, {
      ...common,
      field: 'cardNumber',
      config: () => ({
        field: 'cardNumber',
        label: texts.label('cardNumber'),
        placeholder: options.showPlaceholders ? texts.label('cardNumberPlaceholder') : '',
        styles: postableStyles(styles['card-number']),
        placeholderStyles: postableStyles(styles['card-number-placeholder']),
        autofocus: options.autofocus === 'card.number',
        mask: false,
        format: options.numberFormatting,
        cvvLength: model.cvvLength.value,
        required: true,
      }),
    });
    fields.current.cvv = attachHostedField(cvvFrame.current, {
      ...common,
      field: 'cvv',
      config: () => ({
        field: 'cvv',
        label: texts.label('cvv'),
        placeholder: options.showPlaceholders ? texts.label('cvvPlaceholder') : '',
        styles: postableStyles(styles['cvv']),
        placeholderStyles: postableStyles(styles['cvv-placeholder']),
        autofocus: options.autofocus === 'card.cvv',
        mask: options.maskCvv,
        cvvLength: model.cvvLength.value,
        required: model.cvvRequired,
      }),
    });
    // The hosted fields follow the selected brand and its CVV length, which the number can change too (a co-badged
    // card takes its network's; a brand without a CVV has length 0): an effect, told again when either changes.
    const stopTelling = effect(() => {
      const message = { type: 'brand', brand: model.selectedBrand, cvvLength: model.cvvLength.value } as const;
      fields.current.cvv?.send(message);
      fields.current.number?.send(message);
    });
    props.register({ container: 'wpwl-container-card', form, submit: () => submit(undefined) });
    return () => {
      stopTelling();
      fields.current.number?.destroy();
      fields.current.cvv?.destroy();
      state.dispose();
    };
  }, []);

  const group = (field: string, label: string, control: preact.ComponentChildren, error?: string) =>
    fieldGroup(field, label, control, error, { showLabels: options.showLabels, id });
  const errorOf = (field: CardFieldName, key: Parameters<Texts['error']>[0]) => (model.hasError(field) ? texts.error(key) : undefined);
  const invalid = (field: CardFieldName) => model.hasError(field);
  const describedBy = (field: CardFieldName) => (invalid(field) ? id(`hint-${field}`) : undefined);
  /** What the expiry and holder inputs have alike, as DirectDebitForm's controls. */
  const controlProps = (field: 'expiry' | 'cardHolder', label: string) => ({
    class: cx('wpwl-control', `wpwl-control-${field}`, invalid(field) && 'wpwl-has-error'),
    'aria-labelledby': options.showLabels ? id(`label-${field}`) : undefined,
    'aria-label': options.showLabels ? undefined : label,
    'aria-invalid': invalid(field) ? ('true' as const) : undefined,
    'aria-describedby': describedBy(field),
    onBlur: () => blurred(field),
  });
  const parsedExpiry = parseExpiry(model.expiry);
  const brand = model.selectedBrand;
  const detected = model.detectedBrands;
  /**
   * With brand detection, the brand is shown (the offered brands' logos, then the detected one's), not asked for: the
   * select stays in the form, hidden, unless the shopper must choose — a co-badged card (several detected), or an
   * offered brand that is never detected (one living on its networks' cards only).
   */
  const selectHidden = options.brandDetection && detected.length < 2 && model.brands.every((code) => CARD_BRANDS[code]?.patterns);

  return (
    <PaymentContainer
      containerClass={'wpwl-container-card'}
      formClass={'wpwl-form-card'}
      formRef={formRef}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      {group(
        'brand',
        texts.label('brand'),
        <>
          <select
            class={cx('wpwl-control', 'wpwl-control-brand', selectHidden && 'wpwl-hidden')}
            hidden={selectHidden}
            name="paymentBrand"
            aria-labelledby={options.showLabels ? id('label-brand') : undefined}
            aria-label={options.showLabels ? undefined : texts.label('brand')}
            value={brand}
            onChange={(event) => selectBrand((event.currentTarget as HTMLSelectElement).value)}
          >
            {model.brands.map((code) => (
              <option value={code} key={code}>
                {CARD_BRANDS[code]?.label ?? code}
              </option>
            ))}
          </select>
          <div class={cx('wpwl-brand', 'wpwl-brand-card', `wpwl-brand-${brand}`)}>
            {(selectHidden && detected.length === 0 ? model.brands : [brand]).map((code) => (
              <BrandLogo key={code} checkout={checkout} brand={code} label={CARD_BRANDS[code]?.label ?? code} />
            ))}
          </div>
        </>,
      )}
      {group(
        'cardNumber',
        texts.label('cardNumber'),
        <>
          <iframe
            ref={numberFrame}
            class={cx('wpwl-control', 'wpwl-control-cardNumber', invalid('cardNumber') && 'wpwl-has-error')}
            dir="ltr"
            title={texts.label('cardNumber')}
            aria-describedby={describedBy('cardNumber')}
          />
          {detected.length > 0 && (
            <div class={cx('wpwl-brand', 'wpwl-brand-inline', `wpwl-brand-${brand}`)}>
              <BrandLogo checkout={checkout} brand={brand} label={CARD_BRANDS[brand]?.label ?? brand} />
            </div>
          )}
        </>,
        errorOf('cardNumber', 'cardNumberError'),
      )}
      {group(
        'expiry',
        texts.label('expiryDate'),
        <input
          {...controlProps('expiry', texts.label('expiryDate'))}
          dir="ltr"
          name="card.expiry"
          type="text"
          inputMode="numeric"
          autocomplete="cc-exp"
          placeholder={options.showPlaceholders ? texts.label('mmyy') : undefined}
          autofocus={options.autofocus === 'card.expiry'}
          value={model.expiry}
          onInput={(event) => {
            const input = event.currentTarget as HTMLInputElement;
            const deleting = (event as InputEvent).inputType?.startsWith('delete') ?? false;
            model.set({ expiry: formatExpiry(input.value, deleting) });
            model.edit('expiry');
            input.value = model.expiry;
          }}
        />,
        errorOf('expiry', 'expiryMonthError'),
      )}
      {group(
        'cardHolder',
        texts.label('cardHolder'),
        <input
          {...controlProps('cardHolder', texts.label('cardHolder'))}
          name="card.holder"
          type="text"
          autocomplete="cc-name"
          placeholder={options.showPlaceholders ? texts.label('cardHolderPlaceholder') : undefined}
          autofocus={options.autofocus === 'card.holder'}
          value={model.holder}
          onInput={(event) => {
            model.set({ holder: (event.currentTarget as HTMLInputElement).value });
            model.edit('cardHolder');
          }}
        />,
        errorOf('cardHolder', 'cardHolderError'),
      )}
      {group(
        'cvv',
        texts.label('cvv'),
        <>
          <iframe
            ref={cvvFrame}
            class={cx('wpwl-control', 'wpwl-control-cvv', invalid('cvv') && 'wpwl-has-error')}
            dir="ltr"
            title={texts.label('cvv')}
            aria-describedby={describedBy('cvv')}
          />
          {options.showCVVHint && (
            <div class="wpwl-hint wpwl-hint-cvv">{texts.label(brand === 'AMEX' ? 'cvvHintAmex' : 'cvvHint')}</div>
          )}
        </>,
        errorOf('cvv', 'cvvError'),
      )}
      {features.BillingFields && <features.BillingFields id={id} form={model} />}
      <input type="hidden" name="card.expiryMonth" value={parsedExpiry?.month ?? ''} />
      <input type="hidden" name="card.expiryYear" value={parsedExpiry?.year ?? ''} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      <PayButton state={state} texts={texts} checkout={checkout} invalid={options.validation && model.anyShown() && !model.formValid.value} />
    </PaymentContainer>
  );
}
