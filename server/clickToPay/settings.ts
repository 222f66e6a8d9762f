import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SettingsRefusedError, type ParameterError } from '../domain/errors.ts';
import { isJsonObject } from '../domain/json.ts';
import type { Queryable } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';

/**
 * A merchant entity's Click to Pay with the card networks (issue 35 point 6, live): what the operator sets from the
 * merchant's (or the gateway operator's) registration with each network's SRC system, through the admin API
 * (PUT /admin/v1/entities/{id}/clickToPay, settingsRoutes.ts):
 *
 * - per network (`mastercard`, `visa`): the DPA registration the widget initialises the network's SDK with
 *   (`srcDpaId`, `srcInitiatorId`), the SDK's URL (the network's own by default), and the network's public key
 *   (`signingKey`, PEM key or certificate) that verifies the signature of its checkout responses;
 * - the entity's decryption key: the RSA private key whose public half was registered with the networks under
 *   `keyId` (the JWE's `kid`), which opens the encrypted checkout payload (networkPayload.ts). Sealed in the vault
 *   like card data, never shown again; a replaced key is erased.
 */

export const SRC_NETWORKS = ['mastercard', 'visa'] as const;
export type SrcNetwork = (typeof SRC_NETWORKS)[number];

/** The networks' SDKs (docs/widget.md, the CSP additions). */
export const DEFAULT_SDK_URLS: Readonly<Record<SrcNetwork, string>> = {
  mastercard: 'https://src.mastercard.com/srci/integration/2/lib.js',
  visa: 'https://secure.checkout.visa.com/checkout-widget/resources/js/src-i-adapter/visaSdk.js',
};

export interface NetworkSettings {
  readonly network: SrcNetwork;
  readonly srcDpaId: string;
  readonly srcInitiatorId: string;
  readonly sdkUrl: string;
  /** The network's public key (PEM: a public key or a certificate) its checkout responses are signed with. */
  readonly signingKey: string;
}

export interface ClickToPaySettings {
  readonly dpaName: string | null;
  readonly networks: readonly NetworkSettings[];
  readonly keyId: string;
  /** The entity's RSA private key, PEM; only in what findClickToPaySettings opens. */
  readonly privateKey: string;
}

/** What the operator and the widget are shown: never the private key. */
export type ClickToPaySettingsShown = Omit<ClickToPaySettings, 'privateKey'> & { readonly updatedAt: Date };

export class ClickToPaySettingsRefusedError extends SettingsRefusedError {}

const ID = /^[A-Za-z0-9._:-]{1,128}$/;
const PEM_LIMIT = 16 * 1024;

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The SDK's URL: https, or http on loopback (a developer's or a test's stand-in for the network). */
function sdkUrlOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    if (url.username !== '' || url.password !== '' || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) return undefined;
    return url.href;
  } catch {
    return undefined;
  }
}

/** A public key from PEM (a key or a certificate), or undefined. */
export function publicKeyOf(pem: string): KeyObject | undefined {
  try {
    return createPublicKey(pem);
  } catch {
    return undefined;
  }
}

function checkNetwork(network: SrcNetwork, input: unknown, problems: ParameterError[]): NetworkSettings | undefined {
  const at = (field: string) => `${network}.${field}`;
  if (!isJsonObject(input)) {
    problems.push({ name: network, value: '', message: 'must be a JSON object: {srcDpaId, srcInitiatorId, signingKey, sdkUrl?}' });
    return undefined;
  }
  const known = ['srcDpaId', 'srcInitiatorId', 'signingKey', 'sdkUrl'];
  for (const name of Object.keys(input)) if (!known.includes(name)) problems.push({ name: at(name), value: '', message: `is not a known field (known: ${known.join(', ')})` });
  const srcDpaId = textOf(input.srcDpaId);
  if (srcDpaId === undefined || !ID.test(srcDpaId)) problems.push({ name: at('srcDpaId'), value: srcDpaId ?? '', message: 'must be the DPA id the network registered (1 to 128 letters, digits, . _ : -)' });
  const srcInitiatorId = textOf(input.srcInitiatorId);
  if (srcInitiatorId === undefined || !ID.test(srcInitiatorId)) {
    problems.push({ name: at('srcInitiatorId'), value: srcInitiatorId ?? '', message: 'must be the SRC initiator id the network gave (1 to 128 letters, digits, . _ : -)' });
  }
  const sdkUrl = input.sdkUrl === undefined ? DEFAULT_SDK_URLS[network] : sdkUrlOf(input.sdkUrl);
  if (sdkUrl === undefined) problems.push({ name: at('sdkUrl'), value: textOf(input.sdkUrl) ?? '', message: 'must be the https URL of the network’s SDK (http only on loopback)' });
  const signingKey = textOf(input.signingKey);
  if (signingKey === undefined || signingKey.length > PEM_LIMIT || !signingKey.includes('-----BEGIN') || publicKeyOf(signingKey) === undefined) {
    problems.push({ name: at('signingKey'), value: '', message: 'must be the network’s public key its checkout responses are signed with: PEM, a public key or a certificate' });
  }
  if (srcDpaId === undefined || srcInitiatorId === undefined || sdkUrl === undefined || signingKey === undefined) return undefined;
  return { network, srcDpaId, srcInitiatorId, sdkUrl, signingKey };
}

/**
 * Checks what the operator sent; the problems named by the admin API's fields, never quoting a key. Returns the
 * settings to save.
 */
export function checkClickToPaySettings(input: Readonly<Record<string, unknown>>): ClickToPaySettings {
  const problems: ParameterError[] = [];
  const networks: NetworkSettings[] = [];
  for (const network of SRC_NETWORKS) {
    if (input[network] === undefined) continue;
    const checked = checkNetwork(network, input[network], problems);
    if (checked) networks.push(checked);
  }
  if (SRC_NETWORKS.every((network) => input[network] === undefined)) {
    problems.push({ name: 'mastercard', value: '', message: `at least one network is required (${SRC_NETWORKS.join(', ')})` });
  }
  const keyId = textOf(input.keyId);
  if (keyId === undefined || !ID.test(keyId)) problems.push({ name: 'keyId', value: keyId ?? '', message: 'must be the key id (kid) the networks know the entity’s public key by' });
  const privateKey = textOf(input.privateKey);
  let key: KeyObject | undefined;
  try {
    key = privateKey !== undefined && privateKey.length <= PEM_LIMIT ? createPrivateKey(privateKey) : undefined;
  } catch {
    key = undefined;
  }
  if (!key || key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    problems.push({ name: 'privateKey', value: '', message: 'must be the entity’s RSA private key (2048 bits or more), PEM, unencrypted: the networks encrypt the checkout payload to its public key' });
  }
  const dpaName = input.dpaName === undefined || input.dpaName === null ? null : textOf(input.dpaName)?.trim();
  if (dpaName === undefined || (dpaName !== null && (dpaName === '' || [...dpaName].length > 60 || /[\u0000-\u001f\u007f]/.test(dpaName)))) {
    problems.push({ name: 'dpaName', value: textOf(input.dpaName) ?? '', message: 'must be the shop’s name the networks show: 1 to 60 characters' });
  }
  if (problems.length > 0) throw new ClickToPaySettingsRefusedError(problems);
  return { dpaName: dpaName ?? null, networks, keyId: keyId as string, privateKey: privateKey as string };
}

interface SettingsRow {
  dpa_name: string | null;
  networks: NetworkSettings[] | string;
  key_id: string;
  private_key_id: string;
  updated_at: Date | string;
}

const SELECT_SETTINGS = 'SELECT dpa_name, networks, key_id, private_key_id, updated_at FROM click_to_pay_settings WHERE entity_id = $1';

function shownOf(row: SettingsRow): ClickToPaySettingsShown {
  const networks = typeof row.networks === 'string' ? (JSON.parse(row.networks) as NetworkSettings[]) : row.networks;
  return { dpaName: row.dpa_name, networks, keyId: row.key_id, updatedAt: new Date(row.updated_at) };
}

/** Sets (or replaces) the entity's settings, the private key sealed; false when the entity does not exist. */
export async function saveClickToPaySettings(tx: Queryable, vault: CardVault, entityId: string, settings: ClickToPaySettings, now: Date): Promise<boolean> {
  const entity = await tx.query('SELECT 1 FROM entities WHERE id = $1 FOR UPDATE', [entityId]);
  if (entity.rows.length === 0) return false;
  const previous = await tx.query<{ private_key_id: string }>('SELECT private_key_id FROM click_to_pay_settings WHERE entity_id = $1 FOR UPDATE', [entityId]);
  const privateKeyId = await keepSealed(tx, vault.seal({ privateKey: settings.privateKey }), now);
  await tx.query(
    `INSERT INTO click_to_pay_settings (entity_id, dpa_name, networks, key_id, private_key_id, updated_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6::timestamptz)
     ON CONFLICT (entity_id) DO UPDATE SET dpa_name = excluded.dpa_name, networks = excluded.networks, key_id = excluded.key_id,
       private_key_id = excluded.private_key_id, updated_at = excluded.updated_at`,
    [entityId, settings.dpaName, JSON.stringify(settings.networks), settings.keyId, privateKeyId, now.toISOString()],
  );
  const replaced = previous.rows[0]?.private_key_id;
  if (replaced) await eraseSealed(tx, replaced, now);
  return true;
}

/** Removes the entity's settings (the key erased); whether there were any. */
export async function removeClickToPaySettings(tx: Queryable, entityId: string, now: Date): Promise<boolean> {
  const removed = await tx.query<{ private_key_id: string }>('DELETE FROM click_to_pay_settings WHERE entity_id = $1 RETURNING private_key_id', [entityId]);
  const keyId = removed.rows[0]?.private_key_id;
  if (keyId) await eraseSealed(tx, keyId, now);
  return keyId !== undefined;
}

/** The entity's settings without the key; null when none are set, undefined when the entity does not exist. */
export async function showClickToPaySettings(db: Queryable, entityId: string): Promise<ClickToPaySettingsShown | null | undefined> {
  const entity = await db.query('SELECT 1 FROM entities WHERE id = $1', [entityId]);
  if (entity.rows.length === 0) return undefined;
  const row = (await db.query<SettingsRow>(SELECT_SETTINGS, [entityId])).rows[0];
  return row ? shownOf(row) : null;
}

/** The entity's settings with the key opened; undefined when none are set (or the sealed key cannot be opened). */
export async function findClickToPaySettings(db: Queryable, vault: CardVault, entityId: string): Promise<ClickToPaySettings | undefined> {
  const row = (await db.query<SettingsRow>(SELECT_SETTINGS, [entityId])).rows[0];
  if (!row) return undefined;
  const sealed = await findSealed(db, row.private_key_id);
  if (!sealed) return undefined;
  const { privateKey } = vault.open<{ privateKey: string }>(sealed);
  const { updatedAt: _updatedAt, ...shown } = shownOf(row);
  return { ...shown, privateKey };
}
