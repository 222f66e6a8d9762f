import { readFileSync } from 'node:fs';
import { isJsonObject } from './domain/json.ts';

/**
 * ACQUIRERS_FILE (issue 33): what each acquirer named in ACQUIRERS is. A name the file describes is a connector to a
 * real provider; a name it does not describe is a simulated acquirer, which only the test environment has (config.ts
 * refuses a live gateway with one). Read by config.ts at start, like every other setting: a file that cannot be used
 * stops the start with one line naming the file and the field, and never quotes a secret it holds.
 *
 *   {"acquirers": {"hyperpay": {"kind": "opp", "url": "https://eu-prod.oppwa.com", "timeoutSeconds": 30}}}
 */

/**
 * A connector to a provider speaking the platform's server-to-server API (`opp`: HyperPay, Peach Payments, ACI,
 * PayUnity, VR Payment, or another instance of this gateway): acquirers/opp/.
 */
export interface OppConnectorSettings {
  readonly kind: 'opp';
  /** The provider's base URL (https://eu-prod.oppwa.com): the operator's choice, so loopback is allowed. */
  readonly url: string;
  /** How long a call may take before its outcome is unknown (the request was sent) or the provider unreachable. */
  readonly timeoutMs: number;
  /**
   * How long after an attempt was sent the provider's "cannot find transaction" means it never received it. Sooner, a
   * request still on its way (or still being processed by a slow provider) could yet be made: the attempt stays unknown.
   */
  readonly neverReceivedAfterMs: number;
  /** The secret (64 hex) the provider encrypts its webhook notifications with; none: its notifications are refused. */
  readonly notificationKey: string | undefined;
  /** Connections kept open to the provider at most (each payment in flight holds one). */
  readonly maxConnections: number;
}

export type ConnectorSettings = OppConnectorSettings;

export class AcquirerConfigError extends Error {}

const SECRET = /^[0-9A-Fa-f]{64}$/;

/** An integer field within bounds, or its default when absent. */
function integerField(where: string, entry: Record<string, unknown>, field: string, fallback: number, min: number, max: number): number {
  const value = entry[field];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new AcquirerConfigError(`${where}.${field} must be an integer between ${min} and ${max}`);
  }
  return value;
}

const OPP_FIELDS = ['kind', 'url', 'timeoutSeconds', 'neverReceivedAfterSeconds', 'notificationKey', 'maxConnections'];

function oppSettings(where: string, entry: Record<string, unknown>): OppConnectorSettings {
  const unknown = Object.keys(entry).find((field) => !OPP_FIELDS.includes(field));
  if (unknown !== undefined) throw new AcquirerConfigError(`${where}.${unknown} is not a setting of an opp acquirer (${OPP_FIELDS.join(', ')})`);
  const url = entry.url;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '' || parsed.hash !== '') {
    throw new AcquirerConfigError(`${where}.url must be the provider's http(s) base URL, without a query (e.g. https://eu-prod.oppwa.com)`);
  }
  const timeoutSeconds = integerField(where, entry, 'timeoutSeconds', 30, 1, 120);
  // Never the key itself in a message: it is a secret.
  const notificationKey = entry.notificationKey;
  if (notificationKey !== undefined && (typeof notificationKey !== 'string' || !SECRET.test(notificationKey))) {
    throw new AcquirerConfigError(`${where}.notificationKey must be the webhook secret the provider shows: 64 hexadecimal characters`);
  }
  return {
    kind: 'opp',
    url: parsed.href.replace(/\/+$/, ''),
    timeoutMs: timeoutSeconds * 1000,
    // At least twice the timeout: a request the provider is still working on when the call gave up must be seen first.
    neverReceivedAfterMs: integerField(where, entry, 'neverReceivedAfterSeconds', 300, timeoutSeconds * 2, 7 * 86_400) * 1000,
    notificationKey,
    maxConnections: integerField(where, entry, 'maxConnections', 128, 1, 4096),
  };
}

/** The connectors the file describes, by name; every name must be one of `names` (ACQUIRERS). */
export function parseAcquirersFile(text: string, names: readonly string[]): Readonly<Record<string, ConnectorSettings>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AcquirerConfigError(`is not JSON (${error instanceof SyntaxError ? error.message : 'unreadable'})`);
  }
  if (!isJsonObject(parsed) || !isJsonObject(parsed.acquirers)) throw new AcquirerConfigError('must be a JSON object with an "acquirers" object');
  const unknownTop = Object.keys(parsed).find((field) => field !== 'acquirers');
  if (unknownTop !== undefined) throw new AcquirerConfigError(`${unknownTop} is not a setting (only "acquirers")`);
  const connectors: Record<string, ConnectorSettings> = Object.create(null);
  for (const [name, entry] of Object.entries(parsed.acquirers)) {
    const where = `acquirers.${name}`;
    if (!names.includes(name)) throw new AcquirerConfigError(`${where} is not one of ACQUIRERS (${names.join(', ')})`);
    if (!isJsonObject(entry)) throw new AcquirerConfigError(`${where} must be an object with the acquirer's kind and settings`);
    if (entry.kind !== 'opp') throw new AcquirerConfigError(`${where}.kind must be "opp" (a provider speaking the platform's API), got ${JSON.stringify(entry.kind ?? null)}`);
    connectors[name] = oppSettings(where, entry);
  }
  return connectors;
}

/** Reads and parses ACQUIRERS_FILE; every refusal names the file. */
export function readAcquirersFile(path: string, names: readonly string[], read: (path: string) => string = (file) => readFileSync(file, 'utf8')): Readonly<Record<string, ConnectorSettings>> {
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    throw new AcquirerConfigError(`ACQUIRERS_FILE ${path} cannot be read${code ? ` (${code})` : ''}`);
  }
  try {
    return parseAcquirersFile(text, names);
  } catch (error) {
    if (error instanceof AcquirerConfigError) throw new AcquirerConfigError(`ACQUIRERS_FILE ${path}: ${error.message}`);
    throw error;
  }
}
