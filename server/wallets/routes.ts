import { Hono, type Context } from 'hono';
import type { GatewayEnvironment } from '../config.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { isCheckoutId } from '../domain/ids.ts';
import { isJsonObject } from '../domain/json.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { jsonResponse, jsonTextResponse } from '../http/respond.ts';
import { languageOf } from '../../widget/i18n/languages.ts';
import { CONTACT_FIELDS, isWallet, type ContactField } from '../../widget/shared/walletSheet.ts';
import { pageTexts } from '../redirects/texts.ts';
import { sheetPage, type SheetRequest } from './sheet.ts';
import { startApplePaySession, type ApplePaySessionRequest, type ApplePaySessionServices } from './applePaySession.ts';

/**
 * /v1/wallets: what the widget's wallet buttons (APPLEPAY, GOOGLEPAY; widget/app/wallet/) ask of the gateway.
 *
 * - `GET /v1/wallets/config`: the environment (test: the simulated sheet below; live: Google's pay.js and Apple's
 *   ApplePaySession) and the gateway's name in Google Pay's tokenization. The wallet chunk asks it once per page, so a
 *   card-only page's bootstrap carries nothing for wallets.
 * - `GET /v1/wallets/sheet` (test environment only): the simulated wallet sheet (sheet.ts).
 * - `POST /v1/wallets/applepay/session`: Apple Pay's merchant validation for a checkout, or for a fast checkout's page
 *   by its merchant identifier and domain (applePaySession.ts), JSON in, Apple's merchant session out. No
 *   credentials: the checkout id is the capability, as for the shopper's submit.
 */

export interface WalletRouteOptions {
  readonly environment: GatewayEnvironment;
  readonly staticBaseUrl: string;
  /**
   * The gateway's name in Google Pay's tokenizationSpecification (`gateway`, GOOGLE_PAY_GATEWAY), with the entity id as
   * `gatewayMerchantId`.
   */
  readonly googlePayGateway: string;
  /** Apple Pay's merchant validation: the store, the vault holding the entities' identities, how Apple is reached. */
  readonly applePay: ApplePaySessionServices;
}

/** What the widget posts (widget/app/wallet/live.ts). */
const SESSION_FIELDS = ['validationUrl', 'domain', 'checkoutId', 'displayName', 'merchantIdentifier'] as const;

/** The widget's body is five short fields. */
const MAX_SESSION_REQUEST_BYTES = 16 * 1024;

/** The JSON object the widget posts, or a 400 naming the body. */
async function sessionRequestOf(c: Context<AppEnv>): Promise<ApplePaySessionRequest> {
  const bytes = await readBody(c);
  if (bytes.length > MAX_SESSION_REQUEST_BYTES) throw new GatewayError(withReason(RESULTS.invalidParameter, `request body larger than ${MAX_SESSION_REQUEST_BYTES} bytes`), 413);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed)) throw invalidParameters([{ name: 'body', value: '', message: `must be a JSON object: {${SESSION_FIELDS.join(', ')}}` }]);
  // As the admin API's bodies: a field the gateway does not know is named, not ignored (the widget is built with it).
  const unknown = Object.keys(parsed).filter((name) => !(SESSION_FIELDS as readonly string[]).includes(name));
  if (unknown.length > 0) throw invalidParameters(unknown.map((name) => ({ name, value: '', message: `is not a known field (known: ${SESSION_FIELDS.join(', ')})` })));
  return parsed;
}

/** Google Pay's and Apple Pay's network names the sheet can show, as the brand codes of shared/cards.ts. */
const NETWORKS: Readonly<Record<string, string>> = {
  VISA: 'VISA',
  MASTER: 'MASTER',
  MASTERCARD: 'MASTER',
  AMEX: 'AMEX',
};

const listOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toUpperCase())
    .filter((item) => item !== '');

/** The sheet's query, or what is wrong with it. */
function sheetRequestOf(query: (name: string) => string | undefined): SheetRequest | string {
  const brand = query('brand') ?? '';
  if (!isWallet(brand)) return 'brand must be APPLEPAY or GOOGLEPAY';
  const amount = query('amount') ?? '';
  if (!/^[0-9]{1,10}(\.[0-9]{1,3})?$/.test(amount)) return 'amount must be a decimal amount such as 92.00';
  const currency = query('currency') ?? '';
  if (!/^[A-Z]{3}$/.test(currency)) return 'currency must be a three-letter ISO 4217 code';
  const merchant = (query('merchant') ?? '').trim();
  if (merchant.length > 64) return 'merchant must be at most 64 characters';
  return {
    brand,
    amount,
    currency,
    merchant,
    networks: listOf(query('networks')).flatMap((name) => (NETWORKS[name] ? [NETWORKS[name]] : [])),
    authMethods: listOf(query('authMethods')).filter((method) => method === 'PAN_ONLY' || method === 'CRYPTOGRAM_3DS'),
    contact: listOf(query('contact'))
      .map((field) => field.toLowerCase())
      .filter((field): field is ContactField => (CONTACT_FIELDS as readonly string[]).includes(field)),
  };
}

export function walletRoutes(options: WalletRouteOptions): Hono<AppEnv> {
  const router = new Hono<AppEnv>();

  router.get('/config', (c) =>
    jsonResponse(
      c,
      envelope(RESULTS.successfulRequest, c.get('requestId'), { environment: options.environment, googlePay: { gateway: options.googlePayGateway } }),
      200,
      { 'cache-control': 'public, max-age=300' },
    ),
  );

  router.get('/sheet', (c) => {
    const plain = (status: 400 | 404, text: string) =>
      new Response(`${text}\n`, { status, headers: { ...c.get('baseHeaders'), 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
    // A live gateway has no simulated wallet: its buttons open Apple's and Google's own sheets.
    if (options.environment !== 'test') return plain(404, 'not found');
    const request = sheetRequestOf((name) => c.req.query(name));
    if (typeof request === 'string') return plain(400, request);
    const page = sheetPage(pageTexts(languageOf(c.req.query('lang') ?? 'en')), request, options.staticBaseUrl);
    return new Response(page.html, { status: 200, headers: { ...c.get('baseHeaders'), ...page.headers } });
  });

  router.post('/applepay/session', async (c) => {
    const body = { ...(await sessionRequestOf(c)), origin: c.req.header('origin') };
    // Every answer carries the checkout's id as its ndc, as the checkout's own answers do.
    if (typeof body.checkoutId === 'string' && isCheckoutId(body.checkoutId)) c.set('ndc', body.checkoutId);
    const { entityId, session } = await startApplePaySession(options.applePay, body, c.get('log'));
    c.set('entityId', entityId);
    return jsonTextResponse(c, session, 200);
  });
  router.all('/applepay/session', () => {
    throw methodNotAllowed(['POST']);
  });

  return router;
}
