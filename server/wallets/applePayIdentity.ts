import { createPrivateKey, X509Certificate } from 'node:crypto';
import { SettingsRefusedError, type ParameterError } from '../domain/errors.ts';
import { canonicalHost } from '../outbound/addresses.ts';
import type { Queryable } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { eraseSealed, findSealed, keepSealed } from '../vault/repository.ts';

/**
 * A merchant entity's Apple Pay merchant identity (issue 35 point 2): what the gateway validates the merchant with
 * when a live Apple Pay sheet opens (applePaySession.ts). Set by the operator (admin API
 * PUT /admin/v1/entities/{id}/applePay: applePayIdentityRoutes.ts) from what the merchant made in Apple's developer
 * account: the merchant identifier, the Merchant Identity certificate and its private key, and the page domains
 * registered and verified there. The certificate and key are sealed together in the vault like card data (a key
 * rotation re-seals them, a replaced pair is erased) and never shown again: what is shown is the identifier, the
 * display name, the domains, and the certificate's subject and expiry (so an operator sees when to renew it).
 */

export interface ApplePayIdentity {
  /** The merchant identifier registered with Apple (`merchant.com.example.shop`). */
  readonly merchantIdentifier: string;
  /** The name sent to Apple when the page gives none (at most 64 characters); absent: the page's domain. */
  readonly displayName: string | null;
  /** The page domains registered with Apple for the identifier, lowercase. */
  readonly domains: readonly string[];
  /** The Apple Pay Merchant Identity certificate and its unencrypted private key, PEM. */
  readonly certificate: string;
  readonly privateKey: string;
}

/** What the operator is shown of an entity's identity: never the certificate's key. */
export interface ApplePayIdentityShown {
  readonly set: boolean;
  readonly merchantIdentifier: string | null;
  readonly displayName: string | null;
  readonly domains: readonly string[];
  readonly certificate: { readonly subject: string; readonly expiresAt: Date } | null;
  readonly updatedAt: Date | null;
}

export class ApplePayIdentityRefusedError extends SettingsRefusedError {}

/** Apple's merchant identifiers start with `merchant.`; printable ASCII without spaces (it goes into a JSON body). */
export const MERCHANT_IDENTIFIER = /^merchant\.[\x21-\x7e]{1,120}$/;
/** Apple's limit for the display name: 64 characters, UTF-8, unlocalized. */
export const DISPLAY_NAME_LIMIT = 64;
/** Apple registers at most 99 domains per merchant identifier in one request; a merchant has a few. */
const DOMAINS_LIMIT = 99;
const PEM_LIMIT = 16 * 1024;

/** `domain` as Apple's initiativeContext takes it (a host name, lowercase, no port, no IP), or undefined. */
export function pageDomainOf(domain: string): string | undefined {
  const host = canonicalHost(domain.trim());
  if (!host || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(host)) return undefined;
  return host;
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A display name as Apple takes it (1 to 64 characters, no control characters), trimmed; undefined when it is none. */
export function displayNameOf(value: unknown): string | undefined {
  const name = textOf(value)?.trim();
  if (name === undefined || name === '' || [...name].length > DISPLAY_NAME_LIMIT || /[\u0000-\u001f\u007f]/.test(name)) return undefined;
  return name;
}

/** The certificate's problem, or its subject and expiry. */
function readCertificate(certificate: string | undefined, privateKey: string | undefined, now: Date, problems: ParameterError[]): { subject: string; expiresAt: Date } | undefined {
  let read: X509Certificate | undefined;
  if (certificate === undefined || certificate.length > PEM_LIMIT || !certificate.includes('-----BEGIN CERTIFICATE-----')) {
    problems.push({ name: 'certificate', value: '', message: 'must be the Apple Pay Merchant Identity certificate, PEM (-----BEGIN CERTIFICATE-----)' });
  } else {
    try {
      read = new X509Certificate(certificate);
      if (new Date(read.validTo) <= now) {
        problems.push({ name: 'certificate', value: '', message: `expired on ${new Date(read.validTo).toISOString()}: make a new Merchant Identity certificate in Apple's developer account` });
      }
    } catch {
      problems.push({ name: 'certificate', value: '', message: 'is not a readable X.509 certificate (PEM)' });
    }
  }
  if (privateKey === undefined || privateKey.length > PEM_LIMIT || !/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(privateKey)) {
    problems.push({ name: 'privateKey', value: '', message: 'must be the certificate’s private key, PEM, unencrypted (-----BEGIN PRIVATE KEY-----)' });
    return undefined;
  }
  try {
    const key = createPrivateKey(privateKey);
    if (read && !read.checkPrivateKey(key)) {
      problems.push({ name: 'privateKey', value: '', message: 'is not the private key of this certificate' });
      return undefined;
    }
  } catch {
    problems.push({ name: 'privateKey', value: '', message: 'is not a readable unencrypted private key (PEM)' });
    return undefined;
  }
  return read ? { subject: read.subject.replace(/\n/g, ', '), expiresAt: new Date(read.validTo) } : undefined;
}

/**
 * Checks what the operator sent; the problems named by the admin API's fields, never quoting the certificate or the
 * key. Returns the identity and what is shown of its certificate.
 */
export function checkApplePayIdentity(
  input: Readonly<Record<string, unknown>>,
  now: Date,
): { readonly identity: ApplePayIdentity; readonly certificate: { readonly subject: string; readonly expiresAt: Date } } {
  const problems: ParameterError[] = [];
  const merchantIdentifier = textOf(input.merchantIdentifier);
  if (merchantIdentifier === undefined || !MERCHANT_IDENTIFIER.test(merchantIdentifier)) {
    problems.push({ name: 'merchantIdentifier', value: merchantIdentifier ?? '', message: 'must be the merchant identifier registered with Apple: merchant. and up to 120 printable characters without spaces' });
  }
  const displayName = input.displayName === undefined || input.displayName === null ? null : displayNameOf(input.displayName);
  if (displayName === undefined) {
    problems.push({ name: 'displayName', value: textOf(input.displayName) ?? '', message: `must be the shop's name for Apple: 1 to ${DISPLAY_NAME_LIMIT} characters` });
  }
  const given = Array.isArray(input.domains) ? input.domains : [];
  const domains: string[] = [];
  for (const entry of given) {
    const domain = typeof entry === 'string' ? pageDomainOf(entry) : undefined;
    if (domain === undefined) problems.push({ name: 'domains', value: typeof entry === 'string' ? entry : '', message: 'must be a page domain registered with Apple, a host name such as shop.example.com (no scheme, port or path)' });
    else if (!domains.includes(domain)) domains.push(domain);
  }
  if (given.length === 0 || given.length > DOMAINS_LIMIT) {
    problems.push({ name: 'domains', value: '', message: `must list the 1 to ${DOMAINS_LIMIT} page domains registered with Apple for the merchant identifier` });
  }
  const certificate = readCertificate(textOf(input.certificate), textOf(input.privateKey), now, problems);
  if (problems.length > 0 || !certificate) throw new ApplePayIdentityRefusedError(problems);
  return {
    identity: {
      merchantIdentifier: merchantIdentifier as string,
      displayName: displayName ?? null,
      domains,
      certificate: input.certificate as string,
      privateKey: input.privateKey as string,
    },
    certificate,
  };
}

interface IdentityRow {
  merchant_identifier: string;
  display_name: string | null;
  domains: string[];
  identity_id: string;
  certificate_subject: string;
  certificate_expires_at: Date | string;
  updated_at: Date | string;
}

/** What the vault holds for an identity. */
interface SealedIdentity {
  readonly certificate: string;
  readonly privateKey: string;
}

/** Sets (or replaces) the entity's identity, its certificate and key sealed; false when the entity does not exist. */
export async function saveApplePayIdentity(
  tx: Queryable,
  vault: CardVault,
  entityId: string,
  checked: ReturnType<typeof checkApplePayIdentity>,
  now: Date,
): Promise<boolean> {
  const entity = await tx.query('SELECT 1 FROM entities WHERE id = $1 FOR UPDATE', [entityId]);
  if (entity.rows.length === 0) return false;
  const previous = await tx.query<{ identity_id: string }>('SELECT identity_id FROM apple_pay_identities WHERE entity_id = $1 FOR UPDATE', [entityId]);
  const { identity, certificate } = checked;
  const sealed: SealedIdentity = { certificate: identity.certificate, privateKey: identity.privateKey };
  const identityId = await keepSealed(tx, vault.seal(sealed), now);
  await tx.query(
    `INSERT INTO apple_pay_identities (entity_id, merchant_identifier, display_name, domains, identity_id, certificate_subject, certificate_expires_at, updated_at)
     VALUES ($1, $2, $3, $4::text[], $5, $6, $7::timestamptz, $8::timestamptz)
     ON CONFLICT (entity_id) DO UPDATE SET merchant_identifier = excluded.merchant_identifier, display_name = excluded.display_name,
       domains = excluded.domains, identity_id = excluded.identity_id, certificate_subject = excluded.certificate_subject,
       certificate_expires_at = excluded.certificate_expires_at, updated_at = excluded.updated_at`,
    [entityId, identity.merchantIdentifier, identity.displayName, identity.domains, identityId, certificate.subject, certificate.expiresAt.toISOString(), now.toISOString()],
  );
  const replaced = previous.rows[0]?.identity_id;
  if (replaced) await eraseSealed(tx, replaced, now);
  return true;
}

/** Removes the entity's identity (its certificate and key erased); whether there was one. */
export async function removeApplePayIdentity(tx: Queryable, entityId: string, now: Date): Promise<boolean> {
  const removed = await tx.query<{ identity_id: string }>('DELETE FROM apple_pay_identities WHERE entity_id = $1 RETURNING identity_id', [entityId]);
  const identityId = removed.rows[0]?.identity_id;
  if (identityId) await eraseSealed(tx, identityId, now);
  return identityId !== undefined;
}

const SELECT_IDENTITY =
  'SELECT merchant_identifier, display_name, domains, identity_id, certificate_subject, certificate_expires_at, updated_at FROM apple_pay_identities WHERE entity_id = $1';

export const unsetApplePayIdentity: ApplePayIdentityShown = { set: false, merchantIdentifier: null, displayName: null, domains: [], certificate: null, updatedAt: null };

/** What is shown of the entity's identity; undefined when the entity does not exist. */
export async function showApplePayIdentity(db: Queryable, entityId: string): Promise<ApplePayIdentityShown | undefined> {
  const entity = await db.query('SELECT 1 FROM entities WHERE id = $1', [entityId]);
  if (entity.rows.length === 0) return undefined;
  const row = (await db.query<IdentityRow>(SELECT_IDENTITY, [entityId])).rows[0];
  if (!row) return unsetApplePayIdentity;
  return {
    set: true,
    merchantIdentifier: row.merchant_identifier,
    displayName: row.display_name,
    domains: row.domains,
    certificate: { subject: row.certificate_subject, expiresAt: new Date(row.certificate_expires_at) },
    updatedAt: new Date(row.updated_at),
  };
}

/** The entity's identity, opened; undefined when none is set (or its sealed pair cannot be opened). */
export async function findApplePayIdentity(db: Queryable, vault: CardVault, entityId: string): Promise<ApplePayIdentity | undefined> {
  const row = (await db.query<IdentityRow>(SELECT_IDENTITY, [entityId])).rows[0];
  if (!row) return undefined;
  const sealed = await findSealed(db, row.identity_id);
  if (!sealed) return undefined;
  const opened = vault.open<SealedIdentity>(sealed);
  return { merchantIdentifier: row.merchant_identifier, displayName: row.display_name, domains: row.domains, certificate: opened.certificate, privateKey: opened.privateKey };
}

/**
 * A fast checkout's identity (applePaySession.ts): the entity's whose identity has this merchant identifier and the
 * page's domain registered, opened; the first entity by id when several share the identifier (Apple knows only the
 * identifier: any of their certificates validates it). Undefined when none has.
 */
export async function findApplePayIdentityByDomain(
  db: Queryable,
  vault: CardVault,
  merchantIdentifier: string,
  domain: string,
): Promise<{ readonly entityId: string; readonly identity: ApplePayIdentity } | undefined> {
  const found = await db.query<{ entity_id: string }>(
    'SELECT entity_id FROM apple_pay_identities WHERE merchant_identifier = $1 AND $2 = ANY(domains) ORDER BY entity_id LIMIT 1',
    [merchantIdentifier, domain],
  );
  const entityId = found.rows[0]?.entity_id;
  const identity = entityId === undefined ? undefined : await findApplePayIdentity(db, vault, entityId);
  return entityId !== undefined && identity ? { entityId, identity } : undefined;
}
