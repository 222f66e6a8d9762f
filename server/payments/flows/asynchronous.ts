import { CASH_VOUCHER_VALIDITY_MS, pendingInstructions, PREPAYMENT_DEADLINE_MS } from '../../acquirers/simulatedProviders.ts';
import type { AsynchronousInstrument, CreatePaymentCommand } from '../../domain/commands.ts';
import { GatewayError, withReason } from '../../domain/errors.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { withResult } from '../../domain/paymentState.ts';
import { RESULTS } from '../../domain/resultCodes.ts';
import { ASYNC_BRANDS, paysOnProviderPage } from '../../../widget/shared/asyncBrands.ts';
import { acquirerFor } from '../acquirerChoice.ts';
import { authorizeAndRecord } from '../authorize.ts';
import type { PaymentServices } from '../services.ts';
import { findRedirect, type RedirectKind, type RedirectRecord } from '../store/paymentRedirects.ts';
import { shortIdOf } from '../view.ts';
import { askAcquirer, decideSuccess, endWithoutAcquirer, isExpired, recordPending } from './pending.ts';

/**
 * Payments with an asynchronous brand (COMPAT §7), by family (widget/shared/asyncBrands.ts). Each starts pending:
 * - a provider page (online transfer, e-wallet, invoice, prepaid voucher): the shopper approves, the provider
 *   declines, the shopper cancels, or leaves it pending for the provider to confirm later (pending.ts);
 * - a cash voucher: the answer carries the voucher (resultDetails) and a redirect to its printable page;
 * - a prepayment: the answer carries the account and reference to transfer to, and no redirect.
 * What waits for money or a provider's word ends when the simulated provider settles it (SIMULATED_SETTLEMENT_MINUTES
 * later), when the operator says so (`settleWaiting`: admin API and command line), or at its deadline (timed out).
 */

/** The kind of wait each family starts. */
function redirectKindOf(brand: string): RedirectKind {
  const family = ASYNC_BRANDS[brand]?.family ?? 'eWallet';
  if (paysOnProviderPage(family)) return 'provider';
  return family === 'cashVoucher' ? 'cashVoucher' : 'prepayment';
}

/**
 * Starts the payment of an asynchronous brand: `returnUrl` is where the shopper goes back to from the page. A credit
 * (CD) pays the shopper, which none of these methods does (600.200.202).
 */
export async function payAsynchronously(
  services: PaymentServices,
  command: CreatePaymentCommand,
  draft: PaymentRecord,
  instrument: AsynchronousInstrument,
  returnUrl: string,
): Promise<PaymentRecord> {
  const { brand } = instrument;
  if (command.paymentType === 'CD') {
    throw new GatewayError(withReason(RESULTS.notConfiguredForType, `${brand} takes payments (PA, DB), not credits (CD)`), 400);
  }
  const acquirer = await acquirerFor(services, command.entityId, { brand, currency: command.currency, amountMinor: command.amountMinor });
  if (!acquirer.simulated) {
    // A provider behind a connector runs the brand's page (or gives the voucher) itself: its answer is followed.
    const payment: PaymentRecord = { ...draft, paymentBrand: brand };
    const overRule = await services.risk?.check(command, { ...payment, acquirer: acquirer.name }, undefined);
    if (overRule) return services.ledger.refuse(payment, overRule);
    return authorizeAndRecord(services, command, acquirer, payment, { asynchronous: { brand, account: instrument.account } }, { cardOnFile: undefined });
  }
  const family = ASYNC_BRANDS[brand]?.family ?? 'eWallet';
  const kind = redirectKindOf(brand);
  const createdAt = draft.createdAt.getTime();
  const deadline = kind === 'cashVoucher' ? new Date(createdAt + CASH_VOUCHER_VALIDITY_MS) : kind === 'prepayment' ? new Date(createdAt + PREPAYMENT_DEADLINE_MS) : undefined;
  const instructions = deadline ? pendingInstructions(brand, family, { paymentId: draft.id, reference: shortIdOf(draft.id), deadline }) : null;
  const pending: PaymentRecord = {
    ...withResult(draft, RESULTS.pending),
    paymentBrand: brand,
    acquirer: acquirer.name,
    resultDetails: instructions,
  };
  // The risk velocity rules as for every instrument (the account rules count nothing: the shopper chooses the account
  // on the provider's page, or pays from wherever they like).
  const overRule = await services.risk?.check(command, pending, undefined);
  if (overRule) return services.ledger.refuse({ ...draft, paymentBrand: brand }, overRule);
  const settlesAt = deadline && services.simulatedSettlementMs > 0 ? new Date(createdAt + services.simulatedSettlementMs) : undefined;
  return recordPending(services, pending, {
    kind,
    ...(deadline ? { expiresAt: deadline } : {}),
    ...(settlesAt ? { settlesAt } : {}),
    merchantName: undefined,
    returnUrl,
    authentication: null,
    heldCard: null,
    createRegistration: false,
    captureAtOnce: command.captureAtOnce,
  });
}

/** What the provider says: paid, refused, or (`expired`) its deadline passed without the money. */
export type SettlementOutcome = 'approved' | 'declined' | 'expired';

export type SettlementResult =
  | { readonly kind: 'unknown' }
  /** A 3-D Secure challenge: only the shopper's answer decides it. */
  | { readonly kind: 'notAsynchronous' }
  | { readonly kind: 'alreadyFinished'; readonly redirect: RedirectRecord }
  | { readonly kind: 'settled'; readonly redirect: RedirectRecord };

/**
 * The provider's word on a waiting asynchronous payment (the shopper's money arrived, the bank confirmed or refused
 * the transfer, the deadline passed without the money), given by the simulated provider's job, the operator, or a
 * test's trigger (control/triggers.ts): an approval goes through the acquirer like the shopper's on a page; a decline
 * ends the payment; an expiry times it out as its deadline would. Found by the redirect's id, or (`byPayment`) the
 * payment's (of `entityId` when given). Once only: a decided payment is left as it is; one past its deadline times out.
 */
export async function settleWaiting(
  services: PaymentServices,
  id: string,
  outcome: SettlementOutcome,
  options: { readonly byPayment?: boolean; readonly entityId?: string } = {},
): Promise<SettlementResult> {
  const decided = await services.store.transaction(async (tx) => {
    const redirect = await findRedirect(tx, id, { forUpdate: true, byPayment: options.byPayment ?? false });
    if (!redirect || (options.entityId !== undefined && redirect.entityId !== options.entityId)) return { kind: 'unknown' } as const;
    if (redirect.kind === 'threeDSecure') return { kind: 'notAsynchronous' } as const;
    if (redirect.outcome !== null) return { kind: 'alreadyFinished', redirect } as const;
    if (outcome === 'expired' || isExpired(redirect, services.now())) return { kind: 'settled', redirect: await endWithoutAcquirer(services, tx, redirect, 'timeout') } as const;
    if (outcome === 'declined') return { kind: 'settled', redirect: await endWithoutAcquirer(services, tx, redirect, 'failure') } as const;
    const success = await decideSuccess(services, tx, redirect);
    return 'attemptId' in success ? success : ({ kind: 'settled', redirect: success } as const);
  });
  if (!('attemptId' in decided)) return decided;
  return { kind: 'settled', redirect: await askAcquirer(services, decided) };
}
