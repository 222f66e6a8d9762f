/**
 * Direct debit (COMPAT §16): the shopper's bank account debited under a mandate. The widget's direct-debit form
 * (`wpwl-form-directDebit`) offers these brands and posts exactly these fields; the checkout's submit accepts them
 * from the page. IBAN rules: iban.ts.
 */

export const DIRECT_DEBIT_BRANDS = ['DIRECTDEBIT_SEPA'] as const;

export type DirectDebitBrand = (typeof DIRECT_DEBIT_BRANDS)[number];

export function isDirectDebitBrand(brand: string | undefined): brand is DirectDebitBrand {
  return brand !== undefined && (DIRECT_DEBIT_BRANDS as readonly string[]).includes(brand);
}

/** The account fields the direct-debit form posts (the IBAN uppercase, without spaces). */
export const DIRECT_DEBIT_FIELDS = ['bankAccount.holder', 'bankAccount.iban'] as const;
