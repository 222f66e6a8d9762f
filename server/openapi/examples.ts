import { existsSync, readFileSync } from 'node:fs';
import { packagePath } from '../paths.ts';

/**
 * The document's examples: real exchanges with a gateway, recorded by answers.test.ts (which checks every answer
 * against the document) into examples.json, ids and secrets replaced by stable stand-ins. The fixture cannot rot in
 * silence: answers.test.ts fails when what the gateway answers today differs in shape from it (a field gained or lost,
 * another status, an example no longer made), and `UPDATE_OPENAPI_EXAMPLES=1 npx vitest run
 * server/openapi/answers.test.ts` writes it anew. document.ts puts each exchange where OpenAPI keeps examples: its form
 * or JSON body on the request body, its query and path values on the parameters, its answer on the response.
 */

export interface ExampleRequest {
  readonly method: string;
  /** The path as called, ids in place. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly form?: Readonly<Record<string, string>>;
  readonly json?: unknown;
}

export interface Exchange {
  readonly summary: string;
  readonly request: ExampleRequest;
  readonly status: number;
  /** The JSON answer (none for a page, a script or a file). */
  readonly answer?: unknown;
}

/** By operation (`POST /v1/payments`, as the route table lists it), then by the example's name. */
export type Examples = Readonly<Record<string, Readonly<Record<string, Exchange>>>>;

export const EXAMPLES_FILE = packagePath('server/openapi/examples.json');

/** The recorded examples; none when the file is missing (the document is complete without them). */
export function loadExamples(): Examples {
  if (!existsSync(EXAMPLES_FILE)) return {};
  return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Examples;
}

type Node = Readonly<Record<string, unknown>>;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The values of a route's path parameters (`/v1/payments/:id`) in a path as called. */
function pathValuesOf(routePath: string, path: string): Record<string, string> {
  const names: string[] = [];
  const pattern = routePath
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => {
      if (!part.startsWith(':')) return escapeRegExp(part);
      names.push(part.slice(1));
      return '([^/]+)';
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(path);
  return match ? Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')])) : {};
}

/** A map of named examples with one more. */
const adding = (examples: unknown, name: string, summary: string, value: unknown): Node => ({ ...(examples as Node | undefined), [name]: { summary, value } });

/**
 * The operation with its exchanges as OpenAPI's examples: each one's path and query values on its parameters, its
 * body on the request body, its JSON answer on the response of its status. What the operation does not document (a
 * status, a parameter) is left out: answers.test.ts checks the fixture against the document.
 */
export function withExamples(operation: Node, routePath: string, exchanges: Readonly<Record<string, Exchange>> | undefined): Node {
  if (!exchanges) return operation;
  let parameters = (operation.parameters as Node[] | undefined)?.map((parameter) => ({ ...parameter }));
  let requestBody = operation.requestBody as Node | undefined;
  const responses: Record<string, Node> = { ...(operation.responses as Record<string, Node>) };
  for (const [name, exchange] of Object.entries(exchanges)) {
    const { request, summary } = exchange;
    const values: Record<string, string> = { ...pathValuesOf(routePath, request.path), ...request.query };
    parameters = parameters?.map((parameter) => {
      const value = values[parameter.name as string];
      return value === undefined || parameter.in === 'header' ? parameter : { ...parameter, examples: adding(parameter.examples, name, summary, value) };
    });
    const body = request.form ?? request.json;
    const content = requestBody?.content as Record<string, Node> | undefined;
    if (body !== undefined && content) {
      const type = request.form ? 'application/x-www-form-urlencoded' : 'application/json';
      const media = content[type];
      if (media) requestBody = { ...requestBody, content: { ...content, [type]: { ...media, examples: adding(media.examples, name, summary, body) } } };
    }
    const response = responses[String(exchange.status)];
    const answers = response?.content as Record<string, Node> | undefined;
    const json = answers?.['application/json'];
    if (exchange.answer !== undefined && response && json) {
      responses[String(exchange.status)] = { ...response, content: { ...answers, 'application/json': { ...json, examples: adding(json.examples, name, summary, exchange.answer) } } };
    }
  }
  return { ...operation, ...(parameters ? { parameters } : {}), ...(requestBody ? { requestBody } : {}), responses };
}
