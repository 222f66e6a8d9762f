import { checkCard, summaryOf } from '../domain/cards.ts';
import type { BankAccountInstrument, CardInstrument } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import { newResourceId, newSchemeReference } from '../domain/ids.ts';
import { bankAccountEcho, mandatedAccount, type MandatedBankAccount } from '../domain/instruments.ts';
import type { CardSummary } from '../domain/payment.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import type { HeldCard } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';
import { extendRegistration, findRegistration, markRegistrationDeleted, updateRegistrationCard, type RegistrationRecord } from './repository.ts';
import {
  checkRegistrationId,
  newRegistration,
  recordRegistration,
  registrationEvent,
  requireUsable,
  unusableRegistration,
  type RegistrationServices,
} from './storedCards.ts';

/**
 * The registrations API (COMPAT §10): what POST, GET and DELETE /v1/registrations[/{id}] and extendlife ask for, each
 * change written with its REGISTRATION event in one transaction. What a registration is, and how payments and
 * checkouts use one, is the stored-card model (storedCards.ts).
 */

export interface CreateRegistrationCommand {
  readonly entityId: string;
  /** The id chosen before the registration exists (an idempotency key). */
  readonly registrationId: string | undefined;
  readonly instrument: CardInstrument | BankAccountInstrument;
  readonly paymentBrand: string | undefined;
  readonly testMode: string | null;
  /** customer, billing, customParameters, standingInstruction, ... as the answer echoes them. */
  readonly echo: Record<string, unknown>;
  /**
   * Who started the card-on-file agreement the registration stands for (COMPAT §11): the shopper, here (a scheme
   * reference is made for it), or a payment elsewhere, migrated (recurringMigration.*), whose reference
   * (connectorTxId1) later MIT payments name, if the merchant sent it.
   */
  readonly agreement: { readonly kind: 'shopper' } | { readonly kind: 'migrated'; readonly initialTransactionId: string | undefined };
  readonly checkoutId?: string;
}

/** A registration refused by the gateway's card checks: answered with its would-be id and the card, and not stored. */
export interface RefusedRegistration {
  readonly id: string;
  readonly paymentBrand: string | undefined;
  readonly card: CardSummary;
  readonly result: Result;
}

export type RegistrationOutcome =
  | { readonly kind: 'created'; readonly registration: RegistrationRecord }
  | { readonly kind: 'refused'; readonly refused: RefusedRegistration };

/** POST /v1/registrations: the gateway's card checks, then the card sealed and the registration written with its event. */
export async function createRegistration(services: RegistrationServices, command: CreateRegistrationCommand): Promise<RegistrationOutcome> {
  const now = services.now();
  const id = command.registrationId ?? newResourceId();
  const { instrument } = command;
  if (instrument.kind === 'bankAccount') {
    const account = mandatedAccount(instrument, id, now);
    return storeRegistration(services, command, id, now, account, { card: null, bankAccount: bankAccountEcho(account, command.echo.bankAccount, instrument.bankName), paymentBrand: instrument.brand });
  }
  const held: HeldCard = {
    number: instrument.number,
    expiryMonth: instrument.expiryMonth,
    expiryYear: instrument.expiryYear,
    holder: instrument.holder,
    brand: '',
  };
  const check = checkCard(held, instrument.cvv, command.paymentBrand, now);
  const card = summaryOf(held);
  if (check.refusal) return { kind: 'refused', refused: { id, paymentBrand: check.brand, card, result: check.refusal } };
  const brand = check.brand as string;
  return storeRegistration(services, command, id, now, { ...held, brand }, { card, bankAccount: null, paymentBrand: brand });
}

/** Seals what a registration keeps and writes the registration with its event, in one transaction. */
function storeRegistration(
  services: RegistrationServices,
  command: CreateRegistrationCommand,
  id: string,
  now: Date,
  sealed: HeldCard | MandatedBankAccount,
  shown: { readonly card: CardSummary | null; readonly bankAccount: Record<string, unknown> | null; readonly paymentBrand: string },
): Promise<RegistrationOutcome> {
  return services.store.transaction(async (tx) => {
    const sealedCardId = await keepSealed(tx, services.vault.seal(sealed), now);
    const registration = newRegistration({
      id,
      entityId: command.entityId,
      ...shown,
      sealedCardId,
      now,
      testMode: command.testMode,
      requestEcho: command.echo,
      checkoutId: command.checkoutId ?? null,
      initialTransactionId: command.agreement.kind === 'shopper' ? newSchemeReference() : (command.agreement.initialTransactionId ?? null),
    });
    await recordRegistration(tx, services.outbox, registration);
    return { kind: 'created', registration };
  });
}

/** GET /v1/registrations/{id}: the entity's usable registration. */
export async function readRegistration(services: RegistrationServices, entityId: string, id: string): Promise<RegistrationRecord> {
  checkRegistrationId(id);
  return requireUsable(await findRegistration(services.store, entityId, id), id, services.registrationLifetimeMonths, services.now());
}

/** The deregistration (DR) or life extension (TE) a registration answered a request with. */
export interface RegistrationOperation {
  readonly id: string;
  readonly paymentType: 'DR' | 'TE';
  readonly registration: RegistrationRecord;
}

/**
 * DELETE /v1/registrations/{id}: under the registration's lock, marked deleted and its card erased from the vault,
 * the rest of what it showed cleared but for its brand, BIN and last 4 (markRegistrationDeleted), with the
 * REGISTRATION DELETED event, whose outbox subscriber cancels its schedules in the same transaction
 * (schedules/cancellation.ts). A second delete finds it deleted (100.150.202). An expired registration can still be
 * deleted: its card goes too.
 */
export async function deleteRegistration(services: RegistrationServices, entityId: string, id: string, operationId: string = newResourceId()): Promise<RegistrationOperation> {
  checkRegistrationId(id);
  return services.store.transaction(async (tx) => {
    const registration = await findRegistration(tx, entityId, id, { forUpdate: true });
    if (!registration) throw unusableRegistration(RESULTS.registrationNotFound, undefined, id);
    if (registration.deletedAt !== null) throw unusableRegistration(RESULTS.registrationDeleted, undefined, id);
    const now = services.now();
    // What it keeps: its brand, BIN and last 4 (a bank account's masked IBAN), the merchant's reference; its row and
    // its REGISTRATION events keep nothing else (docs/decisions.md).
    const deleted = await markRegistrationDeleted(tx, id, operationId, now);
    if (registration.sealedCardId !== null) await eraseSealed(tx, registration.sealedCardId, now);
    // COMPAT §10: the event's subscribers cancel the registration's active schedules (DS) in this transaction.
    await services.outbox.append(tx, [registrationEvent(deleted, 'DELETED', now)]);
    return { id: operationId, paymentType: 'DR', registration: deleted };
  });
}

/** New card details of POST /v1/registrations/{id}: the holder and the expiry; the number never changes. */
export interface RegistrationUpdate {
  readonly holder: string | undefined;
  readonly expiryMonth: number | undefined;
  readonly expiryYear: number | undefined;
}

/**
 * POST /v1/registrations/{id}: a new holder or expiry (a reissued card). The card is sealed again with them (the old
 * sealed value is erased), with the REGISTRATION UPDATED event.
 */
export async function updateRegistration(services: RegistrationServices, entityId: string, id: string, update: RegistrationUpdate): Promise<RegistrationRecord> {
  checkRegistrationId(id);
  return services.store.transaction(async (tx) => {
    const now = services.now();
    const registration = requireUsable(await findRegistration(tx, entityId, id, { forUpdate: true }), id, services.registrationLifetimeMonths, now);
    if (registration.card === null) {
      throw invalidParameters([{ name: 'card.holder', value: '', message: 'cannot be changed: the registration stores a bank account (register it anew)' }]);
    }
    // A live registration's card is in the vault (the row is locked: no delete can take it meanwhile).
    const sealed = registration.sealedCardId === null ? undefined : await findSealed(tx, registration.sealedCardId);
    if (!sealed || registration.sealedCardId === null) throw new Error(`the card of registration ${id} is not in the vault`);
    let card: HeldCard;
    try {
      card = services.vault.open<HeldCard>(sealed);
    } catch {
      throw unusableRegistration(RESULTS.registrationNotValid, undefined, id, 'its card was sealed with a card-data key this gateway does not have');
    }
    const updated: HeldCard = {
      ...card,
      holder: update.holder ?? card.holder,
      expiryMonth: update.expiryMonth ?? card.expiryMonth,
      expiryYear: update.expiryYear ?? card.expiryYear,
    };
    const sealedCardId = await keepSealed(tx, services.vault.seal(updated), now);
    const summary = summaryOf(updated);
    await updateRegistrationCard(tx, id, summary, sealedCardId, now);
    await eraseSealed(tx, registration.sealedCardId, now);
    const changed: RegistrationRecord = { ...registration, card: summary, sealedCardId, updatedAt: now };
    await services.outbox.append(tx, [registrationEvent(changed, 'UPDATED', now)]);
    return changed;
  });
}

/** POST /v1/registrations/{id}/extendlife (TE): the expiry clock starts again now. */
export async function extendRegistrationLife(services: RegistrationServices, entityId: string, id: string, operationId: string = newResourceId()): Promise<RegistrationOperation> {
  checkRegistrationId(id);
  return services.store.transaction(async (tx) => {
    const now = services.now();
    const registration = requireUsable(await findRegistration(tx, entityId, id, { forUpdate: true }), id, services.registrationLifetimeMonths, now);
    await extendRegistration(tx, id, now);
    const extended: RegistrationRecord = { ...registration, lastUsedAt: now, updatedAt: now };
    await services.outbox.append(tx, [registrationEvent(extended, 'UPDATED', now)]);
    return { id: operationId, paymentType: 'TE', registration: extended };
  });
}
