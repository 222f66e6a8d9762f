import { newResourceId } from '../domain/ids.ts';
import { invalidParameters } from '../domain/errors.ts';
import type { ParameterError } from '../params/types.ts';
import type { CardVault, HeldCard } from '../vault/cardVault.ts';
import { findSealed } from '../vault/repository.ts';
import type { CardSummary } from '../payments/repository.ts';
import type { Queryable } from '../store/index.ts';
import { findRegistrations, type RegistrationRecord } from './repository.ts';

/**
 * Registrations (doc 3 §2.5): a card stored by a payment with createRegistration=true, paid with later by
 * registrationId (server to server, or one-click in the widget). Only the merchant that stored it can use it.
 */

/** A registration of a card already sealed in the vault (`sealedCardId`). */
export function newRegistration(entityId: string, card: CardSummary, brand: string, sealedCardId: string, now: Date): RegistrationRecord {
  return { id: newResourceId(), entityId, paymentBrand: brand, card, sealedCardId, createdAt: now };
}

function unknownRegistration(name: string, value: string): ParameterError {
  return { name, value, message: 'is not a stored registration of this entity' };
}

/**
 * The payment's parameters with the stored card of `registrationId` in place of card.*: the rest of the payment
 * (3-D Secure, the acquirer) treats it like a card the shopper typed. A CVV the shopper sent is kept; the
 * holder sent with the payment replaces the stored one only when the registration has none (overrideHolder).
 */
export async function withRegisteredCard(
  db: Queryable,
  vault: CardVault,
  entityId: string,
  params: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const registrationId = params.get('registrationId') ?? '';
  const [registration] = await findRegistrations(db, entityId, [registrationId]);
  if (!registration) throw invalidParameters([unknownRegistration('registrationId', registrationId)]);
  // The foreign key keeps a live registration's card in the vault.
  const sealed = await findSealed(db, registration.sealedCardId);
  if (!sealed) throw new Error(`the card of registration ${registration.id} is not in the vault`);
  let card: HeldCard;
  try {
    card = vault.open<HeldCard>(sealed);
  } catch {
    throw invalidParameters([{ name: 'registrationId', value: registrationId, message: 'cannot be used: its card was sealed with another card-data key' }]);
  }
  const effective = new Map(params);
  effective.set('card.number', card.number);
  effective.set('card.expiryMonth', String(card.expiryMonth).padStart(2, '0'));
  effective.set('card.expiryYear', String(card.expiryYear));
  const holder = card.holder ?? params.get('card.holder');
  if (holder !== undefined) effective.set('card.holder', holder);
  else effective.delete('card.holder');
  if (!effective.has('paymentBrand')) effective.set('paymentBrand', registration.paymentBrand);
  return effective;
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
