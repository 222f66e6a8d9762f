import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { describeUrl } from '../domain/urls.ts';
import { isPublicAddress } from './addresses.ts';

/**
 * The gateway's outbound HTTP (merchant callbacks, webhooks, Apple Pay's merchant validation with the merchant's
 * certificate: wallets/applePaySession.ts). The destinations come from merchants and shoppers, so every call:
 * - goes only to http(s) URLs (the caller has parsed them),
 * - resolves the host itself and refuses loopback, private, link-local and metadata addresses unless the gateway
 *   allows them (the test environment does by default: OUTBOUND_ALLOW_PRIVATE),
 * - connects to exactly the address it checked (no second lookup a DNS answer could change in between), or reuses a
 *   kept-alive connection to that very address,
 * - never follows a redirect (a 3xx is an answer like any other non-2xx),
 * - gives up after a timeout, and shows only scheme, host and path in its errors (a query may carry secrets).
 */

export const DEFAULT_OUTBOUND_TIMEOUT_MS = 30_000;

export interface OutboundPolicy {
  /** Loopback, private and link-local destinations allowed (test environment, or an operator's choice). */
  readonly allowPrivateAddresses: boolean;
  /** How host names are resolved: DNS, unless a test resolves names of its own. */
  readonly resolve?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
}

export interface OutboundRequest {
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
  /** Aborts the call early (the worker is stopping). */
  readonly signal?: AbortSignal;
  /** The answer's body is read (and dropped, unless exchangeOutbound asked for it); one longer than this fails the call (a receiver flooding the gateway). */
  readonly maxResponseBytes?: number;
  /**
   * Mutual TLS: the certificate and private key (PEM) the gateway presents to an https receiver that asks for one
   * (Apple Pay's merchant validation). Connections are kept per identity: node's https agent names a pooled
   * connection by the certificate and key it was opened with, so no call ever reuses another identity's connection.
   */
  readonly clientCertificate?: { readonly certificate: string; readonly privateKey: string };
  /** Certificates (PEM) an https receiver's chain may end in instead of the system's roots: only tests set it. */
  readonly trustedCertificates?: string;
}

/** What exchangeOutbound got back: the status, whatever it is, and the body as text (UTF-8). */
export interface OutboundAnswer {
  readonly status: number;
  readonly body: string;
}

/** The destination is one the policy refuses: no retry can change that, only the merchant's URL or the setting. */
export class RefusedDestination extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestination';
  }
}

/** A call that failed on its way (no connection, a reset, a TLS refusal) or got no whole answer in time. */
export class OutboundFailure extends Error {
  constructor(
    message: string,
    /** No answer within the request's timeoutMs. */
    readonly timedOut: boolean,
  ) {
    super(message);
    this.name = 'OutboundFailure';
  }
}

const resolveWithDns = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Connections are kept open between calls to one destination (a webhook's deliveries follow each other closely: a
 * new connection each would cost both sides a connect and a close), in an agent of their own per checked address: a
 * pooled connection always goes to the address its call checked, never to one an earlier DNS answer gave. An idle
 * connection is closed after KEEP_ALIVE_IDLE_MS, or sooner when the server announces a shorter keep-alive (Node
 * does that: its servers and Apache keep 5 s); one the server closed just as a call reused it is tried once more,
 * on a new connection.
 */
const KEEP_ALIVE_IDLE_MS = 4000;
/** Addresses whose agents are kept; the least recently used is dropped (its idle connections time out). */
const AGENTS_KEPT = 256;
const agents = new Map<string, HttpAgent>();

function agentFor(url: URL, address: string): HttpAgent {
  const key = `${url.protocol}${address}`;
  const known = agents.get(key);
  agents.delete(key);
  if (!known && agents.size >= AGENTS_KEPT) agents.delete(agents.keys().next().value as string);
  const options = { keepAlive: true, scheduling: 'lifo' as const, timeout: KEEP_ALIVE_IDLE_MS };
  const agent = known ?? (url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options));
  agents.set(key, agent);
  return agent;
}

/**
 * The calls waiting on each caller's signal, behind one listener per signal: a worker's signal is shared by all its
 * calls at once (32 deliveries), more than an AbortSignal takes listeners without a warning.
 */
const stoppedBy = new WeakMap<AbortSignal, Set<() => void>>();

function onceStopped(signal: AbortSignal, stop: () => void): () => void {
  let waiting = stoppedBy.get(signal);
  if (!waiting) {
    const calls = new Set<() => void>();
    signal.addEventListener('abort', () => calls.forEach((call) => call()), { once: true });
    stoppedBy.set(signal, calls);
    waiting = calls;
  }
  waiting.add(stop);
  return () => waiting.delete(stop);
}

/** A reused connection the server had closed: the request never reached it. */
function wasClosedByServer(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** The address the call goes to: the host itself when it is an IP, else the first resolved address the policy allows. */
async function checkedAddress(url: URL, policy: OutboundPolicy): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const candidates = literal !== 0 ? [{ address: host, family: literal }] : await (policy.resolve ?? resolveWithDns)(host);
  if (candidates.length === 0) throw new Error(`${host} has no address`);
  const allowed = policy.allowPrivateAddresses ? candidates : candidates.filter((candidate) => isPublicAddress(candidate.address));
  const chosen = allowed[0];
  if (!chosen) {
    throw new RefusedDestination(
      `${describeUrl(url)} refused: ${host} is ${literal !== 0 ? '' : `resolved to ${candidates[0]?.address}, `}a loopback, private or link-local address (OUTBOUND_ALLOW_PRIVATE is off)`,
    );
  }
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}

/** Sends the request and resolves with the answer's status, whatever it is; the body is read and dropped. */
export async function sendOutbound(url: URL, request: OutboundRequest, policy: OutboundPolicy): Promise<number> {
  return (await callOutbound(url, request, policy, false)).status;
}

/** Sends the request and resolves with the answer's status and body (at most maxResponseBytes, else the call fails). */
export function exchangeOutbound(url: URL, request: OutboundRequest & { readonly maxResponseBytes: number }, policy: OutboundPolicy): Promise<OutboundAnswer> {
  return callOutbound(url, request, policy, true);
}

async function callOutbound(url: URL, request: OutboundRequest, policy: OutboundPolicy, keepBody: boolean): Promise<OutboundAnswer> {
  const { address, family } = await checkedAddress(url, policy);
  // The socket connects to the checked address whatever the name would resolve to now.
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  // A timer and one listener rather than AbortSignal.timeout and AbortSignal.any: those cost about 80 µs a call.
  let current: ClientRequest | undefined;
  let ended: 'timeout' | 'stopped' | undefined;
  const end = (why: 'timeout' | 'stopped') => {
    ended ??= why;
    current?.destroy(new Error(why));
  };
  const timer = setTimeout(() => end('timeout'), request.timeoutMs);
  if (request.signal?.aborted) end('stopped');
  const stopWaiting = request.signal ? onceStopped(request.signal, () => end('stopped')) : () => undefined;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const tls = url.protocol === 'https:'
    ? {
        ...(request.clientCertificate ? { cert: request.clientCertificate.certificate, key: request.clientCertificate.privateKey } : {}),
        ...(request.trustedCertificates ? { ca: request.trustedCertificates } : {}),
      }
    : {};
  const exchange = (agent: HttpAgent | false): Promise<OutboundAnswer> =>
    new Promise<OutboundAnswer>((resolve, reject) => {
      if (ended) return reject(new Error(ended));
      let answered = false;
      const outgoing = send(
        url,
        {
          method: request.method,
          headers: { 'user-agent': 'payment-gateway', ...request.headers },
          lookup: pinned,
          agent,
          ...tls,
        },
        (response: IncomingMessage) => {
          answered = true;
          let received = 0;
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (request.maxResponseBytes !== undefined && received > request.maxResponseBytes) {
              response.destroy(new Error(`the answer's body exceeded ${request.maxResponseBytes} bytes`));
            } else if (keepBody) chunks.push(chunk);
          });
          response.once('end', () => resolve({ status: response.statusCode ?? 0, body: keepBody ? Buffer.concat(chunks).toString('utf8') : '' }));
          response.once('error', reject);
        },
      );
      outgoing.once('error', (error) => {
        if (agent && outgoing.reusedSocket && !answered && !ended && wasClosedByServer(error)) resolve(exchange(false));
        else reject(error);
      });
      current = outgoing;
      outgoing.end(request.body);
    });
  try {
    return await exchange(agentFor(url, address));
  } catch (error) {
    const reason =
      ended === 'timeout'
        ? `no answer within ${request.timeoutMs} ms`
        : ended === 'stopped'
          ? 'the worker stopped'
          : // A network error names the host at most; the full URL is cut back anyway, in case one ever quotes it.
            (error as Error).message.split(url.href).join(describeUrl(url));
    throw new OutboundFailure(`${request.method} ${describeUrl(url)} failed: ${reason}`, ended === 'timeout');
  } finally {
    clearTimeout(timer);
    stopWaiting();
  }
}
