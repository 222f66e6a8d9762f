import type { CreatePaymentCommand } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { openStored } from '../registrations/storedCards.ts';
import { newPayment, refuseUnoffered } from './authorize.ts';
import { payByBankAccount, payByStoredBankAccount, payByToken, payByVirtualAccount, payByWallet } from './flows/accounts.ts';
import { payAsynchronously } from './flows/asynchronous.ts';
import { captureAtOnce } from './flows/captureAtOnce.ts';
import { payByCard } from './flows/card.ts';
import { authorizeFollowUp } from './flows/followUp.ts';
import { requireRedirectData } from './flows/pending.ts';
import { returnUrlOf } from './shopperReturn.ts';
import type { PaymentServices } from './services.ts';

/**
 * POST /v1/payments (and a checkout's submit, a payment with a registration, a schedule's execution): a new payment,
 * made by the flow of its instrument (flows/): a card (typed or stored), another instrument (a bank account, a token,
 * a wallet, a virtual account), an asynchronous method's redirect, or an incremental authorization or reauthorization
 * of an earlier PA. Each checks what the gateway checks first (no acquirer sees a payment that fails them), then
 * authorizes it through authorize.ts: an acquirer is asked only with its attempt committed, and its answer is
 * recorded by the ledger. A PA.CP approved at once is captured at once (at the acquirer that approved it).
 */
export async function createPayment(services: PaymentServices, command: CreatePaymentCommand): Promise<PaymentRecord> {
  const made = await paymentOf(services, command);
  if (command.captureAtOnce && made.status === 'approved') return captureAtOnce(services, made);
  return made;
}

/** The payment as it will be recorded, before anything decides it. */
function draftOf(services: PaymentServices, command: CreatePaymentCommand): PaymentRecord {
  return newPayment(
    {
      id: command.paymentId,
      entityId: command.entityId,
      parentId: null,
      paymentType: command.paymentType,
      paymentBrand: command.paymentBrand ?? null,
      amountMinor: command.amountMinor,
      currency: command.currency,
      finalInSequence: false,
      maxCaptures: command.numberOfCaptures ?? null,
      acquirer: 'gateway',
      testMode: command.testMode ?? null,
      merchantTransactionId: command.merchantTransactionId ?? null,
      card: null,
      requestEcho: command.echo,
      source: command.source,
      checkoutId: command.checkout?.checkoutId ?? null,
    },
    services.now(),
  );
}

async function paymentOf(services: PaymentServices, command: CreatePaymentCommand): Promise<PaymentRecord> {
  const draft = draftOf(services, command);
  const { instrument } = command;
  if (command.paymentBrand !== undefined) await refuseUnoffered(services, command.entityId, command.paymentBrand);
  if (command.referenceUuid !== undefined) return authorizeFollowUp(services, command, draft, command.referenceUuid);
  switch (instrument.kind) {
    case 'card':
      return payByCard(services, command, draft, instrument);
    case 'storedCard': {
      const stored = await openStored(services, command.entityId, instrument.registrationId, 'registrationId');
      if ('bankAccount' in stored) return payByStoredBankAccount(services, command, draft, stored, instrument.dueDate);
      return payByCard(services, command, draft, instrument, stored);
    }
    case 'asynchronous': {
      const url = requireRedirectData(command, `for ${instrument.brand}: the shopper completes the payment with the provider`, false);
      return payAsynchronously(services, command, draft, instrument, returnUrlOf(command, draft.id, url));
    }
    case 'referenced':
      // Only a payment with referenceUuid names no instrument of its own (handled above).
      throw invalidParameters([{ name: 'card.number', value: '', message: 'is required when no other payment instrument is sent' }]);
    case 'bankAccount':
      return payByBankAccount(services, command, draft, instrument);
    case 'tokenAccount':
      return payByToken(services, command, draft, instrument);
    case 'wallet':
      return payByWallet(services, command, draft, instrument);
    case 'virtualAccount':
      return payByVirtualAccount(services, command, draft, instrument);
  }
}
