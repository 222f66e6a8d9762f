import { ASYNC_BRANDS } from '../../widget/shared/asyncBrands.ts';
import { KNOWN_BRANDS } from '../domain/brands.ts';
import { BRAND_OFFERS_CACHE_MS, BrandsConfigError, removeOfferedBrands, saveOfferedBrands, showOfferedBrands, type OfferedBrands } from '../merchants/brands.ts';
import type { Store } from '../store/index.ts';
import { entityIdArgument, type Usage } from './command.ts';

/** `npm run gateway -- brands ...`: the brands an entity offers (COMPAT §7). */

export const BRANDS_USAGE = `  brands show ENTITY_ID                      the payment brands the entity offers (every brand in test,
                                             all but the asynchronous ones in live, unless set)
  brands set ENTITY_ID BRAND [BRAND ...]     offer exactly these brands; a payment with another one is
                                             refused with 600.200.201. Running gateways apply it within
                                             ${BRAND_OFFERS_CACHE_MS / 1000} s
  brands reset ENTITY_ID                     back to the environment's default
  brands catalogue                           every brand the gateway knows, asynchronous ones with their
                                             family
`;

function describeOffered(entityId: string, offered: OfferedBrands): string {
  const origin = offered.isDefault ? '(the default)' : `(set ${offered.updatedAt?.toISOString() ?? ''})`;
  return `${entityId} offers ${offered.brands.length} brands ${origin}:\n${offered.brands.join(' ')}`;
}

/** Runs `brands <action>`. */
export async function brandsCommand(
  action: string | undefined,
  positionals: readonly string[],
  store: Store,
  now: () => Date,
  usage: Usage,
): Promise<string> {
  switch (action) {
    case 'catalogue':
      return KNOWN_BRANDS.map((brand) => (ASYNC_BRANDS[brand] ? `${brand}  (${ASYNC_BRANDS[brand].family})` : brand)).join('\n');
    case 'show': {
      const entityId = entityIdArgument(positionals[0], 'brands show', usage);
      const offered = await showOfferedBrands(store, entityId);
      if (!offered) throw usage(`no entity ${entityId}`);
      return describeOffered(entityId, offered);
    }
    case 'set': {
      const entityId = entityIdArgument(positionals[0], 'brands set', usage);
      try {
        return describeOffered(entityId, await saveOfferedBrands(store, entityId, positionals.slice(1), now()));
      } catch (error) {
        if (error instanceof BrandsConfigError) throw usage(error.unknownEntity ? `no entity ${entityId}` : `refused: ${error.problems.map((problem) => `${problem.value} ${problem.message}`).join('; ')}`);
        throw error;
      }
    }
    case 'reset': {
      const entityId = entityIdArgument(positionals[0], 'brands reset', usage);
      if (!(await removeOfferedBrands(store, entityId)).entityExists) throw usage(`no entity ${entityId}`);
      return describeOffered(entityId, (await showOfferedBrands(store, entityId)) as OfferedBrands);
    }
    default:
      throw usage(`unknown command: brands ${action ?? ''}`.trim());
  }
}
