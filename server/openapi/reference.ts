import { escapeHtml } from '../http/html.ts';

/**
 * The reference at /docs: the OpenAPI document (document.ts) as a page a person reads — the endpoints by tag, each
 * with its parameters, answers and result codes, then the parameter catalogue and the result codes — and the list of
 * documentation pages. Rendered from the document itself, so the page and the JSON say the same. Plain HTML: no
 * script, no style, every text escaped.
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

function operationSection(method: string, path: string, operation: Node, descriptions: ReadonlyMap<string, unknown>, schemas: Node): string {
  const description = String(operation.description ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `<p>${text(line)}</p>`)
    .join('\n');
  return [
    `<section id="${text(anchorOf(`op-${String(operation.operationId)}`))}">`,
    `<h3><code>${text(method.toUpperCase())} ${text(path)}</code>: ${text(operation.summary)}</h3>`,
    `<p>${securityOf(operation)}</p>`,
    description,
    parametersOf(operation, schemas),
    responsesOf(operation),
    resultCodesOf(operation, descriptions),
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

/** The whole page: the reference of `document`, and links to the documentation pages `pages` (docs/*.md). */
export function referencePage(document: Node, pages: readonly string[]): string {
  const info = objectAt(document, 'info');
  const tags = listAt(document, 'tags');
  const byTag = new Map<string, string[]>(tags.map((tag) => [String(tag.name), []]));
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  const descriptions = new Map(listAt(document, 'x-result-codes').map((result) => [String(result.code), result.description]));
  for (const [path, methods] of Object.entries(objectAt(document, 'paths'))) {
    for (const [method, operation] of Object.entries(methods as Node)) {
      const tag = String(listAt(operation, 'tags')[0] ?? '');
      byTag.get(tag)?.push(operationSection(method, path, operation as Node, descriptions, schemas));
    }
  }
  const contents = [
    ...tags.map((tag) => `<li><a href="#tag-${text(anchorOf(String(tag.name)))}">${text(tag.name)}</a></li>`),
    '<li><a href="#schemas">Parameters and answers</a></li>',
    '<li><a href="#result-codes">Result codes</a></li>',
    '<li><a href="#documentation">Documentation pages</a></li>',
  ];
  const tagSections = tags.map((tag) => `<section id="tag-${text(anchorOf(String(tag.name)))}">\n<h2>${text(tag.name)}</h2>\n<p>${text(tag.description)}</p>\n${(byTag.get(String(tag.name)) ?? []).join('\n')}\n</section>`);
  const documentation = pages.map((name) => `<li><a href="/docs/${text(encodeURIComponent(name))}">${text(name)}</a></li>`).join('\n');
  const body = [
    `<h1>${text(info.title)} ${text(info.version)}</h1>`,
    '<p><a href="/">Home</a> · <a href="/v1/openapi.json">This reference as OpenAPI 3.1 (JSON)</a> · <a href="#documentation">Documentation pages</a></p>',
    `<p>${text(info.description)}</p>`,
    `<nav>\n<h2>Contents</h2>\n<ul>\n${contents.join('\n')}\n</ul>\n</nav>`,
    ...tagSections,
    componentsSection(document),
    resultCodesSection(document),
    `<section id="documentation">\n<h2>Documentation pages</h2>\n<ul>\n${documentation}\n</ul>\n</section>`,
  ];
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text(info.title)}</title></head>\n<body>\n${body.join('\n')}\n</body></html>\n`;
}
