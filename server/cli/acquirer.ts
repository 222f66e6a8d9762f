import { CREDENTIALS_CACHE_MS, CredentialsRefusedError, type CredentialsShown } from '../acquirers/credentials.ts';
import { notAConnectorReason, removeEntityCredentials, setEntityCredentials, showEntityCredentials, type CredentialsServices } from '../acquirers/credentialsRoutes.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { entityIdArgument, secretFromFile, type CommandFiles, type Usage } from './command.ts';

/** `npm run gateway -- acquirer credentials ...`: an entity's credentials at the connectors' providers (issue 33). */

export const ACQUIRER_USAGE = `  acquirer credentials show ENTITY_ID        the entity's credentials at each connector (ACQUIRERS_FILE):
                                             set or not, the provider's entity id, when; never the token
  acquirer credentials set ENTITY_ID NAME --provider-entity-id ID --access-token-file FILE
                                             the entity's credentials at connector NAME, replacing any:
                                             the access token is read from FILE (- for standard input),
                                             never from the command line, sealed like card data and never
                                             shown again. Running gateways use them within ${CREDENTIALS_CACHE_MS / 1000} s
  acquirer credentials remove ENTITY_ID NAME the entity's credentials at NAME go (the token erased)
`;

/** The command line's names of what checkCredentials names. */
const CREDENTIALS_OPTIONS: Readonly<Record<string, string>> = {
  entityId: '--provider-entity-id',
  accessToken: 'the token in --access-token-file',
};

function describeCredentials(shown: CredentialsShown): string {
  if (!shown.set) return `${shown.acquirer}  not set`;
  return `${shown.acquirer}  set  provider entity id ${shown.providerEntityId ?? ''}  updated ${shown.updatedAt?.toISOString() ?? ''}`;
}

/** The token from --access-token-file (or standard input), which the command requires: never an argument. */
function accessTokenFrom(path: string | undefined, files: CommandFiles, usage: Usage): string {
  if (path === undefined) throw usage('acquirer credentials set needs --access-token-file FILE (- for standard input): the token is never an argument');
  return secretFromFile(files, path, '--access-token-file');
}

export interface AcquirerOptionValues {
  readonly 'provider-entity-id'?: string | undefined;
  readonly 'access-token-file'?: string | undefined;
}

/** Runs `acquirer credentials <action>`; the refusals are one line each (no entity, no connector, what is wrong). */
export async function acquirerCommand(
  group: string | undefined,
  positionals: readonly string[],
  values: AcquirerOptionValues,
  context: { readonly store: Store; readonly vault: CardVault | undefined; readonly connectors: readonly string[]; readonly now: () => Date; readonly files: CommandFiles },
  usage: Usage,
): Promise<string> {
  const [action, entityArgument, acquirer] = positionals;
  if (group !== 'credentials' || (action !== 'show' && action !== 'set' && action !== 'remove')) {
    throw usage(`unknown command: acquirer ${[group, action].filter(Boolean).join(' ')}`.trim());
  }
  const entityId = entityIdArgument(entityArgument, `acquirer credentials ${action}`, usage);
  if (action !== 'show') {
    if (!acquirer) throw usage(`acquirer credentials ${action} needs the connector's NAME`);
    if (!context.connectors.includes(acquirer)) throw new Error(notAConnectorReason(acquirer, context.connectors));
  }
  const services = { store: context.store, vault: context.vault as CardVault, now: context.now, connectors: context.connectors } satisfies CredentialsServices;
  try {
    switch (action) {
      case 'show': {
        const shown = await showEntityCredentials(services, entityId);
        if (shown.length === 0) return `${entityId}: no acquirer is a connector (ACQUIRERS_FILE describes none), so none takes credentials`;
        return [`entity  ${entityId}`, ...shown.map(describeCredentials)].join('\n');
      }
      case 'set': {
        const providerEntityId = values['provider-entity-id'];
        if (providerEntityId === undefined) throw usage("acquirer credentials set needs --provider-entity-id ID (the entity's id at the provider)");
        const accessToken = accessTokenFrom(values['access-token-file'], context.files, usage);
        const saved = await setEntityCredentials(services, entityId, acquirer as string, { entityId: providerEntityId, accessToken });
        return `${entityId}  ${describeCredentials(saved)}\n(the access token is sealed; it is never shown)`;
      }
      case 'remove': {
        const removed = await removeEntityCredentials(services, entityId, acquirer as string);
        return `${entityId}  ${acquirer}  ${removed ? 'credentials removed (the token erased)' : 'had no credentials'}`;
      }
    }
  } catch (error) {
    if (error instanceof CredentialsRefusedError) {
      if (error.unknownEntity) throw new Error(`no entity ${entityId}`);
      throw new Error(`credentials refused: ${error.problems.map((problem) => `${CREDENTIALS_OPTIONS[problem.name] ?? problem.name} ${problem.message}`).join('; ')}`);
    }
    throw error;
  }
}
