import type { ComponentType } from 'preact';
import { isCardBrand } from '../shared/cardBrandCodes.ts';
import { isDirectDebitBrand } from '../shared/directDebit.ts';
import type { Chooser } from './chooser/Chooser.tsx';
import type { RegistrationFormProps } from './registration/RegistrationForm.tsx';
import type { StoredCard } from './registration/stored.ts';
import type { FamilyFormProps } from './types.ts';

/**
 * The payment-method registry, one entry per family, as Adyen's components map: the widget looks a brand of
 * `data-brands` up here to know its family, and renders that family's form. A family's code is a chunk of its
 * own (a dynamic import, served next to static.min.js from the same versioned path; the browser fetches it with
 * the nonce of the module that imports it), loaded only when the page shows a form of that family: a card-only
 * page never downloads the redirect, direct-debit or stored-card forms.
 *
 * - `card`: every card brand of shared/cards.ts, in one form (`wpwl-container-card`);
 * - `asynchronous`: the asynchronous brands of shared/asyncBrands.ts, one form per brand, by the brand's form
 *   (`wpwl-container-<onlineTransfer|virtualAccount|prepayment>-<BRAND>`). The entry does not know these brands:
 *   any brand that is neither a card nor a direct-debit brand is looked up in the catalogue, which the chunk of
 *   their form holds (a page that names no such brand never loads it; one that names an unknown brand loads it
 *   for nothing, and shows no form for it);
 * - `directDebit`: DIRECTDEBIT_SEPA, one form per brand (`wpwl-container-directDebit`);
 * - `registration`: the stored cards of the checkout (one-click), not a brand of data-brands.
 */

export type BrandFamily = 'card' | 'asynchronous' | 'directDebit';

/** What a family's chunk brings: its form, and the container it renders for a brand. */
export interface FamilyChunk {
  readonly Form: ComponentType<FamilyFormProps>;
  /**
   * The container the family's form of `brand` renders (onReady's `container`, executePayment's argument), or
   * undefined for a brand the family does not offer.
   */
  container(brand: string): string | undefined;
  /**
   * The chooser of several methods in one form (chooser/Chooser.tsx), in the chunk of the families that make a page
   * have several (otherMethods.ts): every such page loads it, a card-only page never.
   */
  readonly Chooser?: typeof Chooser;
}

export interface MethodFamily {
  /** One form for all the family's brands (cards), or one form per brand. */
  readonly grouped: boolean;
  /** The family's chunk, for a page showing these brands (of every family). */
  load(brands: readonly string[]): Promise<FamilyChunk>;
}

export const METHOD_FAMILIES: Readonly<Record<BrandFamily, MethodFamily>> = {
  card: {
    grouped: true,
    load: () => import('./card/CardForm.tsx').then((module) => ({ Form: module.CardForm, container: () => 'wpwl-container-card' })),
  },
  asynchronous: {
    grouped: false,
    load: (brands) => import('./otherMethods.ts').then((module) => module.asynchronousFamily(brands)),
  },
  directDebit: {
    grouped: false,
    load: () => import('./otherMethods.ts').then((module) => ({ Form: module.DirectDebitForm, container: () => 'wpwl-container-directDebit', Chooser: module.Chooser })),
  },
};

/** The stored-card (one-click) form's chunk: the form, and the reading of the checkout's stored cards. */
export const loadRegistrationForm = (): Promise<{
  RegistrationForm: ComponentType<RegistrationFormProps>;
  storedCardsOf: (registrations: unknown) => StoredCard[];
  readyForm: (cards: readonly StoredCard[]) => { container: string; brands: string[] };
}> => import('./registration/RegistrationForm.tsx');

/** The family of a brand of data-brands: a card, a direct-debit brand, or else one of the asynchronous brands or none. */
export function familyOf(brand: string): BrandFamily {
  if (isCardBrand(brand)) return 'card';
  if (isDirectDebitBrand(brand)) return 'directDebit';
  return 'asynchronous';
}

/**
 * A page's brands as the forms to render: the card form first (merchant children move into the first form),
 * then the other families' forms, one per brand, in data-brands order.
 */
export function formsFor(brands: readonly string[]): { family: BrandFamily; brands: string[] }[] {
  const forms: { family: BrandFamily; brands: string[] }[] = [];
  for (const brand of brands) {
    const family = familyOf(brand);
    const grouped = METHOD_FAMILIES[family].grouped ? forms.find((form) => form.family === family) : undefined;
    if (grouped) grouped.brands.push(brand);
    else forms.push({ family, brands: [brand] });
  }
  return [...forms.filter((form) => form.family === 'card'), ...forms.filter((form) => form.family !== 'card')];
}
