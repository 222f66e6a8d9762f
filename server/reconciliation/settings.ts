import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { SettingsRefusedError } from '../domain/errors.ts';
import { entityExists } from '../merchants/repository.ts';
import { canonicalHost, isPublicAddress } from '../outbound/addresses.ts';
import type { ParameterError } from '../domain/errors.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, keepSealed } from '../vault/repository.ts';
import { deleteFtpSettings, findFtpSettings, upsertFtpSettings, type FtpSettingsRecord } from './repository.ts';

/**
 * Where an entity's reconciliation file goes (COMPAT §14): its FTP server, set by the operator (admin API: routes.ts;
 * command line: cli/reconciliation.ts). The password is sealed in the vault like card data and never shown, logged or echoed: a
 * refused one is named, not quoted. Passive mode only (the FTP client, basic-ftp, has no active mode, which rarely
 * gets through a firewall anyway); explicit FTPS (AUTH TLS) unless switched off.
 */

export interface FtpSettingsInput {
  readonly host?: string;
  readonly port?: number;
  readonly username?: string;
  readonly password?: string;
  readonly folder?: string;
  readonly explicitTls?: boolean;
  readonly passive?: boolean;
  readonly tlsCertificate?: string;
}

/** FTP settings refused (every problem, by field), or an unknown entity. */
export class FtpSettingsError extends SettingsRefusedError {}

export interface FtpSettingsServices {
  readonly store: Store;
  readonly vault: CardVault;
  readonly now: () => Date;
  /** OUTBOUND_ALLOW_PRIVATE: an IP literal that is loopback, private or link-local is refused without it. */
  readonly allowPrivateAddresses: boolean;
}

export const DEFAULT_FTP_PORT = 21;
const HOST_LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${HOST_LABEL}(?:\\.${HOST_LABEL})*\\.?$`, 'i');
/** CR and LF would end an FTP command early (and start another); no control character belongs in these values. */
const CONTROL = /[\x00-\x1f\x7f]/;
const MAX_CERTIFICATE_CHARACTERS = 32 * 1024;

/**
 * What is wrong with `host`, read as a resolver reads it (canonicalHost): every spelling of an address is that
 * address (`2130706433`, `0x7f000001`, `127.1` and `0177.0.0.1` are loopback), refused when it is not public and
 * OUTBOUND_ALLOW_PRIVATE is off; a name must be one.
 */
function hostProblem(host: string, allowPrivateAddresses: boolean): string | undefined {
  const canonical = canonicalHost(host);
  if (canonical === undefined) return 'must be a host name or an IP address';
  if (isIP(canonical) !== 0) {
    if (!allowPrivateAddresses && !isPublicAddress(canonical)) return 'is a loopback, private or link-local address (OUTBOUND_ALLOW_PRIVATE is off)';
    return undefined;
  }
  return HOST_NAME.test(host) ? undefined : 'must be a host name or an IP address';
}

function certificateProblem(pem: string): string | undefined {
  if (pem.length > MAX_CERTIFICATE_CHARACTERS) return `must be at most ${MAX_CERTIFICATE_CHARACTERS} characters`;
  try {
    new X509Certificate(pem);
    return undefined;
  } catch {
    return 'must be a PEM certificate (-----BEGIN CERTIFICATE-----)';
  }
}

/** Every problem of `input`, by field; the password and the certificate are never quoted. */
function problemsOf(input: FtpSettingsInput, passwordKept: boolean, allowPrivateAddresses: boolean): ParameterError[] {
  const problems: ParameterError[] = [];
  const problem = (name: string, value: string, message: string) => problems.push({ name, value: value.slice(0, 64), message });
  if (input.host === undefined) problem('host', '', 'is required');
  else {
    const found = hostProblem(input.host, allowPrivateAddresses);
    if (found) problem('host', input.host, found);
  }
  if (input.port !== undefined && (!Number.isInteger(input.port) || input.port < 1 || input.port > 65535)) problem('port', String(input.port), 'must be an integer between 1 and 65535');
  if (input.username === undefined) problem('username', '', 'is required');
  else if (input.username.length < 1 || input.username.length > 255 || CONTROL.test(input.username)) {
    problem('username', input.username, 'must be 1 to 255 characters without control characters');
  }
  if (input.password === undefined && !passwordKept) problem('password', '', 'is required (the entity has no FTP password yet)');
  else if (input.password !== undefined && (input.password.length < 1 || input.password.length > 255 || CONTROL.test(input.password))) {
    problem('password', '', 'must be 1 to 255 characters without control characters');
  }
  if (input.folder !== undefined && (input.folder.length > 1024 || CONTROL.test(input.folder))) {
    problem('folder', input.folder, 'must be at most 1024 characters without control characters');
  }
  if (input.passive === false) problem('passive', 'false', 'active mode is not supported: the gateway connects in passive mode (EPSV/PASV)');
  if (input.tlsCertificate !== undefined) {
    if (input.explicitTls === false) problem('tlsCertificate', '', 'is only used with explicitTls');
    else {
      const found = certificateProblem(input.tlsCertificate);
      if (found) problem('tlsCertificate', '', found);
    }
  }
  return problems;
}

/**
 * Replaces the entity's FTP settings with `input` (what is left out takes its default: port 21, the login directory,
 * explicit TLS, no certificate of its own), except the password: left out, the one kept is kept. A new password is
 * sealed, the old one erased from the vault.
 */
export async function saveFtpSettings(services: FtpSettingsServices, entityId: string, input: FtpSettingsInput): Promise<FtpSettingsRecord> {
  const now = services.now();
  return services.store.transaction(async (tx) => {
    if (!(await entityExists(tx, entityId))) throw new FtpSettingsError([], true);
    const current = await findFtpSettings(tx, entityId, { forUpdate: true });
    const problems = problemsOf(input, current !== undefined, services.allowPrivateAddresses);
    if (problems.length > 0) throw new FtpSettingsError(problems);
    const passwordId = input.password !== undefined ? await keepSealed(tx, services.vault.seal(input.password), now) : (current?.passwordId as string);
    const saved: FtpSettingsRecord = {
      entityId,
      // The host as a resolver reads it: a name in lowercase, an address in its usual spelling (IPv6 without brackets).
      host: canonicalHost(input.host as string) as string,
      port: input.port ?? DEFAULT_FTP_PORT,
      username: input.username as string,
      passwordId,
      folder: input.folder ?? '',
      explicitTls: input.explicitTls ?? true,
      tlsCertificate: input.tlsCertificate ?? null,
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    await upsertFtpSettings(tx, saved);
    // Once nothing names it any more.
    if (current && current.passwordId !== passwordId) await eraseSealed(tx, current.passwordId, now);
    return saved;
  });
}

export async function showFtpSettings(store: Store, entityId: string): Promise<{ readonly entityExists: boolean; readonly settings?: FtpSettingsRecord }> {
  const settings = await findFtpSettings(store, entityId);
  if (settings) return { entityExists: true, settings };
  return { entityExists: await entityExists(store, entityId) };
}

/** Removes the entity's FTP settings and erases its password; its files are no longer sent (their record stays). */
export async function removeFtpSettings(services: Pick<FtpSettingsServices, 'store' | 'now'>, entityId: string): Promise<{ readonly entityExists: boolean }> {
  return services.store.transaction(async (tx) => {
    const current = await findFtpSettings(tx, entityId, { forUpdate: true });
    if (!current) return { entityExists: await entityExists(tx, entityId) };
    await deleteFtpSettings(tx, entityId);
    await eraseSealed(tx, current.passwordId, services.now());
    return { entityExists: true };
  });
}

/** The settings as the admin API and the command line show them: never the password, the certificate by its facts. */
export function ftpSettingsJson(settings: FtpSettingsRecord): Record<string, unknown> {
  let certificate: Record<string, string> | null = null;
  if (settings.tlsCertificate !== null) {
    const parsed = new X509Certificate(settings.tlsCertificate);
    certificate = { subject: parsed.subject, validTo: new Date(parsed.validTo).toISOString(), fingerprint256: parsed.fingerprint256 };
  }
  return {
    entityId: settings.entityId,
    host: settings.host,
    port: settings.port,
    username: settings.username,
    passwordSet: true,
    folder: settings.folder,
    explicitTls: settings.explicitTls,
    passive: true,
    tlsCertificate: certificate,
    createdAt: settings.createdAt.toISOString(),
    updatedAt: settings.updatedAt.toISOString(),
  };
}
