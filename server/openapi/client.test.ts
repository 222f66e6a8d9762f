import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

/**
 * A client generated from the document, as docs/api.md tells a merchant's developer to make one (issue 34 §3): the
 * types openapi-typescript makes of a running gateway's /v1/openapi.json, the docs' own openapi-fetch example
 * type-checked against them (it reads `customer.email` and `threeDSecure.eci` of a payment), the types closed where
 * the answers are (a field no answer has does not compile), and the example run against that gateway.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_TOKEN = 'admin-token-of-the-client-test-0123456789';

/** The TypeScript block of docs/api.md's section on generated clients. */
function docsExample(): string {
  const page = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const section = page.slice(page.indexOf('### A generated client'));
  const block = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error('docs/api.md: no ts block in "A generated client"');
  return block;
}

/** The diagnostics of type-checking `files` (strict, as a merchant's project would be), as text. */
function typeErrors(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    skipLibCheck: true,
    noUncheckedIndexedAccess: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    return `${diagnostic.file?.fileName.split('/').pop() ?? ''}:${where ? where.line + 1 : '?'} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('a client generated from the OpenAPI document', () => {
  let t: TestGateway;
  // Inside the repository (its node_modules resolve), in a folder git ignores.
  const dir = join(ROOT, 'test-results', `openapi-client-${process.pid}`);
  beforeAll(async () => {
    t = await startTestGateway('PGlite', { adminToken: ADMIN_TOKEN });
    const document = (await (await t.gateway.app.request('/v1/openapi.json')).json()) as OpenAPI3;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gateway.d.ts'), astToString(await openapiTS(document, { silent: true })));
    writeFileSync(join(dir, 'client.ts'), docsExample());
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks the example of docs/api.md, which reads customer.email and threeDSecure.eci, against the generated types', () => {
    const example = readFileSync(join(dir, 'client.ts'), 'utf8');
    expect(example).toContain('data.customer?.email');
    expect(example).toContain('data.threeDSecure?.eci');
    expect(typeErrors([join(dir, 'client.ts')])).toEqual([]);
  }, 60_000);

  it('types every answer closed: a field no answer has, or the wrong type, does not compile', () => {
    writeFileSync(
      join(dir, 'closed.ts'),
      `import type { components, paths } from './gateway';
type Payment = components['schemas']['Payment'];
type Answer = paths['/v1/payments']['post']['responses']['200']['content']['application/json'];
declare const payment: Payment;
declare const answer: Answer;
const email: string | undefined = payment.customer?.email;
const eci: string | undefined = answer.threeDSecure?.eci;
const note: string | undefined = payment.customParameters?.SHOPPER_note;
const url: string | undefined = payment.redirect?.url;
const shopperResultUrl: string | undefined = payment.shopperResultUrl;
const item: string | undefined = payment.cart?.items?.[0]?.name;
const code: string = payment.result.code;
// @ts-expect-error no customer has a nickname
payment.customer?.nickname;
// @ts-expect-error the eci is a string
const wrong: number | undefined = payment.threeDSecure?.eci;
// @ts-expect-error custom parameters are strings
const count: number | undefined = payment.customParameters?.count;
// @ts-expect-error no payment has this field
payment.surprise;
type Transaction = components['schemas']['QueryRecord'];
declare const record: Transaction;
const shortId: string = record.shortId;
export { email, eci, note, url, shopperResultUrl, item, code, wrong, count, shortId };
`,
    );
    expect(typeErrors([join(dir, 'closed.ts')])).toEqual([]);
  }, 60_000);

  it('runs the example of docs/api.md against the gateway: a form goes, a typed answer comes back', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(dir, 'client.ts')], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_URL: t.url, TOKEN: t.token, ENTITY: t.entityId },
      timeout: 60_000,
    });
    expect(stdout.trim().split('\n')).toEqual(['000.100.110 jane.jones@example.com 05 4711', '0091']);
  }, 90_000);
});
