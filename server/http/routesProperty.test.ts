import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import type { PathIdKind } from './pathIds.ts';
import { CATALOGUE } from '../params/catalogue.ts';
import { BUILD_NUMBER, RESULT_CODE, TIMESTAMP } from '../testing/envelope.ts';
import { BROWSER_DATA, cardPayment, STORE_KINDS, startTestGateway, testCard, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { pathWith, routesOf, unmaskedCardNumbers, type Route } from '../testing/routeTable.ts';

/**
 * Every route of the app's route table (read from the app itself, so a route added later is walked too), as an
 * attacker tries it: malformed ids (NUL, invalid UTF-8, overlong, card numbers, '.', unicode) in every path parameter,
 * and malformed or card-number values in every parameter, in the query and the body, with and without credentials.
 * Every answer is 4xx (2xx where the request happens to be valid), a full JSON envelope on API routes, never a 5xx or
 * 999.999.999, no error logged; no error answer shows a card number, and no answer a secret it was sent.
 */

warnIfPostgresSkipped('the route table property test');

const ADMIN_TOKEN = 'admin-token-of-the-route-table-property-test-0123';
/** Sent under secret names (a CVV, a password): never shown back, by any answer. */
const SECRET = 'S3cr3tValue9f8e7d';
const CARDS = ['4200000000000000', '5454545454545454', '377777777777770', '6011000990139424', '4000000000000000006'];
const UNKNOWN_ID = '0123456789abcdef0123456789abcdef';

/** Path segments as sent on the wire (percent sequences kept as they are). */
const HOSTILE_SEGMENTS = [
  '%00',
  'ab%00cd',
  `${UNKNOWN_ID}%00`,
  `${UNKNOWN_ID.toUpperCase()}.sbx01-gw01%00`,
  '%C3%28',
  '%FF%FE',
  '%C0%AF',
  '%ED%A0%80',
  '%E2%82',
  '%ZZ',
  'x'.repeat(5000),
  '9'.repeat(300),
  ...CARDS,
  '4200%200000%200000%200000',
  '4200-0000-0000-0000',
  '.',
  '%2E%2E',
  '%2F',
  '%5C',
  encodeURIComponent('ü'),
  encodeURIComponent('😀'),
  encodeURIComponent('\u202e'),
  '__proto__',
  'constructor',
  '-1',
  UNKNOWN_ID.slice(1),
  `${UNKNOWN_ID}0`,
  UNKNOWN_ID.toUpperCase(),
  UNKNOWN_ID,
  `${UNKNOWN_ID.toUpperCase()}.sbx01-gw01`,
];

/** A parameter value: as sent on the wire, and as text (a JSON body's). */
interface Value {
  readonly wire: string;
  readonly text: string;
}
const text = (value: string): Value => ({ wire: encodeURIComponent(value), text: value });
const raw = (wire: string): Value => ({ wire, text: wire });

const HOSTILE_VALUES: readonly Value[] = [
  ...CARDS.map(text),
  text('4200 0000 0000 0000'),
  text(`0 0 ${CARDS[0]} * * ?`),
  text(`order ${CARDS[1]}`),
  text('\u0000'),
  text('a\u0000b'),
  raw('%C3%28'),
  raw('%FF'),
  raw('%ED%A0%80'),
  raw('%ZZ'),
  text('x'.repeat(3000)),
  text('😀'.repeat(400)),
  text('\u202e'),
  text('.'),
];

const ORDINARY_VALUES = ['DB', 'PA', 'CP', 'RF', 'RV', '10.00', 'EUR', 'VISA', 'true', 'INTERNAL', '05', '2034', 'https://shop.example/return'];

const CATALOGUE_NAMES = CATALOGUE.map((spec) => spec.name.replace(/\[n\]/g, '[0]').replace(/\[\*\]/g, '[SHOPPER_x]'));
/** What routes read outside the catalogue (admin JSON fields, query parameters). */
const ROUTE_NAMES = ['entityId', 'entityIds', 'url', 'types', 'fields', 'secret', 'limit', 'codes', 'fallbackAcquirer', 'limits', 'risk', 'checkoutId', 'label', 'paymentId', 'action', 'otp'];
const SECRET_NAMES = ['card.cvv', 'authentication.password', 'customParameters[password]', 'password'];
/** The names the sweep sends every hostile value under, at once. */
const SWEEP_NAMES = ['paymentType', 'amount', 'currency', 'paymentBrand', 'card.number', 'card.holder', 'merchantTransactionId', 'job.expression', 'job.second', 'registrationId', 'referenceUuid', 'customParameters[SHOPPER_note]', 'checkoutId', 'url', 'limit', 'codes', 'action'];

type Credentials = 'none' | 'merchant' | 'admin' | 'cardNumber';
type BodyKind = 'form' | 'json' | 'none';

interface Attempt {
  readonly route: Route;
  readonly method: string;
  readonly segment: (parameter: string, kind: PathIdKind | undefined) => string;
  readonly query: readonly (readonly [string, Value])[];
  readonly body: readonly (readonly [string, Value])[];
  readonly bodyKind: BodyKind;
  readonly credentials: Credentials;
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const wireForm = (pairs: Attempt['query']) => pairs.map(([name, value]) => `${encodeURIComponent(name)}=${value.wire}`).join('&');

describe.each(STORE_KINDS)('the route table on %s', (kind) => {
  let t: TestGateway;
  /** Ids of real things, by kind, so some requests get past the lookup. */
  const realIds = new Map<PathIdKind, string>();
  let routes: Route[];
  let logged = 0;

  beforeAll(async () => {
    // No limit (0), so thousands of requests reach past the throttling that would answer them all alike.
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, limits });
    routes = routesOf(t.gateway.app);
    const payment = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
    const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB' });
    const registration = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() });
    const challenged = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA }));
    const bootstrap = await (await fetch(`${t.url}/v1/paymentWidgets.js?checkoutId=${checkout.body.id as string}`)).text();
    for (const [name, id] of [
      ['payment', payment.body.id],
      ['transaction', payment.body.id],
      ['checkout', checkout.body.id],
      ['registration', registration.body.id],
      ['redirect', String(challenged.body.redirect?.url ?? '').split('/').pop()],
      ['entity', t.entityId],
      ['widgetVersion', /\/v1\/static\/([0-9a-f]{16})\//.exec(bootstrap)?.[1]],
    ] as const) {
      expect(id, name).toEqual(expect.any(String));
      realIds.set(name, id as string);
    }
    logged = t.logLines.length;
  });

  afterAll(async () => {
    await t?.close();
  });

  function authorization(credentials: Credentials): Record<string, string> {
    switch (credentials) {
      case 'none':
        return {};
      case 'merchant':
        return { Authorization: `Bearer ${t.token}` };
      case 'admin':
        return { Authorization: `Bearer ${ADMIN_TOKEN}` };
      case 'cardNumber':
        return { Authorization: `Bearer ${CARDS[0]}` };
    }
  }

  /** Sends the attempt through the app (no socket) and checks its answer. */
  async function attempt(a: Attempt): Promise<number> {
    const kinds = new Map(a.route.checks.map((check) => [check.parameter, check.kind]));
    const path = pathWith(a.route, (parameter) => a.segment(parameter, kinds.get(parameter)));
    const query = wireForm(a.query);
    const url = `${path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = authorization(a.credentials);
    let body: string | undefined;
    if (a.method !== 'GET' && a.bodyKind === 'form') {
      body = wireForm(a.body);
      headers['Content-Type'] = 'application/x-www-form-urlencoded; charset=UTF-8';
    } else if (a.method !== 'GET' && a.bodyKind === 'json') {
      body = JSON.stringify(Object.fromEntries(a.body.map(([name, value]) => [name, value.text])));
      headers['Content-Type'] = 'application/json';
    }
    const response = await t.gateway.app.request(url, { method: a.method, headers, ...(body !== undefined ? { body } : {}) });
    const answer = await response.text();
    const sent = [...a.query, ...a.body].map(([, value]) => value.text).join(' ') + url;
    expectSafe(a, url, response, answer, sent);
    return response.status;
  }

  function expectSafe(a: Attempt, url: string, response: Response, answer: string, sent: string): void {
    const context = `${a.method} ${url.slice(0, 200)} (${a.credentials}, ${a.bodyKind}) → ${response.status} ${answer.slice(0, 600)}`;
    const { status } = response;
    expect((status >= 200 && status < 300) || (status >= 400 && status < 500), context).toBe(true);
    const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
    for (const secret of [t.token, ADMIN_TOKEN, SECRET]) expect(`${answer}\n${headers}`, context).not.toContain(secret);

    // The dashboard's app page (and its files, whose unknown names answer the JSON 404), not its API (dashboard/pages.ts);
    // the test environment's simulated wallet sheet (wallets/sheet.ts).
    const page = /^\/v1\/(redirects|static)\/|^\/v1\/wallets\/sheet$|^\/v1\/acquirers\/:acquirer\/returns\/|^\/v1\/paymentWidgets\.js|^\/$|^\/docs(\/|$)|^\/dashboard(\/(?!api(\/|$))|$)/.test(a.route.path);
    const json = response.headers.get('content-type')?.startsWith('application/json') ?? false;
    expect(json || page, context).toBe(true);
    // The health endpoints answer a load balancer, in a shape of their own (http/health.ts).
    const probe = /^\/(health|ready)$/.test(a.route.path) && status === 200;
    if (probe) expect(JSON.parse(answer), context).toMatchObject({ status: expect.stringMatching(/^(ok|ready)$/) });
    // The OpenAPI document is a document, not an answer in the envelope (openapi/routes.ts).
    const document = a.route.path === '/v1/openapi.json' && status === 200;
    if (document) expect(JSON.parse(answer), context).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./) });
    let body: { id?: unknown; result?: { code?: unknown; description?: unknown; parameterErrors?: unknown } } = {};
    if (json && !probe && !document) {
      body = JSON.parse(answer) as typeof body;
      expect(body, context).toMatchObject({
        result: { code: expect.stringMatching(RESULT_CODE), description: expect.any(String) },
        buildNumber: expect.stringMatching(BUILD_NUMBER),
        timestamp: expect.stringMatching(TIMESTAMP),
        ndc: expect.any(String),
      });
      expect(body.result?.code, context).not.toBe('999.999.999');
      for (const error of (body.result?.parameterErrors ?? []) as Record<string, unknown>[]) {
        expect([typeof error.name, typeof error.value, typeof error.message], context).toEqual(['string', 'string', 'string']);
      }
    }
    // An error shows no card number, and only the start of a long value; a payment or registration a request made
    // keeps its merchant's fields as sent.
    if (status >= 400 && body.id === undefined) {
      expect(unmaskedCardNumbers(`${answer}\n${headers}`), context).toEqual([]);
      for (const card of CARDS) if (sent.includes(card)) expect(answer, context).not.toContain(card);
      expect(answer.length, context).toBeLessThan(32_000);
    }
    const lines = t.logLines.slice(logged);
    logged = t.logLines.length;
    expect(lines.filter((line) => (JSON.parse(line) as { level: string }).level === 'error'), context).toEqual([]);
    for (const card of CARDS) expect(lines.join('\n'), context).not.toContain(card);
  }

  /** An ALL route answers the methods its path has no route for: one of them stands for all. */
  const methodOf = (route: Route) => (route.method === 'ALL' ? 'PUT' : route.method);

  it('finds every feature in the table, and every path parameter checked for its shape before the handler', () => {
    const paths = new Set(routes.map((route) => route.path));
    for (const path of ['/v1/payments/:id', '/v1/checkouts/:id/payment', '/v1/registrations/:id', '/scheduling/v1/schedules/:id', '/v1/redirects/:id', '/admin/v1/webhooks/:id', '/admin/v1/entities/:entityId/throttling']) {
      expect(paths).toContain(path);
    }
    // ALL routes answer the methods a path does not have (405) or are middleware: they look nothing up.
    const unchecked = routes
      .filter((route) => route.method !== 'ALL')
      .flatMap((route) => route.parameters.filter((parameter) => !route.checks.some((check) => check.parameter === parameter)).map((parameter) => `${route.method} ${route.path} (:${parameter})`));
    expect(unchecked).toEqual([]);
  });

  it('answers every hostile id in every path parameter of every route, with and without credentials', async () => {
    const credentials: Credentials[] = ['merchant', 'admin', 'none', 'cardNumber'];
    let count = 0;
    for (const route of routes.filter((candidate) => candidate.parameters.length > 0 || candidate.path.endsWith('*'))) {
      for (const segment of HOSTILE_SEGMENTS) {
        const method = methodOf(route);
        // The entity in the query or in the body, not both (a name sent twice is refused before any route runs).
        const entity: [string, Value][] = [['entityId', text(t.entityId)]];
        const inQuery = method === 'GET';
        await attempt({ route, method, segment: () => segment, query: inQuery ? entity : [], body: inQuery ? [] : entity, bodyKind: 'form', credentials: credentials[count++ % credentials.length] as Credentials });
      }
    }
    expect(count).toBeGreaterThan(500);
  }, 60_000);

  it('answers every hostile value in every parameter of every route, on real and unknown ids', async () => {
    let count = 0;
    for (const route of routes) {
      const method = methodOf(route);
      for (const [index, value] of HOSTILE_VALUES.entries()) {
        const pairs: [string, Value][] = [['entityId', text(t.entityId)], ...SWEEP_NAMES.map((name): [string, Value] => [name, value])];
        const real = index % 2 === 0;
        const inQuery = method === 'GET' || index % 3 === 0;
        await attempt({
          route,
          method,
          segment: (_parameter, idKind) => (real && idKind ? (realIds.get(idKind) ?? UNKNOWN_ID) : UNKNOWN_ID),
          query: inQuery ? pairs : [],
          body: inQuery ? [] : pairs,
          bodyKind: route.path.startsWith('/admin/') ? 'json' : 'form',
          credentials: route.path.startsWith('/admin/') ? 'admin' : index % 4 === 3 ? 'none' : 'merchant',
        });
        count++;
      }
    }
    expect(count).toBeGreaterThan(500);
  }, 60_000);

  it('answers random requests on every route as it should', async () => {
    const value = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_VALUES) },
      { weight: 2, arbitrary: fc.constantFrom(...ORDINARY_VALUES).map(text) },
      fc.string({ maxLength: 40 }).map(text),
      fc.string({ unit: 'binary', maxLength: 20 }).map(text),
    );
    const name = fc.oneof(fc.constantFrom(...CATALOGUE_NAMES), fc.constantFrom(...ROUTE_NAMES), fc.string({ maxLength: 12 }));
    const pairs = fc
      .tuple(fc.array(fc.tuple(name, value), { maxLength: 8 }), fc.boolean(), fc.option(fc.constantFrom(...SECRET_NAMES)))
      .map(([random, withEntity, secretName]) => [
        ...(withEntity ? [['entityId', text(t.entityId)] as const] : []),
        ...(secretName ? [[secretName, text(SECRET)] as const] : []),
        ...random,
      ]);
    const segment = fc.oneof(
      fc.constantFrom(...HOSTILE_SEGMENTS).map((hostile) => () => hostile),
      fc.constant((_parameter: string, idKind: PathIdKind | undefined) => (idKind ? (realIds.get(idKind) ?? UNKNOWN_ID) : UNKNOWN_ID)),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((chosen) => () => encodeURIComponent(chosen)),
    );
    const attempts = fc
      .record({
        route: fc.constantFrom(...routes),
        otherMethod: fc.constantFrom(...OTHER_METHODS),
        segment,
        query: pairs,
        body: pairs,
        bodyKind: fc.constantFrom<BodyKind>('form', 'json', 'none'),
        credentials: fc.constantFrom<Credentials>('none', 'merchant', 'admin', 'cardNumber'),
      })
      .map(({ route, otherMethod, ...rest }): Attempt => ({ route, method: route.method === 'ALL' ? otherMethod : route.method, ...rest }));
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(attempts, async (chosen) => {
        const status = await attempt(chosen);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
      { numRuns: kind === 'PGlite' ? 600 : 200 },
    );
    // Whatever the seed, the runs reached past authentication and the id checks.
    expect([...statuses.keys()].filter((status) => status >= 400).length, JSON.stringify([...statuses])).toBeGreaterThan(3);
  }, 60_000);

  it('still takes a payment afterwards', async () => {
    const payment = await t.gateway.app.request('/v1/payments', {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(cardPayment(t.entityId)).toString(),
    });
    expect(payment.status).toBe(200);
  });
});
