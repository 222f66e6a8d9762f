import { GatewayError, invalidParameters, withReason, type ParameterError } from '../domain/errors.ts';
import { isCheckoutId } from '../domain/ids.ts';
import { isJsonObject } from '../domain/json.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { shownText } from '../domain/sensitive.ts';
import { describeUrl } from '../domain/urls.ts';
import type { Logger } from '../logger.ts';
import { exchangeOutbound, OutboundFailure, RefusedDestination, type OutboundPolicy } from '../outbound/http.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { findCheckout, listAttempts } from '../checkouts/repository.ts';
import { noSession } from '../checkouts/results.ts';
import { refuseUnlessOpen } from '../checkouts/service.ts';
import { checkoutKindOf, checkoutState } from '../checkouts/state.ts';
import type { RequestLimiter } from '../http/access.ts';
import { canonicalHost } from '../outbound/addresses.ts';
import { displayNameOf, findApplePayIdentity, findApplePayIdentityByDomain, MERCHANT_IDENTIFIER, pageDomainOf, type ApplePayIdentity } from './applePayIdentity.ts';

/**
 * Apple Pay's merchant validation for a checkout (issue 35 point 2): when a live Apple Pay sheet opens, Safari gives
 * the page a validationURL of Apple's; the widget (widget/app/wallet/live.ts) posts it here with the page's domain
 * and the checkout id, and the gateway, for the checkout's entity, POSTs
 * `{merchantIdentifier, displayName, initiative: "web", initiativeContext: <the page's domain>}` to that URL over
 * mutual TLS with the entity's Apple Pay Merchant Identity certificate (applePayIdentity.ts), and answers Apple's
 * merchant session object unchanged (the page hands it to completeMerchantValidation; it is opaque and expires in
 * 5 minutes).
 *
 * Guards, in order: the body's fields (the validationUrl must be https on a host of Apple's list — the SSRF guard:
 * nothing a page sends can make the gateway call another host with a merchant's certificate; the domain is the page's
 * origin when the browser names one); the checkout exists and is open (the checkout id is the capability, as for the
 * shopper's submit); the entity has an identity (600.200.201 otherwise); the page's domain is one registered for it.
 *
 * A fast checkout's page (createCheckout, no checkout yet: the sheet opens before the merchant makes one) sends the
 * merchant identifier of its `applePay` options instead of a checkout id: the identity is the entity's that has that
 * identifier with the page's domain registered for it. That is no more than Apple itself grants: a merchant session
 * is only of use to a page on that domain (Safari checks it), and Apple is asked for nothing else. Each such
 * validation counts against the entity's request limits (requestsPerMinute), so a script asking in a loop is
 * throttled like any other caller of the entity. Then the call, through the outbound module
 * (the address checked and pinned, no redirects, a timeout): Apple answering anything but 2xx JSON is 502
 * 900.100.200, no connection 502 900.100.100, no answer in time 504 900.100.400 — each logged without the
 * certificate, key or session.
 *
 * Both environments: in test the widget shows its simulated sheet and never asks, but an operator can check an
 * entity's identity against Apple's sandbox (apple-pay-gateway-cert.apple.com) before going live; the call is the same.
 */

/**
 * The hosts of Apple's merchant validation URLs (Apple's "Setting Up Your Server": production, China region, their
 * pods, and the two sandboxes). Only https, only port 443: a URL's `host` must be one of these exactly.
 */
export const APPLE_PAY_VALIDATION_HOSTS: readonly string[] = [
  'apple-pay-gateway.apple.com',
  ...[1, 2, 3, 4, 5].map((pod) => `apple-pay-gateway-nc-pod${pod}.apple.com`),
  ...[1, 2, 3, 4, 5].map((pod) => `apple-pay-gateway-pr-pod${pod}.apple.com`),
  'cn-apple-pay-gateway.apple.com',
  ...[1, 2, 3].map((pod) => `cn-apple-pay-gateway-sh-pod${pod}.apple.com`),
  ...[1, 2, 3].map((pod) => `cn-apple-pay-gateway-tj-pod${pod}.apple.com`),
  'apple-pay-gateway-cert.apple.com',
  'cn-apple-pay-gateway-cert.apple.com',
];

/** Apple answers within a second or two; the sheet gives the page 30 s to validate, so a slow call leaves time to say so. */
export const APPLE_PAY_TIMEOUT_MS = 10_000;
/** A merchant session is a few kilobytes. */
const MAX_SESSION_BYTES = 64 * 1024;

/** How the gateway reaches Apple: the outbound policy, a timeout, and Apple's hosts. */
export interface ApplePayValidationSettings {
  readonly outbound: OutboundPolicy;
  readonly timeoutMs: number;
  /** Hosts (`URL.host`: a name, with `:port` when not 443) a validationUrl may name: Apple's, unless a test names its own receiver. */
  readonly hosts: readonly string[];
  /** Certificates (PEM) Apple's server chain may end in besides the system's roots: only a test's own CA. */
  readonly trustedCertificates: string | undefined;
}

/** A test's stand-in for Apple (GatewayOptions.applePay): its host, its CA, a short timeout. Never set in production. */
export type ApplePayValidationSeam = Partial<Pick<ApplePayValidationSettings, 'hosts' | 'timeoutMs' | 'trustedCertificates'>>;

/** The production settings, with what a test changes. */
export function applePayValidationSettings(outbound: OutboundPolicy, seam: ApplePayValidationSeam = {}): ApplePayValidationSettings {
  return {
    outbound,
    timeoutMs: seam.timeoutMs ?? APPLE_PAY_TIMEOUT_MS,
    hosts: seam.hosts ?? APPLE_PAY_VALIDATION_HOSTS,
    trustedCertificates: seam.trustedCertificates,
  };
}

export interface ApplePaySessionServices {
  readonly store: Store;
  readonly vault: CardVault;
  readonly now: () => Date;
  readonly settings: ApplePayValidationSettings;
  /** The entities' request limits, counting a fast checkout's validations (no checkout: nothing else bounds them). */
  readonly limits?: RequestLimiter<never>;
}

/** What the widget posts (widget/app/wallet/live.ts). */
export interface ApplePaySessionRequest {
  readonly validationUrl?: unknown;
  readonly domain?: unknown;
  readonly displayName?: unknown;
  readonly merchantIdentifier?: unknown;
  readonly checkoutId?: unknown;
  /** The request's Origin header, when the browser sent one (not a body field). */
  readonly origin?: string | undefined;
}

/** Whom the session is for: a checkout's entity, or (a fast checkout) the entity with the identifier and the domain. */
type SessionFor = { readonly checkoutId: string } | { readonly merchantIdentifier: string };

/** Why a validationUrl is refused, or the URL. */
function validationUrlOf(value: unknown, hosts: readonly string[]): URL | string {
  if (typeof value !== 'string' || value === '') return 'is required: the validationURL of Apple Pay’s onvalidatemerchant event';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL of Apple Pay’s merchant validation';
  if (url.username !== '' || url.password !== '' || !hosts.includes(url.host)) {
    return 'is not on Apple Pay’s merchant validation hosts (apple-pay-gateway.apple.com and the others Apple lists): the gateway calls no other host';
  }
  return url;
}

/** The checks of the body's fields, before anything is read. */
function checkRequest(body: ApplePaySessionRequest, hosts: readonly string[]): { url: URL; domain: string; sessionFor: SessionFor } {
  const errors: ParameterError[] = [];
  const url = validationUrlOf(body.validationUrl, hosts);
  if (typeof url === 'string') errors.push({ name: 'validationUrl', value: typeof body.validationUrl === 'string' ? body.validationUrl : '', message: url });
  const domain = typeof body.domain === 'string' ? pageDomainOf(body.domain) : undefined;
  if (domain === undefined) errors.push({ name: 'domain', value: typeof body.domain === 'string' ? body.domain : '', message: 'must be the page’s host name (location.hostname)' });
  else if (body.origin !== undefined && originHostOf(body.origin) !== domain) {
    errors.push({ name: 'domain', value: domain, message: 'is not the host of the page that asks (its Origin)' });
  }
  const givenId = body.checkoutId === undefined || body.checkoutId === null || body.checkoutId === '' ? undefined : body.checkoutId;
  const checkoutId = typeof givenId === 'string' && isCheckoutId(givenId) ? givenId : undefined;
  if (givenId !== undefined && checkoutId === undefined) {
    errors.push({ name: 'checkoutId', value: typeof givenId === 'string' ? givenId : '', message: 'must be the id of the checkout the sheet pays' });
  }
  if (body.displayName !== undefined && body.displayName !== null && displayNameOf(body.displayName) === undefined) {
    errors.push({ name: 'displayName', value: typeof body.displayName === 'string' ? body.displayName : '', message: 'must be 1 to 64 characters' });
  }
  const merchantIdentifier = typeof body.merchantIdentifier === 'string' && body.merchantIdentifier !== '' ? body.merchantIdentifier : undefined;
  if (body.merchantIdentifier !== undefined && body.merchantIdentifier !== null && typeof body.merchantIdentifier !== 'string') {
    errors.push({ name: 'merchantIdentifier', value: '', message: 'must be a string' });
  } else if (givenId === undefined && (merchantIdentifier === undefined || !MERCHANT_IDENTIFIER.test(merchantIdentifier))) {
    errors.push({
      name: 'merchantIdentifier',
      value: merchantIdentifier ?? '',
      message: 'must be the Apple Pay merchant identifier (applePay.merchantIdentifier) when no checkoutId is given: a fast checkout names its identity',
    });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return { url: url as URL, domain: domain as string, sessionFor: checkoutId !== undefined ? { checkoutId } : { merchantIdentifier: merchantIdentifier as string } };
}

/** The host of an Origin header (`https://shop.example.com`), as pageDomainOf gives the body's domain. */
function originHostOf(origin: string): string | undefined {
  try {
    return canonicalHost(new URL(origin).hostname) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The gateway could not get a session from Apple: 502 (504 for no answer in time), the reason said. */
function appleFailed(result: typeof RESULTS.acquirerUnreachable, reason: string, status: 502 | 504 = 502): GatewayError {
  return new GatewayError(withReason(result, `Apple Pay merchant validation failed: ${reason}`), status);
}

/** The identity of an open checkout's entity, for the page's domain and the identifier the page gave (if any). */
async function identityOfCheckout(
  services: ApplePaySessionServices,
  checkoutId: string,
  domain: string,
  body: ApplePaySessionRequest,
): Promise<{ readonly entityId: string; readonly identity: ApplePayIdentity }> {
  const checkout = await findCheckout(services.store, checkoutId);
  if (!checkout) throw noSession();
  const kind = checkoutKindOf(checkout);
  refuseUnlessOpen(checkoutState(checkout, await listAttempts(services.store, checkoutId), services.now()), kind);
  const { entityId } = checkout;
  const identity = await findApplePayIdentity(services.store, services.vault, entityId);
  if (!identity) {
    throw new GatewayError(withReason(RESULTS.notConfiguredForMethod, 'no Apple Pay merchant identity is configured for this entity (admin API PUT /admin/v1/entities/{entityId}/applePay)'), 400);
  }
  if (!identity.domains.includes(domain)) {
    throw invalidParameters([{ name: 'domain', value: domain, message: `is not a domain registered for the entity’s Apple Pay merchant identifier (${identity.domains.join(', ')})` }]);
  }
  if (typeof body.merchantIdentifier === 'string' && body.merchantIdentifier !== '' && body.merchantIdentifier !== identity.merchantIdentifier) {
    throw invalidParameters([{ name: 'merchantIdentifier', value: body.merchantIdentifier, message: 'is not the entity’s Apple Pay merchant identifier: leave applePay.merchantIdentifier out, or give the configured one' }]);
  }
  return { entityId, identity };
}

/** A fast checkout's identity: the entity's with this identifier and the page's domain, its validation counted. */
async function identityOfFastCheckout(
  services: ApplePaySessionServices,
  merchantIdentifier: string,
  domain: string,
): Promise<{ readonly entityId: string; readonly identity: ApplePayIdentity }> {
  const found = await findApplePayIdentityByDomain(services.store, services.vault, merchantIdentifier, domain);
  if (!found) {
    throw invalidParameters([
      { name: 'merchantIdentifier', value: merchantIdentifier, message: `is no entity’s Apple Pay merchant identifier with the page’s domain (${domain}) registered for it` },
    ]);
  }
  await services.limits?.admit(found.entityId, []);
  return found;
}

/**
 * The merchant session Apple answers for the checkout's entity, as Apple's JSON text (relayed unchanged), with the
 * entity's id for the request's log line.
 */
export async function startApplePaySession(
  services: ApplePaySessionServices,
  body: ApplePaySessionRequest,
  log: Logger,
): Promise<{ readonly entityId: string; readonly session: string }> {
  const { url, domain, sessionFor } = checkRequest(body, services.settings.hosts);
  const { entityId, identity } = 'checkoutId' in sessionFor ? await identityOfCheckout(services, sessionFor.checkoutId, domain, body) : await identityOfFastCheckout(services, sessionFor.merchantIdentifier, domain);
  const checkoutId = 'checkoutId' in sessionFor ? sessionFor.checkoutId : undefined;
  const request = {
    merchantIdentifier: identity.merchantIdentifier,
    displayName: displayNameOf(body.displayName) ?? identity.displayName ?? domain,
    initiative: 'web',
    initiativeContext: domain,
  };
  const { settings } = services;
  const where = { entityId, checkoutId, validationUrl: describeUrl(url), merchantIdentifier: identity.merchantIdentifier, domain };
  let answer;
  try {
    answer = await exchangeOutbound(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(request),
        timeoutMs: settings.timeoutMs,
        maxResponseBytes: MAX_SESSION_BYTES,
        clientCertificate: { certificate: identity.certificate, privateKey: identity.privateKey },
        ...(settings.trustedCertificates ? { trustedCertificates: settings.trustedCertificates } : {}),
      },
      settings.outbound,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log.warn('Apple Pay merchant validation: Apple not reached', { ...where, reason });
    if (error instanceof RefusedDestination) throw appleFailed(RESULTS.acquirerUnreachable, 'Apple’s host resolved to an address outbound calls may not reach');
    if (error instanceof OutboundFailure && error.timedOut) throw appleFailed(RESULTS.connectorTimeout, `Apple did not answer within ${settings.timeoutMs} ms`, 504);
    throw appleFailed(RESULTS.acquirerUnreachable, 'Apple could not be reached');
  }
  let session: unknown;
  try {
    session = JSON.parse(answer.body);
  } catch {
    session = undefined;
  }
  if (answer.status < 200 || answer.status > 299 || !isJsonObject(session)) {
    // Apple's refusal says why (`merchantId=… not registered for domain=…`): neither secret nor the shopper's.
    const message = isJsonObject(session) && typeof session.statusMessage === 'string' ? shownText(session.statusMessage, 300) : undefined;
    log.warn('Apple Pay merchant validation: Apple refused', { ...where, status: answer.status, ...(message ? { appleMessage: message } : {}) });
    throw appleFailed(RESULTS.connectorErrorResponse, `Apple answered HTTP ${answer.status}${answer.status >= 200 && answer.status <= 299 ? ' without a merchant session' : ''}${message ? `: ${message}` : ''}`);
  }
  log.info('Apple Pay merchant session', where);
  return { entityId, session: answer.body };
}
