import { readFileSync, writeFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import {
  BROWSER_DATA,
  CIT_INITIAL,
  cardPayment,
  connectorTo,
  createTestClock,
  liveApp,
  MIT_REPEATED,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { startNodeReceiver, type NodeReceiver } from '../testing/webhookReceivers.ts';
import { checkoutResponseOf, srcTestKeys } from '../testing/srcNetwork.ts';
import { testAuthority } from '../testing/certificates.ts';
import type { AppEnv } from '../http/context.ts';
import { notificationRequest } from '../webhooks/crypto.ts';
import { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import { openApiPath } from './document.ts';
import { EXAMPLES_FILE, type Examples, type Exchange } from './examples.ts';

/**
 * The answers the gateway really gives, held to the document that describes them (issue 34 §3). Every documented
 * operation is called on a real gateway — payments of every family, checkouts, registrations, schedules, queries,
 * reports, the admin API, the pages — and every answer is validated against the schema the document names for its
 * operation, status and content type, with every object schema closed (`additionalProperties: false`) unless it says
 * otherwise: a field an answer gains without its schema fails here. The exchanges named as examples are the
 * document's examples (examples.json, the reference page shows them): the fixture must hold what the gateway answers
 * today, or this test fails; `UPDATE_OPENAPI_EXAMPLES=1 npx vitest run server/openapi/answers.test.ts` writes it anew.
 */

warnIfPostgresSkipped('the answers test of the OpenAPI document');

const ADMIN_TOKEN = 'admin-token-of-the-answers-test-0123456789';
const METRICS_TOKEN = 'metrics-token-of-the-answers-test-0123456789';
const WEBHOOK_SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const NOTIFICATION_KEY = 'A0A1A2A3A4A5A6A7A8A9AAABACADAEAF000102030405060708090A0B0C0D0E0F';
const DAY = '2026-11-20';
const UPDATE = process.env.UPDATE_OPENAPI_EXAMPLES === '1';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Request {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly form?: Record<string, string>;
  readonly json?: unknown;
}

interface Recorded {
  readonly key: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: Json;
  readonly request: Request;
  readonly example?: { readonly name: string; readonly summary: string };
}

/**
 * Documented operations no call below makes, each with its reason. Everything else is called at least once and its
 * every answer checked.
 */
const NOT_CALLED: Readonly<Record<string, string>> = {};

/** Ajv for OpenAPI 3.1's dialect, strict about keywords, with the formats the document uses. */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false });
  addFormats(ajv);
  ajv.addKeyword('x-parameter');
  return ajv;
}

const COMPOSED = ['allOf', 'anyOf', 'oneOf', '$ref', 'additionalProperties', 'patternProperties', 'unevaluatedProperties'];

/** Whether a schema is an object schema that says nothing of other properties. */
function isOpenObject(schema: Json): boolean {
  return (schema.type === 'object' || schema.properties !== undefined) && !COMPOSED.some((keyword) => keyword in schema);
}

/** The schema with `additionalProperties: false` on every object schema that says nothing of other properties. */
function closed(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Json = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties' || key === '$defs' ? Object.fromEntries(Object.entries(value as object).map(([name, property]) => [name, closed(property)])) : closed(value)]));
  return isOpenObject(schema) ? { ...copy, additionalProperties: false } : copy;
}

/** The components the document's answers use, directly or through others. */
function answerComponents(document: Json): Set<string> {
  const found = new Set<string>();
  const collect = (schema: Json) => {
    for (const [, name] of JSON.stringify(schema ?? {}).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (name !== undefined && !found.has(name)) {
        found.add(name);
        collect(document.components.schemas[name]);
      }
    }
  };
  for (const methods of Object.values(document.paths as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(methods)) {
      for (const response of Object.values(operation.responses) as Json[]) for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) collect(media.schema);
    }
  }
  return found;
}

/** The paths (`customer.email`, `cart.items[].name`) of a JSON value, for comparing the shape of two answers. */
function shapeOf(value: Json, at = '', into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    into.add(`${at}[]`);
    for (const item of value) shapeOf(item, `${at}[]`, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) shapeOf(child, at === '' ? key : `${at}.${key}`, into);
  } else {
    into.add(`${at}:${value === null ? 'null' : typeof value}`);
  }
  return into;
}

/**
 * The exchange as the document shows it: ids, secrets and the gateway's address replaced by stable stand-ins (each
 * id by the same one wherever it appears), so the fixture changes only when an answer does.
 */
function normalizer(publicUrl: string): (value: Json, key?: string) => Json {
  const ids = new Map<string, string>();
  const standIn = (original: string, make: (count: number) => string) => {
    let made = ids.get(original);
    if (made === undefined) {
      made = make(ids.size + 1);
      ids.set(original, made);
    }
    return made;
  };
  const hex = (count: number) => `${count.toString(16).padStart(4, '0')}`.repeat(8);
  const FIXED: Readonly<Record<string, string>> = {
    buildNumber: '0123456789abcdef0123456789abcdef01234567@2026-11-20 08:00:00 +0000',
    accessToken: 'OGFjN2E0Yzc5Mzk0YmRjODAxOTM5NzM2ZjFhNzA2NDF8ZXhhbXBsZQ==',
    password: 'example-password-shown-once',
    verificationId: 'AAACBQVHgAAAAAAAAAAAAAAAAAA=',
    xid: 'CAACCVVUlwCXUyhQNlSXAAAAAAA=',
    // An Apple Pay merchant identity: the test makes a new one each run.
    certificate: '-----BEGIN CERTIFICATE-----\n(the Apple Pay Merchant Identity certificate)\n-----END CERTIFICATE-----\n',
    privateKey: '-----BEGIN PRIVATE KEY-----\n(its private key, unencrypted)\n-----END PRIVATE KEY-----\n',
    expiresAt: '2028-11-20T09:00:00.000Z',
  };
  const normalize = (value: Json, key?: string): Json => {
    if (Array.isArray(value)) return value.map((item) => normalize(item));
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, normalize(child, name)]));
    if (typeof value !== 'string') return value;
    if (key !== undefined && FIXED[key] !== undefined) return FIXED[key];
    return value
      .replaceAll(publicUrl, 'http://localhost:8080')
      .replace(/http:\/\/127\.0\.0\.1:[0-9]+/g, 'https://shop.example')
      .replace(/[0-9a-f]{32}/g, (id) => standIn(id, hex))
      .replace(/[0-9A-F]{32}(?=\.)/g, (id) => standIn(id, (count) => hex(count).toUpperCase()))
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => standIn(id, (count) => `00000000-0000-4000-8000-${String(count).padStart(12, '0')}`));
  };
  return normalize;
}

describe.each(STORE_KINDS)('the answers of every documented operation on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let receiver: NodeReceiver;
  let document: Json;
  let ajv: Ajv2020;
  const recorded: Recorded[] = [];
  const COMPONENTS_ID = 'https://gateway.example/components.json';
  const inDefs = (text: string) => text.replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`);

  /** The app's answer to a request, recorded under the operation `key` it is an answer of, as an example if named. */
  async function call(
    key: string,
    path: string,
    init: { form?: Record<string, string>; json?: unknown; token?: string | null; query?: Record<string, string>; method?: string; headers?: Record<string, string>; body?: string; app?: Hono<AppEnv> } = {},
    example?: [name: string, summary: string],
  ): Promise<Recorded> {
    const method = init.method ?? (key.split(' ')[0] as string);
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? (key.includes(' /admin/') ? ADMIN_TOKEN : t.token) : init.token;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=UTF-8';
    } else if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['Content-Type'] = 'application/json';
    }
    const query = init.query ? `?${new URLSearchParams(init.query)}` : '';
    const response = await (init.app ?? t.gateway.app).request(`${path}${query}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0] as string;
    const text = await response.text();
    const request: Request = { method, path, ...(init.query ? { query: init.query } : {}), ...(init.form ? { form: init.form } : {}), ...(init.json !== undefined ? { json: init.json } : {}) };
    const answer: Recorded = {
      key,
      status: response.status,
      contentType,
      body: contentType === 'application/json' ? (JSON.parse(text) as Json) : text,
      request,
      ...(example ? { example: { name: example[0], summary: example[1] } } : {}),
    };
    recorded.push(answer);
    return answer;
  }

  function operationOf(key: string): Json {
    const [method = '', path = ''] = key.split(' ');
    return document.paths[openApiPath(path)]?.[method.toLowerCase()];
  }

  /** The closed validator of the answer schema the document gives for an operation's status and content type. */
  function answerValidator(key: string, status: number, contentType: string): ValidateFunction | undefined {
    // An answer documented without a body (204) has none.
    const documented = operationOf(key)?.responses?.[String(status)];
    if (documented !== undefined && documented.content === undefined && contentType === '') return undefined;
    const media = operationOf(key)?.responses?.[String(status)]?.content?.[contentType];
    if (media === undefined) throw new Error(`${key} → ${status} ${contentType} is not documented`);
    if (media.schema === undefined || media.schema.type === 'string') return undefined;
    return ajv.compile(JSON.parse(inDefs(JSON.stringify(closed(media.schema)))));
  }

  beforeAll(async () => {
    clock = createTestClock(new Date(`${DAY}T09:00:00.000Z`));
    // No request limits: the test reads a payment more than twice a minute.
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    const metrics = { ...loadConfig({}).metrics, token: METRICS_TOKEN };
    t = await startTestGateway(
      kind,
      {
        adminToken: ADMIN_TOKEN,
        metrics,
        limits,
        // A connector (to nowhere: nothing is paid through it) for its credentials and its provider's notifications.
        acquirers: ['simulator', 'hyperpay'],
        defaultAcquirer: 'simulator',
        connectors: { hyperpay: connectorTo('http://127.0.0.1:9', { notificationKey: NOTIFICATION_KEY }) },
        // The operator settles what waits for the provider's word.
        simulatedSettlementMinutes: 0,
      },
      { now: clock.now },
    );
    receiver = await startNodeReceiver(WEBHOOK_SECRET);
    document = (await call('GET /v1/openapi.json', '/v1/openapi.json', { token: null })).body;
    ajv = newAjv();
    // The answers' schemas closed; the requests' stay open (the gateway ignores parameters it does not know).
    const schemas = document.components.schemas as Record<string, Json>;
    const answers = answerComponents(document);
    ajv.addSchema({ $id: COMPONENTS_ID, $defs: JSON.parse(inDefs(JSON.stringify(Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, answers.has(name) ? closed(schema) : schema]))))) });
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('answers every documented operation: payments of every family, checkouts, registrations, schedules, queries, reports, the admin API', async () => {
    const entity = t.entityId;
    const webhook = await call('POST /admin/v1/webhooks', '/admin/v1/webhooks', { json: { entityId: entity, url: receiver.url, secret: WEBHOOK_SECRET, types: ['PAYMENT', 'REGISTRATION'] } }, ['created', 'A webhook, activated: its secret this once, and the activation’s answer']);
    expect(webhook.status).toBe(201);

    // Payments: a card with what a shop sends about the shopper, approved; refused; declined.
    const debit = await call('POST /v1/payments', '/v1/payments', {
      form: cardPayment(entity, {
        merchantTransactionId: 'order-4711',
        merchantInvoiceId: 'invoice-4711',
        'customer.givenName': 'Jane',
        'customer.surname': 'Jones',
        'customer.email': 'jane.jones@example.com',
        'customer.ip': '192.0.2.10',
        'billing.street1': 'Main Street 1',
        'billing.city': 'Berlin',
        'billing.postcode': '10115',
        'billing.country': 'DE',
        'shipping.street1': 'Main Street 1',
        'shipping.city': 'Berlin',
        'shipping.postcode': '10115',
        'shipping.country': 'DE',
        'cart.items[0].name': 'Tea',
        'cart.items[0].quantity': '2',
        'cart.items[0].price': '46.00',
        'customParameters[SHOPPER_orderNote]': 'gift wrap',
        'risk.channelId': 'web',
      }),
    }, ['card', 'A card payment (DB) with the shopper’s data, approved: the request’s structures echoed']);
    expect(debit.status).toBe(200);
    const refused = await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { amount: '1,00', 'card.number': '4200000000000001' }) }, ['refused', 'A request refused: each bad parameter named (card numbers masked)']);
    expect(refused.body.result.parameterErrors.length).toBeGreaterThan(0);
    expect((await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { 'card.holder': '800.100.203' }) }, ['declined', 'A card payment declined (the simulator answers the code the holder names)'])).status).toBe(400);

    // 3-D Secure: pending with where to send the shopper, the challenge page, the shopper's answer, then authenticated.
    const challenged = await call('POST /v1/payments', '/v1/payments', {
      form: cardPayment(entity, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', merchantTransactionId: 'order-4712', ...BROWSER_DATA }),
    }, ['threeDSecure', 'A card the issuer challenges: pending (000.200.000) with the page to send the shopper to']);
    expect(challenged.body.redirect).toBeDefined();
    const redirectPath = new URL(challenged.body.redirect.url as string).pathname;
    await call('GET /v1/redirects/:id', redirectPath, { token: null, query: { paymentId: challenged.body.id } }, ['challenge', 'The simulated issuer’s challenge page']);
    await call('POST /v1/redirects/:id', redirectPath, { token: null, form: { paymentId: challenged.body.id } }, ['challenge', 'The same page, with redirect.parameters posted']);
    await call('POST /v1/redirects/:id/answer', `${redirectPath}/answer`, { token: null, form: { paymentId: challenged.body.id, action: 'submit', otp: '1234' } }, ['submit', 'The shopper’s code submitted']);
    const authenticated = await call('GET /v1/payments/:id', `/v1/payments/${challenged.body.id}`, { query: { entityId: entity } }, ['authenticated', 'The challenged payment once the shopper authenticated: threeDSecure with its eci']);
    expect(authenticated.body.threeDSecure.eci).toEqual(expect.any(String));

    // Back office: PA, capture, refund, reversal; chargeback and its reversal; PA.CP.
    const preauthorization = await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { paymentType: 'PA', merchantTransactionId: 'order-4713' }) }, ['preauthorization', 'A preauthorization (PA)']);
    await call('POST /v1/payments/:id', `/v1/payments/${preauthorization.body.id}`, { form: { entityId: entity, paymentType: 'CP', amount: '50.00', currency: 'EUR' } }, ['capture', 'A capture (CP) of part of a preauthorization']);
    await call('POST /v1/payments/:id', `/v1/payments/${debit.body.id}`, { form: { entityId: entity, paymentType: 'RF', amount: '10.00', currency: 'EUR' } }, ['refund', 'A refund (RF) of part of a debit']);
    const reversed = await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { paymentType: 'PA' }) });
    await call('POST /v1/payments/:id', `/v1/payments/${reversed.body.id}`, { form: { entityId: entity, paymentType: 'RV' } }, ['reversal', 'A reversal (RV): the whole preauthorization']);
    const chargeback = await call('POST /v1/payments/:id', `/v1/payments/${debit.body.id}`, { form: { entityId: entity, paymentType: 'CB', amount: '20.00', currency: 'EUR' } }, ['chargeback', 'A chargeback (CB), in test']);
    await call('POST /v1/payments/:id', `/v1/payments/${chargeback.body.id}`, { form: { entityId: entity, paymentType: 'CR', amount: '20.00', currency: 'EUR' } });
    expect((await call('POST /v1/payments/:id', `/v1/payments/${reversed.body.id}`, { form: { entityId: entity, paymentType: 'CP', amount: '5.00', currency: 'EUR' } }, ['notAllowed', 'A capture of a reversed preauthorization: refused'])).status).toBe(400);
    await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { paymentType: 'PA.CP' }) });
    await call('GET /v1/payments/:id', `/v1/payments/${debit.body.id}`, { query: { entityId: entity } }, ['read', 'A payment read']);
    expect((await call('GET /v1/payments/:id', '/v1/payments/0123456789abcdef0123456789abcdef', { query: { entityId: entity } }, ['unknown', 'No such payment'])).status).toBe(404);

    // Card on file: the initial payment stores the card; a merchant-initiated one follows on the registration.
    const initial = await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity, { ...CIT_INITIAL, createRegistration: 'true' }) }, ['cardOnFile', 'A subscription’s first payment (CIT, INITIAL) storing the card: registrationId and the scheme’s reference']);
    expect(initial.body.registrationId).toEqual(expect.any(String));
    await call('POST /v1/registrations/:id/payments', `/v1/registrations/${initial.body.registrationId}/payments`, { form: { entityId: entity, paymentType: 'DB', amount: '9.99', currency: 'EUR', ...MIT_REPEATED } }, ['repeated', 'A later, merchant-initiated payment of the subscription']);

    // Asynchronous brands: a provider page (PayPal), an online transfer (Sofort), a prepayment waiting for the money.
    const paypal = await call('POST /v1/payments', '/v1/payments', { form: { entityId: entity, amount: '30.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PAYPAL', shopperResultUrl: 'https://shop.example/return' } }, ['paypal', 'PayPal: pending, with the provider’s page to send the shopper to']);
    const providerPage = new URL(paypal.body.redirect.url as string).pathname;
    await call('POST /v1/redirects/:id/answer', `${providerPage}/answer`, { token: null, form: { paymentId: paypal.body.id, action: 'submit' } });
    await call('GET /v1/payments/:id', `/v1/payments/${paypal.body.id}`, { query: { entityId: entity } });
    await call('POST /v1/payments', '/v1/payments', {
      form: { entityId: entity, amount: '30.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'SOFORTUEBERWEISUNG', 'bankAccount.country': 'DE', shopperResultUrl: 'https://shop.example/return' },
    }, ['onlineTransfer', 'Sofort: pending, with the bank’s page']);
    const prepayment = await call('POST /v1/payments', '/v1/payments', { form: { entityId: entity, amount: '30.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PREPAYMENT', shopperResultUrl: 'https://shop.example/return' } }, ['prepayment', 'A prepayment: pending, with the account to transfer to in resultDetails']);
    await call('POST /admin/v1/payments/:paymentId/settlement', `/admin/v1/payments/${prepayment.body.id}/settlement`, { json: { outcome: 'approved' } }, ['approved', 'The transfer arrived']);
    expect((await call('POST /admin/v1/payments/:paymentId/settlement', `/admin/v1/payments/${prepayment.body.id}/settlement`, { json: { outcome: 'approved' } })).status).toBe(409);

    // Other instruments: SEPA direct debit (registered), a network token, Google Pay, MB WAY.
    const sepa = { paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.country': 'DE' };
    await call('POST /v1/payments', '/v1/payments', { form: { entityId: entity, amount: '15.00', currency: 'EUR', paymentType: 'DB', ...sepa, createRegistration: 'true' } }, ['sepa', 'A SEPA direct debit, its account registered']);
    await call('POST /v1/payments', '/v1/payments', {
      form: { entityId: entity, amount: '15.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'VISA', 'tokenAccount.type': 'NETWORK', 'tokenAccount.number': '4200000000000000', 'tokenAccount.expiryMonth': '05', 'tokenAccount.expiryYear': '2034', 'tokenAccount.cryptogram': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
    }, ['networkToken', 'A network token with its cryptogram']);
    await call('POST /v1/payments', '/v1/payments', { form: { entityId: entity, amount: '15.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'GOOGLEPAY', 'googlePay.paymentToken': '{"paymentMethod":{"network":"MASTERCARD"}}' } }, ['googlePay', 'Google Pay: the card the token stands for']);
    await call('POST /v1/payments', '/v1/payments', { form: { entityId: entity, amount: '15.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'MBWAY', 'virtualAccount.accountId': '351#911234567' } }, ['mbway', 'MB WAY']);

    // A live gateway's payments go through a connector to a provider speaking this API (here the test gateway itself):
    // what the provider answers, its 3-D Secure outcome and its page for a challenge, comes back in the same shape.
    const live = await liveApp(t, clock.now);
    const throughConnector = await call('POST /v1/payments', '/v1/payments', { app: live, form: cardPayment(entity, { 'card.number': '4200000000000091', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA }) });
    expect(throughConnector.body.threeDSecure?.eci, JSON.stringify(throughConnector.body)).toEqual(expect.any(String));
    const challengedThroughConnector = await call('POST /v1/payments', '/v1/payments', { app: live, form: cardPayment(entity, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA }) });
    expect(challengedThroughConnector.body.redirect, JSON.stringify(challengedThroughConnector.body)).toBeDefined();
    await call('GET /v1/payments/:id', `/v1/payments/${throughConnector.body.id}`, { app: live, query: { entityId: entity } });

    // Errors every merchant operation may answer.
    expect((await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity), token: null }, ['noCredentials', 'No Authorization header'])).status).toBe(401);
    expect((await call('POST /v1/payments', '/v1/payments', { form: cardPayment(entity), token: 'not-a-token' }, ['unknownToken', 'A token the gateway does not know'])).status).toBe(403);
    expect((await call('POST /v1/payments', '/v1/payments', { method: 'PUT' })).status).toBe(405);
    expect((await call('POST /v1/payments', '/v1/payments', { body: `entityId=${entity}&x=${'a'.repeat(2 * 1024 * 1024 + 1)}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(413);

    // Checkouts: created, read while open, paid by the shopper (3-D Secure too), read, updated, deleted; a registration-only one.
    const checkout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'DB', integrity: 'true', 'customer.givenName': 'Jane', 'customer.surname': 'Jones', 'customer.email': 'jane.jones@example.com' } }, ['created', 'A checkout for a debit, with the widget’s SRI hash']);
    await call('GET /v1/checkouts/:id/payment', `/v1/checkouts/${checkout.body.id}/payment`, { query: { entityId: entity } }, ['open', 'While the shopper has not paid']);
    await call('GET /v1/paymentWidgets.js', '/v1/paymentWidgets.js', { query: { checkoutId: checkout.body.id }, token: null }, ['script', 'The widget for the checkout']);
    await call('GET /v1/bins/:bin', '/v1/bins/44640400', { token: null }, ['coBadged', 'A mada BIN, issued on Visa']);
    await call('GET /v1/bins/:bin', '/v1/bins/4200', { token: null });
    // The widget's report of the options its page set (the integration report), and the report itself.
    const reported = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '3.00', currency: 'EUR', paymentType: 'DB' } });
    expect((await call('POST /v1/checkouts/:id/widgetReport', `/v1/checkouts/${reported.body.id}/widgetReport`, { token: null, json: ['style', 'locale', 'onReady'] }, ['options', 'The names of the options the page set'])).status).toBe(204);
    expect((await call('POST /v1/checkouts/:id/widgetReport', `/v1/checkouts/${reported.body.id}/widgetReport`, { token: null, json: { style: 'card' } })).status).toBe(400);
    expect((await call('GET /admin/v1/entities/:entityId/integrationReport', `/admin/v1/entities/${entity}/integrationReport`, {}, ['report', 'What the integration leans on that a live provider may refuse, what it never tested'])).status).toBe(200);
    await call('POST /v1/checkouts/:id/payment', `/v1/checkouts/${checkout.body.id}/payment`, { form: testCard(), token: null }, ['card', 'The shopper’s card, as the widget posts it']);
    await call('GET /v1/checkouts/:id/payment', `/v1/checkouts/${checkout.body.id}/payment`, { query: { entityId: entity } }, ['paid', 'The checkout’s payment']);
    const challengedCheckout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'DB', shopperResultUrl: 'https://shop.example/return' } });
    await call('POST /v1/checkouts/:id/payment', `/v1/checkouts/${challengedCheckout.body.id}/payment`, { form: { ...testCard({ 'card.number': '4200000000000042' }), ...BROWSER_DATA }, token: null }, ['threeDSecure', 'A card the issuer challenges: the page to send the shopper to']);
    // Click to Pay with the simulated SRC system: the e-mail, the code, the chosen card, paid by the submit.
    const clickToPayCheckout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'DB' } });
    const clickToPay = `/v1/checkouts/${clickToPayCheckout.body.id}/clickToPay`;
    await call('POST /v1/checkouts/:id/clickToPay/lookup', `${clickToPay}/lookup`, { form: { email: 'someone@example.com' }, token: null }, ['notEnrolled', 'An e-mail without a Click to Pay profile']);
    const lookup = await call('POST /v1/checkouts/:id/clickToPay/lookup', `${clickToPay}/lookup`, { form: { email: 'jane.jones@example.com' }, token: null }, ['otpSent', 'A test profile: the code sent to its masked e-mail']);
    const sessionId = lookup.body.clickToPay.sessionId as string;
    await call('POST /v1/checkouts/:id/clickToPay/validation', `${clickToPay}/validation`, { form: { sessionId, otp: '000000' }, token: null }, ['otpInvalid', 'A wrong code']);
    await call('POST /v1/checkouts/:id/clickToPay/validation', `${clickToPay}/validation`, { form: { sessionId, otp: '123456' }, token: null }, ['validated', 'The code: the card list']);
    const chosen = await call('POST /v1/checkouts/:id/clickToPay/checkout', `${clickToPay}/checkout`, { form: { sessionId, cardId: 'src-jane-visa' }, token: null }, ['chosen', 'The chosen card’s correlation id']);
    await call('POST /v1/checkouts/:id/clickToPay/checkout', `${clickToPay}/checkout`, { form: { sessionId, cardId: 'src-max-amex' }, token: null });
    await call('POST /v1/checkouts/:id/payment', `/v1/checkouts/${clickToPayCheckout.body.id}/payment`, { form: { paymentBrand: 'CLICK_TO_PAY', 'clickToPay.correlationId': chosen.body.clickToPay.correlationId }, token: null }, ['clickToPay', 'The card chosen with Click to Pay']);
    const other = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'PA' } });
    await call('POST /v1/checkouts/:id', `/v1/checkouts/${other.body.id}`, { form: { entityId: entity, amount: '12.00' } }, ['updated', 'The amount changed']);
    await call('DELETE /v1/checkouts/:id', `/v1/checkouts/${other.body.id}`, { query: { entityId: entity } }, ['deleted', 'Deleted']);
    const registrationCheckout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, createRegistration: 'true' } }, ['registrationOnly', 'A registration-only checkout: the shopper stores a card']);
    await call('POST /v1/checkouts/:id/registration', `/v1/checkouts/${registrationCheckout.body.id}/registration`, { form: testCard(), token: null }, ['card', 'The shopper’s card']);
    await call('GET /v1/checkouts/:id/registration', `/v1/checkouts/${registrationCheckout.body.id}/registration`, { query: { entityId: entity } }, ['registered', 'The checkout’s registration']);

    // Registrations: a card and a SEPA account stored, read, changed, extended, paid with; a schedule on one; deleted.
    const registration = await call('POST /v1/registrations', '/v1/registrations', { form: { entityId: entity, ...testCard(), 'customer.givenName': 'Jane', 'customer.surname': 'Jones', 'customer.email': 'jane.jones@example.com', 'customParameters[SHOPPER_customer]': '4711' } }, ['card', 'A card stored']);
    const registrationId = registration.body.id as string;
    await call('POST /v1/registrations', '/v1/registrations', { form: { entityId: entity, ...sepa, 'bankAccount.mandate.id': 'MANDATE-JONES', 'bankAccount.mandate.dateOfSignature': '2026-11-19' } }, ['sepa', 'A SEPA account stored with its mandate']);
    expect((await call('POST /v1/registrations', '/v1/registrations', { form: { entityId: entity, ...testCard({ 'card.number': '4200000000000001' }) } }, ['invalidCard', 'A card number that fails its check: the answer still has the id and the card'])).status).toBe(400);
    await call('GET /v1/registrations/:id', `/v1/registrations/${registrationId}`, { query: { entityId: entity } }, ['read', 'A registration read']);
    await call('POST /v1/registrations/:id', `/v1/registrations/${registrationId}`, { form: { entityId: entity, 'card.holder': 'Jane Q. Jones', 'card.expiryYear': '2035' } }, ['reissued', 'A reissued card’s holder and expiry']);
    await call('POST /v1/registrations/:id/extendlife', `/v1/registrations/${registrationId}/extendlife`, { form: { entityId: entity } }, ['extended', 'The expiry clock started again (TE)']);
    await call('POST /v1/registrations/:id/payments', `/v1/registrations/${registrationId}/payments`, { form: { entityId: entity, paymentType: 'DB', amount: '5.00', currency: 'EUR' } }, ['debit', 'A debit of the stored card']);
    const schedule = await call('POST /scheduling/v1/schedules', '/scheduling/v1/schedules', {
      form: { entityId: entity, registrationId, amount: '5.00', currency: 'EUR', paymentType: 'DB', 'job.second': '0', 'job.minute': '0', 'job.hour': '9', 'job.dayOfMonth': '1', 'job.month': '*', 'job.dayOfWeek': '?', 'standingInstruction.type': 'RECURRING', merchantTransactionId: 'subscription-4711', 'customParameters[SHOPPER_plan]': 'monthly' },
    }, ['monthly', 'On the first of every month at 09:00 UTC']);
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(200);
    await call('GET /scheduling/v1/schedules/:id', `/scheduling/v1/schedules/${schedule.body.id}`, { query: { entityId: entity } }, ['read', 'A schedule read']);

    // Query: a payment by id, with its linked transactions; a schedule's SD, a registration's RG; lists.
    await call('GET /v1/query/:id', `/v1/query/${preauthorization.body.id}`, { query: { entityId: entity } }, ['payment', 'A payment as it was made']);
    await call('GET /v3/query/:id', `/v3/query/${preauthorization.body.id}`, { query: { entityId: entity, includeLinkedTransactions: 'true' } }, ['linked', 'A preauthorization with its capture']);
    await call('GET /v1/query/:id', `/v1/query/${schedule.body.id}`, { query: { entityId: entity } }, ['schedule', 'A schedule’s creation (SD)']);
    await call('GET /v3/query/:id', `/v3/query/${registrationId}`, { query: { entityId: entity } }, ['registration', 'A registration (RG)']);
    await call('DELETE /scheduling/v1/schedules/:id', `/scheduling/v1/schedules/${schedule.body.id}`, { query: { entityId: entity } }, ['cancelled', 'Cancelled (DS)']);
    await call('GET /v1/query/:id', `/v1/query/${schedule.body.id}`, { query: { entityId: entity, includeLinkedTransactions: 'true' } });
    await call('DELETE /v1/registrations/:id', `/v1/registrations/${registrationId}`, { query: { entityId: entity } }, ['deleted', 'The deregistration (DR)']);
    expect((await call('GET /v1/registrations/:id', `/v1/registrations/${registrationId}`, { query: { entityId: entity } }, ['gone', 'A deleted registration'])).status).toBe(400);
    await call('GET /v3/query/:id', `/v3/query/${registrationId}`, { query: { entityId: entity, includeLinkedTransactions: 'true' } });
    await call('GET /v1/query', '/v1/query', { query: { entityId: entity, merchantTransactionId: 'order-4711' } }, ['byReference', 'The transactions of an order']);
    clock.advance(2_000);
    await call('GET /v3/query', '/v3/query', { query: { entityId: entity, 'date.from': `${DAY} 00:00:00`, 'date.to': `${DAY} 23:59:59`, paymentTypes: 'DB,CP', limit: '100' } }, ['byDay', 'A day’s debits and captures']);
    expect((await call('GET /v1/query', '/v1/query', { query: { entityId: entity, merchantTransactionId: 'order-none' } }, ['nothing', 'Nothing found'])).status).toBe(400);

    // Webhooks: what the payments above were notified as, a delivery sent again; changed, tested, removed.
    await t.gateway.jobs.runDueJobs();
    const webhookId = webhook.body.webhook.id as string;
    await call('GET /admin/v1/webhooks', '/admin/v1/webhooks', { query: { entityId: entity } }, ['list', 'An entity’s webhooks']);
    await call('GET /admin/v1/webhooks/:id', `/admin/v1/webhooks/${webhookId}`, {}, ['read', 'A webhook']);
    const deliveries = await call('GET /admin/v1/webhooks/:id/deliveries', `/admin/v1/webhooks/${webhookId}/deliveries`, { query: { limit: '2' } }, ['log', 'The last two deliveries']);
    await call('POST /admin/v1/webhooks/deliveries/:deliveryId/resend', `/admin/v1/webhooks/deliveries/${deliveries.body.deliveries[0].id}/resend`, {}, ['resend', 'Sent again']);
    await call('PATCH /admin/v1/webhooks/:id', `/admin/v1/webhooks/${webhookId}`, { json: { types: ['PAYMENT'], fields: 'NON_CUSTOMER_DATA' } }, ['changed', 'Only payments, without the shopper’s data']);
    await call('POST /admin/v1/webhooks/:id/test', `/admin/v1/webhooks/${webhookId}/test`, {}, ['test', 'The activation message sent again']);
    await call('DELETE /admin/v1/webhooks/:id', `/admin/v1/webhooks/${webhookId}`, {}, ['removed', 'Removed']);
    expect((await call('GET /admin/v1/webhooks/:id', `/admin/v1/webhooks/${webhookId}`)).status).toBe(404);
    expect((await call('GET /admin/v1/webhooks', '/admin/v1/webhooks', { token: null })).status).toBe(401);
    expect((await call('GET /admin/v1/webhooks', '/admin/v1/webhooks', { token: 'not-the-admin-token' })).status).toBe(403);
    expect((await call('POST /admin/v1/webhooks', '/admin/v1/webhooks', { json: { entityId: entity, url: 'ftp://x' } }, ['refused', 'A bad field named'])).status).toBe(400);

    // Settlement: the day's run, the settlements, the reports under each spelling of their paths.
    clock.advance(24 * 3_600_000);
    await call('POST /admin/v1/settlements/runs', '/admin/v1/settlements/runs', { json: { date: DAY } }, ['run', 'The simulated acquirers settle a day']);
    await call('GET /admin/v1/settlements', '/admin/v1/settlements', { query: { date: DAY } }, ['day', 'A day’s settlements']);
    let aggregationId = '';
    for (const collection of ['reconciliations/aggregations', 'reconiliations/aggregrations', 'reconciliations/aggregrations']) {
      const named = collection === 'reconciliations/aggregations';
      const summary = await call(`GET /reports/v1/${collection}`, `/reports/v1/${collection}`, { query: { entityId: entity, 'date.from': DAY, 'date.to': DAY } }, named ? ['summary', 'A day’s aggregations'] : undefined);
      aggregationId ||= summary.body.aggregations[0].id as string;
      clock.advance(2_000);
      await call(`GET /reports/v1/${collection}/:id`, `/reports/v1/${collection}/${aggregationId}`, { query: { entityId: entity, sortValue: 'SettlementTxDate', sortOrder: 'ASC' } }, named ? ['detail', 'Every record of an aggregation'] : undefined);
      clock.advance(2_000);
      await call(`GET /reports/v2/${collection}/:id`, `/reports/v2/${collection}/${aggregationId}`, { query: { entityId: entity, pageNo: '1' } }, named ? ['page', 'The first page of an aggregation’s records'] : undefined);
      clock.advance(2_000);
    }

    // Reconciliation files: FTP settings, a day's file sent again, read, listed, downloaded.
    const ftpPath = `/admin/v1/entities/${entity}/reconciliation/ftp`;
    await call('PUT /admin/v1/entities/:entityId/reconciliation/ftp', ftpPath, { json: { host: 'ftp.shop.example', port: 2121, username: 'shop', password: 'ftp-password', folder: '/incoming' } }, ['set', 'Settings set: never the password']);
    await call('GET /admin/v1/entities/:entityId/reconciliation/ftp', ftpPath, {}, ['read', 'The entity’s FTP settings']);
    await call('POST /admin/v1/entities/:entityId/reconciliation/files/:date/resend', `/admin/v1/entities/${entity}/reconciliation/files/${DAY}/resend`, {}, ['resend', 'The day’s file, to be sent again']);
    await call('GET /admin/v1/entities/:entityId/reconciliation/files/:date', `/admin/v1/entities/${entity}/reconciliation/files/${DAY}`, {}, ['read', 'A day’s file']);
    await call('GET /admin/v1/entities/:entityId/reconciliation/files/:date/csv', `/admin/v1/entities/${entity}/reconciliation/files/${DAY}/csv`, {}, ['csv', 'The file itself']);
    await call('GET /admin/v1/entities/:entityId/reconciliation/files', `/admin/v1/entities/${entity}/reconciliation/files`, { query: { from: DAY, to: DAY } }, ['span', 'The files of a span of days']);
    await call('GET /admin/v1/reconciliation/files', '/admin/v1/reconciliation/files', { query: { date: DAY } }, ['day', 'A day’s files of every entity']);
    await call('DELETE /admin/v1/entities/:entityId/reconciliation/ftp', ftpPath, {}, ['removed', 'Removed']);

    // The admin API's settings of an entity.
    const created = await call('POST /admin/v1/entities', '/admin/v1/entities', { json: { name: 'Example shop' } }, ['created', 'An entity, with its access token this once']);
    await call('GET /admin/v1/entities', '/admin/v1/entities', {}, ['list', 'The entities']);
    const token = await call('POST /admin/v1/tokens', '/admin/v1/tokens', { json: { entityIds: [created.body.entity.id], label: 'shop backend' } }, ['granted', 'A token, this once']);
    await call('GET /admin/v1/tokens', '/admin/v1/tokens', { query: { entityId: created.body.entity.id } }, ['list', 'An entity’s tokens']);
    await call('DELETE /admin/v1/tokens/:tokenId', `/admin/v1/tokens/${token.body.token.id}`, {}, ['revoked', 'Revoked']);
    const pair = await call('POST /admin/v1/credentials', '/admin/v1/credentials', { json: { entityIds: entity, label: 'legacy shop' } }, ['issued', 'A legacy pair, its password this once']);
    await call('GET /admin/v1/credentials', '/admin/v1/credentials', {}, ['list', 'The pairs']);
    await call('DELETE /admin/v1/credentials/:userId', `/admin/v1/credentials/${pair.body.credentials.userId}`, {}, ['revoked', 'Revoked']);
    const entityPath = `/admin/v1/entities/${entity}`;
    await call('GET /admin/v1/entities/:entityId/smart-retry', `${entityPath}/smart-retry`, {}, ['read', 'The settings']);
    await call('PUT /admin/v1/entities/:entityId/smart-retry', `${entityPath}/smart-retry`, { json: { enabled: true, codes: 'default', fallbackAcquirer: 'hyperpay' } }, ['set', 'Soft declines retried at the fallback']);
    await call('DELETE /admin/v1/entities/:entityId/smart-retry', `${entityPath}/smart-retry`, {}, ['off', 'Off']);
    await call('GET /admin/v1/entities/:entityId/throttling', `${entityPath}/throttling`, {}, ['read', 'The limits in force']);
    await call('PUT /admin/v1/entities/:entityId/throttling', `${entityPath}/throttling`, { json: { limits: { requestsPerMinute: 600 }, risk: { ipCount: { max: 5, windowMinutes: 60 } } } }, ['set', 'An own limit and a risk rule']);
    await call('DELETE /admin/v1/entities/:entityId/throttling', `${entityPath}/throttling`, {}, ['defaults', 'Back on the defaults']);
    await call('GET /admin/v1/entities/:entityId/brands', `${entityPath}/brands`, {}, ['read', 'The brands offered']);
    await call('PUT /admin/v1/entities/:entityId/brands', `${entityPath}/brands`, { json: { brands: ['VISA', 'MASTER', 'PAYPAL'] } }, ['set', 'Three brands']);
    await call('DELETE /admin/v1/entities/:entityId/brands', `${entityPath}/brands`, {}, ['defaults', 'The environment’s default']);
    await call('PUT /admin/v1/entities/:entityId/routing', `${entityPath}/routing`, { json: { rules: [{ acquirer: 'hyperpay', brands: ['VISA'], currencies: ['EUR'], maxAmount: '100.00' }] } }, ['set', 'VISA in euros up to 100.00 to hyperpay']);
    await call('GET /admin/v1/entities/:entityId/routing', `${entityPath}/routing`, {}, ['read', 'The rules']);
    await call('DELETE /admin/v1/entities/:entityId/routing', `${entityPath}/routing`, {}, ['removed', 'Every payment to the default acquirer']);
    await call('PUT /admin/v1/entities/:entityId/acquirers/:name', `${entityPath}/acquirers/hyperpay`, { json: { entityId: '8a8294174b7ecb28014b9699220015ca', accessToken: 'OGE4Mjk0MTc0YjdlY2IyODAxNGI5Njk5MjIwMDE1Y2N8c3k2S0pzVDg=' } }, ['set', 'The merchant’s credentials at the provider: never shown again']);
    await call('GET /admin/v1/entities/:entityId/acquirers/:name', `${entityPath}/acquirers/hyperpay`, {}, ['read', 'Set, and when']);
    await call('GET /admin/v1/entities/:entityId/acquirers', `${entityPath}/acquirers`, {}, ['list', 'Each connector’s']);
    await call('DELETE /admin/v1/entities/:entityId/acquirers/:name', `${entityPath}/acquirers/hyperpay`, {}, ['removed', 'Removed']);
    expect((await call('GET /admin/v1/entities/:entityId/acquirers/:name', `${entityPath}/acquirers/simulator`, {}, ['notConnector', 'The simulator takes no credentials'])).status).toBe(404);
    await call('GET /admin/v1/entities/:entityId/settlement', `${entityPath}/settlement`, {}, ['read', 'The settings']);
    await call('PUT /admin/v1/entities/:entityId/settlement', `${entityPath}/settlement`, { json: { currency: 'EUR' } }, ['set', 'Settled in euros']);
    await call('DELETE /admin/v1/entities/:entityId/settlement', `${entityPath}/settlement`, {}, ['reset', 'Reset']);
    await call('POST /admin/v1/commands', '/admin/v1/commands', { json: { args: ['entity', 'list'] } }, ['entities', 'The entities, as the command line lists them']);

    // A connector's provider: its notification, and the shopper's return from its page.
    const notification = notificationRequest(JSON.stringify({ type: 'test' }), NOTIFICATION_KEY, 'NONE');
    await call('POST /v1/acquirers/:acquirer/notifications', '/v1/acquirers/hyperpay/notifications', { token: null, headers: notification.headers, body: notification.body }, ['test', 'The provider’s test notification']);
    expect((await call('POST /v1/acquirers/:acquirer/notifications', '/v1/acquirers/hyperpay/notifications', { token: null, headers: notification.headers, body: '00' }, ['undecryptable', 'Not from the provider'])).status).toBe(401);
    await call('GET /v1/acquirers/:acquirer/returns/:attemptId', '/v1/acquirers/hyperpay/returns/0123456789abcdef0123456789abcdef', { token: null });
    await call('POST /v1/acquirers/:acquirer/returns/:attemptId', '/v1/acquirers/hyperpay/returns/0123456789abcdef0123456789abcdef', { token: null });

    // What is not the API's JSON: probes, metrics, pages.
    await call('GET /health', '/health', { token: null }, ['alive', 'Alive']);
    await call('GET /ready', '/ready', { token: null }, ['ready', 'Ready']);
    await call('GET /metrics', '/metrics', { token: METRICS_TOKEN });
    await call('GET /', '/', { token: null });
    await call('GET /docs', '/docs', { token: null });
    await call('GET /docs/', '/docs/', { token: null });
    await call('GET /docs/:page', '/docs/api.md', { token: null });
    // The wallet buttons' questions (issue 35): the environment, and the test environment's simulated sheet.
    await call('GET /v1/wallets/config', '/v1/wallets/config', { token: null }, ['test', 'The test environment']);
    await call('GET /v1/wallets/sheet', '/v1/wallets/sheet', { token: null, query: { brand: 'GOOGLEPAY', amount: '92.00', currency: 'EUR', merchant: 'Shop', lang: 'de' } }, ['sheet', 'Google Pay’s simulated sheet, in German']);
    await call('GET /v1/wallets/sheet', '/v1/wallets/sheet', { token: null, query: { brand: 'SAMSUNGPAY', amount: '92.00', currency: 'EUR' } });
    // Apple Pay's merchant validation: refused while the checkout's entity has no identity, and for a URL off Apple's
    // hosts (a session needs Apple: wallets/applePay.test.ts has a stand-in); the entity's identity through the admin API.
    const appleCheckout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'DB' } });
    const appleSession = { validationUrl: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession', domain: 'shop.example.com', checkoutId: appleCheckout.body.id };
    expect((await call('POST /v1/wallets/applepay/session', '/v1/wallets/applepay/session', { token: null, json: appleSession }, ['notConfigured', 'No Apple Pay merchant identity for the checkout’s entity'])).status).toBe(400);
    expect((await call('POST /v1/wallets/applepay/session', '/v1/wallets/applepay/session', { token: null, json: { ...appleSession, validationUrl: 'https://evil.example/startSession' } }, ['refused', 'A validationUrl off Apple’s hosts'])).status).toBe(400);
    const merchantIdentity = testAuthority('/CN=Test Apple Worldwide Developer Relations CA').issue('/UID=merchant.com.example.shop/CN=Apple Pay Merchant Identity:merchant.com.example.shop', { days: 3650 });
    const identityPath = `/admin/v1/entities/${entity}/applePay`;
    await call('PUT /admin/v1/entities/:entityId/applePay', identityPath, { json: { merchantIdentifier: 'merchant.com.example.shop', displayName: 'Example Shop', domains: ['shop.example.com'], certificate: merchantIdentity.certificate, privateKey: merchantIdentity.privateKey } }, ['set', 'The merchant’s Apple Pay identity: its certificate and key never shown again']);
    await call('GET /admin/v1/entities/:entityId/applePay', identityPath, {}, ['read', 'The identity: its certificate’s subject and expiry, never the certificate or its key']);
    await call('DELETE /admin/v1/entities/:entityId/applePay', identityPath, {}, ['removed', 'Removed']);
    // Click to Pay with the networks: refused without the entity's settings; set through the admin API, a session for
    // the SDKs and a (stand-in) network's checkout response, opened and held for the submit.
    const srcCheckout = await call('POST /v1/checkouts', '/v1/checkouts', { form: { entityId: entity, amount: '10.00', currency: 'EUR', paymentType: 'DB' } });
    const srcPath = `/v1/checkouts/${srcCheckout.body.id}/clickToPay`;
    expect((await call('POST /v1/checkouts/:id/clickToPay/session', `${srcPath}/session`, { token: null }, ['notConfigured', 'No Click to Pay settings for the checkout’s entity'])).status).toBe(400);
    const srcKeys = srcTestKeys();
    const settingsPath = `/admin/v1/entities/${entity}/clickToPay`;
    const srcSettings = { dpaName: 'Example Shop', keyId: srcKeys.merchant.keyId, privateKey: srcKeys.merchant.privateKeyPem, mastercard: { srcDpaId: 'dpa-mc-0001', srcInitiatorId: 'init-mc-0001', signingKey: srcKeys.network.publicKeyPem } };
    await call('PUT /admin/v1/entities/:entityId/clickToPay', settingsPath, { json: srcSettings }, ['set', 'Mastercard’s registration and the entity’s decryption key (never shown again)']);
    await call('GET /admin/v1/entities/:entityId/clickToPay', settingsPath, {}, ['read', 'The settings, without the private key']);
    const srcSession = await call('POST /v1/checkouts/:id/clickToPay/session', `${srcPath}/session`, { token: null }, ['session', 'What the widget initialises the networks’ SDKs with']);
    const srciTransactionId = srcSession.body.clickToPay.srciTransactionId as string;
    const checkoutResponse = await checkoutResponseOf(srcKeys, { srciTransactionId });
    await call('POST /v1/checkouts/:id/clickToPay/checkout', `${srcPath}/checkout`, { form: { sessionId: srciTransactionId, network: 'mastercard', checkoutResponse }, token: null }, ['networkChosen', 'A network’s checkout response, opened: the correlation id']);
    await call('DELETE /admin/v1/entities/:entityId/clickToPay', settingsPath, {}, ['removed', 'Removed']);

    // An example shows what its name says: these refused, every other accepted.
    const refusals = ['refused', 'declined', 'notAllowed', 'unknown', 'noCredentials', 'unknownToken', 'invalidCard', 'gone', 'nothing', 'undecryptable', 'notConnector', 'notConfigured'];
    for (const answer of recorded.filter((candidate) => candidate.example)) {
      expect(answer.status >= 400, `${answer.key} ${answer.example?.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(refusals.includes(answer.example?.name ?? ''));
    }
  }, 120_000);

  it('validates every answer against its closed schema, each with a result code its operation lists', () => {
    expect(recorded.filter((answer) => answer.contentType === 'application/json').length).toBeGreaterThan(100);
    const problems: string[] = [];
    const classes = Object.fromEntries(Object.entries(RESULT_CLASSES));
    for (const answer of recorded) {
      const operation = operationOf(answer.key);
      let validate: ValidateFunction | undefined;
      try {
        validate = answerValidator(answer.key, answer.status, answer.contentType);
      } catch (error) {
        problems.push((error as Error).message);
        continue;
      }
      if (validate && !validate(answer.body)) problems.push(`${answer.key} → ${answer.status}: ${(validate.errors ?? []).map((error) => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`).join('; ')}`);
      const code = answer.contentType === 'application/json' ? (answer.body?.result?.code as string | undefined) : undefined;
      if (code === undefined) continue;
      const listed = operation['x-result-codes'].includes(code);
      const ofClass = (operation['x-result-code-classes'] ?? []).some((name: string) => (classes[name] as RegExp).test(code));
      if (!listed && !ofClass) problems.push(`${answer.key} → ${answer.status}: result code ${code} is not listed`);
    }
    expect(problems).toEqual([]);
  });

  it('calls every documented operation', () => {
    const called = new Set(recorded.map((answer) => answer.key));
    const documented = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const calledPaths = new Set([...called].map((key) => `${key.split(' ')[0]} ${openApiPath(key.split(' ')[1] as string)}`));
    expect(documented.filter((key) => !calledPaths.has(key) && NOT_CALLED[key] === undefined)).toEqual([]);
  });

  it('refuses a broken answer: a field its schema does not have, one it requires missing, a wrong type', () => {
    const payment = recorded.find((answer) => answer.key === 'POST /v1/payments' && answer.example?.name === 'card') as Recorded;
    const validate = answerValidator('POST /v1/payments', 200, 'application/json') as ValidateFunction;
    expect(validate(payment.body)).toBe(true);
    expect(validate({ ...payment.body, surprise: 'x' })).toBe(false);
    expect(validate({ ...payment.body, customer: { ...payment.body.customer, nickname: 'JJ' } })).toBe(false);
    expect(validate({ ...payment.body, customParameters: { SHOPPER_x: 1 } })).toBe(false);
    const { code: _code, ...withoutCode } = payment.body.result;
    expect(validate({ ...payment.body, result: withoutCode })).toBe(false);
    expect(validate({ ...payment.body, amount: 92 })).toBe(false);
    const { buildNumber: _buildNumber, ...withoutBuild } = payment.body;
    expect(validate(withoutBuild)).toBe(false);
    const refusal = answerValidator('POST /v1/payments', 400, 'application/json') as ValidateFunction;
    expect(refusal({ ...payment.body, result: { ...payment.body.result, parameterErrors: [{ name: 'amount' }] } })).toBe(false);
    expect(refusal({})).toBe(false);
  });

  it('says of every object an answer may hold whether it is closed', () => {
    // The document closes its answers itself: closing them here changes nothing.
    const answerSchemas = answerComponents(document);
    expect(answerSchemas.has('Payment')).toBe(true);
    expect(answerSchemas.has('PaymentRequest')).toBe(false);
    for (const name of answerSchemas) expect(closed(document.components.schemas[name]), name).toEqual(document.components.schemas[name]);
  });

  it('shows examples valid against what they illustrate: answers, bodies, parameters', () => {
    const problems: string[] = [];
    const counts = { answers: 0, bodies: 0, parameters: 0 };
    const check = (validate: ValidateFunction | undefined, value: unknown, where: string, kind: keyof typeof counts) => {
      counts[kind]++;
      if (validate && !validate(value)) problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
    };
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path}`;
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
            for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, Json>)) check(answerValidator(key, Number(status), type), example.value, `${key} → ${status} ${name}`, 'answers');
          }
        }
        // A request the gateway accepted is one its schema accepts (a refused one, shown as such, need not be).
        const accepted = new Set(
          Object.entries(operation.responses as Record<string, Json>)
            .filter(([status]) => Number(status) < 400)
            .flatMap(([, response]) => Object.values((response.content ?? {}) as Record<string, Json>).flatMap((media) => Object.keys(media.examples ?? {}))),
        );
        for (const media of Object.values((operation.requestBody?.content ?? {}) as Record<string, Json>)) {
          const validate = ajv.compile(JSON.parse(inDefs(JSON.stringify(media.schema))));
          for (const [name, example] of Object.entries((media.examples ?? {}) as Record<string, Json>)) if (accepted.has(name)) check(validate, example.value, `${key} body ${name}`, 'bodies');
        }
        for (const parameter of (operation.parameters ?? []) as Json[]) {
          const validate = ajv.compile(JSON.parse(inDefs(JSON.stringify(parameter.schema))));
          for (const [name, example] of Object.entries((parameter.examples ?? {}) as Record<string, Json>)) if (accepted.has(name)) check(validate, example.value, `${key} ${parameter.name} ${name}`, 'parameters');
        }
      }
    }
    expect(problems).toEqual([]);
    // The document has them (the fixture is read where the document is made).
    expect(counts.answers).toBeGreaterThan(100);
    expect(counts.bodies).toBeGreaterThan(30);
    expect(counts.parameters).toBeGreaterThan(50);
  });

  it('has as examples what the gateway answers today (UPDATE_OPENAPI_EXAMPLES=1 writes them anew)', () => {
    const normalize = normalizer(t.url);
    const examples: Record<string, Record<string, Exchange>> = {};
    for (const answer of recorded) {
      if (!answer.example) continue;
      const own = (examples[answer.key] ??= {});
      expect(own[answer.example.name], `${answer.key} ${answer.example.name} is named twice`).toBeUndefined();
      own[answer.example.name] = {
        summary: answer.example.summary,
        request: normalize(answer.request) as Exchange['request'],
        status: answer.status,
        // The envelope's time is the answer's, not the test clock's: one stand-in.
        ...(answer.contentType === 'application/json' ? { answer: normalize({ ...answer.body, ...(answer.body.timestamp && answer.body.buildNumber ? { timestamp: '2026-11-20 09:00:00.000+0000' } : {}) }) } : {}),
      };
    }
    // Every operation has an example.
    const keys = [...new Set(recorded.map((answer) => answer.key))];
    const aliases = /reconiliations|aggregrations/;
    expect(keys.filter((key) => examples[key] === undefined && !aliases.test(key) && !['GET /', 'GET /docs', 'GET /docs/', 'GET /docs/:page', 'GET /metrics', 'GET /v1/openapi.json'].includes(key) && !key.includes('/returns/'))).toEqual([]);
    if (UPDATE && kind === 'PGlite') {
      writeFileSync(EXAMPLES_FILE, `${JSON.stringify(examples, null, 1)}\n`);
      return;
    }
    const fixture = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Examples;
    const stale: string[] = [];
    for (const [key, named] of Object.entries(examples)) {
      for (const [name, exchange] of Object.entries(named)) {
        const kept = fixture[key]?.[name];
        if (!kept) {
          stale.push(`${key} ${name}: missing`);
          continue;
        }
        if (kept.status !== exchange.status || kept.summary !== exchange.summary) stale.push(`${key} ${name}: status or summary`);
        const [now, then] = [[...shapeOf(exchange)].sort(), [...shapeOf(kept)].sort()];
        if (JSON.stringify(now) !== JSON.stringify(then)) stale.push(`${key} ${name}: now ${now.filter((path) => !then.includes(path)).join(', ')}; no longer ${then.filter((path) => !now.includes(path)).join(', ')}`);
      }
    }
    for (const [key, named] of Object.entries(fixture)) for (const name of Object.keys(named)) if (!examples[key]?.[name]) stale.push(`${key} ${name}: no longer recorded`);
    expect(stale, 'server/openapi/examples.json is stale: UPDATE_OPENAPI_EXAMPLES=1 npx vitest run server/openapi/answers.test.ts').toEqual([]);
  });
});
