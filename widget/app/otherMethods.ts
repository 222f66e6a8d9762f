import { createElement, type ComponentType } from 'preact';
import english from 'wpwl:english/otherMethods';
import { addEnglish } from '../i18n/index.ts';
import { Chooser } from './chooser/Chooser.tsx';
import { asyncContainer, RedirectForm } from './redirect/RedirectForm.tsx';
import type { FamilyChunk } from './methods.ts';
import type { FamilyFormProps } from './types.ts';

/**
 * The forms of the families other than cards (asynchronous brands, direct debit) and the chooser a page with several
 * methods shows (chooser/Chooser.tsx): one chunk, loaded by every page that offers more than cards, never by a
 * card-only page (methods.ts). One chunk for them, not one each: the stylesheet-free direct-debit form is small, and
 * every page that shows the chooser has one of them.
 */
export { DirectDebitForm } from './directDebit/DirectDebitForm.tsx';

// The English of these forms' texts (the entry bundles the card form's).
addEnglish(english);
export { Chooser };

/**
 * A brand with a form of its own instead of the redirect form: its chunk's form and container (undefined: no form for
 * the brand on this page, such as a wallet this browser cannot pay with).
 */
export interface OwnFormChunk {
  readonly Form: ComponentType<FamilyFormProps>;
  container(brand: string): string | undefined;
}

/**
 * The brands of the asynchronous family with a form of their own (wallet buttons, Click to Pay), each form a chunk of
 * its own, loaded with this one, before the forms render, only when the page shows the brand.
 */
const OWN_FORMS: Readonly<Record<string, () => Promise<OwnFormChunk>>> = {
  // The wallet buttons (wallet/WalletForm.tsx): one chunk for both.
  APPLEPAY: () => import('./wallet/WalletForm.tsx').then((module) => module.walletForm('APPLEPAY')),
  GOOGLEPAY: () => import('./wallet/WalletForm.tsx').then((module) => module.walletForm('GOOGLEPAY')),
  // Click to Pay (clickToPay/): the e-mail, the one-time code and the card list of the SRC system.
  CLICK_TO_PAY: () => import('./clickToPay/index.ts'),
};

/** The asynchronous family for a page's brands: the redirect form, or a brand's own form (OWN_FORMS), loaded now. */
export async function asynchronousFamily(brands: readonly string[]): Promise<FamilyChunk> {
  const own = new Map(
    await Promise.all(
      [...new Set(brands)].filter((brand) => Object.hasOwn(OWN_FORMS, brand)).map(async (brand) => [brand, await OWN_FORMS[brand]!()] as const),
    ),
  );
  return {
    Form: (props: FamilyFormProps) => createElement(own.get(props.brands[0] ?? '')?.Form ?? RedirectForm, props),
    container: (brand) => (own.has(brand) ? own.get(brand)!.container(brand) : asyncContainer(brand)),
    Chooser,
  };
}
