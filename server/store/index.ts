import { openPGliteStore } from './pglite.ts';
import { openPostgresStore } from './postgres.ts';
import { loadStoreImage } from './image.ts';
import { migrate } from './migrate.ts';
import type { Store } from './types.ts';

export type { Queryable, QueryResult, Store } from './types.ts';

/**
 * Opens the configured store (PostgreSQL when a URL is given, else PGlite in `dataDir`, `memory://` for one in memory)
 * and migrates it.
 */
export async function openStore(options: {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL: the session marking this instance alive was lost (see openPostgresStore). */
  readonly onInstanceLockLost?: (error: Error) => void;
  /** PGlite: a periodic checkpoint failed (see openPGliteStore). */
  readonly onCheckpointFailed?: (error: unknown) => void;
}): Promise<Store> {
  // In memory, the migrated image of this build's migrations when `npm run build` made it: no initdb, no migrations.
  const image = !options.databaseUrl && options.dataDir.startsWith('memory://') ? await loadStoreImage() : undefined;
  const store = options.databaseUrl
    ? await openPostgresStore(options.databaseUrl, options.onInstanceLockLost ? { onInstanceLockLost: options.onInstanceLockLost } : {})
    : await openPGliteStore(options.dataDir, { ...(options.onCheckpointFailed ? { onCheckpointFailed: options.onCheckpointFailed } : {}), ...(image ? { image } : {}) });
  try {
    await migrate(store);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  return store;
}
