import type { GatewayConfig } from '../config.ts';
import { createEntity, grantToken, newAccessToken } from '../merchants/repository.ts';
import { openStore, type Store } from '../store/index.ts';
import { startGatewayProcess, type GatewayProcess } from './gatewayProcess.ts';
import { configAt, freshStoreLocation, type StoreKind, type StoreLocation } from './harness.ts';

/**
 * What the crash tests share: a fresh store with a merchant in it, made before the crashing process opens the store
 * (the embedded store is one process's at a time), and that process — a gateway whose simulated acquirer hangs as
 * the card holder says (testing/hangingAcquirer.ts), to be killed in the middle of a payment.
 */

export interface CrashSetup {
  readonly location: StoreLocation;
  /** The survivor's configuration: the same store (another instance, or the restarted one). */
  readonly config: GatewayConfig;
  readonly entityId: string;
  readonly token: string;
}

export async function storeWithMerchant(
  kind: StoreKind,
  name: string,
  options: { readonly config?: Partial<GatewayConfig>; readonly prepare?: (store: Store, entityId: string) => Promise<unknown> } = {},
): Promise<CrashSetup> {
  const location = await freshStoreLocation(kind);
  const config = configAt(location, options.config);
  const token = newAccessToken();
  const store = await openStore(config);
  const entity = await createEntity(store, name);
  await grantToken(store, token, 'crash', [entity.id]);
  await options.prepare?.(store, entity.id);
  await store.close();
  return { location, config, entityId: entity.id, token };
}

/** The gateway process to kill, on `location`'s store; `env` adds to (or overrides) its environment. */
export function startHangingGateway(location: StoreLocation, env: Readonly<Record<string, string>> = {}): GatewayProcess {
  return startGatewayProcess(
    {
      DATA_DIR: location.dataDir,
      DATABASE_URL: location.databaseUrl ?? '',
      CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      ...env,
    },
    'server/testing/hangingAcquirerGateway.ts',
  );
}
