import type { CardSummary } from '../domain/payment.ts';
import type { Queryable } from '../store/index.ts';

/** SQL for registrations: stored cards, visible only to their own entity. */

export interface RegistrationRecord {
  readonly id: string;
  readonly entityId: string;
  readonly paymentBrand: string;
  readonly card: CardSummary;
  /** The card, sealed in the vault (vault_items). */
  readonly sealedCardId: string;
  readonly createdAt: Date;
}

interface RegistrationRow {
  id: string;
  entity_id: string;
  payment_brand: string;
  card: CardSummary;
  sealed_card_id: string;
  created_at: Date;
}

function toRecord(row: RegistrationRow): RegistrationRecord {
  return {
    id: row.id,
    entityId: row.entity_id,
    paymentBrand: row.payment_brand,
    card: row.card,
    sealedCardId: row.sealed_card_id,
    createdAt: row.created_at,
  };
}

export async function insertRegistration(db: Queryable, registration: RegistrationRecord): Promise<void> {
  await db.query(
    `INSERT INTO registrations (id, entity_id, payment_brand, card, sealed_card_id, created_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6::timestamptz)`,
    [
      registration.id,
      registration.entityId,
      registration.paymentBrand,
      JSON.stringify(registration.card),
      registration.sealedCardId,
      registration.createdAt.toISOString(),
    ],
  );
}

/** The entity's live registrations among `ids` (another entity's or a deleted one is simply not found). */
export async function findRegistrations(db: Queryable, entityId: string, ids: readonly string[]): Promise<RegistrationRecord[]> {
  if (ids.length === 0) return [];
  const found = await db.query<RegistrationRow>(
    `SELECT id, entity_id, payment_brand, card, sealed_card_id, created_at
       FROM registrations WHERE entity_id = $1 AND id = ANY($2::char(32)[]) AND deleted_at IS NULL`,
    [entityId, ids],
  );
  return found.rows.map(toRecord);
}
