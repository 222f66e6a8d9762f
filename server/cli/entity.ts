import { ENTITY_ID } from '../domain/ids.ts';
import { resultUrlBaseProblem } from '../domain/urls.ts';
import {
  createEntityWithToken,
  entityExists,
  grantToken,
  listEntities,
  listTokens,
  newAccessToken,
  revokeToken,
  setShopperResultUrlBase,
  type TokenListing,
} from '../merchants/repository.ts';
import type { Store } from '../store/index.ts';
import { callAdmin, refusedBy, type AdminApi, type Usage } from './command.ts';

/** `npm run gateway -- entity ...` and `token ...`: the merchants' entities and their access tokens. */

export const ENTITY_USAGE = `  entity create [--name NAME] [--id ID] [--result-url-base URL]
                                             create an entity and an access token for it
  entity update ID --result-url-base URL|none
                                             set where the entity's shoppers return (a base ending with
                                             a slash): the 29-minute call goes to a result URL the payment
                                             page posted only when it lies under it
  entity list                                list entities
  token create --entity ID [--entity ID ...] [--label LABEL]
                                             create an access token allowed for the given entities
  token list [--entity ID]                   list access tokens (id, label, entities, created, revoked)
  token revoke TOKEN_ID                      revoke an access token
`;

/** One line of `token list`: id, active or revoked, created, label, entities. */
function tokenLine(token: TokenListing): string {
  return [token.id, token.revokedAt ? `revoked ${token.revokedAt.toISOString()}` : 'active', `created ${token.createdAt.toISOString()}`, token.label, `entities ${token.entityIds.join(',') || '(none)'}`].join('  ');
}

const TOKEN_SHOWN_ONCE = '(the token is shown once; only its hash is stored; revoke it with `token revoke` and its id)';

export interface EntityOptionValues {
  readonly name?: string | undefined;
  readonly id?: string | undefined;
  readonly entity?: string[] | undefined;
  readonly label?: string | undefined;
  readonly 'result-url-base'?: string | undefined;
}

function resultUrlBaseOption(raw: string | undefined, usage: Usage): string | undefined {
  if (raw === undefined) return undefined;
  const problem = resultUrlBaseProblem(raw);
  if (problem) throw usage(`--result-url-base ${problem}`);
  return raw;
}

/**
 * What the `entity` and `token` commands do, wherever they do it: on the store (a stopped embedded gateway's, or
 * PostgreSQL beside running ones), or through a running gateway's admin API when the embedded store is its own.
 * Unknown entities are refused with the usage text.
 */
export interface MerchantsBackend {
  createEntity(settings: { readonly name: string; readonly id?: string | undefined; readonly resultUrlBase?: string | undefined }): Promise<{ entityId: string; tokenId: string; token: string }>;
  /** False when there is no such entity. */
  setResultUrlBase(entityId: string, base: string | null): Promise<boolean>;
  listEntities(): Promise<{ readonly id: string; readonly name: string; readonly shopperResultUrlBase: string | null }[]>;
  createToken(entityIds: readonly string[], label: string): Promise<{ tokenId: string; token: string }>;
  listTokens(entityId: string | undefined): Promise<TokenListing[]>;
  /** False when there is no active token of that id. */
  revokeToken(tokenId: string): Promise<boolean>;
}

export function storeMerchants(store: Store, usage: Usage): MerchantsBackend {
  return {
    async createEntity(settings) {
      const { entity, tokenId, token } = await createEntityWithToken(store, settings);
      return { entityId: entity.id, tokenId, token };
    },
    setResultUrlBase: (entityId, base) => setShopperResultUrlBase(store, entityId, base),
    listEntities: () => listEntities(store),
    async createToken(entityIds, label) {
      for (const id of entityIds) {
        if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw usage(`no entity ${id}`);
      }
      const token = newAccessToken();
      return { tokenId: await grantToken(store, token, label, entityIds), token };
    },
    listTokens: (entityId) => listTokens(store, entityId),
    revokeToken: (tokenId) => revokeToken(store, tokenId),
  };
}

/** The admin API's dates as the store's: what the command prints is the same either way. */
function tokenOfAnswer(token: { id: string; label: string; entityIds: string[]; createdAt: string; revokedAt: string | null }): TokenListing {
  return { ...token, createdAt: new Date(token.createdAt), revokedAt: token.revokedAt === null ? null : new Date(token.revokedAt) };
}

export function adminApiMerchants(api: AdminApi, usage: Usage): MerchantsBackend {
  return {
    async createEntity({ name, id, resultUrlBase }) {
      const answer = await callAdmin(api, 'POST', '/admin/v1/entities', { name, ...(id ? { id } : {}), ...(resultUrlBase ? { resultUrlBase } : {}) });
      if (answer.status !== 201) throw refusedBy(answer);
      const { entity, token } = answer.body as unknown as { entity: { id: string }; token: { id: string; accessToken: string } };
      return { entityId: entity.id, tokenId: token.id, token: token.accessToken };
    },
    async setResultUrlBase() {
      throw usage('entity update needs the gateway stopped (it opens the embedded store itself); entity create and list, token create, list and revoke work beside it');
    },
    async listEntities() {
      const answer = await callAdmin(api, 'GET', '/admin/v1/entities');
      if (answer.status !== 200) throw refusedBy(answer);
      return ((answer.body.entities ?? []) as { id: string; name: string; resultUrlBase: string | null }[]).map((entity) => ({ id: entity.id, name: entity.name, shopperResultUrlBase: entity.resultUrlBase }));
    },
    async createToken(entityIds, label) {
      const answer = await callAdmin(api, 'POST', '/admin/v1/tokens', { entityIds, label });
      if (answer.status === 404) throw usage(answer.body.result?.description?.replace(/^.*: /, '') ?? 'no such entity');
      if (answer.status !== 201) throw refusedBy(answer);
      const { token } = answer.body as unknown as { token: { id: string; accessToken: string } };
      return { tokenId: token.id, token: token.accessToken };
    },
    async listTokens(entityId) {
      const answer = await callAdmin(api, 'GET', `/admin/v1/tokens${entityId ? `?entityId=${entityId}` : ''}`);
      if (answer.status !== 200) throw refusedBy(answer);
      return ((answer.body.tokens ?? []) as Parameters<typeof tokenOfAnswer>[0][]).map(tokenOfAnswer);
    },
    async revokeToken(tokenId) {
      return (await callAdmin(api, 'DELETE', `/admin/v1/tokens/${encodeURIComponent(tokenId)}`)).status === 200;
    },
  };
}

/** Runs `entity <action>` or `token <action>` (`args`: the whole command line, named when it is unknown). */
export async function entityCommand(
  args: readonly string[],
  values: EntityOptionValues,
  positionals: readonly string[],
  merchants: MerchantsBackend,
  usage: Usage,
): Promise<string> {
  switch (`${args[0]} ${args[1]}`) {
    case 'entity create': {
      if (values.id !== undefined && !ENTITY_ID.test(values.id)) throw usage('--id must be 32 lowercase hexadecimal characters');
      const resultUrlBase = resultUrlBaseOption(values['result-url-base'], usage);
      const { entityId, tokenId, token } = await merchants.createEntity({ name: values.name ?? 'Merchant', id: values.id, resultUrlBase });
      return `entityId      ${entityId}\ntoken id      ${tokenId}\naccess token  ${token}\n${TOKEN_SHOWN_ONCE}`;
    }
    case 'entity update': {
      const entityId = positionals[0];
      if (!entityId || !ENTITY_ID.test(entityId)) throw usage('entity update needs the entity ID');
      if (values['result-url-base'] === undefined) throw usage('entity update needs --result-url-base URL (or none)');
      const base = values['result-url-base'] === 'none' ? null : resultUrlBaseOption(values['result-url-base'], usage) ?? null;
      if (!(await merchants.setResultUrlBase(entityId, base))) throw usage(`no entity ${entityId}`);
      return `${entityId}  shopper result URL base ${base ?? '(none)'}`;
    }
    case 'entity list':
      return (
        (await merchants.listEntities())
          .map((entity) => `${entity.id}  ${entity.name}${entity.shopperResultUrlBase ? `  returns under ${entity.shopperResultUrlBase}` : ''}`)
          .join('\n') || '(no entities)'
      );
    case 'token create': {
      const entityIds = values.entity ?? [];
      if (entityIds.length === 0) throw usage('token create needs at least one --entity ID');
      const { tokenId, token } = await merchants.createToken(entityIds, values.label ?? 'token');
      return `token id      ${tokenId}\naccess token  ${token}\n${TOKEN_SHOWN_ONCE}`;
    }
    case 'token list': {
      const entityId = values.entity?.[0];
      if (values.entity !== undefined && (values.entity.length > 1 || !ENTITY_ID.test(entityId ?? ''))) throw usage('token list takes at most one --entity ID');
      const tokens = await merchants.listTokens(entityId);
      return tokens.length === 0 ? '(no tokens)' : tokens.map(tokenLine).join('\n');
    }
    case 'token revoke': {
      const tokenId = positionals[0];
      if (!tokenId) throw usage('token revoke needs the TOKEN_ID');
      return (await merchants.revokeToken(tokenId)) ? `revoked ${tokenId}` : `no active token ${tokenId}`;
    }
    default:
      throw usage(`unknown command: ${args.join(' ')}`);
  }
}
