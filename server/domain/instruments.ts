import { ibanCountry, isValidIban } from '../../widget/shared/iban.ts';
import type { ParameterError } from './errors.ts';
import type { BankAccountInstrument } from './commands.ts';
import { invalidParameters } from './errors.ts';
import { maskAccountNumber } from './sensitive.ts';

export * from './instrumentBrands.ts';

/**
 * Facts about the payment instruments other than cards (COMPAT §16, spec doc 2 §2.5–2.8), pure: which wallets and
 * virtual-account brands exist and how their parameters are named, what a SEPA bank account and mandate must look
 * like. params/instruments.ts reads the wire with them; the simulator and the view use the same tables.
 */

/**
 * A BIC (ISO 9362): four letters for the bank, two for its country, two letters or digits for the location, and an
 * optional branch of three.
 */
const BIC = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

export function isValidBic(bic: string): boolean {
  return BIC.test(bic);
}

export { ibanCountry, isValidIban };

/** A SEPA bank account with the mandate a debit is collected under: what the acquirer is sent and a registration seals. */
export interface MandatedBankAccount {
  readonly holder: string;
  /** Normalized: upper case, no spaces. */
  readonly iban: string;
  readonly bic: string | undefined;
  readonly country: string;
  readonly mandateId: string;
  /** yyyy-MM-dd */
  readonly mandateDateOfSignature: string;
  readonly dueDate: string | undefined;
}

/** yyyy-MM-dd of a moment, in UTC (the dates of mandates and due dates). */
export function dateOf(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}

/** Whether yyyy-MM-dd names a day that exists (not the 30th of February). */
export function isCalendarDate(value: string): boolean {
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && dateOf(day) === value;
}

/**
 * A mandate reference the gateway makes for a direct debit sent without one: letters only (doc 2 §2.7 allows
 * letters and hyphens), derived from the payment id so every payment has its own.
 */
export function mandateIdFor(paymentId: string): string {
  const letters = Array.from(paymentId.slice(0, 24), (hex) => String.fromCharCode(65 + Number.parseInt(hex, 16))).join('');
  return `GW-${letters}`;
}

/** What a test wallet token (COMPAT §16) decrypts to: the DPAN 4200 0000 0000 0000 of the network it names. */
export const TEST_WALLET_DPAN = '4200000000000000';

/**
 * The bank account and mandate a direct debit is collected with: the mandate the merchant sent, or one the gateway
 * makes for this payment, signed today. A mandate cannot be signed after the payment, nor a debit fall due before it.
 */
export function mandatedAccount(instrument: BankAccountInstrument, paymentId: string, now: Date): MandatedBankAccount {
  const today = dateOf(now);
  const errors: ParameterError[] = [];
  const signed = instrument.mandateDateOfSignature;
  for (const [name, value] of [['bankAccount.mandate.dateOfSignature', signed], ['transactionDueDate', instrument.dueDate]] as const) {
    if (value !== undefined && !isCalendarDate(value)) errors.push({ name, value, message: 'is not a day of the calendar' });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  if (signed !== undefined && signed > today) {
    errors.push({ name: 'bankAccount.mandate.dateOfSignature', value: signed, message: `must not be after today (${today})` });
  }
  if (instrument.dueDate !== undefined && instrument.dueDate < today) {
    errors.push({ name: 'transactionDueDate', value: instrument.dueDate, message: `must not be before today (${today})` });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return {
    holder: instrument.holder,
    iban: instrument.iban,
    bic: instrument.bic,
    country: instrument.country,
    mandateId: instrument.mandateId ?? mandateIdFor(paymentId),
    mandateDateOfSignature: signed ?? today,
    dueDate: instrument.dueDate,
  };
}

/** The bank account as answers show it: the IBAN masked, the mandate the debit was made with. */
export function bankAccountEcho(account: MandatedBankAccount, sent: unknown, bankName: string | undefined): Record<string, unknown> {
  const echoed = (sent ?? {}) as Record<string, unknown>;
  return {
    ...echoed,
    holder: account.holder,
    ...(bankName !== undefined ? { bankName } : {}),
    iban: maskAccountNumber(account.iban),
    ...(account.bic !== undefined ? { bic: account.bic } : {}),
    country: account.country,
    mandate: { id: account.mandateId, dateOfSignature: account.mandateDateOfSignature },
  };
}
