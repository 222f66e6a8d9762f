import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createSimulatedAcquirer } from './acquirers/simulator.ts';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';
import { createLogger, type LogSink, type Logger } from './logger.ts';
import { ensureDemoMerchant } from './merchants/repository.ts';
import { cachedTokenAccess } from './merchants/tokenAccessCache.ts';
import { openStore, type Store } from './store/index.ts';

// Replaced by the content hash of the built widget files (widget build, next step).
const WIDGET_VERSION = 'dev';

export interface RunningGateway {
  /** Where the gateway listens, e.g. http://127.0.0.1:8080 (the real port when 0 was asked for). */
  readonly url: string;
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly logger: Logger;
  close(): Promise<void>;
}

/** Opens the store, creates the demo merchant if configured, and starts listening. */
export async function startGateway(config: GatewayConfig, options: { logSink?: LogSink } = {}): Promise<RunningGateway> {
  const logger = createLogger({ level: config.logLevel, ...(options.logSink ? { sink: options.logSink } : {}) });
  const store = await openStore(config);
  const demo = config.demoMerchant;
  if (demo) await store.transaction((tx) => ensureDemoMerchant(tx, demo.entityId, demo.accessToken));

  const now = () => new Date();
  const app = createApp({
    config,
    store,
    logger,
    acquirer: createSimulatedAcquirer(),
    tokenAccess: cachedTokenAccess(store, config.tokenCacheSeconds * 1000, now),
    staticBaseUrl: `${config.publicUrl}/v1/static/${WIDGET_VERSION}`,
    now,
  });
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(started));
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    config,
    store,
    logger,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
