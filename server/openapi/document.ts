import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { pathIdCheckOf, type PathIdKind } from '../http/pathIds.ts';
import type { Operation } from '../params/types.ts';
import { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import { catalogueComponent, CONDITIONS, requestSchema } from './conditions.ts';
import type { Answer, OperationEntry, ParameterItem, Security, Tag } from './entry.ts';
import { withExamples, type Examples } from './examples.ts';
import { OPERATIONS } from './operations.ts';
import { catalogueSpec, patternOf, PATH_ID_PATTERNS, valueSchemaOf, type Schema } from './parameters.ts';
import { ANSWER_SCHEMAS } from './schemas.ts';

/**
 * The OpenAPI 3.1 document of an app, generated from what the app is: its route table (Hono's own, read once the app
 * is built), the operation table (operations.ts), the parameter catalogue and the result codes. Nothing in it is
 * written twice: a route the table does not describe is an error here, and openapi.test.ts fails on an entry no route
 * has, on an answer that does not validate against its schema, and on a catalogue parameter missing where it is taken.
 */

/** A route as Hono's table lists it: a method, a path, and its handler (one row per handler of the chain). */
export interface RouteRow {
  readonly method: string;
  readonly path: string;
  readonly handler: unknown;
}

/**
 * The ONE rule of what the reference leaves out: the back office's own JSON API for its app (/dashboard), the
 * test-only control API (/test/v1, with TEST_CONTROL_API; docs/ci.md describes it), the demo shop's pages (/demo, test
 * environment) and the widget's versioned static files (/v1/static/{version}/..., which paymentWidgets.js names).
 * None is an API a merchant's or operator's program calls.
 */
export const LEFT_OUT = /^\/(dashboard|test\/v1|demo)(\/|$)|^\/v1\/static\//;

export interface DocumentedRoute {
  readonly key: string;
  readonly method: string;
  readonly path: string;
  /** The kind of id each path parameter is checked for (http/pathIds.ts). */
  readonly ids: ReadonlyMap<string, PathIdKind>;
}

/**
 * The routes the document describes, in the app's order: every method and path but app-wide middleware (`/*`), the
 * `ALL` routes (a path's 405 for the methods it has not, or middleware of a sub-app) and what LEFT_OUT leaves out.
 */
export function documentedRoutes(rows: readonly RouteRow[]): DocumentedRoute[] {
  const routes = new Map<string, { method: string; path: string; ids: Map<string, PathIdKind> }>();
  for (const { method, path, handler } of rows) {
    if (path === '/*' || method === 'ALL' || LEFT_OUT.test(path)) continue;
    const key = `${method} ${path}`;
    const route = routes.get(key) ?? { method, path, ids: new Map() };
    const check = pathIdCheckOf(handler);
    if (check) route.ids.set(check.parameter, check.kind);
    routes.set(key, route);
  }
  return [...routes].map(([key, route]) => ({ key, ...route }));
}

/** The paths that answer other methods 405 (an `ALL` route on the path itself). */
function pathsWith405(rows: readonly RouteRow[]): Set<string> {
  return new Set(rows.filter((row) => row.method === 'ALL' && !row.path.endsWith('*')).map((row) => row.path));
}

const TAGS: Readonly<Record<Tag, string>> = {
  Payments: 'Payments server to server, and the operations on them (capture, refund, reversal, chargeback).',
  Checkouts: 'Hosted checkouts: the merchant’s server creates one, the shopper pays it in the widget.',
  Registrations: 'Stored cards and accounts, and payments with them.',
  Schedules: 'Payments on a stored card at the fire times of a cron job.',
  Query: 'Transactions as they were made.',
  'Settlement reports': 'What the acquirers settled, by day.',
  'Shopper pages': 'Pages the shopper’s browser opens: 3-D Secure challenges, provider pages, vouchers.',
  Providers: 'What the providers behind the gateway’s connectors send it (their webhook notifications).',
  Widget: 'The payment widget’s script.',
  Admin: 'The operator’s API: only with ADMIN_TOKEN, every call with it as a bearer token.',
  Operations: 'For load balancers, orchestrators and Prometheus.',
  Documentation: 'This reference and the documentation pages.',
};

const SECURITY: Readonly<Record<Security, readonly Readonly<Record<string, readonly string[]>>[]>> = {
  merchant: [{ merchantToken: [] }, { legacyUserId: [], legacyPassword: [] }],
  admin: [{ adminToken: [] }],
  metrics: [{ metricsToken: [] }],
  none: [],
};

const SECURITY_SCHEMES: Schema = {
  merchantToken: { type: 'http', scheme: 'bearer', description: 'A merchant’s access token, allowed for the entityId the request names.' },
  legacyUserId: {
    type: 'apiKey', in: 'query', name: 'authentication.userId',
    description: 'Legacy credentials, with authentication.password, in the query string or the form body, without an Authorization header; the header decides when both are sent.',
  },
  legacyPassword: { type: 'apiKey', in: 'query', name: 'authentication.password', description: 'The password of the legacy pair.' },
  adminToken: { type: 'http', scheme: 'bearer', description: 'The operator’s ADMIN_TOKEN.' },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN.' },
};

const envelope = (description: string): Answer => ({ description, schema: 'Envelope' });

/** What every operation of a kind of caller may answer, besides its own. */
const ANSWERS_OF: Readonly<Record<Security, Readonly<Record<number, Answer>>>> = {
  merchant: {
    400: envelope('Refused: a bad or missing parameter (200.300.404 with parameterErrors), over a request limit (800.120.100), ...'),
    401: envelope('Missing or malformed Authorization header (800.900.300).'),
    403: envelope('Unknown token or legacy pair, or not allowed for the entityId (800.900.300).'),
  },
  admin: {
    400: envelope('Refused: a bad field (200.300.404 with parameterErrors naming each); nothing was written.'),
    401: envelope('Missing or malformed Authorization header (800.900.300).'),
    403: envelope('Not the admin token (800.900.300).'),
  },
  metrics: {},
  none: {},
};

const CODES_OF: Readonly<Record<Security, readonly Result[]>> = {
  merchant: [RESULTS.invalidParameter, RESULTS.invalidAuthentication, RESULTS.throttled, RESULTS.invalidRequestStructure],
  admin: [RESULTS.successfulRequest, RESULTS.invalidParameter, RESULTS.invalidAuthentication, RESULTS.throttled, RESULTS.invalidRequestStructure],
  metrics: [],
  none: [],
};

const IDEMPOTENCY_KEY: Schema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'The same key and parameters give the same answer and one resource (24 hours); other parameters are refused.',
  schema: { type: 'string', pattern: '^[ -~]{1,255}$' },
};

/** A merchant's request names the entity it acts for (http/auth.ts requireMerchant), or its alias. */
const ENTITY_ID_REQUIRED: Schema = {
  properties: { entityId: { description: 'The entity the request acts for.' } },
  anyOf: [{ required: ['entityId'] }, { required: ['authentication.entityId'] }],
};

/** The component holding the parameters of a request kind: `PaymentRequest`, `BackOfficeRequest`, ... */
export function requestComponentOf(kind: Operation): string {
  return `${kind.charAt(0).toUpperCase()}${kind.slice(1)}Request`;
}

function parameterOf(item: ParameterItem, location: 'query', security: Security): Schema {
  if (typeof item !== 'string') {
    return { name: item.name, in: location, required: item.required ?? false, description: item.description, schema: item.schema };
  }
  const spec = catalogueSpec(item);
  const schema = valueSchemaOf(spec);
  // The authentication of a merchant's request requires the entity it acts for (http/auth.ts requireMerchant).
  const required = item === 'entityId' && security === 'merchant';
  const description = required ? 'The entity the request acts for (authentication.entityId is its alias).' : (schema.description as string | undefined) ?? 'See the parameter catalogue.';
  return { name: item, in: location, required, description, schema };
}

function formSchemaOf(entry: OperationEntry): Schema | undefined {
  const form = entry.form;
  if (form === undefined) return undefined;
  if (form === 'catalogue') return { $ref: '#/components/schemas/CatalogueParameters' };
  if (typeof form === 'string') {
    const kind = { $ref: `#/components/schemas/${requestComponentOf(form)}` };
    return entry.security === 'merchant' ? { allOf: [kind, ENTITY_ID_REQUIRED] } : kind;
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const item of form) {
    const parameter = parameterOf(item, 'query', entry.security);
    properties[parameter.name as string] = { ...(parameter.schema as Schema), description: parameter.description };
    if (parameter.required) required.push(parameter.name as string);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function responseOf(answer: Answer): Schema {
  if (answer.contentType === 'none') return { description: answer.description };
  const contentType = answer.contentType ?? 'application/json';
  const schema = answer.schema ? { $ref: `#/components/schemas/${answer.schema}` } : contentType === 'text/html' || contentType.startsWith('text/') ? { type: 'string' } : undefined;
  return { description: answer.description, content: { [contentType]: schema ? { schema } : {} } };
}

/** An operation's result codes: its own and its caller's, once each, in code order. */
function resultCodesOf(entry: OperationEntry): Result[] {
  const codes = new Map<string, Result>();
  for (const result of [...CODES_OF[entry.security], ...(entry.codes ?? [])]) codes.set(result.code, { code: result.code, description: result.description });
  return [...codes.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** The codes the gateway names (RESULTS) and every code an operation lists, each with its description, in code order. */
function resultCodeCatalogue(entries: readonly OperationEntry[]): Result[] {
  const codes = new Map<string, Result>(Object.values(RESULTS).map(({ code, description }) => [code, { code, description }]));
  for (const entry of entries) for (const result of resultCodesOf(entry)) codes.set(result.code, result);
  return [...codes.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** `getV1PaymentsId`; `/` is the home, and a path with a trailing slash its index. */
function operationIdOf(route: DocumentedRoute): string {
  const words = route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_match, next: string | undefined) => (next ?? '').toUpperCase());
  const name = route.path === '/' ? 'Home' : route.path.endsWith('/') ? `${words}Index` : words;
  return `${route.method.toLowerCase()}${name}`;
}

function operationOf(route: DocumentedRoute, entry: OperationEntry, has405: boolean): Schema {
  const pathParameters = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name = '']) => {
    const kind = route.ids.get(name);
    return { name, in: 'path', required: true, description: kind ? `A ${kind} id.` : 'A path segment.', schema: { type: 'string', ...(kind ? { pattern: PATH_ID_PATTERNS[kind] } : {}) } };
  });
  const parameters = [
    ...pathParameters,
    ...(entry.query ?? []).map((item) => parameterOf(item, 'query', entry.security)),
    ...(entry.idempotent ? [IDEMPOTENCY_KEY] : []),
  ];
  const form = formSchemaOf(entry);
  const requestBody = form
    ? { required: true, content: { 'application/x-www-form-urlencoded': { schema: form } } }
    : entry.json
      ? { required: true, content: { 'application/json': { schema: entry.json } } }
      : undefined;
  const answers: Record<number, Answer> = { ...ANSWERS_OF[entry.security], ...entry.answers };
  if (has405) answers[405] = envelope('Another method than the path has (200.100.103); Allow names them.');
  if (requestBody) answers[413] ??= envelope('A body over its limit (200.300.404).');
  if (entry.idempotent) answers[409] ??= envelope('A request with this Idempotency-Key is still running (200.100.103): send it again once it has its answer.');
  const rules = entry.rules ? CONDITIONS[entry.rules].rules : [];
  const description = [entry.description, ...rules].filter(Boolean).join('\n\n');
  return {
    operationId: operationIdOf(route),
    summary: entry.summary,
    ...(description !== '' ? { description } : {}),
    tags: [entry.tag],
    security: SECURITY[entry.security],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: Object.fromEntries(Object.entries(answers).map(([status, answer]) => [status, responseOf(answer)])),
    // The codes only: their descriptions are the document's x-result-codes.
    'x-result-codes': resultCodesOf(entry).map((result) => result.code),
    ...(entry.classes ? { 'x-result-code-classes': [...entry.classes] } : {}),
  };
}

/** `/v1/payments/:id` → `/v1/payments/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export interface DocumentOptions {
  /** The gateway's address (PUBLIC_URL). */
  readonly serverUrl: string;
  readonly version: string;
  /** The recorded exchanges shown as examples (examples.ts), by operation. */
  readonly examples?: Examples;
}

/** The document of the app whose route table `rows` is. Throws on a route the operation table does not describe. */
export function openApiDocument(rows: readonly RouteRow[], options: DocumentOptions): Schema {
  const routes = documentedRoutes(rows);
  const undescribed = routes.filter((route) => OPERATIONS[route.key] === undefined).map((route) => route.key);
  if (undescribed.length > 0) throw new Error(`routes without an entry in server/openapi/operations.ts: ${undescribed.join(', ')}`);
  const with405 = pathsWith405(rows);
  const paths: Record<string, Record<string, Schema>> = {};
  const kinds = new Set<Operation>();
  for (const route of routes) {
    const entry = OPERATIONS[route.key] as OperationEntry;
    if (typeof entry.form === 'string' && entry.form !== 'catalogue') kinds.add(entry.form);
    const path = openApiPath(route.path);
    const operation = withExamples(operationOf(route, entry, with405.has(route.path)), route.path, options.examples?.[route.key]);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation };
  }
  const used = new Set(routes.map((route) => (OPERATIONS[route.key] as OperationEntry).tag));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment gateway API',
      version: options.version,
      description:
        'Every endpoint of this gateway, generated from its route table and its parameter catalogue. Requests are ' +
        'application/x-www-form-urlencoded (the admin API: JSON); every JSON answer carries result{code, description}, ' +
        'buildNumber, timestamp and ndc. Each operation lists its result codes (x-result-codes) and the classes of codes ' +
        'it may answer (x-result-code-classes, patterns in the document’s x-result-code-classes).',
    },
    servers: [{ url: options.serverUrl }],
    tags: (Object.keys(TAGS) as Tag[]).filter((tag) => used.has(tag)).map((tag) => ({ name: tag, description: TAGS[tag] })),
    paths,
    components: {
      schemas: {
        ...ANSWER_SCHEMAS,
        CatalogueParameters: catalogueComponent(),
        ...Object.fromEntries([...kinds].map((kind) => [requestComponentOf(kind), requestSchema(kind, '#/components/schemas/CatalogueParameters')])),
      },
      securitySchemes: SECURITY_SCHEMES,
    },
    'x-result-code-classes': Object.fromEntries(Object.entries(RESULT_CLASSES).map(([name, pattern]) => [name, patternOf(pattern)])),
    'x-result-codes': resultCodeCatalogue(routes.map((route) => OPERATIONS[route.key] as OperationEntry)),
  };
}
