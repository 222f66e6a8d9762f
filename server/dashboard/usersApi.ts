import { Hono, type Context } from 'hono';
import { GatewayError, invalidParameters } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody, adminNotFound } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { actorOf, entityScope, mayActFor, requireEntity, requireRole, requireSession, sessionOf } from './access.ts';
import { ok } from './api.ts';
import { recordAction } from './audit.ts';
import type { Session } from './sessions.ts';
import {
  changeRole,
  findUser,
  invitationLink,
  inviteUser,
  isRole,
  listUsers,
  reinviteUser,
  removeUser,
  resetUserSecondFactor,
  ROLES,
  UserRefused,
  type Invitation,
  type MerchantUser,
} from './users.ts';

/**
 * The merchant users of the dashboard (/dashboard/api/users), for an operator (every entity's) and a merchant's admin
 * (their entity's): the list, an invitation (a one-time link to set the password, with its expiry), another link for
 * one not yet accepted, a role changed, a user removed; for an operator also a user's second factor reset (a lost
 * phone). A person does not change their own role nor remove themselves. Every change is recorded (audit.ts), refused
 * ones with their result code.
 */

const SUCCESS_CODE = '000.000.000';

/** A user as the Users page shows them: never a password, a secret or an invitation's code. */
export function userJson(user: MerchantUser): Record<string, unknown> {
  return {
    id: user.id,
    entityId: user.entityId,
    merchant: user.entityName,
    email: user.email,
    role: user.role,
    status: user.status,
    secondFactor: user.secondFactor,
    invitedBy: user.invitedBy,
    createdAt: user.createdAt.toISOString(),
    ...(user.activatedAt ? { activatedAt: user.activatedAt.toISOString() } : {}),
    ...(user.invitationExpiresAt ? { invitationExpiresAt: user.invitationExpiresAt.toISOString() } : {}),
  };
}

export function usersApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const signedIn = requireSession({ store, now: deps.now, publicUrl: config.publicUrl });
  const userPathId = pathId('merchantUser', (_c, id) => adminNotFound('user', id));

  const invitationJson = (invitation: Invitation) => ({
    user: userJson(invitation.user),
    invitation: { link: invitationLink(config.publicUrl, invitation.code), expiresAt: invitation.expiresAt.toISOString() },
  });

  /** The session of an admin (or operator): 403 for a viewer or a refunds user. */
  const adminOf = (c: Context<AppEnv>): Session => {
    const session = sessionOf(c);
    requireRole(session.principal, 'admin');
    return session;
  };

  /** The path's user, when the session may manage them (another entity's is as unknown as none). */
  const managedUser = async (session: Session, id: string): Promise<MerchantUser> => {
    const user = await findUser(store, { id });
    if (!user || !mayActFor(session.principal, user.entityId)) throw adminNotFound('user', id);
    return user;
  };

  /** Not on oneself: an admin does not demote or remove themselves (another admin or the operator does). */
  const notSelf = (session: Session, user: MerchantUser) => {
    if (session.principal.kind === 'merchant' && session.principal.userId === user.id) {
      throw invalidParameters([{ name: 'id', value: user.id, message: 'you cannot change your own role or remove yourself: another admin or the operator can' }]);
    }
  };

  /** Does the change and records it, refused or not. */
  async function recorded<T>(session: Session, entityId: string, action: string, detail: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
    const record = (resultCode: string) => recordAction(store, { actor: actorOf(session.principal), entityId, action, detail, resultCode, at: deps.now() });
    try {
      const done = await work();
      await record(SUCCESS_CODE);
      return done;
    } catch (thrown) {
      const error = thrown instanceof UserRefused ? invalidParameters([{ name: /e-mail|user already/.test(thrown.message) ? 'email' : 'role', value: '', message: thrown.message }]) : thrown;
      if (error instanceof GatewayError) await record(error.result.code);
      throw error;
    }
  }

  routes.get('/users', signedIn, async (c) => {
    const session = adminOf(c);
    const query = c.req.query();
    const unknown = Object.keys(query).filter((name) => name !== 'entityId');
    if (unknown.length > 0) throw invalidParameters(unknown.map((name) => ({ name, value: query[name] ?? '', message: 'is not a filter of the list' })));
    let entityIds = entityScope(session.principal);
    if (query.entityId !== undefined) {
      if (!ENTITY_ID.test(query.entityId)) throw invalidParameters([{ name: 'entityId', value: query.entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
      requireEntity(session.principal, query.entityId);
      entityIds = [query.entityId];
    }
    return ok(c, { users: (await listUsers(store, entityIds)).map(userJson), roles: ROLES });
  });

  // {"entityId", "email", "role"}: entityId may be left out by a merchant's admin (their entity).
  routes.post('/users', signedIn, async (c) => {
    const session = adminOf(c);
    const body = await adminJsonBody(c, { entityId: 'string', email: 'string', role: 'string' });
    const scope = entityScope(session.principal);
    const entityId = typeof body.entityId === 'string' ? body.entityId : scope?.length === 1 ? scope[0] : undefined;
    const problems = [
      ...(entityId === undefined ? [{ name: 'entityId', value: '', message: 'is required' }] : !ENTITY_ID.test(entityId) ? [{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }] : []),
      ...(typeof body.email !== 'string' ? [{ name: 'email', value: '', message: 'is required' }] : []),
      ...(!isRole(body.role) ? [{ name: 'role', value: typeof body.role === 'string' ? body.role : '', message: `must be one of ${ROLES.join(', ')}` }] : []),
    ];
    if (problems.length > 0) throw invalidParameters(problems);
    requireEntity(session.principal, entityId as string);
    const invited = await recorded(session, entityId as string, 'invite user', { email: body.email, role: body.role }, () =>
      inviteUser(store, { entityId: entityId as string, email: body.email as string, role: body.role as (typeof ROLES)[number], invitedBy: actorOf(session.principal) }, deps.now()),
    );
    return ok(c, invitationJson(invited));
  });
  routes.all('/users', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });

  routes.post('/users/:id/invitation', signedIn, userPathId, async (c) => {
    const session = adminOf(c);
    const user = await managedUser(session, c.req.param('id'));
    const invited = await recorded(session, user.entityId, 'invite user again', { email: user.email, role: user.role }, () => reinviteUser(store, user.id, deps.now()));
    return ok(c, invitationJson(invited));
  });

  routes.put('/users/:id/role', signedIn, userPathId, async (c) => {
    const session = adminOf(c);
    const body = await adminJsonBody(c, { role: 'string' });
    if (!isRole(body.role)) throw invalidParameters([{ name: 'role', value: typeof body.role === 'string' ? body.role : '', message: `must be one of ${ROLES.join(', ')}` }]);
    const role = body.role;
    const user = await managedUser(session, c.req.param('id'));
    notSelf(session, user);
    await recorded(session, user.entityId, 'change user role', { email: user.email, from: user.role, role }, () => changeRole(store, user.id, role, deps.now()));
    return ok(c, { user: userJson((await findUser(store, { id: user.id })) ?? user) });
  });

  routes.delete('/users/:id', signedIn, userPathId, async (c) => {
    const session = adminOf(c);
    const user = await managedUser(session, c.req.param('id'));
    notSelf(session, user);
    await recorded(session, user.entityId, 'remove user', { email: user.email, role: user.role }, () => removeUser(store, user.id, deps.now()));
    return ok(c, { removed: user.id });
  });
  routes.all('/users/:id', () => {
    throw methodNotAllowed(['DELETE']);
  });

  // An operator's reset of a user's second factor: the next sign-in enrols a new one.
  routes.post('/users/:id/second-factor/reset', signedIn, userPathId, async (c) => {
    const session = sessionOf(c);
    requireRole(session.principal, 'operator');
    const user = await managedUser(session, c.req.param('id'));
    await recorded(session, user.entityId, 'reset second factor', { email: user.email }, () => resetUserSecondFactor(store, user.id, deps.now()));
    return ok(c, { user: userJson((await findUser(store, { id: user.id })) ?? user) });
  });

  return routes;
}
