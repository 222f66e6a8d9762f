import { createHash } from 'node:crypto';
import { escapeHtml } from '../http/html.ts';

/**
 * The reference at /docs: the OpenAPI document (document.ts) as a page a person reads — the endpoints by tag, each
 * with its parameters, answers, result codes and examples (the document's: real exchanges, as `curl` and the JSON
 * answered), then the parameter catalogue and the result codes — and the list of documentation pages. Rendered from
 * the document itself, so the page and the JSON say the same. A sidebar lists every tag and operation; a filter field
 * narrows them. Every text escaped; its one style sheet and one script are inline, allowed by their hashes in the
 * page's Content-Security-Policy (REFERENCE_CSP) and nothing else; without the script the page is whole, only the
 * filter is not shown.
 */

type Node = Readonly<Record<string, unknown>>;

const text = (value: unknown): string => escapeHtml(String(value ?? ''));
const code = (value: unknown): string => `<code>${text(value)}</code>`;
const objectAt = (node: unknown, key: string): Node => ((node as Node | undefined)?.[key] as Node | undefined) ?? {};
const listAt = (node: unknown, key: string): Node[] => ((node as Node | undefined)?.[key] as Node[] | undefined) ?? [];
const anchorOf = (name: string): string => name.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
const COMPONENT = '#/components/schemas/';

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '';
  const header = `<tr>${head.map((cell) => `<th>${text(cell)}</th>`).join('')}</tr>`;
  return `<table>\n<thead>${header}</thead>\n<tbody>\n${rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('\n')}\n</tbody>\n</table>`;
}

/** What a value schema allows: its length, values and pattern. */
function constraintsOf(schema: Node): string {
  const parts: string[] = [];
  const { minLength, maxLength, pattern } = schema;
  if (minLength !== undefined || maxLength !== undefined) parts.push(`${text(minLength ?? 0)} to ${text(maxLength ?? '…')} characters`);
  const values = (schema.enum as unknown[] | undefined) ?? (schema.const !== undefined ? [schema.const] : undefined);
  if (values) parts.push(`one of ${values.map(code).join(', ')}`);
  if (pattern !== undefined) parts.push(code(pattern));
  if (schema.$ref !== undefined) parts.push(`see <a href="#schema-${anchorOf(String(schema.$ref).slice(COMPONENT.length))}">${text(String(schema.$ref).slice(COMPONENT.length))}</a>`);
  // What an answer's field holds: a list of what, a map of what, one of several, an object of which fields.
  const shown = (inner: Node) => constraintsOf(inner) || text(inner.type ?? 'any value');
  if (schema.type === 'array' && schema.items !== undefined) parts.push(`a list of ${shown(schema.items as Node)}`);
  const mapped = schema.additionalProperties;
  if (typeof mapped === 'object' && mapped !== null) parts.push(`a map${schema.propertyNames ? ` (keys ${code(objectAt(schema, 'propertyNames').pattern)})` : ''} of ${shown(mapped as Node)}`);
  if (Array.isArray(schema.anyOf)) parts.push((schema.anyOf as Node[]).map(shown).join(' or '));
  if (schema.properties !== undefined) parts.push(`an object of ${Object.keys(objectAt(schema, 'properties')).map(code).join(', ')}`);
  return parts.join('; ');
}

const SECURITY_NAMES: Readonly<Record<string, string>> = {
  merchantToken: 'a merchant’s bearer token',
  legacyUserId: 'the legacy pair authentication.userId',
  legacyPassword: 'authentication.password',
  adminToken: 'the admin token (ADMIN_TOKEN)',
  metricsToken: 'the metrics token (METRICS_TOKEN)',
};

function securityOf(operation: Node): string {
  const requirements = listAt(operation, 'security');
  if (requirements.length === 0) return 'No credentials.';
  const names = requirements.map((requirement) => Object.keys(requirement).map((name) => SECURITY_NAMES[name] ?? name).join(' and '));
  return `Credentials: ${text(names.join(', or '))}.`;
}

/** The parameters a request kind (a component such as PaymentRequest) requires, with the catalogue's formats. */
function requiredOfKind(name: string, schemas: Node, location: string): string[][] {
  const catalogue = objectAt(schemas.CatalogueParameters, 'properties');
  const parts = listAt(schemas[name], 'allOf').filter((part) => part.$ref === undefined);
  const narrowed: Node = Object.assign({}, ...parts.map((part) => objectAt(part, 'properties')));
  return parts
    .flatMap((part) => (part.required as string[] | undefined) ?? [])
    .map((parameter) => [code(parameter), text(location), 'yes', constraintsOf({ ...objectAt(catalogue, parameter), ...objectAt(narrowed, parameter) }), text(objectAt(catalogue, parameter).description)]);
}

/** The rows of an object schema's properties (a form or JSON body), or a pointer to the request kind it is. */
function bodyRows(schema: Node, location: string, schemas: Node): string[][] {
  const parts = [schema, ...listAt(schema, 'allOf')];
  const rows: string[][] = [];
  for (const part of parts) {
    const ref = part.$ref as string | undefined;
    if (ref !== undefined) {
      const name = ref.slice(COMPONENT.length);
      rows.push(...requiredOfKind(name, schemas, location));
      rows.push([`<a href="#schema-${anchorOf(name)}">any parameter of the catalogue</a>`, text(location), 'as the request kind says', `checked as <a href="#schema-${anchorOf(name)}">${text(name)}</a>`, '']);
    }
    const required = new Set((part.required as string[] | undefined) ?? []);
    // Names one of which is required (entityId or its alias).
    const alternatives = listAt(part, 'anyOf').flatMap((alternative) => (alternative.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(objectAt(part, 'properties'))) {
      const value = property as Node;
      const requirement = required.has(name) ? 'yes' : alternatives.includes(name) ? `yes, or ${alternatives.filter((other) => other !== name).map(code).join(', ')}` : 'no';
      rows.push([code(name), text(location), requirement, constraintsOf(value), text(value.description)]);
    }
  }
  return rows;
}

function parametersOf(operation: Node, schemas: Node): string {
  const rows = listAt(operation, 'parameters').map((parameter) => [
    code(parameter.name),
    text(parameter.in),
    parameter.required ? 'yes' : 'no',
    constraintsOf(objectAt(parameter, 'schema')),
    text(parameter.description),
  ]);
  for (const [type, media] of Object.entries(objectAt(objectAt(operation, 'requestBody'), 'content'))) {
    rows.push(...bodyRows(objectAt(media, 'schema'), type === 'application/json' ? 'JSON body' : 'form body', schemas));
  }
  return table(['Parameter', 'In', 'Required', 'Format', 'Description'], rows);
}

function responsesOf(operation: Node): string {
  const rows = Object.entries(objectAt(operation, 'responses')).map(([status, response]) => {
    const content = Object.entries(objectAt(response, 'content'));
    const types = content.map(([type, media]) => {
      const ref = objectAt(media, 'schema').$ref as string | undefined;
      const name = ref?.slice(COMPONENT.length);
      return name ? `${code(type)} <a href="#schema-${anchorOf(name)}">${text(name)}</a>` : code(type);
    });
    return [text(status), types.join('<br>'), text((response as Node).description)];
  });
  return table(['Status', 'Answer', 'When'], rows);
}

function resultCodesOf(operation: Node, descriptions: ReadonlyMap<string, unknown>): string {
  const codes = ((operation['x-result-codes'] as string[] | undefined) ?? []).map((code) => ({ code, description: descriptions.get(code) }));
  const classes = (operation['x-result-code-classes'] as string[] | undefined) ?? [];
  if (codes.length === 0 && classes.length === 0) return '';
  const classText = classes.length > 0 ? `<p>And codes of the classes ${classes.map((name) => `<a href="#class-${anchorOf(name)}">${text(name)}</a>`).join(', ')}.</p>` : '';
  return `<details><summary>Result codes (${codes.length})</summary>\n${table(['Code', 'Description'], codes.map((result) => [code(result.code), text(result.description)]))}\n${classText}</details>`;
}

/** What the filter matches an operation by: its method, path, summary, id and tag. */
function searchTextOf(method: string, path: string, operation: Node): string {
  return [method, path, operation.summary, operation.operationId, ...listAt(operation, 'tags').map(String)].join(' ').toLowerCase();
}

/** A value as one shell word. */
const shellWord = (value: string): string => `'${value.replaceAll("'", "'\\''")}'`;

/** The token variable an example's `curl` sends, by the operation's security. */
function tokenOf(operation: Node): string | undefined {
  const first = listAt(operation, 'security')[0];
  if (!first) return undefined;
  if ('adminToken' in first) return '$ADMIN_TOKEN';
  if ('metricsToken' in first) return '$METRICS_TOKEN';
  return '$TOKEN';
}

interface ExampleParts {
  summary: string;
  path: Record<string, string>;
  query: Record<string, string>;
  body?: { readonly type: string; readonly value: unknown };
  answer?: { readonly status: string; readonly value: unknown };
}

/** The document's examples of an operation, by name: each one's parameters, body and answer put back together. */
function examplesOf(operation: Node): Map<string, ExampleParts> {
  const examples = new Map<string, ExampleParts>();
  const partsOf = (name: string, summary: unknown) => {
    let parts = examples.get(name);
    if (!parts) {
      parts = { summary: String(summary ?? name), path: {}, query: {} };
      examples.set(name, parts);
    }
    return parts;
  };
  for (const parameter of listAt(operation, 'parameters')) {
    for (const [name, example] of Object.entries(objectAt(parameter, 'examples'))) {
      const parts = partsOf(name, (example as Node).summary);
      const value = String((example as Node).value);
      if (parameter.in === 'path') parts.path[String(parameter.name)] = value;
      else if (parameter.in === 'query') parts.query[String(parameter.name)] = value;
    }
  }
  for (const [type, media] of Object.entries(objectAt(objectAt(operation, 'requestBody'), 'content'))) {
    for (const [name, example] of Object.entries(objectAt(media, 'examples'))) partsOf(name, (example as Node).summary).body = { type, value: (example as Node).value };
  }
  for (const [status, response] of Object.entries(objectAt(operation, 'responses'))) {
    for (const media of Object.values(objectAt(response, 'content'))) {
      for (const [name, example] of Object.entries(objectAt(media, 'examples'))) partsOf(name, (example as Node).summary).answer = { status, value: (example as Node).value };
    }
  }
  return examples;
}

/** An example's request as a `curl` command against the document's server. */
function curlOf(method: string, path: string, operation: Node, parts: ExampleParts, serverUrl: string): string {
  const filled = path.replace(/\{([^}]+)\}/g, (whole, name: string) => encodeURIComponent(parts.path[name] ?? whole));
  const query = new URLSearchParams(parts.query).toString();
  const lines = [`curl ${method === 'get' || (method === 'post' && parts.body) ? '' : `-X ${method.toUpperCase()} `}${shellWord(`${serverUrl}${filled}${query ? `?${query}` : ''}`)}`];
  const token = tokenOf(operation);
  if (token) lines.push(`-H "Authorization: Bearer ${token}"`);
  if (parts.body?.type === 'application/json') {
    lines.push("-H 'Content-Type: application/json'", `-d ${shellWord(JSON.stringify(parts.body.value))}`);
  } else if (parts.body) {
    for (const [name, value] of Object.entries(parts.body.value as Record<string, string>)) lines.push(`--data-urlencode ${shellWord(`${name}=${value}`)}`);
  }
  return lines.join(' \\\n  ');
}

function examplesSection(method: string, path: string, operation: Node, serverUrl: string): string {
  const examples = [...examplesOf(operation)];
  if (examples.length === 0) return '';
  return examples
    .map(([name, parts]) => {
      const answer = parts.answer
        ? `<p>Answer: ${text(parts.answer.status)}</p>\n<pre><code>${text(JSON.stringify(parts.answer.value, null, 2))}</code></pre>`
        : '';
      return `<details class="example" id="${text(anchorOf(`ex-${String(operation.operationId)}-${name}`))}"><summary>Example: ${text(parts.summary)}</summary>\n<pre><code>${text(curlOf(method, path, operation, parts, serverUrl))}</code></pre>\n${answer}</details>`;
    })
    .join('\n');
}

function operationSection(method: string, path: string, operation: Node, descriptions: ReadonlyMap<string, unknown>, schemas: Node, serverUrl: string): string {
  const description = String(operation.description ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `<p>${text(line)}</p>`)
    .join('\n');
  return [
    `<section class="operation" id="${text(anchorOf(`op-${String(operation.operationId)}`))}" data-search="${text(searchTextOf(method, path, operation))}">`,
    `<h3><code>${text(method.toUpperCase())} ${text(path)}</code>: ${text(operation.summary)}</h3>`,
    `<p>${securityOf(operation)}</p>`,
    description,
    parametersOf(operation, schemas),
    responsesOf(operation),
    resultCodesOf(operation, descriptions),
    examplesSection(method, path, operation, serverUrl),
    '</section>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** The parameters that need others (`dependentRequired`). */
function dependentTable(schema: Node): string {
  const dependent = Object.entries(objectAt(schema, 'dependentRequired'));
  return table(['With', 'Also required'], dependent.map(([field, others]) => [code(field), (others as string[]).map(code).join(', ')]));
}

/** The components: the request kinds with their rules, the catalogue's parameters one per row, the answers' schemas. */
function componentsSection(document: Node): string {
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  const sections: string[] = [];
  for (const [name, schema] of Object.entries(schemas)) {
    const node = schema as Node;
    const body: string[] = [];
    if (node.description !== undefined) body.push(...String(node.description).split('\n').map((line) => `<p>${text(line)}</p>`));
    if (name === 'CatalogueParameters') {
      const rows = [
        ...Object.entries(objectAt(node, 'properties')).map(([parameter, value]) => [code(parameter), constraintsOf(value as Node), text((value as Node).description)]),
        ...Object.entries(objectAt(node, 'patternProperties')).map(([pattern, value]) => [
          `${code((value as Node)['x-parameter'])}<br>names ${code(pattern)}`,
          constraintsOf(value as Node),
          text((value as Node).description),
        ]),
      ];
      body.push(table(['Parameter', 'Format', 'Description'], rows));
      body.push(dependentTable(node));
    } else {
      for (const part of [node, ...listAt(node, 'allOf'), ...listAt(node, 'anyOf')]) {
        if (part.$ref !== undefined) body.push(`<p>${constraintsOf(part)}</p>`);
        // A map (custom parameters, result details) or a list: what it holds.
        if (part.properties === undefined && (typeof part.additionalProperties === 'object' || part.type === 'array')) body.push(`<p>${constraintsOf(part)}</p>`);
        const required = (part.required as string[] | undefined) ?? [];
        if (required.length > 0) body.push(`<p>Required: ${required.map(code).join(', ')}</p>`);
        const properties = Object.entries(objectAt(part, 'properties'));
        if (properties.length > 0) body.push(table(['Field', 'Format', 'Description'], properties.map(([field, value]) => [code(field), constraintsOf(value as Node) || text((value as Node).type), text((value as Node).description)])));
        body.push(dependentTable(part));
      }
    }
    sections.push(`<section id="schema-${text(anchorOf(name))}">\n<h3>${text(name)}</h3>\n${body.filter((part) => part !== '').join('\n')}\n</section>`);
  }
  return `<section id="schemas">\n<h2>Parameters and answers</h2>\n${sections.join('\n')}\n</section>`;
}

function resultCodesSection(document: Node): string {
  const classes = Object.entries(objectAt(document, 'x-result-code-classes')).map(([name, pattern]) => [`<span id="class-${text(anchorOf(name))}">${text(name)}</span>`, code(pattern)]);
  const codes = listAt(document, 'x-result-codes').map((result) => [code(result.code), text(result.description)]);
  return `<section id="result-codes">\n<h2>Result codes</h2>\n<p>Classes, as merchant code tells them apart (a code is of the first class whose pattern it matches):</p>\n${table(['Class', 'Pattern'], classes)}\n<p>The gateway’s own codes:</p>\n${table(['Code', 'Description'], codes)}\n</section>`;
}

/** The page's style: a sidebar beside the reference, tables and examples readable. */
const STYLE = `
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1b1f24; }
#sidebar { position: fixed; top: 0; bottom: 0; left: 0; width: 19rem; overflow-y: auto; padding: 1rem; box-sizing: border-box; border-right: 1px solid #d0d7de; background: #f6f8fa; font-size: 13px; }
#sidebar ul { list-style: none; margin: 0; padding: 0; }
#sidebar ul ul { margin: 0 0 0.75rem 0.5rem; }
#sidebar li { margin: 0.15rem 0; }
#sidebar a { text-decoration: none; color: #0b57d0; }
#sidebar .group > a { font-weight: 600; color: #1b1f24; }
#filter { width: 100%; box-sizing: border-box; padding: 0.4rem; margin-bottom: 0.75rem; font: inherit; }
main { margin-left: 19rem; padding: 1rem 2rem; max-width: 72rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
pre { background: #f6f8fa; padding: 0.75rem; overflow-x: auto; font-size: 13px; }
section.operation { border-top: 1px solid #d0d7de; padding-top: 0.5rem; }
details.example > summary { cursor: pointer; color: #0b57d0; }
[hidden] { display: none !important; }
@media (max-width: 60rem) { #sidebar { position: static; width: auto; border-right: 0; } main { margin-left: 0; } }
`;

/** The filter: every operation (in the sidebar and the page) whose method, path, summary or tag has all the words typed. */
const SCRIPT = `
(() => {
  const input = document.getElementById('filter');
  const items = Array.from(document.querySelectorAll('[data-search]'));
  const groups = Array.from(document.querySelectorAll('[data-group]'));
  input.hidden = false;
  input.addEventListener('input', () => {
    const words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    for (const item of items) item.hidden = !words.every((word) => item.dataset.search.includes(word));
    for (const group of groups) group.hidden = words.length > 0 && !group.querySelector('[data-search]:not([hidden])');
  });
})();
`;

const hashOf = (source: string): string => `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;

/** The page's Content-Security-Policy: its own inline style and script, by their hashes, and nothing else. */
export const REFERENCE_CSP = `default-src 'none'; style-src ${hashOf(STYLE)}; script-src ${hashOf(SCRIPT)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** The whole page: the reference of `document`, and links to the documentation pages `pages` (docs/*.md). */
export function referencePage(document: Node, pages: readonly string[]): string {
  const info = objectAt(document, 'info');
  const tags = listAt(document, 'tags');
  const serverUrl = String(listAt(document, 'servers')[0]?.url ?? '');
  const byTag = new Map<string, { sections: string[]; links: string[] }>(tags.map((tag) => [String(tag.name), { sections: [], links: [] }]));
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  const descriptions = new Map(listAt(document, 'x-result-codes').map((result) => [String(result.code), result.description]));
  for (const [path, methods] of Object.entries(objectAt(document, 'paths'))) {
    for (const [method, operation] of Object.entries(methods as Node)) {
      const node = operation as Node;
      const group = byTag.get(String(listAt(node, 'tags')[0] ?? ''));
      if (!group) continue;
      group.sections.push(operationSection(method, path, node, descriptions, schemas, serverUrl));
      group.links.push(
        `<li data-search="${text(searchTextOf(method, path, node))}"><a href="#${text(anchorOf(`op-${String(node.operationId)}`))}"><code>${text(method.toUpperCase())} ${text(path)}</code></a><br>${text(node.summary)}</li>`,
      );
    }
  }
  const tagAnchor = (tag: Node) => `tag-${text(anchorOf(String(tag.name)))}`;
  const sidebar = [
    '<nav id="sidebar" aria-label="Operations">',
    '<input type="search" id="filter" placeholder="Filter: method, path, words" aria-label="Filter the operations" hidden>',
    '<ul>',
    ...tags.map((tag) => `<li class="group" data-group><a href="#${tagAnchor(tag)}">${text(tag.name)}</a>\n<ul>\n${(byTag.get(String(tag.name))?.links ?? []).join('\n')}\n</ul></li>`),
    `<li class="group"><a href="#schemas">Parameters and answers</a>\n<ul>\n${Object.keys(schemas).map((name) => `<li><a href="#schema-${text(anchorOf(name))}">${text(name)}</a></li>`).join('\n')}\n</ul></li>`,
    '<li class="group"><a href="#result-codes">Result codes</a></li>',
    '<li class="group"><a href="#documentation">Documentation pages</a></li>',
    '</ul>',
    '</nav>',
  ].join('\n');
  const tagSections = tags.map((tag) => `<section id="${tagAnchor(tag)}" data-group>\n<h2>${text(tag.name)}</h2>\n<p>${text(tag.description)}</p>\n${(byTag.get(String(tag.name))?.sections ?? []).join('\n')}\n</section>`);
  const documentation = pages.map((name) => `<li><a href="/docs/${text(encodeURIComponent(name))}">${text(name)}</a></li>`).join('\n');
  const main = [
    '<main>',
    `<h1>${text(info.title)} ${text(info.version)}</h1>`,
    '<p><a href="/">Home</a> · <a href="/v1/openapi.json">This reference as OpenAPI 3.1 (JSON)</a> · <a href="#documentation">Documentation pages</a></p>',
    `<p>${text(info.description)}</p>`,
    '<p>The examples are real exchanges with a test gateway (ids stand-ins): set <code>TOKEN</code> (and <code>ADMIN_TOKEN</code>) in your shell to run them.</p>',
    ...tagSections,
    componentsSection(document),
    resultCodesSection(document),
    `<section id="documentation">\n<h2>Documentation pages</h2>\n<ul>\n${documentation}\n</ul>\n</section>`,
    '</main>',
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text(info.title)}</title><style>${STYLE}</style></head>\n<body>\n${sidebar}\n${main.join('\n')}\n<script>${SCRIPT}</script>\n</body></html>\n`;
}
