import { createHash, randomBytes } from 'node:crypto';
import { newResourceId } from '../domain/ids.ts';
import { hashPassword, verifyPassword } from '../merchants/passwordHash.ts';
import type { Queryable } from '../store/index.ts';
import { passwordProblem } from './operators.ts';
import { resetSecondFactor } from './secondFactor.ts';

/**
 * Merchant users of the back office (issue 34 §2): a person of one merchant (an entity), who signs in with an e-mail
 * address and a password instead of the merchant's integration token, with a role:
 *   viewer   reads the entity's payments, records and settings
 *   refunds  and captures, refunds and reverses payments, cancels schedules
 *   admin    and manages the entity's users and webhooks, re-sends its reconciliation files
 * (access.ts `requireRole` holds the rule). An operator or the entity's admin invites a user: the invitation is a
 * one-time code with an expiry (INVITATION_TTL_MS), handed over as a link; whoever opens it sets the password (a
 * salted scrypt hash, as for operators) and signs in. Removing a user ends their sessions at once; their row stays,
 * so the actions they did keep naming them.
 */

export const ROLES = ['viewer', 'refunds', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** How long an invitation's code can be used: three days, for a person who reads their mail after a weekend. */
export const INVITATION_TTL_MS = 72 * 60 * 60_000;

/** An e-mail address as a login name: one @, no spaces, 254 characters at most; kept in lower case. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export class UserRefused extends Error {}

export interface MerchantUser {
  readonly id: string;
  readonly entityId: string;
  readonly entityName: string;
  readonly email: string;
  readonly role: Role;
  /** invited: no password yet; active: may sign in. */
  readonly status: 'invited' | 'active';
  readonly secondFactor: boolean;
  readonly invitedBy: string;
  readonly createdAt: Date;
  readonly activatedAt: Date | null;
  /** The open invitation's expiry, while invited. */
  readonly invitationExpiresAt: Date | null;
}

/** The address as it is kept (lower case, trimmed), or a refusal. */
export function emailOf(text: string): string {
  const email = text.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new UserRefused('an e-mail address such as ada@example.com is needed');
  return email;
}

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

interface UserRow {
  id: string;
  entity_id: string;
  entity_name: string;
  email: string;
  role: Role;
  password_set: boolean;
  totp_set: boolean;
  invited_by: string;
  created_at: Date;
  activated_at: Date | null;
  invitation_expires_at: Date | null;
}

const USER_COLUMNS = `u.id, u.entity_id, e.name AS entity_name, u.email, u.role, u.password_hash IS NOT NULL AS password_set,
  u.totp_secret_id IS NOT NULL AS totp_set, u.invited_by, u.created_at, u.activated_at,
  (SELECT max(i.expires_at) FROM merchant_user_invitations i WHERE i.user_id = u.id AND i.used_at IS NULL) AS invitation_expires_at`;

const userOf = (row: UserRow): MerchantUser => ({
  id: row.id,
  entityId: row.entity_id,
  entityName: row.entity_name,
  email: row.email,
  role: row.role,
  status: row.password_set ? 'active' : 'invited',
  secondFactor: row.totp_set,
  invitedBy: row.invited_by,
  createdAt: new Date(row.created_at),
  activatedAt: row.activated_at === null ? null : new Date(row.activated_at),
  invitationExpiresAt: row.password_set || row.invitation_expires_at === null ? null : new Date(row.invitation_expires_at),
});

/** The live (not removed) users of these entities (every entity: undefined), by entity and address. */
export async function listUsers(db: Queryable, entityIds: readonly string[] | undefined): Promise<MerchantUser[]> {
  const found = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM merchant_users u JOIN entities e ON e.id = u.entity_id
      WHERE u.removed_at IS NULL AND ($1::text[] IS NULL OR u.entity_id = ANY($1::text[]))
      ORDER BY e.name, u.entity_id, u.email`,
    [entityIds ? [...entityIds] : null],
  );
  return found.rows.map(userOf);
}

/** A live user by id, or by address. */
export async function findUser(db: Queryable, by: { readonly id: string } | { readonly email: string }): Promise<MerchantUser | undefined> {
  const [column, value] = 'id' in by ? ['u.id', by.id] : ['u.email', by.email.trim().toLowerCase()];
  const found = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM merchant_users u JOIN entities e ON e.id = u.entity_id WHERE ${column} = $1 AND u.removed_at IS NULL`, [value]);
  const row = found.rows[0];
  return row ? userOf(row) : undefined;
}

/**
 * Where an invitation's code is opened: the dashboard's acceptance page, the code in the fragment (never sent in a
 * request line, so never in a log or a Referer).
 */
export const invitationLink = (publicUrl: string, code: string): string => `${publicUrl}/dashboard/invitation#${code}`;

/** An invitation's code (shown once, to be handed over as a link) and when it expires. */
export interface Invitation {
  readonly user: MerchantUser;
  readonly code: string;
  readonly expiresAt: Date;
}

/** A new invitation of the user (a new code; an open one before it stops working). */
async function issueInvitation(db: Queryable, userId: string, now: Date): Promise<{ code: string; expiresAt: Date }> {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  await db.query('UPDATE merchant_user_invitations SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [userId, now]);
  await db.query('INSERT INTO merchant_user_invitations (code_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [sha256(code), userId, now, expiresAt]);
  return { code, expiresAt };
}

/**
 * Invites a person to the entity with a role. An address that is an invited user's already (of the same entity) is
 * invited again, with the role asked (the earlier link stops working); an active user's, or another entity's, is
 * refused.
 */
export async function inviteUser(
  db: Queryable,
  invite: { readonly entityId: string; readonly email: string; readonly role: Role; readonly invitedBy: string },
  now: Date,
): Promise<Invitation> {
  const email = emailOf(invite.email);
  if (!isRole(invite.role)) throw new UserRefused(`a role is one of ${ROLES.join(', ')}`);
  const entity = await db.query('SELECT 1 FROM entities WHERE id = $1', [invite.entityId]);
  if (entity.rows.length === 0) throw new UserRefused(`no entity ${invite.entityId}`);
  const existing = await findUser(db, { email });
  let userId: string;
  if (existing) {
    if (existing.entityId !== invite.entityId || existing.status === 'active') throw new UserRefused(`${email} is a user already`);
    userId = existing.id;
    await db.query('UPDATE merchant_users SET role = $2 WHERE id = $1', [userId, invite.role]);
  } else {
    userId = newResourceId();
    const inserted = await db.query(
      `INSERT INTO merchant_users (id, entity_id, email, role, invited_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (email) WHERE removed_at IS NULL DO NOTHING`,
      [userId, invite.entityId, email, invite.role, invite.invitedBy, now],
    );
    if (inserted.rowCount === 0) throw new UserRefused(`${email} is a user already`);
  }
  const { code, expiresAt } = await issueInvitation(db, userId, now);
  const user = await findUser(db, { id: userId });
  if (!user) throw new Error('the invited user is gone');
  return { user, code, expiresAt };
}

const CODE = /^[A-Za-z0-9_-]{43}$/;

/** The user an open, unexpired invitation code is for, or undefined. */
export async function findInvitation(db: Queryable, code: string, now: Date): Promise<MerchantUser | undefined> {
  if (!CODE.test(code)) return undefined;
  const found = await db.query<{ user_id: string }>(
    `SELECT i.user_id FROM merchant_user_invitations i JOIN merchant_users u ON u.id = i.user_id
      WHERE i.code_hash = $1 AND i.used_at IS NULL AND i.expires_at > $2 AND u.removed_at IS NULL AND u.password_hash IS NULL`,
    [sha256(code), now],
  );
  const userId = found.rows[0]?.user_id;
  return userId ? findUser(db, { id: userId }) : undefined;
}

/**
 * Accepts an invitation: the password becomes the user's (a salted scrypt hash) and the code is used up. The user,
 * or undefined when the code is unknown, used, expired or its user removed. The password is checked first
 * (UserRefused); the hash is made before the one statement that takes the code, so two acceptances cannot both win.
 */
export async function acceptInvitation(db: Queryable, code: string, password: string, now: Date): Promise<MerchantUser | undefined> {
  const problem = passwordProblem(password);
  if (problem) throw new UserRefused(problem);
  if (!(await findInvitation(db, code, now))) return undefined;
  const passwordHash = await hashPassword(password);
  const taken = await db.query<{ user_id: string }>(
    `WITH taken AS (
       UPDATE merchant_user_invitations SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id
     )
     UPDATE merchant_users u SET password_hash = $3, activated_at = $2 FROM taken
      WHERE u.id = taken.user_id AND u.removed_at IS NULL AND u.password_hash IS NULL RETURNING u.id AS user_id`,
    [sha256(code), now, passwordHash],
  );
  const userId = taken.rows[0]?.user_id;
  return userId ? findUser(db, { id: userId }) : undefined;
}

/** Invites an invited (not yet active) user again: a new link, the old one void. */
export async function reinviteUser(db: Queryable, userId: string, now: Date): Promise<Invitation> {
  const user = await findUser(db, { id: userId });
  if (!user) throw new UserRefused('no such user');
  if (user.status === 'active') throw new UserRefused(`${user.email} has accepted the invitation already`);
  const { code, expiresAt } = await issueInvitation(db, userId, now);
  return { user: (await findUser(db, { id: userId })) ?? user, code, expiresAt };
}

const endSessionsOf = (db: Queryable, userId: string, now: Date) =>
  db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL', [userId, now]);

/**
 * Gives the user another role and ends their sessions: the next sign-in asks for what the new role needs (a second
 * factor to move money). False when there is no such user.
 */
export async function changeRole(db: Queryable, userId: string, role: Role, now: Date): Promise<boolean> {
  if (!isRole(role)) throw new UserRefused(`a role is one of ${ROLES.join(', ')}`);
  const updated = await db.query('UPDATE merchant_users SET role = $2 WHERE id = $1 AND removed_at IS NULL', [userId, role]);
  if (updated.rowCount === 0) return false;
  await endSessionsOf(db, userId, now);
  return true;
}

/** Removes the user: their sessions end, open invitations die, the second factor's secret is erased. */
export async function removeUser(db: Queryable, userId: string, now: Date): Promise<boolean> {
  const removed = await db.query('UPDATE merchant_users SET removed_at = $2 WHERE id = $1 AND removed_at IS NULL', [userId, now]);
  if (removed.rowCount === 0) return false;
  await endSessionsOf(db, userId, now);
  await db.query('UPDATE merchant_user_invitations SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [userId, now]);
  await resetSecondFactor(db, { kind: 'user', id: userId }, now);
  return true;
}

/** Resets the user's second factor (a lost phone) and ends their sessions; false when there was none to reset. */
export async function resetUserSecondFactor(db: Queryable, userId: string, now: Date): Promise<boolean> {
  const reset = await resetSecondFactor(db, { kind: 'user', id: userId }, now);
  await endSessionsOf(db, userId, now);
  return reset;
}

/** A hash no password matches, verified for an unknown address so that it takes as long as a known one. */
let unknownHash: Promise<string> | undefined;

/** The active user these are the address and password of, or undefined (unknown, invited only, removed, wrong). */
export async function authenticateUser(db: Queryable, email: string, password: string): Promise<MerchantUser | undefined> {
  const found = await db.query<{ id: string; password_hash: string }>(
    'SELECT id, password_hash FROM merchant_users WHERE email = $1 AND removed_at IS NULL AND password_hash IS NOT NULL',
    [email.trim().toLowerCase()],
  );
  const row = found.rows[0];
  if (!row) {
    unknownHash ??= hashPassword(randomBytes(16).toString('hex'));
    await verifyPassword(password, await unknownHash);
    return undefined;
  }
  return (await verifyPassword(password, row.password_hash)) ? findUser(db, { id: row.id }) : undefined;
}

/** Whether the role may move money, and so needs the second factor. */
export const movesMoney = (role: Role): boolean => role !== 'viewer';
