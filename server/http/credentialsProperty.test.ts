import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passesLuhn } from '../domain/cards.ts';
import { issueLegacyCredentials, type IssuedCredentials } from '../merchants/legacyCredentials.ts';
import { shopperCard } from '../testing/checkouts.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { cardPayment, CIT_INITIAL, liveApp, MIT_REPEATED, readResponse, startTestGateway, testCard, type ApiResponse, type TestGateway } from '../testing/harness.ts';

/**
 * Every endpoint that takes merchant credentials, with random and malformed legacy credentials (COMPAT §1) in the body
 * or the query string, with and without a Bearer header: whatever the values — card numbers among them — they never
 * come back in an answer (body or headers) nor reach a log line, and the answer is 2xx or 4xx with a full envelope.
 * The endpoints are found in the app's route table, so one added later is covered or this suite says it is missing.
 */

let t: TestGateway;
let pair: IssuedCredentials;
/** The path of each route, with ids of resources made in beforeAll. */
let paths: Record<string, string>;

const { entityId: _entity, ...PAYMENT } = cardPayment('0'.repeat(32));
/** The settlement reports' collection, with the platform's misspellings it answers too (reports/routes.ts). */
const REPORT_COLLECTIONS = ['reconciliations/aggregations', 'reconiliations/aggregrations', 'reconciliations/aggregrations'];
/** An aggregation id nobody made: the reports answer it as unknown. */
const UNKNOWN_AGGREGATION = 'a'.repeat(32);
const { paymentBrand: _brand, ...CARD } = testCard();

/** What each endpoint is sent besides credentials and the entity: a request it could accept. */
const BASE_PARAMS: Record<string, Readonly<Record<string, string>>> = {
  'POST /v1/payments': PAYMENT,
  'POST /v1/payments/:id': { paymentType: 'RF', amount: '0.10', currency: 'EUR' },
  'GET /v1/payments/:id': {},
  'POST /v1/checkouts': { amount: '10.00', currency: 'EUR', paymentType: 'DB' },
  'POST /v1/checkouts/:id': { amount: '11.00', currency: 'EUR', paymentType: 'DB' },
  'DELETE /v1/checkouts/:id': {},
  'GET /v1/checkouts/:id/payment': {},
  'GET /v1/checkouts/:id/registration': {},
  'POST /v1/registrations': { paymentBrand: 'VISA', ...CARD },
  'POST /v1/registrations/:id/payments': { amount: '1.00', currency: 'EUR', paymentType: 'DB' },
  'POST /v1/registrations/:id/extendlife': {},
  'GET /v1/registrations/:id': {},
  'POST /v1/registrations/:id': { 'card.holder': 'Jane Doe' },
  'DELETE /v1/registrations/:id': {},
  'POST /scheduling/v1/schedules': { amount: '1.00', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 12 * * ?', ...MIT_REPEATED },
  'GET /scheduling/v1/schedules/:id': {},
  'DELETE /scheduling/v1/schedules/:id': {},
  'GET /v1/query': { merchantTransactionId: 'order-0001' },
  'GET /v1/query/:id': {},
  'GET /v3/query': { merchantTransactionId: 'order-0001' },
  'GET /v3/query/:id': {},
  ...Object.fromEntries(
    REPORT_COLLECTIONS.flatMap((collection) => [
      [`GET /reports/v1/${collection}`, { 'date.from': '2026-11-01', 'date.to': '2026-11-02' }],
      [`GET /reports/v1/${collection}/:id`, {}],
      [`GET /reports/v2/${collection}/:id`, {}],
    ]),
  ),
};

beforeAll(async () => {
  t = await startTestGateway('PGlite', { clientAddressHeader: 'x-forwarded-for' });
  pair = await issueLegacyCredentials(t.gateway.store, [t.entityId], 'property');
  const made = async (path: string, params: Record<string, string>, field = 'id'): Promise<string> => {
    const answer = await t.post(path, { entityId: t.entityId, ...params });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body[field] as string;
  };
  const paymentId = await made('/v1/payments', PAYMENT);
  const checkout = async () => made('/v1/checkouts', BASE_PARAMS['POST /v1/checkouts'] as Record<string, string>);
  const [paid, open, deleted] = [await checkout(), await checkout(), await checkout()];
  await t.post(`/v1/checkouts/${paid}/payment`, shopperCard(), { token: null });
  const registration = async () => made('/v1/registrations', BASE_PARAMS['POST /v1/registrations'] as Record<string, string>);
  const [registrationId, deletedRegistration] = [await registration(), await registration()];
  const agreement = await made('/v1/payments', { ...PAYMENT, paymentType: 'PA', createRegistration: 'true', ...CIT_INITIAL }, 'registrationId');
  const scheduleId = await made('/scheduling/v1/schedules', { ...BASE_PARAMS['POST /scheduling/v1/schedules'], registrationId: agreement });
  paths = {
    'POST /v1/payments': '/v1/payments',
    'POST /v1/payments/:id': `/v1/payments/${paymentId}`,
    'GET /v1/payments/:id': `/v1/payments/${paymentId}`,
    'POST /v1/checkouts': '/v1/checkouts',
    'POST /v1/checkouts/:id': `/v1/checkouts/${open}`,
    'DELETE /v1/checkouts/:id': `/v1/checkouts/${deleted}`,
    'GET /v1/checkouts/:id/payment': `/v1/checkouts/${paid}/payment`,
    'GET /v1/checkouts/:id/registration': `/v1/checkouts/${paid}/registration`,
    'POST /v1/checkouts/:id/payment': `/v1/checkouts/${open}/payment`,
    'POST /v1/checkouts/:id/registration': `/v1/checkouts/${open}/registration`,
    'POST /v1/registrations': '/v1/registrations',
    'POST /v1/registrations/:id/payments': `/v1/registrations/${registrationId}/payments`,
    'POST /v1/registrations/:id/extendlife': `/v1/registrations/${registrationId}/extendlife`,
    'GET /v1/registrations/:id': `/v1/registrations/${registrationId}`,
    'POST /v1/registrations/:id': `/v1/registrations/${registrationId}`,
    'DELETE /v1/registrations/:id': `/v1/registrations/${deletedRegistration}`,
    'POST /scheduling/v1/schedules': '/scheduling/v1/schedules',
    'GET /scheduling/v1/schedules/:id': `/scheduling/v1/schedules/${scheduleId}`,
    'DELETE /scheduling/v1/schedules/:id': `/scheduling/v1/schedules/${scheduleId}`,
    'GET /v1/query': '/v1/query',
    'GET /v1/query/:id': `/v1/query/${paymentId}`,
    'GET /v3/query': '/v3/query',
    'GET /v3/query/:id': `/v3/query/${paymentId}`,
    ...Object.fromEntries(
      REPORT_COLLECTIONS.flatMap((collection) => [
        [`GET /reports/v1/${collection}`, `/reports/v1/${collection}`],
        [`GET /reports/v1/${collection}/:id`, `/reports/v1/${collection}/${UNKNOWN_AGGREGATION}`],
        [`GET /reports/v2/${collection}/:id`, `/reports/v2/${collection}/${UNKNOWN_AGGREGATION}`],
      ]),
    ),
  };
  BASE_PARAMS['POST /scheduling/v1/schedules'] = { ...BASE_PARAMS['POST /scheduling/v1/schedules'], registrationId: agreement };
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Sends a request as a client does: parameters in the query string, or in a form body. */
async function send(method: string, path: string, query: Record<string, string>, body: Record<string, string> | undefined, headers: Record<string, string>): Promise<ApiResponse> {
  const search = new URLSearchParams(query).toString();
  const response = await fetch(`${t.url}${path}${search ? `?${search}` : ''}`, {
    method,
    headers: { ...headers, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' } : {}) },
    ...(body ? { body: new URLSearchParams(body).toString() } : {}),
  });
  return readResponse(response);
}

describe('merchant endpoints', () => {
  it('are exactly the routes of the app that ask a request without credentials for them', async () => {
    const routes = new Set((await liveApp(t)).routes.filter((route) => ['GET', 'POST', 'DELETE'].includes(route.method) && !route.path.includes('*')).map((route) => `${route.method} ${route.path}`));
    const merchantRoutes: string[] = [];
    let probe = 0;
    for (const route of routes) {
      const path = paths[route];
      const [method] = route.split(' ') as [string];
      // A route this suite has no path for: it asks for credentials with any id, and is then reported below. Each probe
      // comes from an address of its own, so the failed-authentication limit (20 an address) answers none of them.
      probe += 1;
      const answer = await send(method, path ?? route.slice(method.length + 1).replace(/:id/g, 'f'.repeat(32)), {}, undefined, { 'X-Forwarded-For': `198.51.100.${probe}` });
      if (answer.status === 401 && /missing Authorization header/.test(answer.body?.result?.description ?? '')) merchantRoutes.push(route);
    }
    expect(merchantRoutes.sort()).toEqual(Object.keys(BASE_PARAMS).sort());
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Generators

const REAL_USER_ID = '\u0001the issued userId';
const REAL_PASSWORD = '\u0001the issued password';

const hex32 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 });
/** A 16-digit number that passes the Luhn check, sometimes grouped as it is printed on a card. */
const cardNumber = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }), fc.boolean())
  .map(([digits, grouped]) => {
    const body = digits.join('');
    const check = [...'0123456789'].find((digit) => passesLuhn(`${body}${digit}`)) as string;
    const number = `${body}${check}`;
    return grouped ? (number.match(/.{4}/g) as string[]).join(' ') : number;
  });
const credentialValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(REAL_USER_ID, REAL_PASSWORD) },
  { weight: 2, arbitrary: hex32 },
  { weight: 2, arbitrary: cardNumber },
  { weight: 2, arbitrary: fc.string({ minLength: 8, maxLength: 40 }) },
  fc.string({ unit: 'binary', minLength: 8, maxLength: 24 }),
  fc.string({ minLength: 256, maxLength: 300 }),
  fc.constantFrom('', ' ', '0', '\u0000', '%', 'null', '4200000000000000', `${'9'.repeat(40)}`),
);

const scenario = fc.record({
  endpoint: fc.constantFrom(...Object.keys(BASE_PARAMS)),
  userId: fc.option(credentialValue, { nil: undefined }),
  password: fc.option(credentialValue, { nil: undefined }),
  /** Where the pair goes (a GET has no body). */
  inQuery: fc.boolean(),
  header: fc.constantFrom('none', 'none', 'valid', 'unknown'),
  entityName: fc.constantFrom('authentication.entityId', 'entityId'),
  address: fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `203.0.${a}.${b}`),
});

/** The value as the gateway receives it: URLSearchParams sends a lone surrogate as U+FFFD. */
const wellFormed = (value: string): string => value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** A value that could not be in an answer by chance. */
function distinctive(value: string, others: readonly string[]): boolean {
  return value.length >= 8 && new Set(value).size >= 5 && !others.some((other) => other.includes(value));
}

describe('legacy credentials on every merchant endpoint', () => {
  it('never come back nor reach the logs, and the answer is 2xx or 4xx with a full envelope', async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(scenario, async ({ endpoint, userId, password, inQuery, header, entityName, address }) => {
        const real = (value: string | undefined) => (value === REAL_USER_ID ? pair.userId : value === REAL_PASSWORD ? pair.password : value);
        const [method] = endpoint.split(' ') as [string];
        const credentials: Record<string, string> = {};
        const sentUserId = real(userId);
        const sentPassword = real(password);
        if (sentUserId !== undefined) credentials['authentication.userId'] = sentUserId;
        if (sentPassword !== undefined) credentials['authentication.password'] = sentPassword;
        const params = { ...BASE_PARAMS[endpoint], [entityName]: t.entityId };
        const query = method === 'GET' || inQuery ? { ...credentials, ...(method === 'GET' ? params : {}) } : {};
        const body = method === 'GET' ? undefined : { ...(inQuery ? {} : credentials), ...params };
        const headers: Record<string, string> = { 'X-Forwarded-For': address };
        if (header === 'valid') headers.Authorization = `Bearer ${t.token}`;
        if (header === 'unknown') headers.Authorization = 'Bearer an-unknown-token-of-some-length';

        const logged = t.logLines.length;
        const answer = await send(method, paths[endpoint] as string, query, body, headers);
        const context = `${endpoint} ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`;
        seen.set(`${answer.status}`, (seen.get(`${answer.status}`) ?? 0) + 1);

        expect(answer.status >= 200 && answer.status < 500 && (answer.status < 300 || answer.status >= 400), context).toBe(true);
        expectEnvelope(answer);
        const presentUserId = sentUserId !== undefined && sentUserId !== '';
        const presentPassword = sentPassword !== undefined && sentPassword !== '';
        if (header === 'unknown') expect([answer.status, answer.body.result.description], context).toEqual([403, expect.stringMatching(/unknown access token/)]);
        if (header === 'valid') expect(answer.status, context).not.toBe(403);
        if (header === 'none' && (presentUserId || presentPassword) && !(sentUserId === pair.userId && sentPassword === pair.password)) {
          expect([answer.status, answer.body.result.code], context).toEqual([403, '800.900.300']);
        }

        const shown = [JSON.stringify(answer.body), JSON.stringify([...answer.headers]), ...t.logLines.slice(logged)].join('\n');
        const others = [...Object.values(params), paths[endpoint] as string];
        for (const value of [sentUserId, sentPassword]) {
          if (value === undefined) continue;
          const received = wellFormed(value);
          // The whole value, and its ends: a value shown cut short still shows its beginning.
          const characters = Array.from(received);
          for (const part of new Set([received, characters.slice(0, 16).join(''), characters.slice(-16).join('')])) {
            if (!distinctive(part, others)) continue;
            expect(shown, `${context}\nshows ${JSON.stringify(part)}`).not.toContain(part);
            expect(shown, `${context}\nshows ${JSON.stringify(part)}`).not.toContain(JSON.stringify(part).slice(1, -1));
          }
        }
      }),
      { numRuns: 150, interruptAfterTimeLimit: 40_000 },
    );
    // Successes and refusals both happened.
    expect([...seen.keys()].some((status) => status.startsWith('2')), JSON.stringify([...seen])).toBe(true);
    expect(seen.get('403') ?? 0, JSON.stringify([...seen])).toBeGreaterThan(0);
  }, 90_000);
});
