import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type GatewayConfig } from '../config.ts';
import { SmartRetryConfigError } from '../merchants/smartRetrySettings.ts';
import { openStore, type Store } from '../store/index.ts';
import { StoreInUseError } from '../store/pglite.ts';
import { ThrottlingConfigError } from '../throttling/settings.ts';
import { createCardVault } from '../vault/cardVault.ts';
import { loadCardDataKeys } from '../vault/key.ts';
import { DEFAULT_ROTATION_BATCH } from '../vault/rotation.ts';
import { WebhookConfigError } from '../webhooks/service.ts';
import { ACQUIRER_USAGE, acquirerCommand } from './acquirer.ts';
import { BRANDS_USAGE, brandsCommand } from './brands.ts';
import { LOCAL_FILES, type CliIO, type CliResult, type CommandFiles, type Outcome } from './command.ts';
import { CONTROL_COMMANDS, CONTROL_USAGE, controlCommand } from './control.ts';
import { CREDENTIALS_USAGE, credentialsCommand } from './credentials.ts';
import { INTEGRATION_REPORT_USAGE, integrationReportCommand } from './integrationReport.ts';
import { ENTITY_USAGE, entityCommand } from './entity.ts';
import { batchOption, generateKey, KEYS_USAGE, keysCommand } from './keys.ts';
import { OPERATOR_USAGE, operatorCommand } from './operator.ts';
import { USER_USAGE, userCommand } from './user.ts';
import { PAYMENTS_USAGE, paymentsCommand } from './payments.ts';
import { RECONCILIATION_USAGE, reconciliationCommand } from './reconciliation.ts';
import { readCommandFile } from './localCommands.ts';
import { runInGateway } from './remote.ts';
import { ROUTING_USAGE, routingCommand } from './routing.ts';
import { SETTLEMENT_USAGE, settlementCommand } from './settlement.ts';
import { SMART_RETRY_USAGE, smartRetryCommand, smartRetryRefusal } from './smartRetry.ts';
import { THROTTLING_USAGE, throttlingCommand, throttlingRefusal } from './throttling.ts';
import { WEBHOOK_USAGE, webhookCommand, webhookRefusal } from './webhook.ts';

/**
 * Operator commands, run with `npm run gateway -- <command>` against the configured store (DATABASE_URL, or the
 * embedded store in DATA_DIR). When the embedded store is a running gateway's (it admits one process), the command is
 * sent to that gateway's admin API and runs there on the same code (cli/remote.ts, cli/commandRoutes.ts): with
 * ADMIN_TOKEN (at GATEWAY_URL, or its PORT on 127.0.0.1), or else with the token and address that gateway wrote in
 * DATA_DIR (cli/localCommands.ts).
 * This file parses the command line and hands it to the command group's file beside it.
 */

const USAGE = `Usage: npm run gateway -- <command>

${ENTITY_USAGE}${CREDENTIALS_USAGE}${BRANDS_USAGE}${PAYMENTS_USAGE}${SETTLEMENT_USAGE}${RECONCILIATION_USAGE}${KEYS_USAGE}${WEBHOOK_USAGE}${SMART_RETRY_USAGE}${ROUTING_USAGE}${ACQUIRER_USAGE}${THROTTLING_USAGE}${OPERATOR_USAGE}${USER_USAGE}${INTEGRATION_REPORT_USAGE}${CONTROL_USAGE}
A command finds a running gateway whose embedded store it is (the same DATA_DIR) and runs there, through the address
and token that gateway wrote in DATA_DIR, or at GATEWAY_URL (default http://127.0.0.1:PORT) with its ADMIN_TOKEN;
with PostgreSQL (DATABASE_URL) it runs beside running gateways.
`;

/** Any of these, as the command, after it or after its group (`acquirer credentials --help`), prints the usage (and runs nothing). */
const HELP = new Set(['help', '--help', '-h']);

class UsageError extends Error {}

const usage = (message: string) => new UsageError(message);

/** What a command runs with: the configuration, the store (opened once asked for), its io with clock and files. */
interface CommandContext {
  readonly config: GatewayConfig;
  readonly store: () => Promise<Store>;
  readonly io: CliIO & { readonly now: () => Date; readonly files: CommandFiles };
}

/** Runs one operator command. The entry below runs it for `npm run gateway`; tests run it in-process. */
export async function runCli(args: readonly string[], io: CliIO): Promise<CliResult> {
  const resolved = { ...io, now: io.now ?? (() => new Date()), files: io.files ?? LOCAL_FILES };
  let opened: Store | undefined;
  try {
    if (generatesKey(args)) return resultOf(generateKey());
    // The test gateway's control API: a call to the running gateway, no store and no configuration of its own.
    if (CONTROL_COMMANDS.has(args[0] ?? '') && !args.slice(1, 3).some((arg) => HELP.has(arg))) return await controlCommand(args, io.env);
    const config = loadConfig(io.env);
    // A store in memory is a running gateway's own (npm run start:ci): a command reaches it only through its admin API.
    if (!config.databaseUrl && config.dataDir.startsWith('memory://')) {
      if (!config.adminToken || !io.env.GATEWAY_URL) throw new Error('DATA_DIR=memory:// is a running gateway\'s own store: set GATEWAY_URL and ADMIN_TOKEN to that gateway\'s and the command runs in it');
      return await runInGateway({ url: io.env.GATEWAY_URL, adminToken: config.adminToken }, args, io, resolved.files);
    }
    const store = async () => (opened ??= await openStore(config));
    try {
      return resultOf(await run([...args], { config, store, io: resolved }));
    } catch (error) {
      // The embedded store is a running gateway's: the command runs there, with ADMIN_TOKEN, or else with the token
      // that gateway wrote in DATA_DIR (localCommands.ts), at the address it wrote there.
      if (!(error instanceof StoreInUseError)) throw error;
      const local = readCommandFile(config.dataDir);
      const token = config.adminToken ?? local?.token;
      if (!token) throw new Error(`${error.message}; or set ADMIN_TOKEN (the running gateway's) and the command runs in it`);
      const url = io.env.GATEWAY_URL || (config.adminToken === undefined ? local?.url : undefined) || `http://127.0.0.1:${config.port}`;
      return await runInGateway({ url, adminToken: token }, args, io, resolved.files);
    }
  } catch (error) {
    return refusal(error);
  } finally {
    await opened?.close();
  }
}

/**
 * Runs one operator command in this gateway, on its store, configuration and clock: what the admin API runs for a
 * command line that found the embedded store in use (cli/commandRoutes.ts).
 */
export async function runCliIn(gateway: { readonly store: Store; readonly config: GatewayConfig; readonly now: () => Date }, args: readonly string[], io: CliIO & { readonly files: CommandFiles }): Promise<CliResult> {
  try {
    if (generatesKey(args)) return resultOf(generateKey());
    return resultOf(await run([...args], { config: gateway.config, store: async () => gateway.store, io: { ...io, now: gateway.now } }));
  } catch (error) {
    return refusal(error);
  }
}

const generatesKey = (args: readonly string[]) => ['key', 'keys'].includes(args[0] ?? '') && args[1] === 'generate';

function resultOf(outcome: string | Outcome): CliResult {
  return typeof outcome === 'string' ? { exitCode: 0, stdout: `${outcome}\n`, stderr: '' } : { exitCode: outcome.exitCode, stdout: `${outcome.output}\n`, stderr: '' };
}

function refusal(error: unknown): CliResult {
  const refused = (stderr: string): CliResult => ({ exitCode: 1, stdout: '', stderr });
  if (error instanceof UsageError) return refused(`${error.message}\n\n${USAGE}`);
  if (error instanceof ConfigError) return refused(`Configuration error: ${error.message}\n`);
  if (error instanceof WebhookConfigError) return refused(`${webhookRefusal(error)}\n`);
  if (error instanceof SmartRetryConfigError) return refused(`${smartRetryRefusal(error)}\n`);
  if (error instanceof ThrottlingConfigError) return refused(`${throttlingRefusal(error)}\n`);
  return refused(`${error instanceof Error ? error.message : String(error)}\n`);
}

async function run(args: string[], context: CommandContext): Promise<string | Outcome> {
  const { config, io } = context;
  const { now } = io;
  const [resource, action, ...rest] = args;
  if (args.slice(0, 3).some((arg) => HELP.has(arg))) return USAGE.trimEnd();
  // Options of its own: parsed by the command group.
  if (resource === 'reconciliation') return await reconciliationCommand(args.slice(1), { config, store: context.store, now, files: io.files }, usage);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      id: { type: 'string' },
      entity: { type: 'string', multiple: true },
      label: { type: 'string' },
      'result-url-base': { type: 'string' },
      batch: { type: 'string' },
      url: { type: 'string' },
      types: { type: 'string' },
      fields: { type: 'string' },
      wrapper: { type: 'string' },
      secret: { type: 'string' },
      active: { type: 'string' },
      limit: { type: 'string' },
      fallback: { type: 'string' },
      codes: { type: 'string' },
      standalone: { type: 'string' },
      'card-on-file': { type: 'string' },
      enabled: { type: 'string' },
      'password-file': { type: 'string' },
      'provider-entity-id': { type: 'string' },
      'access-token-file': { type: 'string' },
      'rules-file': { type: 'string' },
      role: { type: 'string' },
      format: { type: 'string' },
    },
    allowPositionals: true,
  });
  if (resource === 'keys' && action !== 'status' && action !== 'rotate') throw usage(`unknown command: ${args.join(' ')}`);
  const batchSize = resource === 'keys' && action === 'rotate' ? batchOption(values.batch, usage) : DEFAULT_ROTATION_BATCH;
  // The keys before the store: a wrong key setting stops the command before it touches anything.
  const sealsSecrets = resource === 'keys' || resource === 'webhook' || (resource === 'acquirer' && positionals[0] === 'set');
  const keys = sealsSecrets ? loadCardDataKeys(config) : undefined;
  const vault = keys ? createCardVault(keys.current, keys.previous) : undefined;
  const store = await context.store();
  if (vault && resource === 'keys') return await keysCommand(action, batchSize, store, vault, io);
  if (vault && resource === 'webhook') return await webhookCommand(action, values, positionals, { store, config, vault }, io, usage);
  switch (resource) {
    case 'entity':
    case 'token':
      return await entityCommand(args, values, positionals, store, usage);
    case 'credentials':
      return await credentialsCommand(action, values, positionals, store, usage);
    case 'brands':
      return await brandsCommand(action, positionals, store, now, usage);
    case 'payments':
      return await paymentsCommand(action, positionals, store, config.environment, now, usage);
    case 'settlement':
      return await settlementCommand(action, values, positionals, store, config, now, usage);
    case 'smart-retry':
      return await smartRetryCommand(action, values, positionals, store, { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer }, io, usage);
    case 'routing':
      return await routingCommand(action, positionals, values['rules-file'], { store, acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer, now, files: io.files }, usage);
    case 'acquirer': {
      const connectors = config.acquirers.filter((name) => config.connectors[name] !== undefined);
      return await acquirerCommand(action, positionals, values, { store, vault, connectors, now, files: io.files }, usage);
    }
    case 'throttling':
      return await throttlingCommand(action, positionals, store, config.limits, io, usage);
    case 'operator':
      return await operatorCommand(action, values, positionals, { store, now, files: io.files }, usage);
    case 'user':
      return await userCommand(action, values, positionals, { store, now, publicUrl: config.publicUrl }, usage);
    case 'integration-report':
      return await integrationReportCommand(action === undefined ? positionals : [action, ...positionals], values.format, store, now(), usage);
    default:
      throw usage(`unknown command: ${args.join(' ') || '(none)'}`);
  }
}

// Run as a script (`npm run gateway -- ...`), not when a test imports runCli, nor inside the compiled command (bin.ts).
const entry = process.argv[1];
if (entry !== undefined && /cli[\\/]index\.ts$/.test(entry) && import.meta.url === pathToFileURL(resolve(entry)).href) {
  runCli(process.argv.slice(2), { env: process.env, progress: (line) => process.stdout.write(`${line}\n`) }).then(
    ({ exitCode, stdout, stderr }) => {
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      process.exitCode = exitCode;
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
