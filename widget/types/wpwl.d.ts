/**
 * TypeScript declarations for merchant pages that embed the payment widget (`paymentWidgets.js`): the options object
 * a page sets in the global `wpwlOptions`, its callbacks, and the global `wpwl` the widget defines.
 *
 * Served by the gateway at `/v1/static/<version>/types/wpwl.d.ts` (the version of the widget a checkout loads, the
 * same as in its `static.min.js` URL); in the gateway's repository it is `widget/types/wpwl.d.ts`. It describes what
 * pages written for this widget API send (COMPAT.md §5), every option of which the widget reads; an option a later
 * version of the platform retires would stay declared, with an `@ignored` tag saying so.
 *
 * From a plain page script, in TypeScript:
 *
 *     /// <reference path="wpwl.d.ts" />
 *     var wpwlOptions: WpwlOptions = { style: 'card', locale: 'de', onReady: function () {} };
 *
 * in JavaScript with `// @ts-check`, the same reference and a JSDoc `@type {WpwlOptions}` on the `var`; from a
 * module, `import type { WpwlOptions } from './wpwl.d.ts'` and `window.wpwlOptions = { ... }`.
 *
 * The global `wpwlOptions` is declared as `WpwlOptions` (not `| undefined`), so that a script's own
 * `var wpwlOptions: WpwlOptions = ...` is the same declaration and its object literal is checked: an unknown option
 * is an error, and the callbacks' parameters get their types. (A `var wpwlOptions = { ... }` without the type is
 * refused: TypeScript requires every declaration of a global to have the same type; annotate it.)
 */

declare global {
  /** A boolean option: also accepted as the strings `"true"` and `"false"`, which some pages use. */
  type WpwlFlag = boolean | 'true' | 'false';

  /**
   * The widget's look: `card` (the gateway's card-style stylesheet), `plain` (a simpler one), `none` (no stylesheet
   * of the gateway's: the page styles the `wpwl-*` classes itself). `logos` is accepted and shown as `card`.
   */
  type WpwlStyle = 'card' | 'plain' | 'logos' | 'none';

  /**
   * The name of a form control `autofocus` may focus when the form is shown. Another name is accepted and ignored.
   */
  type WpwlAutofocus =
    | 'card.number'
    | 'card.cvv'
    | 'card.expiry'
    | 'card.holder'
    | 'bankAccount.holder'
    | 'bankAccount.iban'
    | 'bankAccount.country'
    | (string & {});

  /**
   * Texts that replace the language's (in every language), by key. Always rendered as text, never as HTML; a key
   * the widget does not know is ignored. `{{brand}}`, `{{last4}}` and `{{expiry}}` are filled in where a text has them.
   */
  interface WpwlLabels {
    /** The brand select's label. */
    brand?: string;
    cardNumber?: string;
    expiryDate?: string;
    cardHolder?: string;
    cvv?: string;
    /** Shown by `showCVVHint` next to the CVV field. */
    cvvHint?: string;
    /** The CVV hint for American Express (four digits on the front). */
    cvvHintAmex?: string;
    /** The expiry field's placeholder, `MM / YY`. */
    mmyy?: string;
    /** The pay button. */
    submit?: string;
    cardHolderPlaceholder?: string;
    cardNumberPlaceholder?: string;
    cvvPlaceholder?: string;
    /** The pay button's text while a payment is sent. */
    processing?: string;
    /** The pay button of a registration-only checkout (the card is stored, not charged). */
    register?: string;
    /** The button of the one-click form that shows the other forms (`registrations.hideInitialPaymentForms`). */
    showOtherPaymentMethods?: string;
    /** The heading of the stored cards. */
    storedCards?: string;
    /** A stored card's name, with `{{last4}}`. */
    storedCardEnding?: string;
    /** A stored card's expiry, with `{{expiry}}`. */
    expires?: string;
    /** The one-click form's card details (CVV) heading. */
    cardDetails?: string;
    /** A provider-page brand's explanation, with `{{brand}}`. */
    redirectInfo?: string;
    /** A cash voucher brand's explanation, with `{{brand}}`. */
    cashVoucherInfo?: string;
    /** The prepayment brand's explanation. */
    prepaymentInfo?: string;
    /** The country select of a brand that needs `bankAccount.country`. */
    country?: string;
    /** The 3-D Secure frame's title (read by screen readers). */
    threeDSecureFrameTitle?: string;
    accountHolder?: string;
    accountHolderPlaceholder?: string;
    iban?: string;
    ibanPlaceholder?: string;
    /** The direct-debit method's name. */
    directDebit?: string;
    /** The SEPA mandate text under the direct-debit form. */
    directDebitMandate?: string;
    /** The card method's name in the chooser of several methods. */
    card?: string;
    /** The chooser's name ("Payment method"). */
    paymentMethod?: string;
    /** Keys of other versions of the widget API: accepted, and ignored by this widget. */
    [key: string]: string | undefined;
  }

  /** Error texts that replace the language's, by key (as `labels`). */
  interface WpwlErrorMessages {
    cardNumberError?: string;
    cvvError?: string;
    expiryMonthError?: string;
    expiryYearError?: string;
    cardHolderError?: string;
    /** A card the gateway refused as invalid before any payment. */
    invalidCard?: string;
    /** The checkout expired (30 minutes after it was created) or was already paid. */
    expiredCheckout?: string;
    /** The checkout id is unknown. */
    invalidCheckout?: string;
    /** The payment could not be sent (network). */
    communication?: string;
    accountHolderError?: string;
    ibanError?: string;
    /** Keys of other versions of the widget API: accepted, and ignored by this widget. */
    [key: string]: string | undefined;
  }

  /**
   * CSS declarations for a hosted field (the card number and CVV inputs, inside the gateway's frames), by property:
   * `font-size` or `fontSize`. Only these properties are applied: color, font-family, font-size, font-style,
   * font-variant, font-weight, letter-spacing, line-height, text-align, text-shadow, padding (and its sides), opacity,
   * transition, direction; a value with `url(`, `expression(`, `\`, `<` or `>` is dropped.
   */
  interface WpwlCssDeclarations {
    [property: string]: string;
  }

  /** Styles of the hosted fields. */
  interface WpwlIframeStyles {
    /** The typed card number. */
    'card-number'?: WpwlCssDeclarations;
    /** The card number's placeholder. */
    'card-number-placeholder'?: WpwlCssDeclarations;
    /** The typed CVV. */
    cvv?: WpwlCssDeclarations;
    /** The CVV's placeholder. */
    'cvv-placeholder'?: WpwlCssDeclarations;
  }

  /** The spinner shown while a payment is sent. */
  interface WpwlSpinner {
    /** Its colour: a CSS colour (`#0070ba`, `rgb(0, 112, 186)`, `teal`). Default: the style's. */
    color?: string;
    /** Other settings of other versions of the widget API (`lines`, `radius`, ...): accepted, and ignored. */
    [setting: string]: unknown;
  }

  /**
   * The billing address the card form's billing fields start with (`billingAddress`). Other keys (`email`...) are
   * accepted and ignored; a country the ISO 3166-1 alpha-2 list does not have leaves the country unselected.
   */
  interface WpwlBillingAddress {
    /** The country: an ISO 3166-1 alpha-2 code (`DE`), chosen in the country select. */
    country?: string;
    /** The state or region: letters, digits and dots, up to 50. */
    state?: string;
    /** The city, up to 80 characters. */
    city?: string;
    /** The postcode: up to 16 letters and digits (spaces and hyphens inside). */
    postcode?: string;
    /** The street and house number, up to 100 characters. */
    street1?: string;
    /** The second address line, up to 100 characters. */
    street2?: string;
    [field: string]: string | number | undefined;
  }

  /** Which billing address fields the shopper must fill in (`mandatoryBillingFields`); unnamed ones keep their default. */
  interface WpwlMandatoryBillingFields {
    /** @default true */
    country?: WpwlFlag;
    /** @default true */
    state?: WpwlFlag;
    /** @default true */
    city?: WpwlFlag;
    /** @default true */
    postcode?: WpwlFlag;
    /** @default true */
    street1?: WpwlFlag;
    /** @default false */
    street2?: WpwlFlag;
    [field: string]: WpwlFlag | undefined;
  }

  /** What `onSaveTransactionData` gets: the answer of the summary page's save. */
  interface WpwlSavedTransaction {
    result: { code: string; description: string };
    /** The checkout's id. */
    id: string;
    ndc: string;
    timestamp: string;
    buildNumber: string;
    paymentBrand: string;
    card: { bin: string; last4Digits: string; holder?: string; expiryMonth: string; expiryYear: string };
    billing?: { [field: string]: string };
  }

  /** A CSS length for the 3-D Secure frame: a number is pixels; a string such as `"400px"`, `"100%"`, `"60vh"`. */
  type WpwlCssLength = number | string;

  /** A form the widget rendered, as `onReady` lists them. */
  interface WpwlReadyForm {
    /**
     * Its container's class, the name `wpwl.executePayment` takes: `wpwl-container-card`,
     * `wpwl-container-registration` (stored cards), `wpwl-container-directDebit`, or
     * `wpwl-container-<onlineTransfer|virtualAccount|prepayment>-<BRAND>` (e.g. `wpwl-container-virtualAccount-PAYPAL`).
     */
    readonly container: string;
    /** The brands it pays with (brand codes, as in `data-brands`). */
    readonly brands: string[];
  }

  /**
   * What a `onBeforeSubmit*` callback receives: a jQuery-like event of the form's submit. Return `false` or call
   * `preventDefault()` to cancel the submit.
   */
  interface WpwlSubmitEvent {
    /** `submit`. */
    readonly type: string;
    /** The form being submitted (also the callback's `this`, which carries `this.$form`). */
    readonly target: HTMLFormElement;
    readonly currentTarget: HTMLFormElement;
    /** The browser's event (a submit or a click), or undefined for `wpwl.executePayment` and Enter in a hosted field. */
    readonly originalEvent: Event | undefined;
    /** Cancels the submit. */
    preventDefault(): void;
    /** Whether `preventDefault()` was called. */
    isDefaultPrevented(): boolean;
    /** Does nothing (kept for jQuery-style handlers). */
    stopPropagation(): void;
  }

  /** What `onError` receives. */
  interface WpwlError {
    /**
     * `InvalidCheckoutIdError`: the checkout id is unknown or the checkout expired (the page should create a new one).
     * `WidgetError`: something in the page or the widget failed (a callback threw, a file could not be loaded,
     * `executePayment` named no form of the page). `PciIframeSubmitError`, `PciIframeCommunicationError`: a payment
     * through the hosted fields could not be sent, or a hosted field did not answer. `ClickToPayError`: Click to Pay
     * sends the shopper elsewhere; `event` says why (see {@link WpwlClickToPayEvent}), `brand` is `CLICK_TO_PAY`.
     */
    readonly name: 'InvalidCheckoutIdError' | 'WidgetError' | 'PciIframeSubmitError' | 'PciIframeCommunicationError' | 'ClickToPayError';
    /** What happened, in English, for logs. */
    readonly message: string;
    /** The brand concerned, when there is one. */
    readonly brand?: string;
    /** The browser event concerned, when there is one; for a `ClickToPayError`, a {@link WpwlClickToPayEvent}. */
    readonly event?: unknown;
  }

  /**
   * Why Click to Pay sent the shopper elsewhere (`onError`'s `event` of a `ClickToPayError`), as pages written for the
   * platform test it (`['not_enrolled', 'add_new_card', 'otp_channel_invalid'].includes(e.event)`, then show the card form):
   * `not_enrolled` the e-mail has no Click to Pay profile; `otp_channel_invalid` the profile has no channel a code can be
   * sent to; `otp_invalid` a wrong one-time code (the form says how many tries are left); `otp_retries_exceeded` the
   * third wrong code, Click to Pay locked for this payment; `add_new_card`, `pay_another_way`, `cancel`, `sign_out`
   * ("not you?") the shopper's choice on the card list or the code's screen; `unavailable` the SRC system or the
   * gateway could not be reached. The form goes back to its e-mail screen each time.
   */
  type WpwlClickToPayEvent =
    | 'not_enrolled'
    | 'otp_channel_invalid'
    | 'otp_invalid'
    | 'otp_retries_exceeded'
    | 'add_new_card'
    | 'pay_another_way'
    | 'cancel'
    | 'sign_out'
    | 'unavailable';

  /**
   * Click to Pay's screens (`CLICK_TO_PAY` in `data-brands`), the attributes of the SRC systems' UI components the
   * platform passes on. Each value is checked for its type; a missing or wrong one takes the default.
   */
  interface WpwlClickToPay {
    /** The card list, shown once the one-time code is right. */
    cardList?: {
      /** Accepted; the card list is shown as soon as the code is right. */
      displayCardListByDefault?: WpwlFlag;
      /** A "Cancel" button (back to the e-mail; onError `cancel`). @default true */
      displayCancelOption?: WpwlFlag;
      /** An "Add a new card" button (onError `add_new_card`: the page shows its card form). @default true */
      displayAddCard?: WpwlFlag;
      /** The first card marked as the shopper's preferred one. @default false */
      displayPreferredCard?: WpwlFlag;
      /** A "Not you?" button (back to the e-mail; onError `sign_out`). @default true */
      displaySignOut?: WpwlFlag;
      /** The list's visible heading ("Your cards"); without it the list keeps it as its accessible name. @default true */
      displayHeader?: WpwlFlag;
      /** `gridView` lays the cards out in columns; anything else, one under another. @default a list */
      cardSelectionType?: string;
      /** The text of a card of a network this page does not take (shown, not selectable). @default the widget's text */
      unacceptedCard?: string;
    };
    /** The one-time code's screen. */
    otpScreen?: {
      /** Accepted; the code's screen follows the e-mail. */
      displayOtpScreenByDefault?: WpwlFlag;
      /** A "Cancel" button (onError `cancel`). @default true */
      displayCancelOption?: WpwlFlag;
      /** The screen's heading ("Confirm it's you"). @default true */
      displayHeader?: WpwlFlag;
      /** Accepted; the screen is in the form. */
      type?: string;
      /** The code is sent as soon as its six digits are typed. @default false */
      autoSubmit?: WpwlFlag;
      /** No spinner while the code is checked. @default false */
      hideLoader?: WpwlFlag;
      /** A "Remember me on this browser" box (the simulated SRC system remembers no one). @default false */
      displayRememberMe?: WpwlFlag;
      /** Accepted; no new code is sent from this screen. */
      otpResendLoading?: WpwlFlag;
      /** A "Pay another way" button (onError `pay_another_way`). @default true */
      displayPayAnotherWay?: WpwlFlag;
    };
    /** The Click to Pay mark with the networks' logos. */
    srcMark?: {
      /** Its height: pixels (`'40'`) or a CSS length. */
      height?: string | number;
      /** Its width: pixels (`'200'`) or a CSS length. */
      width?: string | number;
      /** Light on dark. @default false */
      darkTheme?: WpwlFlag;
    };
    /** What "Learn more" shows about Click to Pay. */
    learnMore?: {
      /** A "Close" button. @default true */
      displayCloseButton?: WpwlFlag;
      /** A "Got it" button. @default true */
      displayOkButton?: WpwlFlag;
    };
  }

  /**
   * `this.$form` and `this.$iframe` (COMPAT §5): a jQuery object of the element — the page's own `jQuery` when it has
   * one (then every jQuery method is there), else the widget's wrapper with the methods merchant code calls on it, as
   * declared here, with jQuery's semantics: a getter reads the first element, a setter writes every element and returns
   * the set; `[0]` is the element.
   */
  interface WpwlJquery {
    readonly [index: number]: Element;
    readonly length: number;
    find(selector: string): WpwlJquery;
    closest(selector: string): WpwlJquery;
    parent(): WpwlJquery;
    each(callback: (this: Element, index: number, element: Element) => unknown): WpwlJquery;
    val(): string | undefined;
    val(value: string): WpwlJquery;
    text(): string;
    text(value: string): WpwlJquery;
    attr(name: string): string | undefined;
    attr(name: string, value: string): WpwlJquery;
    prop(name: string): unknown;
    prop(name: string, value: unknown): WpwlJquery;
    hasClass(name: string): boolean;
    addClass(names: string): WpwlJquery;
    removeClass(names: string): WpwlJquery;
    /** A handler for the events (`'click'`, `'change input'`), or for those of the descendants matching `selector`. */
    on(events: string, handler: (this: Element, event: Event) => unknown): WpwlJquery;
    on(events: string, selector: string, handler: (this: Element, event: Event) => unknown): WpwlJquery;
    /** Appends HTML (a string, parsed as jQuery does), a node, or the elements of another set. */
    append(content: string | Node | WpwlJquery): WpwlJquery;
    remove(): WpwlJquery;
    hide(): WpwlJquery;
    show(): WpwlJquery;
    is(selector: string): boolean;
  }

  /** The `this` of the callbacks about a form: the form element, carrying `this.$form`. */
  type WpwlFormContext = HTMLFormElement & {
    /** The form as a jQuery object (see {@link WpwlJquery}): `this.$form[0]` is the form. */
    readonly $form: WpwlJquery & { readonly 0: HTMLFormElement };
  };

  /** The `this` of the hosted-field callbacks and of onLoadThreeDIframe: the iframe element, carrying `this.$iframe`. */
  type WpwlIframeCallbackContext = HTMLIFrameElement & {
    /** The iframe as a jQuery object (see {@link WpwlJquery}): `this.$iframe[0]` is the iframe. */
    readonly $iframe: WpwlJquery & { readonly 0: HTMLIFrameElement };
  };

  /**
   * The options a page sets in the global `wpwlOptions`. The widget reads them when it renders (a turn after
   * `DOMContentLoaded`, so a page may set them after the script tag), and looks each callback up when it calls it.
   * Every value is checked for its type: what does not fit is ignored and the default applies. A callback that
   * throws is reported to `onError` and the widget carries on.
   */
  /**
   * `wpwlOptions.applePay`: the platform's names, passed to Apple's `ApplePayPaymentRequest` where Apple has them.
   * Other keys of Apple's request are accepted (`lineItems`, `shippingMethods`, ...).
   */
  interface WpwlApplePay {
    /** Apple Pay JS API version. @default 3 */
    version?: number;
    /** The store's name in the sheet (64 characters at most). @default total.label, else the page's host */
    displayName?: string;
    /** The total line: its label, and its amount when there is no checkout yet (fast checkout). */
    total?: { label?: string; amount?: string };
    /** The currency when there is no checkout yet (fast checkout). @default the checkout's */
    currencyCode?: string;
    /** The merchant's country (ISO 3166-1 alpha-2). @default 'US' */
    countryCode?: string;
    /** @default ['visa', 'masterCard', 'amex'] */
    supportedNetworks?: string[];
    /** @default ['supports3DS'] */
    merchantCapabilities?: string[];
    /** The button's colour. @default 'black' */
    buttonStyle?: 'black' | 'white' | 'white-with-line';
    /** The button's kind (Apple's `-apple-pay-button-type`). @default 'plain' */
    buttonType?: string;
    /** The Apple Pay merchant identifier the gateway validates the merchant with (live). */
    merchantIdentifier?: string;
    requiredShippingContactFields?: string[];
    requiredBillingContactFields?: string[];
    /**
     * Live: the shopper chose another card in Apple's sheet; answer an `ApplePayPaymentMethodUpdate`
     * (`{ newTotal, newLineItems }`) or a promise of one. No answer (or a failure, told to onError) keeps the total.
     */
    onPaymentMethodSelected?: (paymentMethod: unknown) => object | PromiseLike<object> | void;
    /** Live: the shopper's shipping contact (redacted by Apple until they pay); answer an `ApplePayShippingContactUpdate`. */
    onShippingContactSelected?: (shippingContact: unknown) => object | PromiseLike<object> | void;
    /** Live: the shopper chose a shipping method of `shippingMethods`; answer an `ApplePayShippingMethodUpdate`. */
    onShippingMethodSelected?: (shippingMethod: unknown) => object | PromiseLike<object> | void;
    /** Live: the shopper closed Apple's sheet without paying. */
    onCancel?: () => void;
    [other: string]: unknown;
  }

  /** `wpwlOptions.googlePay`: the platform's names, passed to Google Pay's `PaymentDataRequest`. */
  interface WpwlGooglePay {
    /** The merchant's entity id at the gateway (Google Pay's tokenization `gatewayMerchantId`). */
    gatewayMerchantId?: string;
    /** The Google merchant id Google issued for the site (required by Google in production). */
    merchantId?: string;
    /** The merchant's name in the sheet. @default the page's host */
    merchantName?: string;
    /** Google Pay's environment for pay.js. @default 'PRODUCTION' */
    environment?: 'TEST' | 'PRODUCTION';
    /** @default ['PAN_ONLY', 'CRYPTOGRAM_3DS'] */
    allowedAuthMethods?: ('PAN_ONLY' | 'CRYPTOGRAM_3DS')[];
    /** @default ['VISA', 'MASTERCARD', 'AMEX'] */
    allowedCardNetworks?: string[];
    /** @default 'default' */
    buttonColor?: 'default' | 'black' | 'white';
    /** @default 'buy' */
    buttonType?: string;
    /** The amount and currency when there is no checkout yet (fast checkout). */
    totalPrice?: string;
    currencyCode?: string;
    countryCode?: string;
    emailRequired?: boolean;
    shippingAddressRequired?: boolean;
    shippingAddressParameters?: { allowedCountryCodes?: string[]; phoneNumberRequired?: boolean };
    shippingOptionRequired?: boolean;
    shippingOptionParameters?: { defaultSelectedOptionId?: string; shippingOptions: { id: string; label: string; description?: string }[] };
    /** The lines under the total in Google's sheet (`transactionInfo.displayItems`). */
    displayItems?: { label: string; type: string; price: string; status?: string }[];
    /**
     * Live: the shopper's address or shipping option changed in Google's sheet (`intermediatePaymentData`); answer
     * Google's `PaymentDataRequestUpdate` (`{ newTransactionInfo, newShippingOptionParameters, error }`) or a promise
     * of one. A failure is told to onError and answered with no change.
     */
    onPaymentDataChanged?: (intermediatePaymentData: unknown) => object | PromiseLike<object>;
    /** What onPaymentDataChanged is called for. @default ['SHIPPING_ADDRESS'] (and 'SHIPPING_OPTION' with shippingOptionRequired) */
    callbackIntents?: ('SHIPPING_ADDRESS' | 'SHIPPING_OPTION' | 'OFFER')[];
    [other: string]: unknown;
  }

  interface WpwlOptions {
    /**
     * The shopper's language: one of the 25 product codes (`en de fr es it nl dk fi se tr ja sl pt pl cz hu bg ro ru
     * cn gr no sk ar ko`), with a region (`de-AT`, `en_US`), or in its ISO form (`da`, `sv`, `cs`, `el`, `zh`, `nb`).
     * Anything else shows English.
     * @default 'en'
     */
    locale?: string;

    /**
     * The widget's look (see {@link WpwlStyle}).
     * @default 'card'
     */
    style?: WpwlStyle;

    /**
     * Texts that replace the language's labels, by key.
     * @default {} (the language's texts)
     */
    labels?: WpwlLabels;

    /**
     * Texts that replace the language's error messages, by key.
     * @default {} (the language's texts)
     */
    errorMessages?: WpwlErrorMessages;

    /**
     * Labels above the fields; `false` leaves them out (the fields keep their accessible names).
     * @default true
     */
    showLabels?: WpwlFlag;

    /**
     * Placeholders in the fields.
     * @default true
     */
    showPlaceholders?: WpwlFlag;

    /**
     * A hint next to the CVV field saying where the code is on the card (`labels.cvvHint`, `labels.cvvHintAmex`).
     * @default false
     */
    showCVVHint?: WpwlFlag;

    /**
     * The control focused when the form is shown, by its name (see {@link WpwlAutofocus}).
     * @default undefined (none)
     */
    autofocus?: WpwlAutofocus;

    /**
     * Detect the card's brand from the first six digits of its number, and show it; `false` has the shopper pick the
     * brand in the brand select.
     * @default true
     */
    brandDetection?: WpwlFlag;

    /**
     * How the brand is detected from the number's first six digits: `regex`, from the widget's copy of the issuers'
     * ranges; `binlist`, from the gateway's BIN list (`GET /v1/bins/<digits>`, asked once per BIN; the widget's copy
     * decides should the gateway not answer). Both tell a co-badged card's brands apart (mada before the Visa it is
     * issued on) and order them by `brandDetectionPriority`.
     * @default 'regex'
     */
    brandDetectionType?: 'regex' | 'binlist';

    /**
     * Brand codes in the order a number that fits several brands (a co-badged card: `CARTEBANCAIRE` and `VISA`) picks
     * them; the first is selected, and the shopper may choose another.
     * @default [] (the most specific brand first)
     */
    brandDetectionPriority?: string[];

    /**
     * Ask for the CVV (the card's security code).
     * @default true
     */
    requireCvv?: WpwlFlag;

    /**
     * Accept an empty CVV (a typed one must still be valid).
     * @default false
     */
    allowEmptyCvv?: WpwlFlag;

    /**
     * Mask the CVV as it is typed, like a password.
     * @default false
     */
    maskCvv?: WpwlFlag;

    /**
     * Accept an empty card holder (otherwise 3 to 128 characters).
     * @default false
     */
    allowEmptyCardHolderName?: WpwlFlag;

    /**
     * Accept an expiry date in the past in the form (the gateway still refuses it).
     * @default false
     */
    disableCardExpiryDateValidation?: WpwlFlag;

    /**
     * Show field errors (once a field the shopper typed in is left, and on submit) and keep an invalid form from
     * being sent; `false` sends what was typed and lets the gateway answer.
     * @default true
     */
    validation?: WpwlFlag;

    /**
     * Enter in a field does not submit the form.
     * @default false
     */
    disableSubmitOnEnter?: WpwlFlag;

    /**
     * Show the card number in groups as it is typed (4-6-5 for American Express, groups of four otherwise); `false`
     * shows the digits alone.
     * @default true
     */
    numberFormatting?: WpwlFlag;

    /**
     * Styles of the hosted fields' text and placeholders.
     * @default {} (the style's)
     */
    iframeStyles?: WpwlIframeStyles;

    /**
     * Where a payment's redirect opens (a 3-D Secure challenge, a provider's page): unset, the widget's own frame in
     * the form's place; `_top` (or `_self`, `_parent`), the whole window; `_blank`, a new window; any other name, the
     * page's frame or window of that name.
     * @default undefined (the widget's own frame)
     */
    paymentTarget?: string;

    /**
     * The window the result page (the form's `action`) opens in: `_top`, `_self`, `_parent`, `_blank` or a frame's
     * name.
     * @default '_top'
     */
    shopperResultTarget?: string;

    /**
     * The size of the widget's 3-D Secure frame (see {@link WpwlCssLength}); a missing or invalid value takes the
     * default.
     * @default { width: '100%', height: '580px' }
     */
    threeDIframeSize?: { width?: WpwlCssLength; height?: WpwlCssLength };

    /**
     * The one-click form of the stored cards a checkout offers: `requireCvv` asks for the chosen card's CVV;
     * `hideInitialPaymentForms` hides the other forms until the shopper asks for them.
     * @default { requireCvv: false, hideInitialPaymentForms: false }
     */
    registrations?: { requireCvv?: WpwlFlag; hideInitialPaymentForms?: WpwlFlag };

    /**
     * The spinner shown while a payment is sent: `false` (or `"false"`) hides it, `{ color }` colours it.
     * @default shown, in the style's colour
     */
    spinner?: boolean | 'false' | WpwlSpinner;

    /**
     * Asynchronous brands whose provider page stays in the page: it opens in the widget's own frame, in place of the
     * brand's form, whatever `paymentTarget` says for the other brands.
     * @default []
     */
    inlineFlow?: string[];

    /**
     * A billing address in the card form (`div.wpwl-group-billing`: a country select and the state, city, postcode,
     * street1 and street2 inputs, `select.wpwl-control-country[name="billing.country"]`,
     * `input.wpwl-control-city[name="billing.city"]`...), prefilled with these values (`{}`: empty). The shopper's
     * address is checked like the card's fields and sent with the payment as `billing.*`; a value the merchant's server
     * set on the checkout stays.
     * @default undefined (no billing address, unless `mandatoryBillingFields` is set)
     */
    billingAddress?: WpwlBillingAddress;

    /**
     * The billing address fields the shopper must fill in (`{ state: false }`); setting it shows the billing address
     * too. The others are checked only when filled in.
     * @default { country: true, state: true, city: true, postcode: true, street1: true, street2: false }
     */
    mandatoryBillingFields?: WpwlMandatoryBillingFields;

    /**
     * The summary page: the card form's submit saves the card for the checkout instead of paying it (sealed, without
     * its CVV) and calls `onSaveTransactionData(data)`; the merchant's page then shows its own summary, and its server
     * executes the payment with `POST /v1/checkouts/{id}/payment` (its token and `entityId`, no card data), whose answer
     * is the payment's, with the 3-D Secure redirect to send the shopper to for an enrolled card.
     * @default false
     */
    useSummaryPage?: WpwlFlag;

    /**
     * Fast checkout: the page loads `paymentWidgets.js` without a checkout id (a product or cart page), and the widget
     * calls this when the shopper pays — a wallet's sheet approved, a form submitted — with what the payment knows
     * (`paymentBrand`; a wallet's contact and shipping data the merchant asked for). It returns the id of a checkout the
     * merchant's server created, or a promise (any thenable) of it; the payment is then made on that checkout. A
     * function that throws, rejects or gives no id reaches `onError` as a `WidgetError`, and nothing is paid.
     * @default undefined (the page loads the widget with a checkout id)
     */
    createCheckout?(this: void, json: { [name: string]: unknown }): string | PromiseLike<string> | undefined;

    /**
     * Apple Pay's button and sheet (`APPLEPAY` in `data-brands`), see {@link WpwlApplePay}. The button shows only where
     * the browser can pay with Apple Pay (and in the test environment everywhere, opening the gateway's simulated sheet).
     * @default {} (the checkout's amount, the page's host as the merchant's name, Visa, Mastercard and Amex)
     */
    applePay?: WpwlApplePay;

    /**
     * Google Pay's button and sheet (`GOOGLEPAY` in `data-brands`), see {@link WpwlGooglePay}. The button shows only
     * where Google Pay's `isReadyToPay` says so (and in the test environment everywhere, opening the simulated sheet).
     * @default {} (the checkout's amount, both auth methods, Visa, Mastercard and Amex)
     */
    googlePay?: WpwlGooglePay;

    /**
     * With `useSummaryPage`: the card is saved; `data` is the gateway's answer (`result.code` `000.200.101`, `id` the
     * checkout's, `paymentBrand`, `card` with `bin`, `last4Digits`, `holder`, `expiryMonth`, `expiryYear`, and the
     * `billing` address the form sent). The page typically goes to its summary page here.
     * @default undefined
     */
    onSaveTransactionData?(this: void, data: WpwlSavedTransaction): void;

    /**
     * Click to Pay's screens (`CLICK_TO_PAY` in `data-brands`): the card list, the one-time code's screen, the mark,
     * "learn more" (see {@link WpwlClickToPay}). The e-mail input (`.wpwl-control-clickToPayAccessMyCards`) may be
     * prefilled by the page in onReady.
     * @default {}
     */
    clickToPay?: WpwlClickToPay;

    /**
     * Every form is in the page (the stored cards', the card form, each other brand's): the place to move or add
     * elements. Also called again after a reload of the widget.
     * @param forms The forms rendered, in page order.
     * @default undefined
     */
    onReady?(this: void, forms: WpwlReadyForm[]): void;

    /**
     * Something went wrong (see {@link WpwlError}). Also called for a callback that threw.
     * @default undefined
     */
    onError?(this: void, error: WpwlError): void;

    /**
     * The card form is about to be sent (`this` is the form). Return `false` or call `event.preventDefault()` to
     * cancel; anything else lets it go.
     * @default undefined
     */
    onBeforeSubmitCard?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * The one-click form (a stored card) is about to be sent; as {@link WpwlOptions.onBeforeSubmitCard}.
     * @default undefined
     */
    onBeforeSubmitOneClickCard?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * The direct-debit form is about to be sent; as {@link WpwlOptions.onBeforeSubmitCard}.
     * @default undefined
     */
    onBeforeSubmitDirectDebit?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * An online-transfer brand's form (`SOFORTUEBERWEISUNG`, `GIROPAY`, ...) is about to be sent; as
     * {@link WpwlOptions.onBeforeSubmitCard}.
     * @default undefined
     */
    onBeforeSubmitOnlineTransfer?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * A virtual-account brand's form (`PAYPAL`, `KLARNA_INVOICE`, `BOLETO`, ...) is about to be sent; as
     * {@link WpwlOptions.onBeforeSubmitCard}.
     * @default undefined
     */
    onBeforeSubmitVirtualAccount?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * The prepayment form (`PREPAYMENT`) is about to be sent; as {@link WpwlOptions.onBeforeSubmitCard}.
     * @default undefined
     */
    onBeforeSubmitPrepayment?(this: WpwlFormContext, event: WpwlSubmitEvent): boolean | void;

    /**
     * A payment was sent and the gateway answered (`this` is the form), before the widget goes to the result page,
     * follows a redirect or shows why the payment was refused.
     * @default undefined
     */
    onAfterSubmit?(this: WpwlFormContext): void;

    /**
     * The card number field was left (`this` is the card form).
     * @param valid Whether the number is valid for the selected brand.
     * @default undefined
     */
    onBlurCardNumber?(this: WpwlFormContext, valid: boolean): void;

    /**
     * The CVV field was left (`this` is the card form, or the one-click form).
     * @param valid Whether the CVV is valid for the brand.
     * @default undefined
     */
    onBlurSecurityCode?(this: WpwlFormContext, valid: boolean): void;

    /**
     * The expiry field was left (`this` is the card form).
     * @param valid Whether the expiry date is valid.
     * @default undefined
     */
    onBlurExpiryDate?(this: WpwlFormContext, valid: boolean): void;

    /**
     * The card holder field was left (`this` is the card form).
     * @param valid Whether the holder is valid.
     * @default undefined
     */
    onBlurCardHolder?(this: WpwlFormContext, valid: boolean): void;

    /**
     * The account holder field of the direct-debit form was left (`this` is the form).
     * @param valid Whether the holder is valid.
     * @default undefined
     */
    onBlurAccountHolder?(this: WpwlFormContext, valid: boolean): void;

    /**
     * The IBAN field of the direct-debit form was left (`this` is the form).
     * @param valid Whether the IBAN is valid.
     * @default undefined
     */
    onBlurIban?(this: WpwlFormContext, valid: boolean): void;

    /**
     * Brand detection ran on the number's first six digits (`this` is the card form).
     * @param brands Every offered brand the digits fit, most specific first, reordered by `brandDetectionPriority`.
     * @param activeBrand The brand selected now.
     * @default undefined
     */
    onDetectBrand?(this: WpwlFormContext, brands: readonly string[], activeBrand: string): void;

    /**
     * The selected brand changed, detected or picked by the shopper (`this` is the card form).
     * @param brand The brand code.
     * @default undefined
     */
    onChangeBrand?(this: WpwlFormContext, brand: string): void;

    /**
     * The 3-D Secure challenge (or provider page) loaded in the widget's own frame (`this` is that iframe).
     * @default undefined
     */
    onLoadThreeDIframe?(this: WpwlIframeCallbackContext): void;

    /**
     * A hosted field (card number, CVV) can talk to the page (`this.$iframe[0]` is its iframe).
     * @default undefined
     */
    onReadyIframeCommunication?(this: WpwlIframeCallbackContext): void;

    /**
     * A hosted field got the focus (`this.$iframe[0]` is its iframe).
     * @default undefined
     */
    onFocusIframeCommunication?(this: WpwlIframeCallbackContext): void;

    /**
     * A hosted field lost the focus (`this.$iframe[0]` is its iframe).
     * @default undefined
     */
    onBlurIframeCommunication?(this: WpwlIframeCallbackContext): void;
  }

  /** A stored card a checkout offers for one-click payment (`registrations[n].id` at its creation). */
  interface WpwlStoredCard {
    /** The registration id. */
    readonly id: string;
    /** The card's brand code. */
    readonly brand: string;
    readonly last4Digits: string;
    /** Two digits. */
    readonly expiryMonth: string;
    /** Four digits. */
    readonly expiryYear: string;
    readonly holder?: string;
  }

  /** The checkout the page loaded the widget for, as `paymentWidgets.js` describes it. */
  interface WpwlCheckout {
    /** The checkout id (`paymentWidgets.js?checkoutId=...`). */
    readonly id: string;
    /** The amount at the checkout's creation (`"12.50"`); null for a registration-only checkout. */
    readonly amount: string | null;
    /** The currency (`EUR`); null for a registration-only checkout. */
    readonly currency: string | null;
    /** `DB` or `PA`; null for a registration-only checkout. */
    readonly paymentType: string | null;
    /** Where the merchant's server reads the result: `/v1/checkouts/<id>/payment` (or `/registration`). */
    readonly resourcePath: string;
    readonly config: {
      /** The stored cards it offers, in index order. */
      readonly registrations: readonly WpwlStoredCard[];
    };
  }

  /** The global `wpwl`, defined by `paymentWidgets.js` before the widget loads. */
  interface Wpwl {
    /** The checkout; null when the checkout id is unknown or the checkout expired (`onError` then gets `InvalidCheckoutIdError`). */
    readonly checkout: WpwlCheckout | null;
    /** The checkout id again, as the platform's `ndc`; null for an unknown checkout. */
    readonly ndc: string | null;
    /** The API version of the gateway's paths. */
    readonly apiVersion: 'v1';
    /** The gateway's base URL. */
    readonly url: string;
    /** The base URL of the widget's versioned files (`<url>/v1/static/<version>`), where this file is served too. */
    readonly staticBaseUrl: string;
    /** True once the forms are rendered (just before `onReady`); false again after `unload()`. */
    readonly isReady?: boolean;
    /**
     * Removes everything the widget rendered (its forms, frames, stylesheet), restoring the page's
     * `form.paymentWidgets`. To show the widget for another checkout, remove the `paymentWidgets.js` script element,
     * then insert a new one with the new checkout id.
     */
    unload(): void;
    /**
     * Submits a rendered form as its pay button would (the form's `onBeforeSubmit*` callback still runs): named by its
     * container's class, as `onReady` lists them — `wpwl-container-card`, `wpwl-container-registration`,
     * `wpwl-container-directDebit`, `wpwl-container-virtualAccount-PAYPAL`; a family's class
     * (`wpwl-container-virtualAccount`) names its first form. A name no form has is reported to `onError`
     * (`WidgetError`).
     */
    executePayment(container: string): void;
  }

  interface Window {
    /** The page's options for the widget (see {@link WpwlOptions}). */
    wpwlOptions?: WpwlOptions;
    /** Defined by `paymentWidgets.js` (see {@link Wpwl}). */
    wpwl?: Wpwl;
  }

  /**
   * The page's options for the widget, read when it renders. Declared without `| undefined` so that a page script's
   * `var wpwlOptions: WpwlOptions = { ... }` declares the same global.
   */
  var wpwlOptions: WpwlOptions;

  /** Defined by `paymentWidgets.js`, before any script that follows its script tag runs. */
  var wpwl: Wpwl;
}

/** The same types, for modules: `import type { WpwlOptions } from './wpwl.d.ts'`. */
export type WpwlFlag = globalThis.WpwlFlag;
export type WpwlStyle = globalThis.WpwlStyle;
export type WpwlAutofocus = globalThis.WpwlAutofocus;
export type WpwlLabels = globalThis.WpwlLabels;
export type WpwlErrorMessages = globalThis.WpwlErrorMessages;
export type WpwlCssDeclarations = globalThis.WpwlCssDeclarations;
export type WpwlIframeStyles = globalThis.WpwlIframeStyles;
export type WpwlSpinner = globalThis.WpwlSpinner;
export type WpwlBillingAddress = globalThis.WpwlBillingAddress;
export type WpwlMandatoryBillingFields = globalThis.WpwlMandatoryBillingFields;
export type WpwlSavedTransaction = globalThis.WpwlSavedTransaction;
export type WpwlCssLength = globalThis.WpwlCssLength;
export type WpwlReadyForm = globalThis.WpwlReadyForm;
export type WpwlSubmitEvent = globalThis.WpwlSubmitEvent;
export type WpwlError = globalThis.WpwlError;
export type WpwlClickToPay = globalThis.WpwlClickToPay;
export type WpwlClickToPayEvent = globalThis.WpwlClickToPayEvent;
export type WpwlIframeCallbackContext = globalThis.WpwlIframeCallbackContext;
export type WpwlJquery = globalThis.WpwlJquery;
export type WpwlFormContext = globalThis.WpwlFormContext;
export type WpwlOptions = globalThis.WpwlOptions;
export type WpwlStoredCard = globalThis.WpwlStoredCard;
export type WpwlCheckout = globalThis.WpwlCheckout;
export type Wpwl = globalThis.Wpwl;
