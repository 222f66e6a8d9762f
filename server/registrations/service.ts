import { newResourceId } from '../domain/ids.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { CardSummary } from '../domain/payment.ts';
import type { Outbox } from '../events/outbox.ts';
import type { ParameterError } from '../params/types.ts';
import type { Queryable } from '../store/index.ts';
import type { CardVault, HeldCard } from '../vault/cardVault.ts';
import { findSealed } from '../vault/repository.ts';
import { findRegistrations, insertRegistration, type RegistrationRecord } from './repository.ts';

/**
 * Registrations (doc 3 §2.5): a card stored by a payment with createRegistration=true, paid with later by
 * registrationId (server to server, or one-click in the widget). Only the merchant that stored it can use it.
 */

/** A registration of a card already sealed in the vault (`sealedCardId`). */
export function newRegistration(entityId: string, card: CardSummary, brand: string, sealedCardId: string, now: Date): RegistrationRecord {
  return { id: newResourceId(), entityId, paymentBrand: brand, card, sealedCardId, createdAt: now };
}

/** The registration as notifications show it (COMPAT §10, §13). */
export function registrationBody(registration: RegistrationRecord): Record<string, unknown> {
  return { id: registration.id, paymentBrand: registration.paymentBrand, card: registration.card };
}

/** Writes a new registration with its REGISTRATION CREATED event, in the caller's transaction. */
export async function recordRegistration(tx: Queryable, outbox: Outbox, registration: RegistrationRecord): Promise<void> {
  await insertRegistration(tx, registration);
  await outbox.append(tx, [
    {
      type: 'REGISTRATION',
      action: 'CREATED',
      entityId: registration.entityId,
      resourceId: registration.id,
      payload: registrationBody(registration),
      createdAt: registration.createdAt,
    },
  ]);
}

function unknownRegistration(name: string, value: string): ParameterError {
  return { name, value, message: 'is not a stored registration of this entity' };
}

/** A stored card opened for a payment: the card (never its CVV, which is not stored) and its registration. */
export interface StoredCard {
  readonly registration: RegistrationRecord;
  readonly card: HeldCard;
}

/**
 * The stored card of `registrationId`, for a payment that treats it like a card the shopper typed. An id that is
 * not one of the entity's registrations is refused naming the parameter.
 */
export async function openStoredCard(db: Queryable, vault: CardVault, entityId: string, registrationId: string): Promise<StoredCard> {
  const [registration] = await findRegistrations(db, entityId, [registrationId]);
  if (!registration) throw invalidParameters([unknownRegistration('registrationId', registrationId)]);
  // The foreign key keeps a live registration's card in the vault.
  const sealed = await findSealed(db, registration.sealedCardId);
  if (!sealed) throw new Error(`the card of registration ${registration.id} is not in the vault`);
  try {
    return { registration, card: vault.open<HeldCard>(sealed) };
  } catch {
    throw invalidParameters([{ name: 'registrationId', value: registrationId, message: 'cannot be used: its card was sealed with another card-data key' }]);
  }
}

/** What the widget shows of a stored card (never more than a payment response shows). */
export interface StoredCardView {
  readonly id: string;
  readonly brand: string;
  readonly last4Digits: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly holder?: string;
}

/**
 * The stored cards a checkout offers (registrations[n].id, in index order), for the widget's one-click form.
 * An id that is not one of the entity's registrations is refused, naming its parameter.
 */
export async function storedCardsFor(db: Queryable, entityId: string, offered: readonly { name: string; id: string }[]): Promise<StoredCardView[]> {
  const found = new Map((await findRegistrations(db, entityId, offered.map((entry) => entry.id))).map((registration) => [registration.id, registration]));
  const errors = offered.filter((entry) => !found.has(entry.id)).map((entry) => unknownRegistration(entry.name, entry.id));
  if (errors.length > 0) throw invalidParameters(errors);
  return offered.map(({ id }) => {
    const { paymentBrand, card } = found.get(id) as RegistrationRecord;
    return storedCardView({ id, brand: paymentBrand, ...card });
  });
}

/**
 * The view with its fields in one fixed order. It is rendered into paymentWidgets.js, whose bytes must not
 * change between creation (the integrity hash) and serving (read back from jsonb, which does not keep key order).
 */
export function storedCardView(card: StoredCardView): StoredCardView {
  return {
    id: card.id,
    brand: card.brand,
    last4Digits: card.last4Digits,
    expiryMonth: card.expiryMonth,
    expiryYear: card.expiryYear,
    ...(card.holder !== undefined ? { holder: card.holder } : {}),
  };
}
