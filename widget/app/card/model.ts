import { computed, signal } from '@preact/signals';
import type { FieldState } from '../../shared/protocol.ts';
import { CARD_BRANDS, detectBrands } from '../brands.ts';
import type { WidgetOptions } from '../options.ts';
import { isExpiryInPast, parseExpiry } from './expiry.ts';

export type CardFieldName = 'cardNumber' | 'expiry' | 'cardHolder' | 'cvv';

/**
 * The card form's state as signals: what the hosted fields report, what the shopper typed into the plain
 * inputs, which brand is selected, and which errors show. Validation rules follow wpwlOptions.
 */
export function createCardModel(brands: readonly string[], options: WidgetOptions) {
  const numberState = signal<FieldState | undefined>(undefined);
  const cvvState = signal<FieldState | undefined>(undefined);
  const expiry = signal('');
  const holder = signal('');
  const selectedBrand = signal(brands[0] ?? '');
  const detectedBrands = signal<string[]>([]);
  /** Fields whose error is visible (after blur or a submit attempt). */
  const shown = signal<ReadonlySet<CardFieldName>>(new Set());

  const cvvRequired = options.requireCvv && !options.allowEmptyCvv;
  const cvvLength = computed(() => CARD_BRANDS[selectedBrand.value]?.cvvLength ?? 3);

  const validity = computed<Record<CardFieldName, boolean>>(() => {
    const parsedExpiry = parseExpiry(expiry.value);
    const number = numberState.value;
    const brandOk = !options.brandDetection || number === undefined || number.bin === '' || detectedBrands.value.length > 0;
    const cvv = cvvState.value;
    const holderText = holder.value.trim();
    return {
      cardNumber: number !== undefined && number.valid && brandOk,
      expiry:
        parsedExpiry !== undefined && (options.disableCardExpiryDateValidation || !isExpiryInPast(parsedExpiry, new Date())),
      cardHolder: holderText === '' ? options.allowEmptyCardHolderName : holderText.length >= 3 && holderText.length <= 128,
      cvv: !options.requireCvv || (cvv !== undefined && (cvv.valid || (cvv.empty && !cvvRequired))),
    };
  });
  const formValid = computed(() => !options.validation || Object.values(validity.value).every(Boolean));

  return {
    brands,
    numberState,
    cvvState,
    expiry,
    holder,
    selectedBrand,
    detectedBrands,
    shown,
    cvvLength,
    cvvRequired,
    validity,
    formValid,
    hasError(field: CardFieldName): boolean {
      return options.validation && shown.value.has(field) && !validity.value[field];
    },
    show(...fields: CardFieldName[]) {
      shown.value = new Set([...shown.value, ...fields]);
    },
    /** Brand detection from the first digits; returns the brand to select, if it changes. */
    detect(bin: string): string | undefined {
      if (!options.brandDetection) return undefined;
      const found = detectBrands(bin, brands, options.brandDetectionPriority);
      detectedBrands.value = found;
      const best = found[0];
      return best !== undefined && best !== selectedBrand.value ? best : undefined;
    },
  };
}

export type CardModel = ReturnType<typeof createCardModel>;
