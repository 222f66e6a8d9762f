import { cardView } from '../domain/cards.ts';
import { formatAmount } from '../domain/money.ts';
import type { PaymentRecord, PaymentRedirect } from '../domain/payment.ts';
import { isWalletBrand, SEPA_BRAND, VIRTUAL_ACCOUNT_BRANDS } from '../domain/instruments.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import { asyncBrand } from '../../widget/shared/asyncBrands.ts';

/**
 * A short, human-readable reference derived from the payment id (`1234.5678.9012`), used as the default
 * statement descriptor and in reconciliation files.
 */
export function shortIdOf(paymentId: string): string {
  const digits = (BigInt(`0x${paymentId}`) % 10n ** 12n).toString().padStart(12, '0');
  return `${digits.slice(0, 4)}.${digits.slice(4, 8)}.${digits.slice(8)}`;
}

/**
 * COMPAT §11: the standing instruction as sent, with the scheme reference an approved INITIAL payment got; and the
 * top-level recurringType, the instruction's mode (or the legacy parameter as sent).
 */
function cardOnFileView(payment: PaymentRecord): Record<string, unknown> {
  const instruction = payment.requestEcho.standingInstruction as Record<string, unknown> | undefined;
  const mode = instruction?.mode ?? payment.requestEcho.recurringType;
  const scheme = payment.status === 'approved' ? payment.resultDetails?.CardholderInitiatedTransactionID : undefined;
  return {
    ...(instruction ? { standingInstruction: scheme ? { ...instruction, initialTransactionId: scheme } : instruction } : {}),
    ...(mode !== undefined ? { recurringType: mode } : {}),
  };
}

/** The payment response body (spec doc 1 §2.1) without the envelope fields. */
export function paymentBody(payment: PaymentRecord): Record<string, unknown> {
  const { descriptor, merchantTransactionId, ...echo } = payment.requestEcho;
  return {
    id: payment.id,
    // COMPAT part two: back-office answers name the payment they operate on, synchronously too.
    ...(payment.parentId ? { referencedId: payment.parentId } : {}),
    paymentType: payment.paymentType,
    ...(payment.paymentBrand ? { paymentBrand: payment.paymentBrand } : {}),
    amount: formatAmount(payment.amountMinor),
    currency: payment.currency,
    descriptor: descriptor ?? shortIdOf(payment.id),
    ...(merchantTransactionId !== undefined ? { merchantTransactionId } : {}),
    ...(payment.resultDetails ? { resultDetails: payment.resultDetails } : {}),
    ...(payment.card ? { card: cardView(payment.card) } : {}),
    ...echo,
    ...cardOnFileView(payment),
    // The gateway's own authentication fills in what the merchant sent (e.g. challengeIndicator) without replacing it.
    ...(payment.threeDSecure ? { threeDSecure: { ...(echo.threeDSecure as object | undefined), ...payment.threeDSecure } } : {}),
    ...(payment.redirect ? { redirect: redirectView(payment.redirect) } : {}),
    ...(payment.registrationId ? { registrationId: payment.registrationId } : {}),
  };
}

/** The payment's result as answers and notifications show it. */
export function resultOf(payment: Pick<PaymentRecord, 'resultCode' | 'resultDescription'>): { code: string; description: string } {
  return { code: payment.resultCode, description: payment.resultDescription };
}

/**
 * The payment as an event keeps it and a notification will carry it (COMPAT §13): the API's answer with its result,
 * timestamped with the change, its ndc the checkout's id for a checkout's payment. No build number: that belongs to
 * the process that answers, not to the payment.
 */
export function paymentSnapshot(payment: PaymentRecord, at: Date): Record<string, unknown> {
  const body = paymentBody(payment);
  return {
    ...body,
    // COMPAT §13: what a PAYMENT notification carries besides the API's answer.
    presentationAmount: body.amount,
    presentationCurrency: body.currency,
    authentication: { entityId: payment.entityId },
    merchantAccountId: payment.entityId,
    paymentMethod: paymentMethodOf(payment.paymentBrand),
    shortId: shortIdOf(payment.id),
    source: payment.source,
    result: resultOf(payment),
    timestamp: formatTimestamp(at),
    ndc: payment.checkoutId ?? payment.ndc,
  };
}

/**
 * The platform's payment method codes (COMPAT §13): cards and tokens CC; a direct debit DD; the wallets, MB WAY and
 * the virtual-account group of the asynchronous brands (PayPal, Klarna, ...) VA, invoices IV; the bank-account
 * group's online transfers (Sofort, giropay, iDEAL, ...) OT; cash vouchers and prepayments PP.
 */
export function paymentMethodOf(brand: string | null): string {
  if (brand === SEPA_BRAND) return 'DD';
  if (isWalletBrand(brand ?? undefined) || (brand !== null && brand in VIRTUAL_ACCOUNT_BRANDS)) return 'VA';
  const asynchronous = brand === null ? undefined : asyncBrand(brand);
  if (!asynchronous) return 'CC';
  if (asynchronous.family === 'invoice') return 'IV';
  if (asynchronous.family === 'cashVoucher' || asynchronous.family === 'prepayment') return 'PP';
  return asynchronous.form === 'onlineTransfer' ? 'OT' : 'VA';
}

/** 200 for an approved or pending payment, 400 for a declined or refused one (spec doc 1 §7). */
export function paymentHttpStatus(payment: Pick<PaymentRecord, 'status'>): 200 | 400 {
  return payment.status === 'declined' ? 400 : 200;
}

/**
 * Where a pending payment sends the shopper (COMPAT §6, §16: `redirect{url, method, parameters[]}`): the gateway's
 * redirect pages take the parameters by POST (the widget's form) or GET; a provider's page (a connector's payment) by
 * the method its provider named.
 */
export function redirectView(redirect: PaymentRedirect): { url: string; method: 'GET' | 'POST'; parameters: PaymentRedirect['parameters'] } {
  return { url: redirect.url, method: redirect.method ?? 'POST', parameters: redirect.parameters };
}
