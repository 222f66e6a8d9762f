import type { FieldState } from '../../shared/protocol.ts';
import { rulesFor, type NumberRules } from '../../shared/cards.ts';
import { detectBrands } from '../brands.ts';
import { computed } from '@preact/signals';
import { calmErrors, signalFields } from '../payment/state.ts';
import type { WidgetOptions } from '../options.ts';
import { isExpiryInPast, parseExpiry } from './expiry.ts';

export type CardFieldName = 'cardNumber' | 'expiry' | 'cardHolder' | 'cvv';

/** What the card form knows: what the hosted fields report, what the shopper typed, the brand. */
export interface CardFields {
  readonly numberState: FieldState | undefined;
  readonly cvvState: FieldState | undefined;
  readonly expiry: string;
  readonly holder: string;
  readonly selectedBrand: string;
  readonly detectedBrands: readonly string[];
  /** The validity of the billing address's fields, by field, when the form shows them (features.BillingFields). */
  readonly billing: Readonly<Record<string, boolean>>;
}

/**
 * The card form's state: its fields are signals (payment/state.ts), and what follows from them is computed from them
 * (the rules of the number under the brand, validity: worked out again only when a field they read changed).
 * Validation rules follow wpwlOptions; errors are calm (payment/state.ts calmErrors).
 */
export function createCardModel(brands: readonly string[], options: WidgetOptions) {
  const cvvRequired = options.requireCvv && !options.allowEmptyCvv;
  const fields = signalFields<CardFields>({
    numberState: undefined,
    cvvState: undefined,
    expiry: '',
    holder: '',
    selectedBrand: brands[0] ?? '',
    detectedBrands: [],
    billing: {},
  });
  const errors = calmErrors<CardFieldName>();
  /** The first digits the brands were last detected from: the shopper's choice among them stands until they change. */
  let detectedFrom = '';
  /** The rules of the number typed so far under the selected brand (its own, or its network's for a co-badged card). */
  const rules = computed((): NumberRules | undefined => rulesFor(fields.selectedBrand, fields.numberState?.bin ?? ''));
  /** The CVV's length for the selected brand and number: 0 for a brand without one (the CVV field takes no digits). */
  const cvvLength = computed(() => (rules.value?.cvv === 'none' ? 0 : (rules.value?.cvvLength ?? 3)));
  const validity = computed((): Record<CardFieldName, boolean> => {
    const parsedExpiry = parseExpiry(fields.expiry);
    const number = fields.numberState;
    const numberRules = rules.value;
    const cvv = fields.cvvState;
    const holderText = fields.holder.trim();
    return {
      ...fields.billing,
      // The selected brand issues numbers of these first digits and this length; the hosted field checked Luhn, which
      // counts where the brand has a check digit (the gateway's check, shared/cards.ts).
      cardNumber: number !== undefined && numberRules !== undefined && numberRules.lengths.includes(number.length) && (number.valid || !numberRules.luhn),
      expiry: parsedExpiry !== undefined && (options.disableCardExpiryDateValidation || !isExpiryInPast(parsedExpiry, new Date())),
      cardHolder: holderText === '' ? options.allowEmptyCardHolderName : holderText.length >= 3 && holderText.length <= 128,
      // A brand without a CVV, or with an optional one, never blocks the submit for an empty one.
      cvv: !options.requireCvv || numberRules?.cvv === 'none' || (cvv !== undefined && (cvv.valid || (cvv.empty && (!cvvRequired || numberRules?.cvv === 'optional')))),
    };
  });
  const formValid = computed(() => !options.validation || Object.values(validity.value).every(Boolean));
  return Object.assign(fields, errors, {
    brands,
    cvvRequired,
    cvvLength,
    validity,
    formValid,
    hasError: (field: CardFieldName) => options.validation && errors.shows(field) && !validity.value[field],
    /**
     * Brand detection from the first digits; returns the brand to select, if it changes. Every offered brand the
     * digits fit is reported (a co-badged card is several), the first of brandDetectionPriority's order active; once
     * the shopper picks another of them, it stays picked until the first digits change. `matching`: the brands of
     * these digits from the gateway's BIN list, in place of the brand table's.
     */
    detect(bin: string, matching?: readonly string[]): string | undefined {
      if (!options.brandDetection || bin === detectedFrom) return undefined;
      detectedFrom = bin;
      const found = detectBrands(bin, brands, options.brandDetectionPriority, matching);
      fields.set({ detectedBrands: found });
      const best = found[0];
      return best !== undefined && best !== fields.selectedBrand ? best : undefined;
    },
  });
}

export type CardModel = ReturnType<typeof createCardModel>;
