import { ENTITY_ID, LEGACY_USER_ID } from '../domain/ids.ts';
import { issueLegacyCredentials, listLegacyCredentials, revokeLegacyCredentials, type LegacyCredentialsSummary } from '../merchants/legacyCredentials.ts';
import { entityExists } from '../merchants/repository.ts';
import type { Store } from '../store/index.ts';
import type { Usage } from './command.ts';

/** `npm run gateway -- credentials ...`: legacy credentials (COMPAT §1, merchants/legacyCredentials.ts). */

export const CREDENTIALS_USAGE = `  credentials create --entity ID [--entity ID ...] [--label LABEL]
                                             issue legacy credentials (authentication.userId and
                                             authentication.password, for clients that send no
                                             Authorization header) allowed for the entities; the
                                             password is shown once
  credentials list [--entity ID]             list legacy credentials (never a password)
  credentials revoke USER_ID                 revoke legacy credentials; running gateways refuse them
                                             within TOKEN_CACHE_SECONDS
`;

export interface CredentialsOptionValues {
  readonly entity?: string[] | undefined;
  readonly label?: string | undefined;
}

function describeCredentials(credentials: LegacyCredentialsSummary): string {
  const state = credentials.revokedAt ? `revoked ${credentials.revokedAt.toISOString()}` : 'active';
  return `${credentials.userId}  ${state}  entities ${credentials.entityIds.join(',') || '(none)'}  ${credentials.label}${credentials.demo ? ' (demo)' : ''}  created ${credentials.createdAt.toISOString()}`;
}

/** Runs `credentials <action>`. */
export async function credentialsCommand(
  action: string | undefined,
  values: CredentialsOptionValues,
  positionals: readonly string[],
  store: Store,
  usage: Usage,
): Promise<string> {
  switch (action) {
    case 'create': {
      const entityIds = values.entity ?? [];
      if (entityIds.length === 0) throw usage('credentials create needs at least one --entity ID');
      for (const id of entityIds) {
        if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw usage(`no entity ${id.slice(0, 64)}`);
      }
      const issued = await store.transaction((tx) => issueLegacyCredentials(tx, entityIds, values.label ?? 'legacy client'));
      return [
        `authentication.userId    ${issued.userId}`,
        `authentication.password  ${issued.password}`,
        `allowed for              ${[...new Set(entityIds)].join(', ')}`,
        '(the password is shown once; only a salted scrypt hash of it is stored)',
      ].join('\n');
    }
    case 'list': {
      const entityId = values.entity?.[0];
      if ((values.entity?.length ?? 0) > 1) throw usage('credentials list takes at most one --entity ID');
      if (entityId !== undefined && !ENTITY_ID.test(entityId)) throw usage('--entity must be 32 lowercase hexadecimal characters');
      return (await listLegacyCredentials(store, { entityId })).map(describeCredentials).join('\n') || '(no legacy credentials)';
    }
    case 'revoke': {
      const userId = positionals[0];
      if (!userId || !LEGACY_USER_ID.test(userId)) throw usage('credentials revoke needs the USER_ID (32 lowercase hexadecimal characters)');
      return (await revokeLegacyCredentials(store, userId)) ? `revoked ${userId}` : `no active legacy credentials ${userId}`;
    }
    default:
      throw usage(`unknown command: credentials ${action ?? ''}`.trim());
  }
}
