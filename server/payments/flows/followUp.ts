import type { CardDetails } from '../../acquirers/types.ts';
import { summaryOf } from '../../domain/cards.ts';
import type { CreatePaymentCommand } from '../../domain/commands.ts';
import { GatewayError, invalidParameters, withReason } from '../../domain/errors.ts';
import { RESOURCE_ID } from '../../domain/ids.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { RESULTS } from '../../domain/resultCodes.ts';
import { cardAccountKey } from '../../risk/accountKey.ts';
import { authorizeAndRecord } from '../authorize.ts';
import type { PaymentServices } from '../services.ts';
import { findPayment } from '../store/payments.ts';
import { cardFor } from './card.ts';
import { resolveCardOnFile } from './cardOnFile.ts';

/** COMPAT §11: a follow-up whose referenceUuid names no payment of the entity. */
export function unknownOriginal(referenceUuid: string): GatewayError {
  return invalidParameters([{ name: 'referenceUuid', value: referenceUuid, message: 'is not a payment of this entity' }]);
}

/**
 * COMPAT §11: an incremental authorization or a reauthorization of an earlier PA (referenceUuid). The new PA names
 * the original (referencedId), goes to the original's acquirer, and is made with the card sent, the registration
 * named, or else the original's own authorization (no card data again).
 */
export async function authorizeFollowUp(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, referenceUuid: string): Promise<PaymentRecord> {
  const original = RESOURCE_ID.test(referenceUuid) ? await findPayment(services.store, command.entityId, referenceUuid) : undefined;
  if (!original) throw unknownOriginal(referenceUuid);
  if (original.paymentType !== 'PA' || original.parentId !== null) {
    throw new GatewayError(withReason(RESULTS.referencedInappropriateType, `${original.id} is a ${original.paymentType}, not a preauthorization`), 400);
  }
  if (original.status !== 'approved') {
    throw new GatewayError(withReason(RESULTS.referencedInappropriateType, `${original.id} was not approved`), 400);
  }
  if (command.currency !== original.currency) {
    throw invalidParameters([{ name: 'currency', value: command.currency, message: `must be ${original.currency}, the currency of the referenced payment` }]);
  }
  const acquirer = services.acquirers.get(original.acquirer);
  if (!acquirer) throw new GatewayError(withReason(RESULTS.systemError, `the acquirer ${original.acquirer} of the referenced payment is not configured`), 400);
  const { instrument } = command;
  const sent = instrument.kind === 'card' || instrument.kind === 'storedCard' ? await cardFor(services, command, instrument) : undefined;
  const { echo, cardOnFile } = await resolveCardOnFile(services, command, sent?.stored?.registration);
  const payment: PaymentRecord = {
    ...draft,
    parentId: original.id,
    paymentBrand: original.paymentBrand,
    card: sent ? summaryOf(sent.card) : original.card,
    registrationId: sent?.stored?.registration.id ?? original.registrationId,
    requestEcho: echo,
  };
  const details: CardDetails | undefined = sent
    ? { ...sent.card, cvv: instrument.kind === 'card' || instrument.kind === 'storedCard' ? instrument.cvv : undefined, brand: original.paymentBrand ?? '' }
    : undefined;
  // A follow-up is a new authorization: the risk velocity rules count it as any other (its account, when it sends no
  // card, is the original's, which the original counted).
  const overRule = await services.risk?.check(command, payment, sent ? cardAccountKey(sent.card.number) : undefined);
  if (overRule) return services.ledger.refuse(payment, overRule);
  return authorizeAndRecord(services, command, acquirer, payment, { card: details }, { cardOnFile, referencedReference: original.acquirerReference });
}
