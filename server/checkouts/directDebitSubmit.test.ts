import { describe, expect, it } from 'vitest';
import { mergeShopperSubmit } from './parameters.ts';

/** The widget's direct-debit form posts holder and IBAN; the checkout's submit takes them with a direct-debit brand only. */
describe('a direct-debit submit from the payment page', () => {
  const stored = new Map([
    ['amount', '92.00'],
    ['currency', 'EUR'],
    ['paymentType', 'DB'],
  ]);
  const page = (fields: Record<string, string>) => new Map(Object.entries({ shopperResultUrl: 'https://shop.example.com/result', ...fields }));

  it('takes the holder and IBAN with paymentBrand DIRECTDEBIT_SEPA', () => {
    const { merged, errors } = mergeShopperSubmit(
      stored,
      'entity',
      page({ paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890' }),
    );
    expect(errors).toEqual([]);
    expect(merged.get('paymentBrand')).toBe('DIRECTDEBIT_SEPA');
    expect(merged.get('bankAccount.holder')).toBe('Jane Jones');
    expect(merged.get('bankAccount.iban')).toBe('DE23100000001234567890');
    expect(merged.get('amount')).toBe('92.00');
  });

  it('refuses a bank account with a card or redirect brand', () => {
    for (const paymentBrand of ['VISA', 'PAYPAL']) {
      const { errors } = mergeShopperSubmit(stored, 'entity', page({ paymentBrand, 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.holder': 'Jane Jones' }));
      expect(errors.map((error) => error.name).sort(), paymentBrand).toEqual(['bankAccount.holder', 'bankAccount.iban']);
    }
  });

  it("refuses what only the merchant's server sets: BIC, mandate, due date, another amount", () => {
    const { errors } = mergeShopperSubmit(
      stored,
      'entity',
      page({
        paymentBrand: 'DIRECTDEBIT_SEPA',
        'bankAccount.holder': 'Jane Jones',
        'bankAccount.iban': 'DE23100000001234567890',
        'bankAccount.bic': 'MARKDEF1100',
        'bankAccount.mandate.id': 'M-1',
        'bankAccount.mandate.dateOfSignature': '2026-01-01',
        transactionDueDate: '2026-12-01',
        amount: '1.00',
      }),
    );
    expect(errors.map((error) => error.name).sort()).toEqual(
      ['amount', 'bankAccount.bic', 'bankAccount.mandate.dateOfSignature', 'bankAccount.mandate.id', 'transactionDueDate'].sort(),
    );
  });
});
