import { ConfigError, loadConfig, type GatewayConfig } from './config.ts';
import type { RunningGateway } from './gateway.ts';
import { openStore } from './store/index.ts';
import { buildStoreImage, hasStoreImage } from './store/image.ts';
import { ensureDashboardBuilt } from './dashboard/freshness.ts';
import { ensureWidgetBuilt } from './widget/freshness.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * `--in-memory` (`npm run start:ci`): the embedded database in memory, nothing written to disk, loaded from the
 * migrated image `npm run build` made (image.ts) — what a CI pipeline starts beside its browser tests.
 */
async function inMemoryConfig(): Promise<GatewayConfig> {
  if (process.env.DATABASE_URL) throw new ConfigError('--in-memory keeps its database in memory: unset DATABASE_URL');
  // Before the rest of the configuration, whose live refusals (a simulated acquirer) would hide this one.
  if (process.env.GATEWAY_ENV === 'live') throw new ConfigError('--in-memory is for tests, where nothing is kept: GATEWAY_ENV must be test');
  const config = loadConfig({ ...process.env, DATA_DIR: 'memory://' });
  if (!(await hasStoreImage())) {
    say('no database image for these migrations: making it now (npm run build does it ahead) ...');
    say(`database image ${await buildStoreImage()}`);
  }
  return config;
}

/** Process entry: configuration → store → app → listen. */
async function main(): Promise<void> {
  const inMemory = process.argv.includes('--in-memory');
  const config = inMemory ? await inMemoryConfig() : loadConfig();
  await ensureWidgetBuilt(say);
  await ensureDashboardBuilt(say);
  // The data is the gateway user's alone (files PGlite creates, the generated card-data key).
  process.umask(0o077);
  // In memory, the database loads from its image while the gateway's modules load: the two take most of a CI start.
  const preopened = inMemory ? openStore(config) : undefined;
  preopened?.catch(() => undefined);
  const { startGateway } = await import('./gateway.ts');
  let running: RunningGateway | undefined;
  const gateway = await startGateway(config, {
    ...(preopened ? { store: preopened } : {}),
    onFatal: () => {
      void (running?.close() ?? Promise.resolve()).finally(() => process.exit(1));
    },
  });
  running = gateway;
  const store = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : inMemory ? 'embedded PGlite in memory (nothing kept)' : `embedded PGlite in ${config.dataDir}`;
  const lines = [
    `Gateway listening on ${gateway.url} (public URL ${config.publicUrl}), ${config.environment} environment, ${store}`,
    `Docs     ${config.publicUrl}/docs/ (and docs/ beside the code); health ${config.publicUrl}/health, readiness ${config.publicUrl}/ready`,
  ];
  if (config.demoMerchant) {
    lines.push(
      `Demo     ${config.publicUrl}/demo (a shop page paying through the widget with the test cards)`,
      'Demo merchant (its credentials for your own calls):',
      `  entityId      ${config.demoMerchant.entityId}`,
      `  access token  ${config.demoMerchant.accessToken}`,
      `  legacy pair   authentication.userId=${config.demoMerchant.userId} authentication.password=${config.demoMerchant.password}`,
      `Try: curl ${config.publicUrl}/v1/payments -H "Authorization: Bearer ${config.demoMerchant.accessToken}" \\`,
      `       -d entityId=${config.demoMerchant.entityId} -d amount=92.00 -d currency=EUR -d paymentType=DB \\`,
      '       -d paymentBrand=VISA -d card.number=4200000000000000 -d card.holder="Jane Jones" \\',
      '       -d card.expiryMonth=05 -d card.expiryYear=2034 -d card.cvv=123',
    );
  } else {
    lines.push('No demo merchant (live environment): create merchants with `npm run gateway -- entity create`.');
  }
  lines.push(...gateway.notices);
  process.stderr.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    // A second signal while draining: stop at once (what was not recorded is recovered at the next start).
    if (stopping) {
      say(`${signal} again: exiting without waiting for the drain`);
      process.exit(1);
    }
    stopping = true;
    gateway.logger.info('shutting down', { signal });
    say(`${signal}: draining (requests being handled, jobs running), at most ${config.shutdownTimeoutMs / 1000} s ...`);
    setTimeout(() => {
      say(`the drain did not finish within ${config.shutdownTimeoutMs / 1000} s (SHUTDOWN_TIMEOUT_SECONDS): exiting`);
      gateway.logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const message = error instanceof ConfigError ? `Configuration error: ${error.message}` : String(error instanceof Error ? error.stack : error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
