import { useSignal } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import english from 'wpwl:locale/clickToPay';
import { interpolate } from '../../i18n/index.ts';
import { reportError } from '../callbacks.ts';
import { featureTexts, type FeatureText } from '../extras/texts.ts';
import { BrandLogo, cx, MerchantFields, PayButton, PaymentContainer, Spinner } from '../payment/parts.tsx';
import { postPageForm } from '../payment/pagePost.ts';
import { createPaymentState } from '../payment/state.ts';
import { randomChannel } from '../random.ts';
import type { FamilyFormProps } from '../types.ts';
import { clickToPayOptions } from './options.ts';
import { srcFor, SrcUnavailable, type SrcCard } from './src.ts';
import { addStyles } from './styles.ts';

/**
 * Click to Pay (`CLICK_TO_PAY` in data-brands, issue 35 point 6), the platform's container and form classes
 * (`wpwl-container-virtualAccount-CLICK_TO_PAY`, its e-mail input `wpwl-control-clickToPayAccessMyCards`, which pages
 * prefill in onReady). Three screens in one form, each the next step with the SRC system (src.ts):
 *
 *   e-mail ──(lookup)──► one-time code, "sent to" its masked channel ──(code)──► card list ──(pay)──► the result page
 *
 * The screens are the merchant page's, like the SRC systems' own UI components, not a frame of the gateway's: what they
 * show is the shopper's e-mail, a masked channel and masked cards (what the stored-card form shows too), and the code
 * opens only those and one choice bound to this checkout; the card's number, token and cryptogram never come here
 * (docs/decisions.md). What sends the shopper elsewhere — not enrolled, no channel for the code, too many wrong codes,
 * "add a new card", "pay another way", cancel, "not you?" — reaches onError as a `ClickToPayError` whose `event` names
 * it, as the platform's pages read it (`e.event === 'not_enrolled'`); the card form stays usable beside this one.
 */

type Step = 'email' | 'otp' | 'cards';

/** What onError's `event` says, with the English of its message (for logs). */
const EVENTS = {
  not_enrolled: 'the e-mail address has no Click to Pay profile',
  otp_channel_invalid: 'the Click to Pay profile has no channel for a one-time code',
  otp_invalid: 'the one-time code was wrong',
  otp_retries_exceeded: 'too many wrong one-time codes: Click to Pay is locked for this payment',
  add_new_card: 'the shopper chose to add a new card',
  pay_another_way: 'the shopper chose to pay another way',
  cancel: 'the shopper cancelled Click to Pay',
  sign_out: 'the shopper chose another e-mail address ("not you?")',
  unavailable: 'Click to Pay could not be reached',
} as const;

export type ClickToPayEvent = keyof typeof EVENTS;

const BRAND = 'CLICK_TO_PAY';
export const CONTAINER = `wpwl-container-virtualAccount-${BRAND}`;
/** The networks whose cards Click to Pay holds here, shown in its mark. */
const NETWORKS = ['VISA', 'MASTER', 'AMEX'];
const NETWORK_NAMES: Readonly<Record<string, string>> = { VISA: 'Visa', MASTER: 'Mastercard', AMEX: 'American Express' };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;

export function ClickToPayForm(props: FamilyFormProps) {
  const { options, checkout } = props;
  addStyles();
  const settings = useMemo(() => clickToPayOptions(options.raw.clickToPay), []);
  const src = useMemo(() => srcFor(checkout), []);
  const state = useMemo(createPaymentState, []);
  const texts = useSignal<FeatureText>((key, values) => featureFallback(key, values, options.labels));
  const step = useSignal<Step>('email');
  const working = useSignal(false);
  const notice = useSignal<string | undefined>(undefined);
  const fieldError = useSignal<string | undefined>(undefined);
  const channel = useSignal('');
  const cards = useSignal<readonly SrcCard[]>([]);
  const selected = useSignal<string | undefined>(undefined);
  const learnMore = useSignal(false);
  const formRef = useRef<HTMLFormElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const otpRef = useRef<HTMLInputElement>(null);
  const stepRef = useRef<HTMLDivElement>(null);
  const prefix = useMemo(() => `wpwl-${randomChannel().slice(0, 8)}`, []);
  const id = (suffix: string) => `${prefix}-${suffix}`;
  const t = texts.value;

  const tell = (event: ClickToPayEvent) => reportError(options, { name: 'ClickToPayError', message: `Click to Pay: ${EVENTS[event]}`, brand: BRAND, event });
  const backToEmail = (event: ClickToPayEvent, message?: string) => {
    step.value = 'email';
    cards.value = [];
    selected.value = undefined;
    notice.value = message;
    fieldError.value = undefined;
    tell(event);
  };
  /** A step of the SRC system, the form busy meanwhile; what cannot be reached is said once and reported. */
  const run = async (work: () => Promise<void>) => {
    if (working.value || state.busy) return;
    working.value = true;
    notice.value = undefined;
    try {
      await work();
    } catch (error) {
      if (!(error instanceof SrcUnavailable)) throw error;
      notice.value = texts.value('unavailable');
      reportError(options, { name: 'ClickToPayError', message: `Click to Pay: ${EVENTS.unavailable}: ${error.message}`, brand: BRAND, event: 'unavailable' });
    } finally {
      working.value = false;
    }
  };

  const lookUp = () =>
    run(async () => {
      // The page may have prefilled the input (jQuery's val() in onReady): the DOM holds the value.
      const email = emailRef.current?.value.trim() ?? '';
      if (!EMAIL.test(email)) {
        fieldError.value = texts.value('emailError');
        emailRef.current?.focus();
        return;
      }
      fieldError.value = undefined;
      const found = await src.lookUp(email);
      if (found.status === 'NOT_ENROLLED') return backToEmail('not_enrolled', texts.value('notEnrolled'));
      if (found.status === 'OTP_CHANNEL_INVALID') return backToEmail('otp_channel_invalid', texts.value('channelInvalid'));
      channel.value = found.channel.masked;
      step.value = 'otp';
    });

  const validate = () =>
    run(async () => {
      const otp = otpRef.current?.value.replace(/\s/g, '') ?? '';
      if (!/^\d{6}$/.test(otp)) {
        fieldError.value = texts.value('otpError');
        otpRef.current?.focus();
        return;
      }
      fieldError.value = undefined;
      const validated = await src.validate(otp);
      if (validated.status === 'LOCKED') return backToEmail('otp_retries_exceeded', texts.value('otpLocked'));
      if (validated.status === 'OTP_INVALID') {
        fieldError.value = texts.value('otpInvalid', { count: String(validated.attemptsLeft ?? '') });
        if (otpRef.current) otpRef.current.value = '';
        otpRef.current?.focus();
        tell('otp_invalid');
        return;
      }
      cards.value = validated.cards;
      selected.value = validated.cards.find((card) => NETWORKS.includes(card.brand))?.id;
      step.value = 'cards';
    });

  const pay = (trigger: Event | undefined) =>
    run(async () => {
      const form = formRef.current;
      const cardId = selected.value;
      if (!form || cardId === undefined) return;
      const correlationId = await src.checkout(cardId);
      await postPageForm(props, state, form, trigger, 'onBeforeSubmitVirtualAccount', (element, formFields) => [
        ...formFields(element).filter(([name]) => !name.startsWith('wpwl-')),
        ['clickToPay.correlationId', correlationId],
      ]);
    });

  const submit = (trigger: Event | undefined) => {
    if (step.value === 'email') void lookUp();
    else if (step.value === 'otp') void validate();
    else void pay(trigger);
  };

  useEffect(() => {
    const element = formRef.current;
    if (element) props.register({ container: CONTAINER, form: element, submit: () => submit(undefined) });
    let current = true;
    void featureTexts('clickToPay', english, props.language, checkout.staticBaseUrl, options.labels).then((loaded) => {
      if (current) texts.value = loaded;
    });
    return () => {
      current = false;
      state.dispose();
    };
  }, []);

  // Each new screen takes the focus to its first control, so a keyboard or screen reader follows the steps.
  const shown = step.value;
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    if (shown === 'email') emailRef.current?.focus();
    else if (shown === 'otp') otpRef.current?.focus();
    else stepRef.current?.querySelector<HTMLElement>('.wpwl-clickToPay-cards input:checked, .wpwl-clickToPay-cards input')?.focus();
  }, [shown]);

  const busy = working.value && !(shown === 'otp' && settings.otpScreen.hideLoader);
  return (
    <PaymentContainer
      containerClass={`wpwl-container-virtualAccount ${CONTAINER}`}
      formClass={`wpwl-form-virtualAccount wpwl-form-virtualAccount-${BRAND} wpwl-form-has-inputs wpwl-clickToPay-step-${shown}`}
      formRef={formRef}
      formLabel={{ label: 'Click to Pay' }}
      checkout={checkout}
      options={options}
      language={props.language}
      state={state}
      onSubmit={submit}
    >
      <div class="wpwl-group wpwl-group-brand wpwl-clearfix">
        <div class="wpwl-wrapper wpwl-wrapper-brand">
          <SrcMark {...props} settings={settings} />
          <button type="button" class="wpwl-clickToPay-link" aria-expanded={learnMore.value ? 'true' : 'false'} aria-controls={id('learnMore')} onClick={() => (learnMore.value = !learnMore.value)}>
            {t('learnMore')}
          </button>
        </div>
        {learnMore.value && (
          <div class="wpwl-clickToPay-learnMore" id={id('learnMore')}>
            <p class="wpwl-text">{t('learnMoreText')}</p>
            {settings.learnMore.displayOkButton && (
              <button type="button" class="wpwl-button wpwl-clickToPay-secondary" onClick={() => (learnMore.value = false)}>
                {t('gotIt')}
              </button>
            )}
            {settings.learnMore.displayCloseButton && (
              <button type="button" class="wpwl-clickToPay-link" onClick={() => (learnMore.value = false)}>
                {t('close')}
              </button>
            )}
          </div>
        )}
      </div>
      {notice.value !== undefined && (
        <div class="wpwl-clickToPay-notice" role="alert">
          {notice.value}
        </div>
      )}
      <div ref={stepRef} class="wpwl-clickToPay-screen">
        {/* The e-mail input stays in the form on every screen (hidden after the first): a page's prefill is kept. */}
        <div class="wpwl-group wpwl-group-clickToPayAccessMyCards wpwl-clearfix" hidden={shown !== 'email'}>
          <p class="wpwl-text wpwl-text-clickToPay">{t('intro')}</p>
          {options.showLabels && (
            <label class="wpwl-label wpwl-label-clickToPayAccessMyCards" for={id('email')}>
              {t('email')}
            </label>
          )}
          <div class="wpwl-wrapper wpwl-wrapper-clickToPayAccessMyCards">
            <input
              ref={emailRef}
              id={id('email')}
              class={cx('wpwl-control', 'wpwl-control-clickToPayAccessMyCards', shown === 'email' && fieldError.value !== undefined && 'wpwl-has-error')}
              type="email"
              autocomplete="email"
              inputmode="email"
              aria-label={options.showLabels ? undefined : t('email')}
              aria-invalid={shown === 'email' && fieldError.value !== undefined ? 'true' : undefined}
              aria-describedby={shown === 'email' && fieldError.value !== undefined ? id('hint') : undefined}
              placeholder={options.showPlaceholders ? 'name@example.com' : undefined}
              disabled={shown !== 'email'}
            />
            {shown === 'email' && fieldError.value !== undefined && <FieldHint id={id('hint')} field="clickToPayAccessMyCards" text={fieldError.value} />}
          </div>
          {shown === 'email' && (
            <button type="submit" class="wpwl-button wpwl-button-clickToPay" disabled={busy}>
              {t('accessCards')}
            </button>
          )}
        </div>
        {shown === 'otp' && (
          <div class="wpwl-group wpwl-group-clickToPayOtp wpwl-clearfix">
            {settings.otpScreen.displayHeader && <div class="wpwl-clickToPay-header">{t('otpHeader')}</div>}
            <p class="wpwl-text" id={id('sent')}>
              {t('otpSent', { destination: channel.value })}
            </p>
            <label class="wpwl-label wpwl-label-clickToPayOtp" for={id('otp')}>
              {t('otp')}
            </label>
            <div class="wpwl-wrapper wpwl-wrapper-clickToPayOtp">
              <input
                ref={otpRef}
                id={id('otp')}
                class={cx('wpwl-control', 'wpwl-control-clickToPayOtp', fieldError.value !== undefined && 'wpwl-has-error')}
                type="text"
                inputmode="numeric"
                autocomplete="one-time-code"
                maxLength={6}
                aria-invalid={fieldError.value !== undefined ? 'true' : undefined}
                aria-describedby={fieldError.value !== undefined ? `${id('sent')} ${id('hint')}` : id('sent')}
                onInput={(event) => {
                  if (settings.otpScreen.autoSubmit && /^\d{6}$/.test((event.currentTarget as HTMLInputElement).value)) void validate();
                }}
              />
              {fieldError.value !== undefined && <FieldHint id={id('hint')} field="clickToPayOtp" text={fieldError.value} />}
            </div>
            {settings.otpScreen.displayRememberMe && (
              <label class="wpwl-clickToPay-check">
                <input type="checkbox" class="wpwl-control-clickToPayRememberMe" /> {t('rememberMe')}
              </label>
            )}
            <button type="submit" class="wpwl-button wpwl-button-clickToPay" disabled={busy}>
              {t('continue')}
            </button>
            <div class="wpwl-clickToPay-actions">
              {settings.otpScreen.displayPayAnotherWay && (
                <button type="button" class="wpwl-clickToPay-link" onClick={() => backToEmail('pay_another_way')}>
                  {t('payAnotherWay')}
                </button>
              )}
              {settings.otpScreen.displayCancelOption && (
                <button type="button" class="wpwl-clickToPay-link" onClick={() => backToEmail('cancel')}>
                  {t('cancel')}
                </button>
              )}
            </div>
          </div>
        )}
        {shown === 'cards' && (
          <div class="wpwl-group wpwl-group-clickToPayCards wpwl-clearfix">
            {settings.cardList.displayHeader && (
              <div class="wpwl-clickToPay-header" id={id('cards')}>
                {t('cardsHeader')}
              </div>
            )}
            <div
              class={cx('wpwl-clickToPay-cards', settings.cardList.cardSelectionType === 'gridView' && 'wpwl-clickToPay-grid')}
              role="radiogroup"
              aria-labelledby={settings.cardList.displayHeader ? id('cards') : undefined}
              aria-label={settings.cardList.displayHeader ? undefined : t('cardsHeader')}
            >
              {cards.value.map((card, index) => {
                const accepted = NETWORKS.includes(card.brand);
                return (
                  <label key={card.id} class={cx('wpwl-clickToPay-card', selected.value === card.id && 'wpwl-selected', !accepted && 'wpwl-clickToPay-unaccepted')}>
                    <input type="radio" name={`wpwl-${prefix}-card`} value={card.id} checked={selected.value === card.id} disabled={!accepted} onChange={() => (selected.value = card.id)} />
                    <BrandLogo checkout={checkout} brand={card.brand} label={NETWORK_NAMES[card.brand] ?? card.brand} />
                    <span class="wpwl-clickToPay-cardText">
                      <span class="wpwl-clickToPay-cardName">
                        {card.descriptor} ••••{"\u00a0"}{card.last4}
                      </span>
                      <span class="wpwl-clickToPay-cardExpiry">
                        {accepted ? t('cardExpiry', { expiry: `${card.expiryMonth}/${card.expiryYear.slice(-2)}` }) : settings.cardList.unacceptedCard || t('unaccepted')}
                      </span>
                    </span>
                    {settings.cardList.displayPreferredCard && index === 0 && <span class="wpwl-clickToPay-preferred">★</span>}
                  </label>
                );
              })}
            </div>
            <div class="wpwl-clickToPay-actions">
              {settings.cardList.displayAddCard && (
                <button type="button" class="wpwl-clickToPay-link" onClick={() => backToEmail('add_new_card')}>
                  {t('addCard')}
                </button>
              )}
              {settings.cardList.displaySignOut && (
                <button type="button" class="wpwl-clickToPay-link" onClick={() => backToEmail('sign_out')}>
                  {t('signOut')}
                </button>
              )}
              {settings.cardList.displayCancelOption && (
                <button type="button" class="wpwl-clickToPay-link" onClick={() => backToEmail('cancel')}>
                  {t('cancel')}
                </button>
              )}
            </div>
          </div>
        )}
      </div>
      <input type="hidden" name="paymentBrand" value={BRAND} />
      <input type="hidden" name="shopperResultUrl" value={props.shopperResultUrl} />
      <MerchantFields nodes={props.merchantChildren} />
      {busy && !state.busy && options.spinner.enabled && <div class="wpwl-spinner" role="status" aria-label={props.texts.label('processing')} />}
      <Spinner state={state} options={options} texts={props.texts} />
      {shown === 'cards' && <PayButton state={state} texts={props.texts} checkout={checkout} invalid={selected.value === undefined} />}
    </PaymentContainer>
  );
}

function FieldHint({ id, field, text }: { id: string; field: string; text: string }) {
  return (
    <div class={`wpwl-hint wpwl-hint-${field}Error`} id={id} role="alert">
      {text}
    </div>
  );
}

/** The English the chunk bundles, the merchant's labels over it, until the language's texts arrive. */
function featureFallback(key: string, values: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>>): string {
  return interpolate(labels[key] ?? english[key] ?? key, values);
}

/** The Click to Pay mark and the networks' logos (`srcMark`: its size, a dark theme). */
function SrcMark({ checkout, settings }: FamilyFormProps & { settings: ReturnType<typeof clickToPayOptions> }) {
  const { width, height, darkTheme } = settings.srcMark;
  return (
    <div
      class={cx('wpwl-brand', 'wpwl-brand-virtualAccount', `wpwl-brand-${BRAND}`, 'wpwl-clickToPay-mark', darkTheme && 'wpwl-clickToPay-dark')}
      role="img"
      aria-label={`Click to Pay: ${NETWORKS.map((network) => NETWORK_NAMES[network]).join(', ')}`}
      ref={(element) => {
        // CSSOM, not a style attribute: allowed under a strict CSP.
        if (element && width) element.style.setProperty('width', width);
        if (element && height) element.style.setProperty('height', height);
      }}
    >
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
        <path d="M5 6l6 6-6 6M13 6l6 6-6 6" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round" />
      </svg>
      <span class="wpwl-clickToPay-markText" aria-hidden="true">
        Click to Pay
      </span>
      {NETWORKS.map((network) => (
        <BrandLogo key={network} checkout={checkout} brand={network} label="" />
      ))}
    </div>
  );
}
