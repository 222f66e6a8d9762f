import { ENTITY_ID, LEGACY_USER_ID } from '../domain/ids.ts';
import { issueLegacyCredentials, listLegacyCredentials, revokeLegacyCredentials, type LegacyCredentialsSummary } from '../merchants/legacyCredentials.ts';
import { entityExists } from '../merchants/repository.ts';
import type { Store } from '../store/index.ts';
import { callAdmin, refusedBy, type AdminApi, type Usage } from './command.ts';

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

/** What the `credentials` commands do: on the store, or through a running gateway's admin API (as entity.ts). */
export interface CredentialsBackend {
  issue(entityIds: readonly string[], label: string): Promise<{ userId: string; password: string }>;
  list(entityId: string | undefined): Promise<LegacyCredentialsSummary[]>;
  /** False when there are no active credentials of that userId. */
  revoke(userId: string): Promise<boolean>;
}

export function storeCredentials(store: Store, usage: Usage): CredentialsBackend {
  return {
    async issue(entityIds, label) {
      for (const id of entityIds) {
        if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw usage(`no entity ${id.slice(0, 64)}`);
      }
      return store.transaction((tx) => issueLegacyCredentials(tx, entityIds, label));
    },
    list: (entityId) => listLegacyCredentials(store, { entityId }),
    revoke: (userId) => revokeLegacyCredentials(store, userId),
  };
}

export function adminApiCredentials(api: AdminApi, usage: Usage): CredentialsBackend {
  return {
    async issue(entityIds, label) {
      const answer = await callAdmin(api, 'POST', '/admin/v1/credentials', { entityIds, label });
      if (answer.status === 404 || answer.status === 400) throw usage(answer.body.result?.description?.replace(/^.*: /, '') ?? 'no such entity');
      if (answer.status !== 201) throw refusedBy(answer);
      return (answer.body as unknown as { credentials: { userId: string; password: string } }).credentials;
    },
    async list(entityId) {
      const answer = await callAdmin(api, 'GET', `/admin/v1/credentials${entityId ? `?entityId=${entityId}` : ''}`);
      if (answer.status !== 200) throw refusedBy(answer);
      const listed = (answer.body.credentials ?? []) as (Omit<LegacyCredentialsSummary, 'createdAt' | 'revokedAt'> & { createdAt: string; revokedAt: string | null })[];
      return listed.map((credentials) => ({ ...credentials, createdAt: new Date(credentials.createdAt), revokedAt: credentials.revokedAt === null ? null : new Date(credentials.revokedAt) }));
    },
    async revoke(userId) {
      return (await callAdmin(api, 'DELETE', `/admin/v1/credentials/${userId}`)).status === 200;
    },
  };
}

/** Runs `credentials <action>`. */
export async function credentialsCommand(
  action: string | undefined,
  values: CredentialsOptionValues,
  positionals: readonly string[],
  credentials: CredentialsBackend,
  usage: Usage,
): Promise<string> {
  switch (action) {
    case 'create': {
      const entityIds = values.entity ?? [];
      if (entityIds.length === 0) throw usage('credentials create needs at least one --entity ID');
      const issued = await credentials.issue(entityIds, values.label ?? 'legacy client');
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
      return (await credentials.list(entityId)).map(describeCredentials).join('\n') || '(no legacy credentials)';
    }
    case 'revoke': {
      const userId = positionals[0];
      if (!userId || !LEGACY_USER_ID.test(userId)) throw usage('credentials revoke needs the USER_ID (32 lowercase hexadecimal characters)');
      return (await credentials.revoke(userId)) ? `revoked ${userId}` : `no active legacy credentials ${userId}`;
    }
    default:
      throw usage(`unknown command: credentials ${action ?? ''}`.trim());
  }
}
