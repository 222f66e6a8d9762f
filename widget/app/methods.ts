import type { ComponentType } from 'preact';
import { isCardBrand } from '../shared/cardBrandCodes.ts';
import { isDirectDebitBrand } from '../shared/directDebit.ts';
import { isRedirectBrand, REDIRECT_BRANDS } from '../shared/redirectBrands.ts';
import type { RegistrationFormProps } from './registration/RegistrationForm.tsx';
import type { StoredCard } from './registration/stored.ts';
import type { PaymentFormProps } from './types.ts';

/**
 * The payment-method registry, one entry per family, as Adyen's components map: the widget looks a brand of
 * `data-brands` up here to know its family, and renders that family's form. A family's code is a chunk of its
 * own (a dynamic import, served next to static.min.js from the same versioned path; the browser fetches it with
 * the nonce of the module that imports it), loaded only when the page shows a form of that family: a card-only
 * page never downloads the redirect, direct-debit or stored-card forms.
 *
 * - `card`: every card brand of shared/cards.ts, in one form (`wpwl-container-card`);
 * - `virtualAccount`, `onlineTransfer`: the redirect brands of shared/redirectBrands.ts, one form per brand
 *   (`wpwl-container-<family>-<BRAND>`), same code;
 * - `directDebit`: DIRECTDEBIT_SEPA, one form per brand (`wpwl-container-directDebit`);
 * - `registration`: the stored cards of the checkout (one-click), not a brand of data-brands.
 */

export type BrandFamily = 'card' | 'virtualAccount' | 'onlineTransfer' | 'directDebit';

/** What a brand family's form is rendered with: its brands (the card form takes all of them, the others one). */
export interface FamilyFormProps extends PaymentFormProps {
  readonly brands: readonly string[];
}

export interface MethodFamily {
  /** One form for all the family's brands (cards), or one form per brand. */
  readonly grouped: boolean;
  /** The container the family's form of `brand` renders (onReady's `container`, executePayment's argument). */
  container(brand: string): string;
  /** The family's form component, from its chunk. */
  load(): Promise<ComponentType<FamilyFormProps>>;
}

const loadRedirectForm = () => import('./redirect/RedirectForm.tsx').then((module) => module.RedirectForm);

export const METHOD_FAMILIES: Readonly<Record<BrandFamily, MethodFamily>> = {
  card: {
    grouped: true,
    container: () => 'wpwl-container-card',
    load: () => import('./card/CardForm.tsx').then((module) => module.CardForm),
  },
  virtualAccount: { grouped: false, container: (brand) => `wpwl-container-virtualAccount-${brand}`, load: loadRedirectForm },
  onlineTransfer: { grouped: false, container: (brand) => `wpwl-container-onlineTransfer-${brand}`, load: loadRedirectForm },
  directDebit: {
    grouped: false,
    container: () => 'wpwl-container-directDebit',
    load: () => import('./directDebit/DirectDebitForm.tsx').then((module) => module.DirectDebitForm),
  },
};

/** The stored-card (one-click) form's chunk: the form, and the reading of the checkout's stored cards. */
export const loadRegistrationForm = (): Promise<{
  RegistrationForm: ComponentType<RegistrationFormProps>;
  storedCardsOf: (registrations: unknown) => StoredCard[];
}> => import('./registration/RegistrationForm.tsx');

/** The family of a brand of data-brands, or undefined for a brand the widget does not offer. */
export function familyOf(brand: string): BrandFamily | undefined {
  if (isCardBrand(brand)) return 'card';
  if (isRedirectBrand(brand)) return REDIRECT_BRANDS[brand]?.family;
  if (isDirectDebitBrand(brand)) return 'directDebit';
  return undefined;
}

/**
 * A page's brands as the forms to render: the card form first (merchant children move into the first form),
 * then the other families' forms, one per brand, in data-brands order.
 */
export function formsFor(brands: readonly string[]): { family: BrandFamily; brands: string[] }[] {
  const forms: { family: BrandFamily; brands: string[] }[] = [];
  for (const brand of brands) {
    const family = familyOf(brand);
    if (!family) continue;
    const grouped = METHOD_FAMILIES[family].grouped ? forms.find((form) => form.family === family) : undefined;
    if (grouped) grouped.brands.push(brand);
    else forms.push({ family, brands: [brand] });
  }
  return [...forms.filter((form) => form.family === 'card'), ...forms.filter((form) => form.family !== 'card')];
}
