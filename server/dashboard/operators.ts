import { randomBytes } from 'node:crypto';
import { newResourceId } from '../domain/ids.ts';
import { hashPassword, verifyPassword } from '../merchants/passwordHash.ts';
import type { Queryable } from '../store/index.ts';
import { resetSecondFactor } from './secondFactor.ts';

/**
 * Operator accounts of the back office (`npm run gateway -- operator ...`): a name and a password kept only as a salted
 * scrypt hash (merchants/passwordHash.ts, the same slow KDF as legacy credentials). An operator sees every entity.
 */

/** 3 to 64 characters a person types as a login name. */
export const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{2,63}$/;
/** Shortest password an operator may be given (a generated one is 24 characters). */
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

export interface Operator {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

export class OperatorRefused extends Error {}

/** Why `password` cannot be an operator's, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `a password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

/** A password to give a new operator: 18 random bytes, base64url (24 characters). */
export const newOperatorPassword = (): string => randomBytes(18).toString('base64url');

export async function createOperator(db: Queryable, name: string, password: string, now: Date): Promise<Operator> {
  if (!OPERATOR_NAME.test(name)) throw new OperatorRefused('an operator name is 3 to 64 letters, digits or . _ @ -, starting with a letter or digit');
  const problem = passwordProblem(password);
  if (problem) throw new OperatorRefused(problem);
  const id = newResourceId();
  const passwordHash = await hashPassword(password);
  const inserted = await db.query(
    `INSERT INTO operators (id, name, password_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
    [id, name, passwordHash, now],
  );
  if (inserted.rowCount === 0) throw new OperatorRefused(`an operator named ${name} exists`);
  return { id, name, createdAt: now };
}

/** Gives the operator a new password and ends their sessions; false when there is no such operator. */
export async function setOperatorPassword(db: Queryable, name: string, password: string, now: Date): Promise<boolean> {
  const problem = passwordProblem(password);
  if (problem) throw new OperatorRefused(problem);
  const passwordHash = await hashPassword(password);
  const updated = await db.query<{ id: string }>('UPDATE operators SET password_hash = $2 WHERE name = $1 AND removed_at IS NULL RETURNING id', [name, passwordHash]);
  const id = updated.rows[0]?.id;
  if (id === undefined) return false;
  await db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE operator_id = $1 AND ended_at IS NULL', [id, now]);
  return true;
}

/** Removes the operator (their name stays taken, their actions keep naming them) and ends their sessions. */
export async function removeOperator(db: Queryable, name: string, now: Date): Promise<boolean> {
  const removed = await db.query<{ id: string }>('UPDATE operators SET removed_at = $2 WHERE name = $1 AND removed_at IS NULL RETURNING id', [name, now]);
  const id = removed.rows[0]?.id;
  if (id === undefined) return false;
  await db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE operator_id = $1 AND ended_at IS NULL', [id, now]);
  return true;
}

/**
 * Forgets the operator's second factor (a lost phone) and ends their sessions: the next sign-in enrols a new one.
 * undefined when there is no such operator; else whether one was enrolled.
 */
export async function resetOperatorSecondFactor(db: Queryable, name: string, now: Date): Promise<boolean | undefined> {
  const found = await db.query<{ id: string }>('SELECT id FROM operators WHERE name = $1 AND removed_at IS NULL', [name]);
  const id = found.rows[0]?.id;
  if (id === undefined) return undefined;
  const reset = await resetSecondFactor(db, { kind: 'operator', id }, now);
  await db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE operator_id = $1 AND ended_at IS NULL', [id, now]);
  return reset;
}

export async function listOperators(db: Queryable): Promise<Operator[]> {
  const found = await db.query<{ id: string; name: string; created_at: Date }>('SELECT id, name, created_at FROM operators WHERE removed_at IS NULL ORDER BY name');
  return found.rows.map((row) => ({ id: row.id, name: row.name, createdAt: new Date(row.created_at) }));
}

/** A hash no password matches, verified when the name is unknown so that an unknown name takes as long as a known one. */
let unknownNameHash: Promise<string> | undefined;

/** The operator whose name and password these are, or undefined (unknown name, removed, wrong password). */
export async function authenticateOperator(db: Queryable, name: string, password: string): Promise<Operator | undefined> {
  const found = await db.query<{ id: string; name: string; password_hash: string; created_at: Date }>(
    'SELECT id, name, password_hash, created_at FROM operators WHERE name = $1 AND removed_at IS NULL',
    [name],
  );
  const row = found.rows[0];
  if (!row) {
    unknownNameHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await unknownNameHash);
    return undefined;
  }
  return (await verifyPassword(password, row.password_hash)) ? { id: row.id, name: row.name, createdAt: new Date(row.created_at) } : undefined;
}
