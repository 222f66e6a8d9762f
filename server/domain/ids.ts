import { randomBytes } from 'node:crypto';

/** Payment, registration and schedule ids: 32 lowercase hex characters (COMPAT §1). */
export const RESOURCE_ID = /^[0-9a-f]{32}$/;
export const ENTITY_ID = /^[0-9a-f]{32}$/;

export function newResourceId(): string {
  return randomBytes(16).toString('hex');
}

/** The `ndc` of a non-checkout response: `<entityId>_<32 hex>`. */
export function newNdc(entityId: string): string {
  return `${entityId}_${randomBytes(16).toString('hex')}`;
}

export function newRequestId(): string {
  return randomBytes(16).toString('hex');
}
