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
import type { Usage } from './command.ts';

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

/** Runs `entity <action>` or `token <action>` (`args`: the whole command line, named when it is unknown). */
export async function entityCommand(
  args: readonly string[],
  values: EntityOptionValues,
  positionals: readonly string[],
  store: Store,
  usage: Usage,
): Promise<string> {
  switch (`${args[0]} ${args[1]}`) {
    case 'entity create': {
      if (values.id !== undefined && !ENTITY_ID.test(values.id)) throw usage('--id must be 32 lowercase hexadecimal characters');
      const resultUrlBase = resultUrlBaseOption(values['result-url-base'], usage);
      if (values.id !== undefined && (await entityExists(store, values.id))) throw usage(`entity ${values.id} exists already`);
      const { entity, tokenId, token } = await createEntityWithToken(store, { name: values.name ?? 'Merchant', id: values.id, resultUrlBase });
      return `entityId      ${entity.id}\ntoken id      ${tokenId}\naccess token  ${token}\n${TOKEN_SHOWN_ONCE}`;
    }
    case 'entity update': {
      const entityId = positionals[0];
      if (!entityId || !ENTITY_ID.test(entityId)) throw usage('entity update needs the entity ID');
      if (values['result-url-base'] === undefined) throw usage('entity update needs --result-url-base URL (or none)');
      const base = values['result-url-base'] === 'none' ? null : resultUrlBaseOption(values['result-url-base'], usage) ?? null;
      if (!(await setShopperResultUrlBase(store, entityId, base))) throw usage(`no entity ${entityId}`);
      return `${entityId}  shopper result URL base ${base ?? '(none)'}`;
    }
    case 'entity list':
      return (
        (await listEntities(store))
          .map((entity) => `${entity.id}  ${entity.name}${entity.shopperResultUrlBase ? `  returns under ${entity.shopperResultUrlBase}` : ''}`)
          .join('\n') || '(no entities)'
      );
    case 'token create': {
      const entityIds = values.entity ?? [];
      if (entityIds.length === 0) throw usage('token create needs at least one --entity ID');
      for (const id of entityIds) {
        if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw usage(`no entity ${id.slice(0, 64)}`);
      }
      const token = newAccessToken();
      const tokenId = await grantToken(store, token, values.label ?? 'token', entityIds);
      return `token id      ${tokenId}\naccess token  ${token}\n${TOKEN_SHOWN_ONCE}`;
    }
    case 'token list': {
      const entityId = values.entity?.[0];
      if (values.entity !== undefined && (values.entity.length > 1 || !ENTITY_ID.test(entityId ?? ''))) throw usage('token list takes at most one --entity ID');
      const tokens = await listTokens(store, entityId);
      return tokens.length === 0 ? '(no tokens)' : tokens.map(tokenLine).join('\n');
    }
    case 'token revoke': {
      const tokenId = positionals[0];
      if (!tokenId) throw usage('token revoke needs the TOKEN_ID');
      return (await revokeToken(store, tokenId)) ? `revoked ${tokenId}` : `no active token ${tokenId}`;
    }
    default:
      throw usage(`unknown command: ${args.join(' ')}`);
  }
}
