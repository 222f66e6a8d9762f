import { ConfigError, loadConfig, type GatewayConfig } from './config.ts';
import type { RunningGateway } from './gateway.ts';
import { openStore } from './store/index.ts';
import { buildStoreImage, hasStoreImage } from './store/image.ts';
import { listOperators } from './dashboard/operators.ts';

const say = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The banner's lines about the back office: where it is, and how a newcomer gets in — an operator account, made with
 * the command line beside this running gateway (the command finds it: the same DATABASE_URL, or the same DATA_DIR,
 * whose running gateway takes the command; an in-memory store takes commands only through the admin API).
 */
function dashboardLines(config: GatewayConfig, url: string, inMemory: boolean, operators: number, cli: string): string[] {
  const how = config.databaseUrl
    ? `${cli} operator create NAME   (with this DATABASE_URL; it prints the password once)`
    : inMemory
      ? config.adminToken
        ? `GATEWAY_URL=${url} ADMIN_TOKEN=<this ADMIN_TOKEN> DATA_DIR=memory:// ${cli} operator create NAME`
        : 'none can be made while it runs in memory without ADMIN_TOKEN: start it with ADMIN_TOKEN set to make one'
      : `${cli} operator create NAME   (${process.env.DATA_DIR ? 'with this DATA_DIR; ' : ''}it prints the password once)`;
  const who = operators === 0 ? 'no operator yet; make one beside this running gateway' : `${operators} operator(s); another one`;
  return [`Dashboard ${config.publicUrl}/dashboard (the back office): sign in as an operator — ${who}:`, `  ${how}`];
}

/**
 * `--in-memory` (`wpwl-gateway --ci`, `npm run start:ci`): the embedded database in memory, nothing written to disk,
 * loaded from the migrated image `npm run build` made (image.ts) — what a CI pipeline starts beside its browser tests,
 * with the control API its tests drive (its clock, triggers, what was sent, the report) unless TEST_CONTROL_API=false.
 */
async function inMemoryConfig(): Promise<GatewayConfig> {
  if (process.env.DATABASE_URL) throw new ConfigError('--in-memory keeps its database in memory: unset DATABASE_URL');
  // Before the rest of the configuration, whose live refusals (a simulated acquirer) would hide this one.
  if (process.env.GATEWAY_ENV === 'live') throw new ConfigError('--in-memory is for tests, where nothing is kept: GATEWAY_ENV must be test');
  const config = loadConfig({ TEST_CONTROL_API: 'true', ...process.env, DATA_DIR: 'memory://' });
  if (!(await hasStoreImage())) {
    say('no database image for these migrations: making it now (npm run build does it ahead) ...');
    say(`database image ${await buildStoreImage()}`);
  }
  return config;
}

export interface RunOptions {
  /** `--in-memory`: the CI start (inMemoryConfig). */
  readonly inMemory: boolean;
  /** Before the store opens: from the sources, the widget and dashboard builds brought up to date (main.ts). */
  readonly prepare?: (say: (line: string) => void) => Promise<void>;
  /** How the banner names the command line: `npm run gateway --` in a checkout, `npx wpwl-gateway` installed. */
  readonly cli: string;
}

/**
 * The gateway as a process: configuration → store → app → listen, the banner, and SIGINT/SIGTERM draining it. Run
 * from the sources (main.ts, `npm start`) or compiled (bin.ts, the `wpwl-gateway` command of the installed package);
 * a configuration error or a failed start exits 1 with the reason.
 */
export function runGateway(options: RunOptions): void {
  run(options).catch((error: unknown) => {
    const message = error instanceof ConfigError ? `Configuration error: ${error.message}` : String(error instanceof Error ? error.stack : error);
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}

async function run({ inMemory, prepare, cli }: RunOptions): Promise<void> {
  const config = inMemory ? await inMemoryConfig() : loadConfig();
  await prepare?.(say);
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
    ...dashboardLines(config, gateway.url, inMemory, (await listOperators(gateway.store)).length, cli),
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
    lines.push(`No demo merchant (live environment): create merchants with \`${cli} entity create\`.`);
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
