import { useEffect, useMemo, useRef } from 'preact/hooks';
import english from 'wpwl:english/registration';
import { addEnglish } from '../../i18n/index.ts';
import type { FieldMessage, FieldState } from '../../shared/protocol.ts';
import { CARD_BRANDS } from '../brands.ts';
import { invoke } from '../callbacks.ts';
import { attachHostedField, postableStyles, type HostedField } from '../hostedField.ts';
import { randomChannel } from '../random.ts';
import { BrandLogo, cx, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { createPaymentState, signalFields } from '../payment/state.ts';
import type { PaymentFormProps } from '../types.ts';
import { cvvLengthOf, expiryOf, type StoredCard } from './stored.ts';

// The English of the stored cards' texts (the entry bundles the card form's).
addEnglish(english);

// Read here, not in the entry: only a checkout with stored cards loads this chunk.
export { storedCardsOf } from './stored.ts';

/** The stored cards' form as onReady lists it: its container and the cards' brands. */
export const readyForm = (cards: readonly StoredCard[]) => ({
  container: 'wpwl-container-registration',
  brands: [...new Set(cards.map((card) => card.brand).filter(Boolean))],
});
import { submitOneClick } from './submit.ts';

/**
 * The one-click form: the checkout's stored cards, above the other forms (COMPAT §4).
 *
 *   div#wpwl-registrations (the host)
 *     div.wpwl-container.wpwl-container-registration
 *       form.wpwl-form.wpwl-form-registrations[action=<gateway>/v1/checkouts/<id>/payment]
 *         div.wpwl-label.wpwl-label-registrations                         "Your stored cards"
 *         div.wpwl-group.wpwl-group-registration[.wpwl-selected]          one per stored card
 *           label.wpwl-registration
 *             div.wpwl-wrapper.wpwl-wrapper-registration.wpwl-wrapper-registration-registrationId > input[type=radio][name=registrationId]
 *             div.wpwl-wrapper-registration-brand > div.wpwl-brand.wpwl-brand-card.wpwl-brand-<BRAND>[role=img]
 *             div.wpwl-wrapper-registration-number / -expiry / -holder
 *           div.wpwl-wrapper.wpwl-wrapper-registration.wpwl-wrapper-registration-cvv     (registrations.requireCvv; selected card only)
 *             iframe.wpwl-control.wpwl-control-cvv, div.wpwl-hint.wpwl-hint-cvvError
 *         hidden inputs paymentBrand (the selected card's), shopperResultUrl; the merchant's children
 *         div.wpwl-group.wpwl-group-submit > ... button.wpwl-button.wpwl-button-pay
 *         div.wpwl-group.wpwl-group-showOtherPaymentMethods > button[data-action=show-initial-forms]  (hideInitialPaymentForms)
 *
 * Each stored card has its own CVV hosted field (the one of the selected card is shown), which posts the
 * payment itself: the code stays inside the gateway's frames.
 */

export interface RegistrationFormProps extends PaymentFormProps {
  readonly cards: readonly StoredCard[];
  /**
   * The hosts of the other forms, hidden by registrations.hideInitialPaymentForms until the shopper asks for them;
   * undefined when none are hidden.
   */
  readonly hiddenForms: readonly HTMLElement[] | undefined;
}

/** Shows the hidden forms; the button that was clicked is gone: focus goes to the first control of the forms shown. */
function showForms(hosts: readonly HTMLElement[]): void {
  for (const host of hosts) {
    host.hidden = false;
    host.classList.remove('wpwl-hidden');
  }
  hosts[0]?.querySelector<HTMLElement>(':is(select, iframe, input:not([type="hidden"]), button):not([hidden])')?.focus();
}

export function RegistrationForm(props: RegistrationFormProps) {
  const { checkout, cards, options, texts } = props;
  const requireCvv = options.registrations.requireCvv;
  const model = useMemo(
    () =>
      signalFields({
        selected: cards[0]?.id ?? '',
        cvvStates: {} as Readonly<Record<string, FieldState>>,
        cvvErrorShown: false,
        initialFormsHidden: props.hiddenForms !== undefined,
      }),
    [],
  );
  /** The stored cards whose CVV the shopper typed in: only the selected one's error shows when left (calm errors). */
  const edited = useMemo(() => new Set<string>(), []);
  const state = useMemo(createPaymentState, []);
  const prefix = useMemo(() => `wpwl-${randomChannel().slice(0, 8)}`, []);
  const formRef = useRef<HTMLFormElement>(null);
  const frames = useRef(new Map<string, HTMLIFrameElement>());
  const fields = useRef(new Map<string, HostedField>());

  const selected = model.selected;
  const selectedCard = cards.find((card) => card.id === selected);
  const cvvValid = (id: string) => model.cvvStates[id]?.valid === true;
  const cvvError = requireCvv && options.validation && model.cvvErrorShown && !cvvValid(selected);

  const submit = (trigger: Event | undefined) => {
    const form = formRef.current;
    if (!form) return;
    const cvv = requireCvv ? fields.current.get(model.selected) : undefined;
    if (requireCvv && !cvv) return;
    void submitOneClick({
      form,
      trigger,
      options,
      texts,
      checkout,
      shopperResultUrl: props.shopperResultUrl,
      state,
      cvv,
      cvvValid: () => cvvValid(model.selected),
      showCvvError: () => {
        model.set({ cvvErrorShown: true });
        if (!cvvValid(model.selected)) cvv?.send({ type: 'focus' });
      },
    });
  };

  const select = (id: string) => {
    if (id === model.selected) return;
    model.set({ selected: id, cvvErrorShown: false });
  };

  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    const styles = options.iframeStyles as Record<string, unknown>;
    for (const card of requireCvv ? cards : []) {
      const iframe = frames.current.get(card.id);
      if (!iframe) continue;
      const onMessage = (message: FieldMessage) => {
        switch (message.type) {
          case 'state':
            if (!message.empty) edited.add(card.id);
            model.set({ cvvStates: { ...model.cvvStates, [card.id]: message } });
            // Sent when the CVV was left (a submit shows its error itself).
            if (message.showErrors && card.id === model.selected && edited.has(card.id)) model.set({ cvvErrorShown: true });
            break;
          case 'blur':
            invoke(options, 'onBlurSecurityCode', form, cvvValid(card.id));
            break;
          default:
            break;
        }
      };
      fields.current.set(
        card.id,
        attachHostedField(iframe, {
          field: 'cvv',
          form: 'registration',
          channel: randomChannel(),
          staticBaseUrl: checkout.staticBaseUrl,
          options,
          submit: () => submit(undefined),
          onMessage,
          config: () => ({
            field: 'cvv',
            label: texts.label('cvv'),
            placeholder: options.showPlaceholders ? texts.label('cvvPlaceholder') : '',
            styles: postableStyles(styles['cvv']),
            placeholderStyles: postableStyles(styles['cvv-placeholder']),
            autofocus: false,
            mask: options.maskCvv,
            cvvLength: cvvLengthOf(card),
            required: true,
          }),
        }),
      );
    }
    props.register({ container: 'wpwl-container-registration', form, submit: () => submit(undefined) });
    return () => {
      for (const field of fields.current.values()) field.destroy();
      state.dispose();
    };
  }, []);

  const hintId = `${prefix}-hint-cvv`;
  const titleId = `${prefix}-title`;

  return (
    <PaymentContainer
      containerClass={'wpwl-container-registration'}
      formClass={'wpwl-form-registrations'}
      formRef={formRef}
      formLabel={options.showLabels ? { labelledBy: titleId } : { label: texts.label('storedCards') }}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      {options.showLabels && (
        <div class="wpwl-label wpwl-label-registrations" id={titleId}>
          {texts.label('storedCards')}
        </div>
      )}
      {cards.map((card) => {
        const isSelected = card.id === selected;
        const expiry = expiryOf(card);
        const wrapper = (name: string) => cx('wpwl-wrapper', 'wpwl-wrapper-registration', `wpwl-wrapper-registration-${name}`);
        return (
          <div key={card.id} class={cx('wpwl-group', 'wpwl-group-registration', 'wpwl-clearfix', isSelected && 'wpwl-selected')}>
            <label class="wpwl-registration">
              <div class={wrapper('registrationId')}>
                <input type="radio" name="registrationId" value={card.id} checked={isSelected} onChange={() => select(card.id)} />
              </div>
              <div class={wrapper('brand')}>
                {card.brand && (
                  <div class={cx('wpwl-brand', 'wpwl-brand-card', `wpwl-brand-${card.brand}`)} role="img" aria-label={CARD_BRANDS[card.brand]?.label ?? card.brand}>
                    <BrandLogo checkout={checkout} brand={card.brand} label="" />
                  </div>
                )}
              </div>
              <div class={wrapper('number')}>{card.last4 && texts.label('storedCardEnding', { last4: card.last4 })}</div>
              <div class={wrapper('expiry')}>{expiry && texts.label('expires', { expiry })}</div>
              <div class={wrapper('holder')}>{card.holder}</div>
            </label>
            {requireCvv && (
              <div class={cx(wrapper('cvv'), !isSelected && 'wpwl-hidden')} hidden={!isSelected}>
                {options.showLabels && (
                  <div class="wpwl-label wpwl-label-cvv" aria-hidden="true">
                    {texts.label('cvv')}
                  </div>
                )}
                <iframe
                  ref={(element) => {
                    if (element) frames.current.set(card.id, element);
                  }}
                  class={cx('wpwl-control', 'wpwl-control-cvv', isSelected && cvvError && 'wpwl-has-error')}
                  dir="ltr"
                  title={texts.label('cvv')}
                  aria-describedby={isSelected && cvvError ? hintId : undefined}
                />
                {isSelected && cvvError && (
                  <div class="wpwl-hint wpwl-hint-cvvError" id={hintId} role="alert">
                    {texts.error('cvvError')}
                  </div>
                )}
              </div>
            )}
          </div>
        );
      })}
      {selectedCard?.brand && <input type="hidden" name="paymentBrand" value={selectedCard.brand} />}
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      <Spinner state={state} options={options} texts={texts} />
      <PayButton state={state} texts={texts} checkout={checkout} invalid={cvvError} />
      {model.initialFormsHidden && (
        <div class="wpwl-group wpwl-group-showOtherPaymentMethods wpwl-clearfix">
          <div class="wpwl-wrapper wpwl-wrapper-showOtherPaymentMethods">
            <button
              type="button"
              class="wpwl-button wpwl-button-showOtherPaymentMethods"
              data-action="show-initial-forms"
              onClick={() => {
                model.set({ initialFormsHidden: false });
                showForms(props.hiddenForms ?? []);
              }}
            >
              {texts.label('showOtherPaymentMethods')}
            </button>
          </div>
        </div>
      )}
    </PaymentContainer>
  );
}
