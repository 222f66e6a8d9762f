import type { FieldState } from '../../shared/protocol.ts';
import { rulesFor, type NumberRules } from '../../shared/cards.ts';
import { detectBrands } from '../brands.ts';
import { assignChanges, calmErrors } from '../payment/state.ts';
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
  /** Fields whose error is visible: after a submit attempt, or once the shopper edited the field and left it. */
  readonly shown: ReadonlySet<CardFieldName>;
}

/**
 * The card form's state: plain fields changed through `set`, which re-renders the form when one changed (`changed`,
 * the form's useRerender), and what follows from them, computed when read (validity once per change: a render reads
 * it for every field). Validation rules follow wpwlOptions; errors are calm (payment/state.ts calmErrors).
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
  /** The first digits the brands were last detected from: the shopper's choice among them stands until they change. */
  let detectedFrom = '';
  const model = {
    ...fields,
    brands,
    cvvRequired,
    set(changes: Partial<CardFields>) {
      validity = undefined;
      assignChanges<CardFields>(model, changes, changed);
    },
    /** The rules of the number typed so far under the selected brand (its own, or its network's for a co-badged card). */
    rules(): NumberRules | undefined {
      return rulesFor(model.selectedBrand, model.numberState?.bin ?? '');
    },
    /** The CVV's length for the selected brand and number: 0 for a brand without one (the CVV field takes no digits). */
    cvvLength(): number {
      const rules = model.rules();
      return rules?.cvv === 'none' ? 0 : (rules?.cvvLength ?? 3);
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
    ...calmErrors<CardFieldName>((field) => model.show(field)),
    /**
     * Brand detection from the first digits; returns the brand to select, if it changes. Every offered brand the
     * digits fit is reported (a co-badged card is several), the first of brandDetectionPriority's order active; once
     * the shopper picks another of them, it stays picked until the first digits change.
     */
    detect(bin: string): string | undefined {
      if (!options.brandDetection || bin === detectedFrom) return undefined;
      detectedFrom = bin;
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
    const rules = model.rules();
    const cvv = model.cvvState;
    const holderText = model.holder.trim();
    return {
      // The selected brand issues numbers of these first digits and this length; the hosted field checked Luhn, which
      // counts where the brand has a check digit (the gateway's check, shared/cards.ts).
      cardNumber: number !== undefined && rules !== undefined && rules.lengths.includes(number.length) && (number.valid || !rules.luhn),
      expiry: parsedExpiry !== undefined && (options.disableCardExpiryDateValidation || !isExpiryInPast(parsedExpiry, new Date())),
      cardHolder: holderText === '' ? options.allowEmptyCardHolderName : holderText.length >= 3 && holderText.length <= 128,
      // A brand without a CVV, or with an optional one, never blocks the submit for an empty one.
      cvv: !options.requireCvv || rules?.cvv === 'none' || (cvv !== undefined && (cvv.valid || (cvv.empty && (!cvvRequired || rules?.cvv === 'optional')))),
    };
  }
  return model;
}

export type CardModel = ReturnType<typeof createCardModel>;
