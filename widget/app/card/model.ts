import type { FieldState } from '../../shared/protocol.ts';
import { brandOfBinAndLength } from '../../shared/cards.ts';
import { CARD_BRANDS, detectBrands } from '../brands.ts';
import { assignChanges } from '../payment/state.ts';
import type { WidgetOptions } from '../options.ts';
import { isExpiryInPast, parseExpiry } from './expiry.ts';

export type CardFieldName = 'cardNumber' | 'expiry' | 'cardHolder' | 'cvv';

/** What the card form knows: what the hosted fields report, what the shopper typed, the brand, the errors shown. */
export interface CardFields {
  readonly numberState: FieldState | undefined;
  readonly cvvState: FieldState | undefined;
  readonly expiry: string;
  readonly holder: string;
  readonly selectedBrand: string;
  readonly detectedBrands: readonly string[];
  /** Fields whose error is visible (after blur or a submit attempt). */
  readonly shown: ReadonlySet<CardFieldName>;
}

/**
 * The card form's state: plain fields changed through `set`, which re-renders the form when one changed (`changed`,
 * the form's useRerender), and what follows from them, computed when read (validity once per change: a render reads
 * it for every field). Validation rules follow wpwlOptions.
 */
export function createCardModel(brands: readonly string[], options: WidgetOptions, changed: () => void) {
  const cvvRequired = options.requireCvv && !options.allowEmptyCvv;
  const fields: CardFields = {
    numberState: undefined,
    cvvState: undefined,
    expiry: '',
    holder: '',
    selectedBrand: brands[0] ?? '',
    detectedBrands: [],
    shown: new Set(),
  };
  let validity: Record<CardFieldName, boolean> | undefined;
  const model = {
    ...fields,
    brands,
    cvvRequired,
    set(changes: Partial<CardFields>) {
      validity = undefined;
      assignChanges<CardFields>(model, changes, changed);
    },
    cvvLength(): number {
      return CARD_BRANDS[model.selectedBrand]?.cvvLength ?? 3;
    },
    validity(): Record<CardFieldName, boolean> {
      validity ??= validityNow();
      return validity;
    },
    formValid(): boolean {
      return !options.validation || Object.values(model.validity()).every(Boolean);
    },
    hasError(field: CardFieldName): boolean {
      return options.validation && model.shown.has(field) && !model.validity()[field];
    },
    show(...shown: CardFieldName[]) {
      model.set({ shown: new Set([...model.shown, ...shown]) });
    },
    /** Brand detection from the first digits; returns the brand to select, if it changes. */
    detect(bin: string): string | undefined {
      if (!options.brandDetection) return undefined;
      const found = detectBrands(bin, brands, options.brandDetectionPriority);
      model.set({ detectedBrands: found });
      const best = found[0];
      return best !== undefined && best !== model.selectedBrand ? best : undefined;
    },
  };
  /** What the fields are worth now (validity() keeps it until the next change). */
  function validityNow(): Record<CardFieldName, boolean> {
    const parsedExpiry = parseExpiry(model.expiry);
    const number = model.numberState;
    const brandOk = !options.brandDetection || number === undefined || number.bin === '' || model.detectedBrands.length > 0;
    const cvv = model.cvvState;
    const holderText = model.holder.trim();
    return {
      // The hosted field checked Luhn; a known brand issues numbers of this length (the gateway's check, shared/cards.ts).
      cardNumber: number !== undefined && number.valid && brandOfBinAndLength(number.bin, number.length) !== undefined && brandOk,
      expiry: parsedExpiry !== undefined && (options.disableCardExpiryDateValidation || !isExpiryInPast(parsedExpiry, new Date())),
      cardHolder: holderText === '' ? options.allowEmptyCardHolderName : holderText.length >= 3 && holderText.length <= 128,
      cvv: !options.requireCvv || (cvv !== undefined && (cvv.valid || (cvv.empty && !cvvRequired))),
    };
  }
  return model;
}

export type CardModel = ReturnType<typeof createCardModel>;
