import type { WidgetOptions } from './options.ts';

/**
 * Every text the shopper can see, in English. Merchant overrides (wpwlOptions.labels and .errorMessages)
 * win; they are always rendered as text, never as HTML. (Other languages: the i18n issue.)
 */
export const ENGLISH = {
  labels: {
    brand: 'Brand',
    cardNumber: 'Card Number',
    expiryDate: 'Expiry Date',
    cardHolder: 'Card holder',
    cvv: 'CVV',
    cvvHint: 'The last three digits on the back of your card.',
    cvvHintAmex: 'The four digits on the front of your card.',
    mmyy: 'MM / YY',
    submit: 'Pay now',
    cardHolderPlaceholder: 'Card holder',
    cardNumberPlaceholder: 'Card Number',
    cvvPlaceholder: 'CVV',
    processing: 'Processing…',
  },
  errorMessages: {
    cardNumberError: 'Invalid card number or brand',
    cvvError: 'Invalid CVV',
    expiryMonthError: 'Invalid expiry date',
    expiryYearError: 'Invalid expiry date',
    cardHolderError: 'Invalid card holder',
    declined: 'The payment was declined.',
    expiredCheckout: 'This payment session has expired. Please start again.',
    invalidCheckout: 'This payment session is not valid.',
    communication: 'The payment could not be sent. Please try again.',
  },
} as const;

export type LabelKey = keyof typeof ENGLISH.labels;
export type ErrorKey = keyof typeof ENGLISH.errorMessages;

export interface Texts {
  label(key: LabelKey): string;
  error(key: ErrorKey): string;
}

export function textsFor(options: WidgetOptions): Texts {
  return {
    label: (key) => options.labels[key] ?? ENGLISH.labels[key],
    error: (key) => options.errorMessages[key] ?? ENGLISH.errorMessages[key],
  };
}
