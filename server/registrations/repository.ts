import type { CardSummary } from '../domain/payment.ts';
import type { Queryable } from '../store/index.ts';
import type { SealedValue } from '../vault/cardVault.ts';

/** SQL for registrations: stored cards and bank accounts, visible only to their own entity. */

/** A registration's card as shown: a deleted registration's has neither holder nor expiry (markRegistrationDeleted). */
export type RegistrationCard = Omit<CardSummary, 'expiryMonth' | 'expiryYear'> & Partial<Pick<CardSummary, 'expiryMonth' | 'expiryYear'>>;

export interface RegistrationRecord {
  readonly id: string;
  readonly entityId: string;
  readonly paymentBrand: string;
  /** The stored card as shown; null for a bank account. A deleted registration's: its BIN and last four digits only. */
  readonly card: RegistrationCard | null;
  /**
   * The stored SEPA bank account as shown (holder, masked IBAN, BIC, country, mandate); null for a card. A deleted
   * registration's: the masked IBAN, the BIC and the country only.
   */
  readonly bankAccount: Record<string, unknown> | null;
  /** The card (or bank account), sealed in the vault (vault_items); null once the registration is deleted (the card is erased). */
  readonly sealedCardId: string | null;
  /**
   * customer, billing, customParameters, merchantTransactionId, standingInstruction as sent (masked, no card data). A
   * deleted registration's: merchantTransactionId only.
   */
  readonly requestEcho: Record<string, unknown>;
  readonly testMode: string | null;
  /** The success code the registration was made with (by mode: 000.100.110, 000.100.112, 000.000.000). */
  readonly resultCode: string;
  /** The registration-only checkout it was made through, if any. */
  readonly checkoutId: string | null;
  /** The scheme reference of the card-on-file agreement's first, cardholder-initiated payment. */
  readonly initialTransactionId: string | null;
  readonly createdAt: Date;
  /** Creation, the last successful payment or extendlife: the registration expires a lifetime after it. */
  readonly lastUsedAt: Date;
  readonly updatedAt: Date | null;
  readonly deletedAt: Date | null;
  /** The id of the deregistration (DR) that deleted it. */
  readonly deregistrationId: string | null;
}

interface RegistrationRow {
  id: string;
  entity_id: string;
  payment_brand: string;
  card: RegistrationCard | null;
  bank_account: Record<string, unknown> | null;
  sealed_card_id: string | null;
  request_echo: Record<string, unknown>;
  test_mode: string | null;
  result_code: string;
  checkout_id: string | null;
  initial_transaction_id: string | null;
  created_at: Date;
  last_used_at: Date;
  updated_at: Date | null;
  deleted_at: Date | null;
  deregistration_id: string | null;
}

const COLUMNS = `id, entity_id, payment_brand, card, bank_account, sealed_card_id, request_echo, test_mode, result_code, checkout_id,
  initial_transaction_id, created_at, last_used_at, updated_at, deleted_at, deregistration_id`;

function toRecord(row: RegistrationRow): RegistrationRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    paymentBrand: row.payment_brand,
    card: row.card,
    bankAccount: row.bank_account,
    sealedCardId: row.sealed_card_id,
    requestEcho: row.request_echo,
    testMode: row.test_mode,
    resultCode: row.result_code,
    checkoutId: row.checkout_id,
    initialTransactionId: row.initial_transaction_id,
    createdAt: new Date(row.created_at),
    lastUsedAt: new Date(row.last_used_at),
    updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
    deletedAt: row.deleted_at === null ? null : new Date(row.deleted_at),
    deregistrationId: row.deregistration_id,
  };
}

export async function insertRegistration(db: Queryable, registration: RegistrationRecord): Promise<void> {
  await db.query(
    `INSERT INTO registrations (id, entity_id, payment_brand, card, sealed_card_id, request_echo, test_mode, result_code,
       checkout_id, initial_transaction_id, created_at, last_used_at, bank_account)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7, $8, $9, $10, $11::timestamptz, $11::timestamptz, $12::jsonb)`,
    [
      registration.id,
      registration.entityId,
      registration.paymentBrand,
      JSON.stringify(registration.card),
      registration.sealedCardId,
      JSON.stringify(registration.requestEcho),
      registration.testMode,
      registration.resultCode,
      registration.checkoutId,
      registration.initialTransactionId,
      registration.createdAt.toISOString(),
      registration.bankAccount === null ? null : JSON.stringify(registration.bankAccount),
    ],
  );
}

/** The entity's registration, deleted or not (another entity's does not exist for this caller); `forUpdate` locks it. */
export async function findRegistration(
  db: Queryable,
  entityId: string,
  id: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<RegistrationRecord | undefined> {
  const found = await db.query<RegistrationRow>(
    `SELECT ${COLUMNS} FROM registrations WHERE id = $1 AND entity_id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, entityId],
  );
  const row = found.rows[0];
  return row ? toRecord(row) : undefined;
}

/**
 * The entity's registrations whose id or deregistration (DR) id is among `ids` (the query API's RG and DR records),
 * deleted or not, in no particular order.
 */
export async function findRegistrationsOfRecords(db: Queryable, entityId: string, ids: readonly string[]): Promise<RegistrationRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<RegistrationRow>(
    `SELECT ${COLUMNS} FROM registrations WHERE entity_id = $1 AND (id = ANY($2::char(32)[]) OR deregistration_id = ANY($2::char(32)[]))`,
    [entityId, ids],
  );
  return found.rows.map(toRecord);
}

/** The entity's live (not deleted) registrations among `ids`. */
export async function findLiveRegistrations(db: Queryable, entityId: string, ids: readonly string[]): Promise<RegistrationRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<RegistrationRow>(
    `SELECT ${COLUMNS} FROM registrations WHERE entity_id = $1 AND id = ANY($2::char(32)[]) AND deleted_at IS NULL`,
    [entityId, ids],
  );
  return found.rows.map(toRecord);
}

/**
 * The entity's registration with its sealed card, read in one statement: a delete committing meanwhile either
 * happened before (the registration is found deleted, without a card) or after (both are found).
 */
export async function findRegistrationWithCard(
  db: Queryable,
  entityId: string,
  id: string,
): Promise<{ registration: RegistrationRecord; sealed: SealedValue | undefined } | undefined> {
  const found = await db.query<RegistrationRow & { key_id: string | null; iv: string | null; tag: string | null; data: string | null }>(
    `SELECT ${COLUMNS.split(',')
      .map((column) => `r.${column.trim()}`)
      .join(', ')}, v.key_id, v.iv, v.tag, v.data
       FROM registrations r LEFT JOIN vault_items v ON v.id = r.sealed_card_id
      WHERE r.id = $1 AND r.entity_id = $2`,
    [id, entityId],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const sealed = row.key_id === null ? undefined : { keyId: row.key_id, iv: row.iv as string, tag: row.tag as string, data: row.data as string };
  return { registration: toRecord(row), sealed };
}

/** New holder and expiry (POST /v1/registrations/{id}); the number stays sealed as it was. */
export async function updateRegistrationCard(db: Queryable, id: string, card: CardSummary, sealedCardId: string, now: Date): Promise<void> {
  await db.query('UPDATE registrations SET card = $2::jsonb, sealed_card_id = $3, updated_at = $4::timestamptz WHERE id = $1', [
    id,
    JSON.stringify(card),
    sealedCardId,
    now.toISOString(),
  ]);
}

/**
 * How stale a registration's expiry clock may be before a payment moves it: a lifetime is counted in months, and a
 * card paid with many times a minute (a subscription run, a busy one-click shop) would otherwise have every payment
 * update, and wait for the lock of, the same row.
 */
export const LAST_USE_RESOLUTION_MS = 60 * 60_000;

/**
 * After a successful payment: the expiry clock starts again (unless it was moved within LAST_USE_RESOLUTION_MS), and
 * an INITIAL payment's scheme reference is kept. A row with nothing to change is not written (nor locked): false.
 */
export async function registrationPaidWith(db: Queryable, id: string, now: Date, initialTransactionId: string | null): Promise<boolean> {
  const updated = await db.query(
    `UPDATE registrations SET last_used_at = greatest(last_used_at, $2::timestamptz),
            initial_transaction_id = coalesce($3::text, initial_transaction_id)
      WHERE id = $1 AND deleted_at IS NULL
        AND (last_used_at < $2::timestamptz - make_interval(secs => $4::double precision)
             OR ($3::text IS NOT NULL AND $3::text IS DISTINCT FROM initial_transaction_id))`,
    [id, now.toISOString(), initialTransactionId, LAST_USE_RESOLUTION_MS / 1000],
    { preparedAs: 'registration-paid-with' },
  );
  return updated.rowCount > 0;
}

/** extendlife: the expiry clock starts again now. */
export async function extendRegistration(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query('UPDATE registrations SET last_used_at = $2::timestamptz, updated_at = $2::timestamptz WHERE id = $1 AND deleted_at IS NULL', [
    id,
    now.toISOString(),
  ]);
}

/*
 * What a deleted registration keeps (docs/decisions.md): its brand, its card's BIN and last four digits (a bank
 * account's masked IBAN, BIC and country) and the merchant's reference, merchantTransactionId — what the query API and
 * the back office show of it, and find it by; not the holder, the expiry, the mandate, nor what the request said of
 * the customer. As SQL over what a registration shows (its row's card, bank_account and request_echo, and its
 * REGISTRATION events' payloads, registrationBody's fields); migration 0029 applied the same to the registrations
 * deleted before it. A bank account's registration holds a JSON null as its card, which stays one.
 */
const keptCard = (card: string) =>
  `CASE WHEN jsonb_typeof(${card}) = 'object' THEN jsonb_build_object('bin', ${card}->'bin', 'last4Digits', ${card}->'last4Digits') ELSE ${card} END`;
const keptBankAccount = (account: string) =>
  `CASE WHEN jsonb_typeof(${account}) = 'object' THEN jsonb_strip_nulls(jsonb_build_object('iban', ${account}->'iban', 'bic', ${account}->'bic', 'country', ${account}->'country')) ELSE ${account} END`;

/**
 * Marks a registration deleted and keeps only what a deleted registration keeps, in its row and its REGISTRATION
 * events (its card is erased from the vault by the caller in the same transaction): the registration as it is now.
 */
export async function markRegistrationDeleted(db: Queryable, id: string, deregistrationId: string, now: Date): Promise<RegistrationRecord> {
  const updated = await db.query<RegistrationRow>(
    `UPDATE registrations SET deleted_at = $2::timestamptz, updated_at = $2::timestamptz, sealed_card_id = NULL, deregistration_id = $3,
            card = ${keptCard('card')}, bank_account = ${keptBankAccount('bank_account')},
            request_echo = jsonb_strip_nulls(jsonb_build_object('merchantTransactionId', request_echo->'merchantTransactionId'))
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [id, now.toISOString(), deregistrationId],
  );
  await db.query(
    `UPDATE events SET payload = jsonb_strip_nulls(jsonb_build_object(
            'id', payload->'id', 'paymentBrand', payload->'paymentBrand', 'card', ${keptCard("payload->'card'")},
            'bankAccount', ${keptBankAccount("payload->'bankAccount'")}, 'merchantTransactionId', payload->'merchantTransactionId',
            'result', payload->'result'))
      WHERE resource_id = $1 AND type = 'REGISTRATION'`,
    [id],
  );
  const row = updated.rows[0];
  if (!row) throw new Error(`registration ${id} is not there to delete`);
  return toRecord(row);
}
