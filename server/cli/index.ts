import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { SmartRetryConfigError } from '../merchants/smartRetrySettings.ts';
import { openStore } from '../store/index.ts';
import { StoreInUseError } from '../store/pglite.ts';
import { ThrottlingConfigError } from '../throttling/settings.ts';
import { createCardVault } from '../vault/cardVault.ts';
import { loadCardDataKeys } from '../vault/key.ts';
import { DEFAULT_ROTATION_BATCH } from '../vault/rotation.ts';
import { WebhookConfigError } from '../webhooks/service.ts';
import { BRANDS_USAGE, brandsCommand } from './brands.ts';
import type { CliIO, Outcome } from './command.ts';
import { adminApiCredentials, CREDENTIALS_USAGE, credentialsCommand, storeCredentials } from './credentials.ts';
import { adminApiMerchants, ENTITY_USAGE, entityCommand, storeMerchants } from './entity.ts';
import { batchOption, generateKey, KEYS_USAGE, keysCommand } from './keys.ts';
import { PAYMENTS_USAGE, paymentsCommand } from './payments.ts';
import { RECONCILIATION_USAGE, reconciliationCommand } from './reconciliation.ts';
import { SETTLEMENT_USAGE, settlementCommand } from './settlement.ts';
import { SMART_RETRY_USAGE, smartRetryCommand, smartRetryRefusal } from './smartRetry.ts';
import { THROTTLING_USAGE, throttlingCommand, throttlingRefusal } from './throttling.ts';
import { WEBHOOK_USAGE, webhookCommand, webhookRefusal } from './webhook.ts';

/**
 * Operator commands, run with `npm run gateway -- <command>` against the configured store (DATABASE_URL, or the
 * embedded store in DATA_DIR). On an embedded store a running gateway holds, `entity`, `token` and `credentials`
 * commands are sent to that gateway's admin API (ADMIN_TOKEN, GATEWAY_URL or its PORT on 127.0.0.1); the others need
 * it stopped.
 * This file parses the command line and hands it to the command group's file beside it.
 */

const USAGE = `Usage: npm run gateway -- <command>

${ENTITY_USAGE}${CREDENTIALS_USAGE}${BRANDS_USAGE}${PAYMENTS_USAGE}${SETTLEMENT_USAGE}${RECONCILIATION_USAGE}${KEYS_USAGE}${WEBHOOK_USAGE}${SMART_RETRY_USAGE}${THROTTLING_USAGE}`;

/** Any of these, as the command or after it, prints the usage (and runs nothing). */
const HELP = new Set(['help', '--help', '-h']);

class UsageError extends Error {}

const usage = (message: string) => new UsageError(message);

/** What a command printed and how it ended. */
export interface CliResult {
  readonly exitCode: number;
  /** The command's result (progress lines went to `io.progress` before). */
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs one operator command. The entry below runs it for `npm run gateway`; tests run it in-process. */
export async function runCli(args: readonly string[], io: CliIO): Promise<CliResult> {
  try {
    const outcome = await run([...args], io);
    return typeof outcome === 'string' ? { exitCode: 0, stdout: `${outcome}\n`, stderr: '' } : { exitCode: outcome.exitCode, stdout: `${outcome.output}\n`, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) return { exitCode: 1, stdout: '', stderr: `${error.message}\n\n${USAGE}` };
    if (error instanceof ConfigError) return { exitCode: 1, stdout: '', stderr: `Configuration error: ${error.message}\n` };
    if (error instanceof WebhookConfigError) return { exitCode: 1, stdout: '', stderr: `${webhookRefusal(error)}\n` };
    if (error instanceof SmartRetryConfigError) return { exitCode: 1, stdout: '', stderr: `${smartRetryRefusal(error)}\n` };
    if (error instanceof ThrottlingConfigError) return { exitCode: 1, stdout: '', stderr: `${throttlingRefusal(error)}\n` };
    return { exitCode: 1, stdout: '', stderr: `${error instanceof Error ? error.message : String(error)}\n` };
  }
}

async function run(args: string[], io: CliIO): Promise<string | Outcome> {
  const [resource, action, ...rest] = args;
  if (resource !== undefined && (HELP.has(resource) || (action !== undefined && HELP.has(action)))) return USAGE.trimEnd();
  // Options of its own: parsed by the command group.
  if (resource === 'reconciliation') return await reconciliationCommand(args.slice(1), io, usage);
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
    },
    allowPositionals: true,
  });
  const command = `${resource} ${action}`;
  if (command === 'key generate' || command === 'keys generate') return generateKey();
  if (resource === 'keys' && action !== 'status' && action !== 'rotate') throw usage(`unknown command: ${args.join(' ')}`);
  const batchSize = command === 'keys rotate' ? batchOption(values.batch, usage) : DEFAULT_ROTATION_BATCH;
  const config = loadConfig(io.env);
  // The keys before the store: a wrong key setting stops the command before it touches anything.
  const keys = resource === 'keys' || resource === 'webhook' ? loadCardDataKeys(config) : undefined;
  const vault = keys ? createCardVault(keys.current, keys.previous) : undefined;
  let store: Awaited<ReturnType<typeof openStore>>;
  try {
    store = await openStore(config);
  } catch (error) {
    // The embedded store is a running gateway's: entity, token and credentials commands go through its admin API.
    if (!(error instanceof StoreInUseError) || !['entity', 'token', 'credentials'].includes(resource ?? '')) throw error;
    if (!config.adminToken) {
      throw new Error(`${error.message}; or set ADMIN_TOKEN (the running gateway's) and ${resource} commands are sent to its admin API`);
    }
    const api = { url: io.env.GATEWAY_URL || `http://127.0.0.1:${config.port}`, adminToken: config.adminToken };
    if (resource === 'credentials') return await credentialsCommand(action, values, positionals, adminApiCredentials(api, usage), usage);
    return await entityCommand(args, values, positionals, adminApiMerchants(api, usage), usage);
  }
  try {
    const now = io.now ?? (() => new Date());
    if (vault && resource === 'keys') return await keysCommand(action, batchSize, store, vault, io);
    if (vault && resource === 'webhook') return await webhookCommand(action, values, positionals, { store, config, vault }, io, usage);
    switch (resource) {
      case 'entity':
      case 'token':
        return await entityCommand(args, values, positionals, storeMerchants(store, usage), usage);
      case 'credentials':
        return await credentialsCommand(action, values, positionals, storeCredentials(store, usage), usage);
      case 'brands':
        return await brandsCommand(action, positionals, store, config.environment, now, usage);
      case 'payments':
        return await paymentsCommand(action, positionals, store, config.environment, now, usage);
      case 'settlement':
        return await settlementCommand(action, values, positionals, store, config, now, usage);
      case 'smart-retry':
        return await smartRetryCommand(action, values, positionals, store, { acquirers: config.acquirers, defaultAcquirer: config.defaultAcquirer }, io, usage);
      case 'throttling':
        return await throttlingCommand(action, positionals, store, config.limits, io, usage);
      default:
        throw usage(`unknown command: ${args.join(' ') || '(none)'}`);
    }
  } finally {
    await store.close();
  }
}

// Run as a script (`npm run gateway -- ...`), not when a test imports runCli.
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
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
