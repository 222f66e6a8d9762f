import type { AsyncFamily } from '../../widget/shared/asyncBrands.ts';

/**
 * The simulated providers of the asynchronous brands (COMPAT §7): how long each kind of wait lasts, and what a shopper
 * is handed to pay later — a cash voucher's number (and the brand's own fields that integrations read: BOLETO's
 * barcode and digitable line, Multibanco's entity and reference) or the account and reference of a prepayment.
 * Deterministic from the payment id, so an answer read again shows the same voucher.
 */

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;

/** How long a cash voucher can be paid (a boleto falls due about three days after it is issued). */
export const CASH_VOUCHER_VALIDITY_MS = 3 * DAY_MS;
/** How long the merchant waits for a prepayment's transfer. */
export const PREPAYMENT_DEADLINE_MS = 7 * DAY_MS;
/** How long a provider may take to confirm a payment the shopper left pending on its page. */
export const PROVIDER_CONFIRMATION_MS = DAY_MS;

/** The account the simulated bank collects prepayments on (a valid IBAN, the common example account). */
export const PREPAYMENT_ACCOUNT = { holder: 'Gateway Test Collections', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', country: 'DE' } as const;

/** `count` decimal digits derived from the payment id (a 128-bit number has 38 of them; longer ones repeat it). */
function digitsOf(paymentId: string, count: number): string {
  const digits = BigInt(`0x${paymentId}`).toString().padStart(38, '0');
  return digits.repeat(Math.ceil(count / digits.length)).slice(0, count);
}

function dateOf(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}

export interface PendingInstructions {
  /** The payment id the voucher or transfer reference is derived from. */
  readonly paymentId: string;
  /** What the shopper quotes with a transfer (the payment's short id). */
  readonly reference: string;
  /** Until when the voucher or transfer is accepted. */
  readonly deadline: Date;
}

/**
 * What the answer's resultDetails carry for a payment that waits for money: every cash voucher's VoucherNumber and
 * VoucherExpiry (plus the brand's own field names), or a prepayment's account, reference and deadline.
 */
export function pendingInstructions(brand: string, family: AsyncFamily, wait: PendingInstructions): Record<string, string> | null {
  const expiry = dateOf(wait.deadline);
  if (family === 'prepayment') {
    return {
      BankAccountHolder: PREPAYMENT_ACCOUNT.holder,
      BankAccountIban: PREPAYMENT_ACCOUNT.iban,
      BankAccountBic: PREPAYMENT_ACCOUNT.bic,
      BankAccountCountry: PREPAYMENT_ACCOUNT.country,
      TransferReference: wait.reference,
      TransferDeadline: expiry,
    };
  }
  if (family !== 'cashVoucher') return null;
  const voucher = digitsOf(wait.paymentId, 14);
  const details: Record<string, string> = { VoucherNumber: voucher, VoucherExpiry: expiry };
  if (brand === 'BOLETO') {
    const barcode = digitsOf(wait.paymentId, 44);
    const line = digitsOf(wait.paymentId, 47);
    details.BarCodeNumber = barcode;
    details.DigitableLine = `${line.slice(0, 5)}.${line.slice(5, 10)} ${line.slice(10, 15)}.${line.slice(15, 21)} ${line.slice(21, 26)}.${line.slice(26, 32)} ${line.slice(32, 33)} ${line.slice(33)}`;
  }
  if (brand === 'SIBS_MULTIBANCO') {
    details.ptmntEntty = '25002';
    details.pmtRef = voucher.slice(0, 9);
    details.refLmtDtTm = wait.deadline.toISOString();
  }
  return details;
}
