import { formatAmount } from '../domain/money.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { shortIdOf } from '../payments/view.ts';

/**
 * The reconciliation records of chargebacks (COMPAT §15, spec doc 3 §2.17): a CB is a CHARGEBACK record, its
 * reversal (CR, or a representment) a CHARGEBACK REVERSAL, each matched to the transaction charged back, with the
 * reason as ReasonCode/ReasonDesc and the chargeback's own id as ChargebackId. Fields by their API names (the report
 * API's record; the CSV file names the same fields by its columns). What only a settlement file knows (settlement
 * id, fee, FX rate, the clearing institute's merchant id) is left to the settlement feed that lists the record.
 */

export type ChargebackRecordType = 'CHARGEBACK' | 'CHARGEBACK REVERSAL';

export interface ChargebackRecord {
  readonly recordType: ChargebackRecordType;
  readonly transactionType: 'DEBIT' | 'CREDIT';
  readonly settlement: { readonly cashflow: 'POS' | 'NEG'; readonly amount: string; readonly currency: string; readonly date: string; readonly status: 'SUCCESS' };
  readonly merchantEntityId: string;
  readonly payment: { readonly id: string };
  readonly shortId: string;
  readonly merchantTransactionId: string | undefined;
  readonly amount: string;
  readonly currency: string;
  readonly paymentBrand: string | undefined;
  readonly presentmentDate: string;
  readonly clearingInstitute: { readonly name: string; readonly txId1: string | undefined };
  /** The account's last four characters (a card's, a bank account's), and its holder. */
  readonly accountNumberLast4: string | undefined;
  readonly accountHolder: string | undefined;
  /** The chargeback's reason (CHARGEBACK) or the reversal's result (CHARGEBACK REVERSAL). */
  readonly result: { readonly code: string; readonly description: string };
  readonly matchedTransactions: { readonly status: 'MATCHED'; readonly payment: readonly { readonly id: string }[] };
  readonly chargebackTransaction: { readonly id: string };
}

function lastFourOf(payment: PaymentRecord): { last4: string | undefined; holder: string | undefined } {
  if (payment.card) return { last4: payment.card.last4Digits, holder: payment.card.holder };
  const bankAccount = payment.requestEcho.bankAccount as { iban?: string; holder?: string } | undefined;
  return { last4: bankAccount?.iban?.slice(-4), holder: bankAccount?.holder };
}

/**
 * The record of an approved chargeback (CB) or chargeback reversal (CR). `charged` is the transaction charged back
 * (the CB's parent: a DB or CP); for a CR, `chargeback` is the CR and its parent the CB (or, for a representment,
 * the CR it reverses), and `charged` is still the original transaction. `accountOf` is the payment that named the
 * account: `charged`, or the preauthorization a charged capture took (a capture of a direct debit names none).
 */
export function chargebackRecordOf(chargeback: PaymentRecord, charged: PaymentRecord, accountOf: PaymentRecord = charged): ChargebackRecord {
  if (chargeback.paymentType !== 'CB' && chargeback.paymentType !== 'CR') throw new Error(`${chargeback.id} is a ${chargeback.paymentType}, not a chargeback`);
  const reversal = chargeback.paymentType === 'CR';
  const account = lastFourOf(accountOf);
  return {
    recordType: reversal ? 'CHARGEBACK REVERSAL' : 'CHARGEBACK',
    transactionType: charged.paymentType === 'CD' ? 'CREDIT' : 'DEBIT',
    // A chargeback takes the money back from the merchant; its reversal returns it.
    settlement: {
      cashflow: reversal ? 'POS' : 'NEG',
      amount: formatAmount(chargeback.amountMinor),
      currency: chargeback.currency,
      date: chargeback.createdAt.toISOString().slice(0, 10),
      status: 'SUCCESS',
    },
    merchantEntityId: chargeback.entityId,
    payment: { id: charged.id },
    shortId: shortIdOf(charged.id),
    merchantTransactionId: charged.merchantTransactionId ?? undefined,
    amount: formatAmount(chargeback.amountMinor),
    currency: chargeback.currency,
    paymentBrand: charged.paymentBrand ?? undefined,
    presentmentDate: charged.createdAt.toISOString(),
    clearingInstitute: { name: chargeback.acquirer, txId1: chargeback.acquirerReference ?? undefined },
    accountNumberLast4: account.last4,
    accountHolder: account.holder,
    result: { code: chargeback.resultCode, description: chargeback.resultDescription },
    matchedTransactions: { status: 'MATCHED', payment: [{ id: charged.id }] },
    chargebackTransaction: { id: chargeback.id },
  };
}
