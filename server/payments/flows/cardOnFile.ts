import type { CardOnFileRequest } from '../../acquirers/types.ts';
import type { CardOnFile, CreatePaymentCommand } from '../../domain/commands.ts';
import { GatewayError, withReason } from '../../domain/errors.ts';
import { RESOURCE_ID } from '../../domain/ids.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { RESULTS } from '../../domain/resultCodes.ts';
import { schemeReferenceOf } from '../../registrations/storedCards.ts';
import type { RegistrationRecord } from '../../registrations/repository.ts';
import type { PaymentServices } from '../services.ts';
import { findPayment } from '../store/payments.ts';

/**
 * Card on file (doc 3 §2.14, COMPAT §11). A cardholder-initiated INITIAL payment starts an agreement: approved, the
 * acquirer gives it a scheme reference (resultDetails.CardholderInitiatedTransactionID, also shown as
 * standingInstruction.initialTransactionId, and kept on its registration). Every merchant-initiated payment of the
 * agreement names that reference: as sent, as our id of the INITIAL payment, or taken from the registration.
 */

function recurringData(reason: string): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidRecurringData, reason), 400);
}

/** A card-on-file intent as an acquirer is told it. */
export function cardOnFileRequest(cardOnFile: CardOnFile | undefined): CardOnFileRequest | undefined {
  if (cardOnFile === undefined) return undefined;
  return { source: cardOnFile.source, mode: cardOnFile.mode, initialTransactionId: cardOnFile.initialTransactionId };
}

/** The payment's card-on-file intent, resolved, and the echo that shows it. */
export interface ResolvedCardOnFile {
  readonly echo: Record<string, unknown>;
  readonly cardOnFile: CardOnFileRequest | undefined;
}

/**
 * The command's card-on-file intent with a merchant-initiated payment's scheme reference resolved (COMPAT §11), and
 * the echo showing it, or refused with 600.200.501 when the agreement has none.
 */
export async function resolveCardOnFile(
  services: PaymentServices,
  command: CreatePaymentCommand,
  registration: RegistrationRecord | undefined,
): Promise<ResolvedCardOnFile> {
  const cardOnFile = command.cardOnFile;
  if (cardOnFile?.source !== 'MIT') return { echo: command.echo, cardOnFile: cardOnFileRequest(cardOnFile) };
  if (cardOnFile.mode === 'INITIAL') {
    throw recurringData('a merchant-initiated payment cannot be the INITIAL payment of a series: the cardholder makes that one (CIT)');
  }
  let reference = cardOnFile.initialTransactionId;
  if (reference !== undefined && RESOURCE_ID.test(reference)) {
    // Our id of the INITIAL payment: the scheme reference it got.
    const initial = await findPayment(services.store, command.entityId, reference);
    if (initial) {
      const scheme = schemeReferenceOf(initial);
      if (scheme === null) throw recurringData(`payment ${initial.id} is not an approved INITIAL card-on-file payment`);
      reference = scheme;
    }
  }
  reference ??= registration?.initialTransactionId ?? undefined;
  if (reference === undefined) {
    throw recurringData('standingInstruction.initialTransactionId is required: no approved INITIAL payment is known for this card');
  }
  const standingInstruction = (command.echo.standingInstruction ?? {}) as Record<string, unknown>;
  return {
    echo: { ...command.echo, standingInstruction: { ...standingInstruction, initialTransactionId: reference } },
    cardOnFile: { source: 'MIT', mode: cardOnFile.mode, initialTransactionId: reference },
  };
}

/**
 * The card-on-file intent a pending payment was recorded with, as its acquirer is told it: when the shopper answers
 * its 3-D Secure challenge, the request that carried the intent is gone, and the payment's row is its record.
 */
export function recordedCardOnFile(payment: PaymentRecord): CardOnFileRequest | undefined {
  const instruction = payment.requestEcho.standingInstruction as Record<string, string> | undefined;
  const legacy = payment.requestEcho.recurringType as string | undefined;
  if (instruction === undefined && legacy === undefined) return undefined;
  return {
    source: instruction?.source as CardOnFileRequest['source'],
    mode: (instruction?.mode ?? legacy) as CardOnFileRequest['mode'],
    initialTransactionId: instruction?.initialTransactionId,
  };
}
