import { createElement, type ComponentType } from 'preact';
import english from 'wpwl:english/otherMethods';
import { addEnglish } from '../i18n/index.ts';
import { Chooser } from './chooser/Chooser.tsx';
import { asyncContainer, RedirectForm } from './redirect/RedirectForm.tsx';
import type { FamilyFormProps, OwnFormChunk } from './types.ts';

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

/** The wallets' chunk, and the gateway's word on the wallets (GET /v1/wallets/config) asked while it loads. */
let walletConfig: Promise<unknown> | undefined;
function walletForm(brand: 'APPLEPAY' | 'GOOGLEPAY'): Promise<OwnFormChunk> {
  walletConfig ??= fetch(`${(window as { wpwl?: { url?: string } }).wpwl?.url ?? ''}/v1/wallets/config`, { credentials: 'omit' }).then(
    (response) => (response.ok ? response.json() : undefined),
    () => undefined,
  );
  return import('./wallet/WalletForm.tsx').then((module) => module.walletForm(brand, walletConfig));
}

/**
 * The brands of the asynchronous family with a form of their own (wallet buttons, Click to Pay), each form a chunk of
 * its own, loaded with this one, before the forms render, only when the page shows the brand.
 */
const OWN_FORMS: Readonly<Record<string, () => Promise<OwnFormChunk>>> = {
  // The wallet buttons (wallet/WalletForm.tsx): one chunk for both.
  APPLEPAY: () => walletForm('APPLEPAY'),
  GOOGLEPAY: () => walletForm('GOOGLEPAY'),
  // Click to Pay (clickToPay/): the e-mail, the one-time code and the card list of the SRC system.
  CLICK_TO_PAY: () => import('./clickToPay/index.ts'),
};

/**
 * The asynchronous family for a page's brands: the redirect form, or a brand's own form (OWN_FORMS), loaded now. (A
 * methods.ts FamilyChunk, which is not imported here: methods.ts imports this chunk.)
 */
export async function asynchronousFamily(brands: readonly string[]): Promise<{
  readonly Form: ComponentType<FamilyFormProps>;
  container(brand: string): string | undefined;
  readonly Chooser: typeof Chooser;
}> {
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
