import { parseArgs } from 'node:util';
import type { GatewayConfig } from '../config.ts';
import { entityExists } from '../merchants/repository.ts';
import { dayFile } from '../reconciliation/dayFile.ts';
import { dateProblem, fileJson, resendFile, ResendRefused } from '../reconciliation/files.ts';
import { filesOfDay, filesOfEntity, findFile, type FileRecord, type FileStatus } from '../reconciliation/repository.ts';
import { FtpSettingsError, ftpSettingsJson, removeFtpSettings, saveFtpSettings, showFtpSettings, type FtpSettingsInput } from '../reconciliation/settings.ts';
import type { Store } from '../store/index.ts';
import { createCardVault, type CardVault } from '../vault/cardVault.ts';
import { loadCardDataKeys } from '../vault/key.ts';
import { booleanOption, entityIdArgument, secretFromFile, type CommandFiles, type Usage } from './command.ts';

/** `npm run gateway -- reconciliation ...`: the reconciliation file's FTP settings and files (COMPAT §14). It parses options of its own. */

export const RECONCILIATION_USAGE = `  reconciliation ftp show ENTITY_ID          the entity's FTP settings for its reconciliation file (never
                                             the password)
  reconciliation ftp set ENTITY_ID --host HOST --user USER [--password-file PATH] [--port N]
                     [--folder DIR] [--tls true|false] [--tls-certificate-file PEM]
                                             where the entity's daily file goes (replaces the settings:
                                             port 21, the login directory, explicit TLS unless given);
                                             the password is read from PATH (required the first time,
                                             else kept), sealed like card data
  reconciliation ftp remove ENTITY_ID        stop sending the entity's files (the settings and password go)
  reconciliation files ENTITY_ID [--from DATE] [--to DATE]
                                             the entity's files (default: the last 31 days), newest first
  reconciliation day DATE [--status pending|retrying|uploaded|failed]
                                             one settlement day's files of every entity
  reconciliation show ENTITY_ID DATE         one file's status: attempts, last error, size, when uploaded
  reconciliation resend ENTITY_ID DATE       send the file again (a running gateway uploads it)
  reconciliation download ENTITY_ID DATE [--out PATH]
                                             the file's CSV, to PATH (streamed) or to standard output
`;

/** Files listed by `reconciliation day` at most (the admin API pages through more). */
const DAY_LIST_LIMIT = 10_000;
const DAY_MS = 86_400_000;

function dateOf(value: string | undefined, what: string, usage: Usage): string {
  if (value === undefined || dateProblem(value)) throw usage(`${what} must be a date yyyy-MM-dd`);
  return value;
}


function describeFile(file: FileRecord): string {
  const shown = fileJson(file);
  const parts = [
    `${file.date}  ${file.entityId}  ${file.status}  ${file.attempts} attempt(s)`,
    ...(file.status === 'uploaded' ? [`${file.sizeBytes ?? '?'} bytes`, `${file.recordCount ?? '?'} records`, `${file.remotePath ?? ''}`, `uploaded ${String(shown.uploadedAt)}`] : []),
    ...(file.nextAttemptAt ? [`next attempt ${file.nextAttemptAt.toISOString()}`] : []),
    ...(file.lastError && file.status !== 'uploaded' ? [`last error: ${file.lastError}`] : []),
  ];
  return parts.join('  ');
}

function settingsInput(values: Record<string, string | undefined>, files: CommandFiles, usage: Usage): FtpSettingsInput {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) throw usage('--port must be an integer between 1 and 65535');
  const explicitTls = booleanOption(values.tls, '--tls', usage);
  return {
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values.user !== undefined ? { username: values.user } : {}),
    ...(values['password-file'] !== undefined ? { password: secretFromFile(files, values['password-file'], '--password-file', usage) } : {}),
    ...(values.folder !== undefined ? { folder: values.folder } : {}),
    ...(explicitTls !== undefined ? { explicitTls } : {}),
    ...(values['tls-certificate-file'] !== undefined ? { tlsCertificate: secretFromFile(files, values['tls-certificate-file'], '--tls-certificate-file', usage) } : {}),
  };
}

async function ftpCommand(
  action: string | undefined,
  entityId: string,
  input: FtpSettingsInput | undefined,
  context: { readonly store: Store; readonly config: GatewayConfig; readonly vault: CardVault | undefined; readonly now: () => Date },
  usage: Usage,
): Promise<string> {
  const { store, config, vault, now } = context;
  switch (action) {
    case 'show': {
      const shown = await showFtpSettings(store, entityId);
      if (!shown.entityExists) throw usage(`no entity ${entityId}`);
      return shown.settings ? JSON.stringify(ftpSettingsJson(shown.settings), null, 2) : `${entityId} has no FTP settings: its reconciliation files are not sent`;
    }
    case 'set': {
      const services = { store, vault: vault as CardVault, now, allowPrivateAddresses: config.outboundAllowPrivate };
      try {
        const saved = await saveFtpSettings(services, entityId, input ?? {});
        return `${JSON.stringify(ftpSettingsJson(saved), null, 2)}\n(the password is sealed; it is never shown)`;
      } catch (error) {
        if (!(error instanceof FtpSettingsError)) throw error;
        throw new Error(error.unknownEntity ? `no entity ${entityId}` : `FTP settings refused: ${error.problems.map((problem) => `${problem.name} ${problem.message}`).join('; ')}`);
      }
    }
    case 'remove':
      if (!(await removeFtpSettings({ store, now }, entityId)).entityExists) throw usage(`no entity ${entityId}`);
      return `${entityId}: FTP settings removed; its reconciliation files are no longer sent`;
    default:
      throw usage(`unknown command: reconciliation ftp ${action ?? ''}`.trim());
  }
}

/** What `reconciliation` runs with: the store is opened only once the command line was found right. */
export interface ReconciliationContext {
  readonly config: GatewayConfig;
  readonly now: () => Date;
  readonly store: () => Promise<Store>;
  readonly files: CommandFiles;
}

/** Runs `reconciliation <args>` (the arguments after `reconciliation`). */
export async function reconciliationCommand(args: readonly string[], context: ReconciliationContext, usage: Usage): Promise<string> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        user: { type: 'string' },
        'password-file': { type: 'string' },
        folder: { type: 'string' },
        tls: { type: 'string' },
        'tls-certificate-file': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        status: { type: 'string' },
        out: { type: 'string' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (!['ftp', 'files', 'day', 'show', 'resend', 'download'].includes(command ?? '')) throw usage(`unknown command: reconciliation ${command ?? ''}`.trim());
  const { config, now, files } = context;
  // Checked before the store opens: a mistyped command touches nothing.
  const entityId = command === 'day' ? '' : entityIdArgument(command === 'ftp' ? rest[1] : rest[0], `reconciliation ${command}`, usage);
  const date = command === 'day' ? dateOf(rest[0], 'DATE', usage) : ['show', 'resend', 'download'].includes(command as string) ? dateOf(rest[1], 'DATE', usage) : '';
  const to = values.to === undefined ? now().toISOString().slice(0, 10) : dateOf(values.to, '--to', usage);
  const from = values.from === undefined ? new Date(Date.parse(to) - 30 * DAY_MS).toISOString().slice(0, 10) : dateOf(values.from, '--from', usage);
  const status = values.status as FileStatus | undefined;
  if (status !== undefined && !['pending', 'retrying', 'uploaded', 'failed'].includes(status)) throw usage('--status must be pending, retrying, uploaded or failed');
  const input = command === 'ftp' && rest[0] === 'set' ? settingsInput(values, files, usage) : undefined;
  // The keys before the store, as every command that seals: a wrong key setting stops it before it touches anything.
  const keys = input ? loadCardDataKeys(config) : undefined;
  const vault = keys ? createCardVault(keys.current, keys.previous) : undefined;
  const store = await context.store();
  switch (command) {
    case 'ftp':
      return await ftpCommand(rest[0], entityId, input, { store, config, vault, now }, usage);
    case 'files': {
      if (!(await entityExists(store, entityId))) throw usage(`no entity ${entityId}`);
      return (await filesOfEntity(store, entityId, { from, to })).map(describeFile).join('\n') || `(no reconciliation files of ${entityId} from ${from} to ${to})`;
    }
    case 'day': {
      const listed = await filesOfDay(store, date, { limit: DAY_LIST_LIMIT, ...(status ? { status } : {}) });
      return listed.map(describeFile).join('\n') || `(no reconciliation files for ${date})`;
    }
    case 'show': {
      const file = await findFile(store, entityId, date);
      if (!file) return `no reconciliation file of ${entityId} for ${date} (not scheduled: no FTP settings then, or the day is not due yet)`;
      return describeFile(file);
    }
    case 'resend':
      try {
        return `${describeFile(await resendFile(store, entityId, date, now()))}\n(a running gateway uploads it now)`;
      } catch (error) {
        if (error instanceof ResendRefused) throw new Error(error.unknownEntity ? `no entity ${entityId}` : error.message);
        throw error;
      }
    default: {
      const file = await dayFile(store, entityId, date, config.pspEntityId);
      if (!file) throw usage(`no entity ${entityId}`);
      if (values.out !== undefined) {
        await files.write(values.out, file.chunks);
        return `wrote ${file.name} to ${values.out}: ${file.counted.records} records, ${file.counted.bytes} bytes`;
      }
      let text = '';
      for await (const chunk of file.chunks) text += chunk.toString('utf8');
      // The command line ends its output with a LF: together with this CR, the file's last CRLF.
      return text.slice(0, -1);
    }
  }
}

