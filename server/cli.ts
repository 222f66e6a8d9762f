import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { ENTITY_ID } from './domain/ids.ts';
import { resultUrlBaseProblem } from './domain/urls.ts';
import {
  createEntity,
  entityExists,
  grantToken,
  listEntities,
  newAccessToken,
  revokeToken,
  setShopperResultUrlBase,
} from './merchants/repository.ts';
import { openStore } from './store/index.ts';
import { newCardDataKey } from './vault/key.ts';

/**
 * Operator commands, run with `npm run gateway -- <command>` against the configured store
 * (DATABASE_URL, or the embedded store in DATA_DIR — stop a running gateway on that directory first).
 */

const USAGE = `Usage: npm run gateway -- <command>

  entity create [--name NAME] [--id ID] [--result-url-base URL]
                                             create an entity and an access token for it
  entity update ID --result-url-base URL|none
                                             set where the entity's shoppers return (a base ending with
                                             a slash): the 29-minute call goes to a result URL the payment
                                             page posted only when it lies under it
  entity list                                list entities
  token create --entity ID [--entity ID ...] [--label LABEL]
                                             create an access token allowed for the given entities
  token revoke TOKEN_ID                      revoke an access token
  key generate                               print a new card-data key (for CARD_DATA_KEY)
`;

class UsageError extends Error {}

function resultUrlBaseOption(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const problem = resultUrlBaseProblem(raw);
  if (problem) throw new UsageError(`--result-url-base ${problem}`);
  return raw;
}

async function run(args: string[]): Promise<string> {
  const [resource, action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      id: { type: 'string' },
      entity: { type: 'string', multiple: true },
      label: { type: 'string' },
      'result-url-base': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (`${resource} ${action}` === 'key generate') {
    return `${newCardDataKey()}\n(set it as CARD_DATA_KEY on every gateway instance sharing the database, and keep it apart from the data)`;
  }
  const config = loadConfig();
  const store = await openStore(config);
  try {
    switch (`${resource} ${action}`) {
      case 'entity create': {
        if (values.id !== undefined && !ENTITY_ID.test(values.id)) throw new UsageError('--id must be 32 lowercase hexadecimal characters');
        const base = resultUrlBaseOption(values['result-url-base']);
        const token = newAccessToken();
        const entity = await store.transaction(async (tx) => {
          const created = await createEntity(tx, values.name ?? 'Merchant', values.id);
          if (base) await setShopperResultUrlBase(tx, created.id, base);
          await grantToken(tx, token, `entity ${created.id}`, [created.id]);
          return created;
        });
        return `entityId      ${entity.id}\naccess token  ${token}\n(the token is shown once; only its hash is stored)`;
      }
      case 'entity update': {
        const entityId = positionals[0];
        if (!entityId || !ENTITY_ID.test(entityId)) throw new UsageError('entity update needs the entity ID');
        if (values['result-url-base'] === undefined) throw new UsageError('entity update needs --result-url-base URL (or none)');
        const base = values['result-url-base'] === 'none' ? null : resultUrlBaseOption(values['result-url-base']) ?? null;
        if (!(await setShopperResultUrlBase(store, entityId, base))) throw new UsageError(`no entity ${entityId}`);
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
        if (entityIds.length === 0) throw new UsageError('token create needs at least one --entity ID');
        for (const id of entityIds) {
          if (!ENTITY_ID.test(id) || !(await entityExists(store, id))) throw new UsageError(`no entity ${id}`);
        }
        const token = newAccessToken();
        const tokenId = await grantToken(store, token, values.label ?? 'token', entityIds);
        return `token id      ${tokenId}\naccess token  ${token}\n(the token is shown once; only its hash is stored)`;
      }
      case 'token revoke': {
        const tokenId = positionals[0];
        if (!tokenId) throw new UsageError('token revoke needs the TOKEN_ID');
        return (await revokeToken(store, tokenId)) ? `revoked ${tokenId}` : `no active token ${tokenId}`;
      }
      default:
        throw new UsageError(`unknown command: ${args.join(' ') || '(none)'}`);
    }
  } finally {
    await store.close();
  }
}

run(process.argv.slice(2)).then(
  (output) => {
    process.stdout.write(`${output}\n`);
  },
  (error: unknown) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}`);
    else if (error instanceof ConfigError) process.stderr.write(`Configuration error: ${error.message}\n`);
    else process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
