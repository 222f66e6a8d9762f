import { Client, FTPError } from 'basic-ftp';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { isPublicAddress } from '../outbound/addresses.ts';
import { RefusedDestination, type OutboundPolicy } from '../outbound/http.ts';

/**
 * One upload of a file to a merchant's FTP server with basic-ftp, under the rules of every outbound call the gateway
 * makes (outbound/http.ts): the host is resolved here and a loopback, private or link-local address refused unless
 * OUTBOUND_ALLOW_PRIVATE; the control connection goes to exactly the address checked, and data connections to that
 * same address (basic-ftp refuses a PASV answer naming another host), so an FTP server cannot point the gateway
 * elsewhere. With explicit TLS the certificate is checked against the configured host name (and, when the merchant
 * gave one, trusted by that certificate alone); a server that refuses AUTH TLS is never used in clear.
 *
 * The file is written under a temporary name (`<name>.part`), its size checked where the server tells it, then
 * renamed: a merchant's import never sees a partial file under the real name.
 */

export interface FtpTarget {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** '' : the login directory. */
  readonly folder: string;
  readonly explicitTls: boolean;
  readonly tlsCertificate: string | null;
}

export interface FtpUploadOptions {
  readonly policy: OutboundPolicy;
  /** How long the server may stay silent (connecting, answering, taking data) before the attempt fails. */
  readonly timeoutMs: number;
  /** How long the whole upload may take before it is given up (a lease must outlast it). */
  readonly deadlineMs: number;
  /** Aborted when the worker stops. */
  readonly signal?: AbortSignal;
  /**
   * A file already under the real name counts as delivered, and nothing is sent: a first attempt that got the file
   * there but stopped before recording it is not repeated. False for an operator's re-send.
   */
  readonly keepExisting: boolean;
}

export interface FtpUploadResult {
  /** `present`: the file was already there (keepExisting), and `bytes` is its size on the server. */
  readonly outcome: 'uploaded' | 'present';
  readonly bytes: number;
  readonly remotePath: string;
}

/** The address to connect to: the host itself when it is an IP, else the first resolved address the policy allows. */
async function checkedAddress(host: string, policy: OutboundPolicy): Promise<string> {
  const literal = isIP(host);
  const candidates = literal !== 0 ? [{ address: host, family: literal }] : await (policy.resolve ?? ((name: string) => lookup(name, { all: true, verbatim: true })))(host);
  if (candidates.length === 0) throw new Error(`${host} has no address`);
  const allowed = policy.allowPrivateAddresses ? candidates : candidates.filter((candidate) => isPublicAddress(candidate.address));
  const chosen = allowed[0];
  if (!chosen) {
    throw new RefusedDestination(
      `ftp://${host} refused: ${literal !== 0 ? '' : `resolved to ${candidates[0]?.address}, `}a loopback, private or link-local address (OUTBOUND_ALLOW_PRIVATE is off)`,
    );
  }
  return chosen.address;
}

/** The FTP error's text, the password cut out should a server ever quote it back. */
function describe(error: unknown, password: string): Error {
  const text = error instanceof Error ? error.message : String(error);
  const cleaned = password.length > 0 ? text.replaceAll(password, '***') : text;
  if (error instanceof RefusedDestination) return error;
  return new Error(error instanceof FTPError ? `FTP ${cleaned}` : cleaned);
}

const isMissing = (error: unknown) => error instanceof FTPError && error.code >= 500;

export async function uploadToFtp(target: FtpTarget, name: string, content: AsyncIterable<Buffer>, options: FtpUploadOptions): Promise<FtpUploadResult> {
  const remotePath = target.folder === '' ? name : `${target.folder.replace(/\/+$/, '')}/${name}`;
  const temporary = `${name}.part`;
  const client = new Client(options.timeoutMs);
  let sent = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const chunk of content) {
      sent += chunk.length;
      yield chunk;
    }
  }
  const source = Readable.from(counted(), { objectMode: false });
  let stopped: string | undefined;
  const stop = (why: string) => {
    stopped ??= why;
    client.close();
  };
  const deadline = setTimeout(() => stop(`the upload took longer than ${Math.round(options.deadlineMs / 1000)} s`), options.deadlineMs);
  const onAbort = () => stop('the gateway is stopping');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const address = await checkedAddress(target.host, options.policy);
    const named = isIP(target.host) === 0;
    await client.access({
      host: address,
      port: target.port,
      user: target.username,
      password: target.password,
      secure: target.explicitTls,
      ...(target.explicitTls
        ? {
            secureOptions: {
              // The connection goes to the checked address; the certificate must be the configured host's.
              host: target.host,
              ...(named ? { servername: target.host } : {}),
              ...(target.tlsCertificate !== null ? { ca: target.tlsCertificate } : {}),
              minVersion: 'TLSv1.2' as const,
            },
          }
        : {}),
    });
    if (target.folder !== '') await client.cd(target.folder);
    if (options.keepExisting) {
      const present = await client.size(name).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      });
      if (present !== undefined) return { outcome: 'present', bytes: present, remotePath };
    }
    await client.uploadFrom(source, temporary);
    const stored = await client.size(temporary).catch((error: unknown) => {
      // A server without SIZE: its 226 is all there is to go by.
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (stored !== undefined && stored !== sent) throw new Error(`the server holds ${stored} bytes of the ${sent} sent`);
    try {
      await client.rename(temporary, name);
    } catch (error) {
      // A server that does not rename onto an existing file (a re-send): the old one goes first.
      if (!(error instanceof FTPError)) throw error;
      await client.remove(name, true);
      await client.rename(temporary, name);
    }
    return { outcome: 'uploaded', bytes: sent, remotePath };
  } catch (error) {
    throw stopped ? new Error(`FTP upload stopped: ${stopped}`) : describe(error, target.password);
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
    client.close();
    source.destroy();
  }
}
