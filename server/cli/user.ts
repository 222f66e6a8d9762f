import { recordAction } from '../dashboard/audit.ts';
import { changeRole, findUser, invitationLink, inviteUser, isRole, listUsers, removeUser, resetUserSecondFactor, ROLES, UserRefused, type MerchantUser } from '../dashboard/users.ts';
import type { Store } from '../store/index.ts';
import type { Usage } from './command.ts';

/**
 * `npm run gateway -- user ...`: the merchant users of the back office (dashboard/users.ts), as the operator manages
 * them from the command line: an invitation (its one-time link shown once, to hand over), the list, a role, a
 * removal, a reset second factor. Each change is recorded like one made in the dashboard, by `command line`.
 */

export const USER_USAGE = `  user invite EMAIL --entity ID --role viewer|refunds|admin
                                             invite a merchant user of the entity: shows the one-time
                                             link (valid 72 hours) where they set their password
  user list [--entity ID]                    list merchant users: entity, address, role, status
  user role EMAIL viewer|refunds|admin       change a user's role (their sessions end)
  user remove EMAIL                          remove a user and end their sessions
  user reset-second-factor EMAIL             forget a user's authenticator (a lost phone); the next
                                             sign-in enrols a new one
`;

const ACTOR = 'command line';

const line = (user: MerchantUser): string =>
  [
    user.entityId,
    user.email,
    user.role,
    user.status === 'active' ? `active${user.secondFactor ? ', second factor enrolled' : ''}` : `invited until ${user.invitationExpiresAt?.toISOString() ?? '(expired)'}`,
  ].join('  ');

export async function userCommand(
  action: string | undefined,
  values: { readonly entity?: readonly string[] | undefined; readonly role?: string | undefined },
  positionals: readonly string[],
  context: { readonly store: Store; readonly now: () => Date; readonly publicUrl: string },
  usage: Usage,
): Promise<string> {
  const { store, now } = context;
  const email = positionals[0];
  const existing = async (): Promise<MerchantUser> => {
    if (!email) throw usage(`user ${action ?? ''} needs the user's EMAIL`);
    const user = await findUser(store, { email });
    if (!user) throw new UserRefused(`no user ${email}`);
    return user;
  };
  const record = (user: MerchantUser, what: string, detail: Record<string, unknown>) =>
    recordAction(store, { actor: ACTOR, entityId: user.entityId, action: what, detail, resultCode: '000.000.000', at: now() });
  switch (action) {
    case 'invite': {
      const entityId = values.entity?.[0];
      if (!email || !entityId || values.role === undefined) throw usage('user invite needs EMAIL, --entity ID and --role');
      if (!isRole(values.role)) throw usage(`a role is one of ${ROLES.join(', ')}`);
      const role = values.role;
      const invited = await store.transaction((tx) => inviteUser(tx, { entityId, email, role, invitedBy: ACTOR }, now()));
      await record(invited.user, 'invite user', { email: invited.user.email, role });
      return [
        `${invited.user.email} invited to ${invited.user.entityName} (${entityId}) as ${role}`,
        `link     ${invitationLink(context.publicUrl, invited.code)}`,
        `expires  ${invited.expiresAt.toISOString()}`,
        '(the link is shown once: hand it to the person; opening it, they set their password)',
      ].join('\n');
    }
    case 'list': {
      const users = await listUsers(store, values.entity && values.entity.length > 0 ? values.entity : undefined);
      return users.map(line).join('\n') || '(no users)';
    }
    case 'role': {
      const role = positionals[1];
      if (!isRole(role)) throw usage(`user role needs EMAIL and a role: ${ROLES.join(', ')}`);
      const user = await existing();
      await store.transaction((tx) => changeRole(tx, user.id, role, now()));
      await record(user, 'change user role', { email: user.email, from: user.role, role });
      return `${user.email} is ${role} now; their sessions ended`;
    }
    case 'remove': {
      const user = await existing();
      await store.transaction((tx) => removeUser(tx, user.id, now()));
      await record(user, 'remove user', { email: user.email, role: user.role });
      return `${user.email} removed; their sessions ended`;
    }
    case 'reset-second-factor': {
      const user = await existing();
      const reset = await store.transaction((tx) => resetUserSecondFactor(tx, user.id, now()));
      await record(user, 'reset second factor', { email: user.email });
      return reset ? `${user.email}'s second factor reset: the next sign-in enrols a new one` : `${user.email} had no second factor enrolled`;
    }
    default:
      throw usage(`unknown command: user ${action ?? ''}`.trimEnd());
  }
}
