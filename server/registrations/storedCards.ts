import { cardView } from '../domain/cards.ts';
import { SEPA_BRAND, type MandatedBankAccount } from '../domain/instruments.ts';
import { newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import type { CardSummary, PaymentRecord } from '../domain/payment.ts';
import { RESULTS, successResultOf, type Result } from '../domain/resultCodes.ts';
import type { DomainEvent, EventAction, Outbox } from '../events/outbox.ts';
import type { ParameterError } from '../domain/errors.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { CardVault, HeldCard } from '../vault/cardVault.ts';
import { findLiveRegistrations, findRegistrationWithCard, insertRegistration, registrationPaidWith, LAST_USE_RESOLUTION_MS, type RegistrationCard, type RegistrationRecord } from './repository.ts';

/**
 * Registrations (COMPAT §10, doc 3 §2.5): stored cards, made on their own (POST /v1/registrations, a
 * registration-only checkout) or by an approved payment with createRegistration=true, then paid with by id (server to
 * server, one-click in the widget, card on file). Only the entity that stored one can use it, or learn it exists.
 *
 *   live ──DELETE──▶ deleted (the card erased from the vault)
 *   live ──lifetime after its last successful use──▶ expired (answers 100.150.203; a payment or extendlife before
 *                                                    then starts the clock again)
 *
 * Every creation, update and deletion appends its REGISTRATION event in the transaction that makes it.
 *
 * This file is the stored-card model the features share: a registration's record and how answers and events show it,
 * its expiry, a stored card or account opened for a payment, the cards a checkout offers, the clock a payment moves.
 * The API's use-cases (create, read, update, delete, extend) are in api.ts.
 */

/** What a registration service needs: the store's writers and the registration lifetime. */
export interface RegistrationServices {
  readonly store: Store;
  readonly outbox: Outbox;
  readonly vault: CardVault;
  readonly now: () => Date;
  /** COMPAT §10: a registration expires this many months after its creation or last successful payment. */
  readonly registrationLifetimeMonths: number;
  /** When this process last saw each registration's expiry clock move (createLastUses). */
  readonly lastUses: Map<string, number>;
}

/** The echo fields a registration keeps from the request (or the payment) that made it. */
const KEPT_ECHO = ['customer', 'billing', 'customParameters', 'merchantTransactionId', 'standingInstruction'];

/**
 * What a registration keeps of the echo that made it. Not the shopper's browser data (customer.browser.*): it
 * describes one visit for 3-D Secure, and a stored card outlives it by years.
 */
export function registrationEcho(echo: Record<string, unknown>): Record<string, unknown> {
  const kept = Object.fromEntries(KEPT_ECHO.filter((name) => echo[name] !== undefined).map((name) => [name, echo[name]]));
  if (kept.customer && typeof kept.customer === 'object') {
    const { browser: _browser, ...customer } = kept.customer as Record<string, unknown>;
    if (Object.keys(customer).length > 0) kept.customer = customer;
    else delete kept.customer;
  }
  return kept;
}

/** A registration of a card (or a SEPA bank account) already sealed in the vault (`sealedCardId`). */
export function newRegistration(fields: {
  readonly entityId: string;
  readonly card: CardSummary | null;
  readonly bankAccount?: Record<string, unknown> | null;
  readonly paymentBrand: string;
  readonly sealedCardId: string;
  readonly now: Date;
  readonly testMode: string | null;
  readonly requestEcho?: Record<string, unknown>;
  readonly checkoutId?: string | null;
  readonly initialTransactionId?: string | null;
  readonly id?: string;
}): RegistrationRecord {
  return {
    id: fields.id ?? newResourceId(),
    entityId: fields.entityId,
    paymentBrand: fields.paymentBrand,
    card: fields.card,
    bankAccount: fields.bankAccount ?? null,
    sealedCardId: fields.sealedCardId,
    requestEcho: registrationEcho(fields.requestEcho ?? {}),
    testMode: fields.testMode,
    resultCode: successResultOf(fields.testMode).code,
    checkoutId: fields.checkoutId ?? null,
    initialTransactionId: fields.initialTransactionId ?? null,
    createdAt: fields.now,
    lastUsedAt: fields.now,
    updatedAt: null,
    deletedAt: null,
    deregistrationId: null,
  };
}

/**
 * The registration a payment with createRegistration=true made, approved, with the card (or the direct debit's bank
 * account, with its mandate) it sealed.
 */
export function registrationOfPayment(payment: PaymentRecord, sealedCardId: string, now: Date): RegistrationRecord | undefined {
  const bankAccount = payment.paymentBrand === SEPA_BRAND ? (payment.requestEcho.bankAccount as Record<string, unknown> | undefined) : undefined;
  if (payment.card === null && bankAccount === undefined) return undefined;
  return newRegistration({
    entityId: payment.entityId,
    card: payment.card,
    bankAccount,
    paymentBrand: payment.paymentBrand ?? '',
    sealedCardId,
    now,
    testMode: payment.testMode,
    requestEcho: { ...payment.requestEcho, ...(payment.merchantTransactionId ? { merchantTransactionId: payment.merchantTransactionId } : {}) },
    checkoutId: payment.checkoutId,
    initialTransactionId: schemeReferenceOf(payment),
  });
}

/** COMPAT §11: the scheme reference an approved INITIAL payment got (resultDetails.CardholderInitiatedTransactionID). */
export function schemeReferenceOf(payment: Pick<PaymentRecord, 'resultDetails' | 'status'>): string | null {
  return payment.status === 'approved' ? (payment.resultDetails?.CardholderInitiatedTransactionID ?? null) : null;
}

/** The card as answers show it: a deleted registration's has its BIN and last four digits only. */
function registrationCardView(card: RegistrationCard): RegistrationCard {
  const { expiryMonth, expiryYear } = card;
  return expiryMonth === undefined || expiryYear === undefined ? { bin: card.bin, last4Digits: card.last4Digits } : cardView({ ...card, expiryMonth, expiryYear });
}

/** The registration as answers and REGISTRATION notifications show it (COMPAT §10, §13), without the envelope. */
export function registrationBody(registration: RegistrationRecord): Record<string, unknown> {
  return {
    id: registration.id,
    paymentBrand: registration.paymentBrand,
    ...(registration.card ? { card: registrationCardView(registration.card) } : {}),
    ...(registration.bankAccount ? { bankAccount: registration.bankAccount } : {}),
    ...registration.requestEcho,
  };
}

/** The result a registration answers with: the success of its mode. */
export function registrationResult(registration: RegistrationRecord): Result {
  return successResultOf(registration.testMode);
}

/** The REGISTRATION event of a change: the registration as answers show it, with its result. */
export function registrationEvent(registration: RegistrationRecord, action: EventAction, at: Date): DomainEvent {
  const result = registrationResult(registration);
  return {
    type: 'REGISTRATION',
    action,
    entityId: registration.entityId,
    resourceId: registration.id,
    payload: { ...registrationBody(registration), result: { code: result.code, description: result.description } },
    createdAt: at,
  };
}

/** Writes a new registration with its REGISTRATION CREATED event, in the caller's transaction. */
export async function recordRegistration(tx: Queryable, outbox: Outbox, registration: RegistrationRecord): Promise<void> {
  await insertRegistration(tx, registration);
  await outbox.append(tx, [registrationEvent(registration, 'CREATED', registration.createdAt)]);
}

/** When a registration expires: its lifetime in calendar months after its last successful use. */
export function expiryOf(registration: Pick<RegistrationRecord, 'lastUsedAt'>, lifetimeMonths: number): Date {
  const expiry = new Date(registration.lastUsedAt.getTime());
  const day = expiry.getUTCDate();
  expiry.setUTCDate(1);
  expiry.setUTCMonth(expiry.getUTCMonth() + lifetimeMonths);
  // The 31st of a month without one is that month's last day.
  const lastDay = new Date(Date.UTC(expiry.getUTCFullYear(), expiry.getUTCMonth() + 1, 0)).getUTCDate();
  expiry.setUTCDate(Math.min(day, lastDay));
  return expiry;
}

/** A registration id that cannot be one (COMPAT §10: 100.150.101), refused before any lookup. */
export function checkRegistrationId(id: string): void {
  if (!RESOURCE_ID.test(id)) throw new GatewayError(RESULTS.invalidRegistrationId, 400);
}

/** Why a registration cannot be used: the §10 answer, naming the parameter that named it when there is one. */
export function unusableRegistration(result: Result, parameter: string | undefined, id: string, reason?: string): GatewayError {
  const errors: ParameterError[] | undefined = parameter ? [{ name: parameter, value: id, message: result.description }] : undefined;
  return new GatewayError(reason ? withReason(result, reason) : result, 400, errors);
}

/**
 * Refuses a registration that is not the entity's (unknown and foreign alike: 100.150.200), deleted (100.150.202)
 * or expired (100.150.203). `parameter` names the request parameter that named it, if any (registrationId).
 */
export function requireUsable(
  registration: RegistrationRecord | undefined,
  id: string,
  lifetimeMonths: number,
  now: Date,
  parameter?: string,
): RegistrationRecord {
  if (!registration) throw unusableRegistration(RESULTS.registrationNotFound, parameter, id);
  if (registration.deletedAt !== null) throw unusableRegistration(RESULTS.registrationDeleted, parameter, id);
  const expiry = expiryOf(registration, lifetimeMonths);
  if (now.getTime() >= expiry.getTime()) {
    throw unusableRegistration(RESULTS.registrationNotValid, parameter, id, `the registration expired on ${expiry.toISOString().slice(0, 10)}`);
  }
  return registration;
}

/** A stored card opened for a payment: the card (never its CVV, which is not stored) and its registration. */
export interface StoredCard {
  readonly registration: RegistrationRecord;
  readonly card: HeldCard;
}

/** A stored SEPA bank account opened for a direct debit, with the mandate it was registered under. */
export interface StoredBankAccount {
  readonly registration: RegistrationRecord;
  readonly bankAccount: MandatedBankAccount;
}

/**
 * The stored card or bank account of `registrationId`, for a payment that treats it like one the shopper typed;
 * refused with the §10 codes when the registration cannot be used.
 */
export async function openStored(services: RegistrationServices, entityId: string, registrationId: string, parameter: string): Promise<StoredCard | StoredBankAccount> {
  if (!RESOURCE_ID.test(registrationId)) throw unusableRegistration(RESULTS.invalidRegistrationId, parameter, registrationId);
  const found = await findRegistrationWithCard(services.store, entityId, registrationId);
  const registration = requireUsable(found?.registration, registrationId, services.registrationLifetimeMonths, services.now(), parameter);
  noteLastUse(services.lastUses, registration.id, registration.lastUsedAt.getTime());
  // A live registration's card is in the vault: the row and the card were read in one statement.
  if (!found?.sealed) throw new Error(`the card of registration ${registration.id} is not in the vault`);
  let opened: unknown;
  try {
    opened = services.vault.open<unknown>(found.sealed);
  } catch {
    throw unusableRegistration(RESULTS.registrationNotValid, parameter, registrationId, 'its card was sealed with a card-data key this gateway does not have');
  }
  return registration.bankAccount !== null ? { registration, bankAccount: opened as MandatedBankAccount } : { registration, card: opened as HeldCard };
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
 * An id that is not one of the entity's usable registrations is refused, naming its parameter.
 */
export async function storedCardsFor(
  services: Pick<RegistrationServices, 'store' | 'now' | 'registrationLifetimeMonths'>,
  entityId: string,
  offered: readonly { name: string; id: string }[],
): Promise<StoredCardView[]> {
  const now = services.now().getTime();
  const live = await findLiveRegistrations(services.store, entityId, offered.map((entry) => entry.id));
  const found = new Map(
    live
      .filter((registration) => registration.card !== null && now < expiryOf(registration, services.registrationLifetimeMonths).getTime())
      .map((registration) => [registration.id, registration]),
  );
  const errors = offered
    .filter((entry) => !found.has(entry.id))
    .map((entry) => ({ name: entry.name, value: entry.id, message: 'is not a usable stored card of this entity' }));
  if (errors.length > 0) throw invalidParameters(errors);
  return offered.map(({ id }) => {
    const { paymentBrand, card } = found.get(id) as RegistrationRecord & { card: CardSummary };
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

/**
 * After a payment with a registration was approved: the registration's expiry clock starts again, and an INITIAL
 * payment's scheme reference is kept with it for the merchant-initiated payments that will name it.
 */
export async function registrationUsed(services: Pick<RegistrationServices, 'lastUses'>, tx: Queryable, payment: PaymentRecord, now: Date): Promise<void> {
  if (payment.status !== 'approved' || payment.registrationId === null) return;
  const scheme = schemeReferenceOf(payment);
  // Moved within the hour (as this process last saw it): the statement would change nothing.
  const lastUse = services.lastUses.get(payment.registrationId);
  if (scheme === null && lastUse !== undefined && now.getTime() - lastUse < LAST_USE_RESOLUTION_MS) return;
  if (await registrationPaidWith(tx, payment.registrationId, now, scheme)) noteLastUse(services.lastUses, payment.registrationId, now.getTime());
}

/**
 * When this process last saw each registration's expiry clock move (read with its card, or moved by a payment): a
 * hint that spares a busy card's payments a statement that would change nothing (the statement's own condition
 * decides). Bounded: forgotten at once when it holds LAST_USES_KEPT registrations.
 */
export function createLastUses(): Map<string, number> {
  return new Map();
}

const LAST_USES_KEPT = 10_000;

function noteLastUse(lastUses: Map<string, number>, registrationId: string, at: number): void {
  if (lastUses.size >= LAST_USES_KEPT && !lastUses.has(registrationId)) lastUses.clear();
  lastUses.set(registrationId, at);
}
