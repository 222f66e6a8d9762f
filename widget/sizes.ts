import { gzipSync } from 'node:zlib';
import { renderBootstrap } from '../server/checkouts/bootstrap.ts';
import type { WidgetBuild } from '../server/widget/build.ts';

/**
 * Gzip sizes of what a shopper's browser downloads, measured one way for the size test (which enforces
 * the budgets) and for `npm run bench` (which prints them).
 */

const KB = 1024;

/**
 * Issue 3, 4, 14 and 25 budgets, gzip. `cardOnlyPage` is issue 25's: what a card-only page downloads from the gateway
 * until it is ready to pay (the second hosted field's files from the browser cache, the submit path included), with
 * @preact/signals in it. `cardOnlyCeiling` is the figure before issue 14 (30.5 KB, both hosted fields' files counted
 * in full), which it must never exceed again.
 */
export const BUDGETS = {
  bootstrap: 2 * KB,
  widget: 30 * KB,
  hostedFields: 6 * KB,
  language: 2 * KB,
  cardOnlyPage: 26 * KB,
  cardOnlyCeiling: 30.5 * KB,
} as const;

/** The hosted-field page's files: each of a card form's two frames (number, CVV) loads all three. */
export const HOSTED_FIELD_FILES = ['fields.html', 'js/fields.min.js', 'css/fields.min.css'] as const;

export interface WidgetSizes {
  /** paymentWidgets.js of a checkout with five stored cards (with their holders) and a long gateway URL. */
  readonly bootstrap: number;
  /** Widget JS + CSS for English: the entry module (static.min.js) and its stylesheet. */
  readonly widget: number;
  /** fields.html with its script and stylesheet. */
  readonly hostedFields: number;
  /** The i18next engine, loaded for languages other than English only. */
  readonly i18nEngine: number;
  /** Each language file, by code. */
  readonly languages: ReadonlyMap<string, number>;
  /**
   * What a card-only page downloads from the gateway before onReady, by URL: the bootstrap, the widget's entry
   * module and the chunks it imports, the card family's chunk and its imports, the stylesheet, and the hosted-field
   * page with its script and stylesheet, each counted once: both frames load the same versioned, immutable URLs,
   * and Chromium serves the second frame's from its cache (e2e/size.e2e.test.ts measures it).
   */
  readonly cardOnlyPage: ReadonlyMap<string, number>;
  /** The same with the hosted-field files counted for both frames, as the figure before issue 14 was counted. */
  readonly cardOnlyPageUncached: ReadonlyMap<string, number>;
  /** What a card-only page loads right after onReady, before any submit: the submit path's chunk. */
  readonly cardOnlyAfterReady: ReadonlyMap<string, number>;
}
/** The chunks a module imports statically (`from"./x.min.js"`, `import"./x.min.js"`), as build file names. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/(?:from|import)\s*["'`]\.\/([\w.-]+\.js)["'`]/g)].map((match) => `js/${match[1]}`);
}

/** The chunks a module loads on demand (`import("./x.min.js")`). */
function dynamicImports(code: string): string[] {
  return [...code.matchAll(/import\(\s*["'`]\.\/([\w.-]+\.js)["'`]\s*\)/g)].map((match) => `js/${match[1]}`);
}

/** `file` and every chunk it imports statically, transitively. */
export function staticClosure(build: WidgetBuild, file: string, seen: Set<string> = new Set()): Set<string> {
  if (seen.has(file)) return seen;
  const found = build.files.get(file);
  if (!found) throw new Error(`${file} is missing from the widget build`);
  seen.add(file);
  for (const imported of staticImports(new TextDecoder().decode(found.bytes))) staticClosure(build, imported, seen);
  return seen;
}

/** Every chunk loaded on demand (one per method family, the submit path, the 3-D Secure frame...), by file. */
export function onDemandChunks(build: WidgetBuild): string[] {
  const found = new Set<string>();
  const visit = (file: string) => {
    for (const module of staticClosure(build, file)) {
      for (const chunk of dynamicImports(new TextDecoder().decode(build.files.get(module)?.bytes))) {
        if (found.has(chunk)) continue;
        found.add(chunk);
        visit(chunk);
      }
    }
  };
  visit('js/static.min.js');
  return [...found];
}

function namedChunk(build: WidgetBuild, pattern: RegExp, what: string): string {
  const chunk = onDemandChunks(build).find((file) => pattern.test(file));
  if (!chunk) throw new Error(`${what} has no chunk of its own`);
  return chunk;
}

/** The card family's chunk: the on-demand chunk named after it (widget/build.ts names the chunk `card`). */
export function cardChunk(build: WidgetBuild): string {
  return namedChunk(build, /^js\/card-[\w-]+\.min\.js$/, 'the card family');
}

/** The submit path's chunk (payment/flow.ts), loaded after onReady. */
export function submitChunk(build: WidgetBuild): string {
  return namedChunk(build, /^js\/flow-[\w-]+\.min\.js$/, 'the submit path');
}

function gzipped(bytes: Uint8Array | string): number {
  return gzipSync(bytes, { level: 9 }).length;
}

export function measureWidgetSizes(build: WidgetBuild): WidgetSizes {
  const size = (name: string) => {
    const file = build.files.get(name);
    if (!file) throw new Error(`${name} is missing from the widget build`);
    return gzipped(file.bytes);
  };
  const checkoutId = '7A987D6B411CE700AFFCA163D679703E.sbx01-gw01';
  const gatewayUrl = 'https://payments.example-gateway.com';
  const bootstrap = renderBootstrap(
    {
      checkoutId,
      amount: '1234567.89',
      currency: 'EUR',
      paymentType: 'DB',
      resourcePath: `/v1/checkouts/${checkoutId}/payment`,
      registrations: Array.from({ length: 5 }, (_, index) => ({
        id: `8ac7a4a27b4c7867017b510d33dd718${index}`,
        brand: index % 2 === 0 ? 'VISA' : 'MASTER',
        last4Digits: `${1000 + index}`,
        expiryMonth: '05',
        expiryYear: '2034',
        holder: 'Jane Jones-Rutherford',
      })),
      gatewayUrl,
      staticBaseUrl: `${gatewayUrl}/v1/static/${build.version}`,
    },
    { gatewayUrl, staticBaseUrl: `${gatewayUrl}/v1/static/${build.version}` },
  );
  const languages = new Map(
    // The forms' texts per language (locales/<code>.json); a feature's own group (locales/<group>/<code>.json) apart.
    [...build.files.keys()].filter((name) => /^locales\/[a-z]+\.json$/.test(name)).map((name) => [name.slice('locales/'.length, -'.json'.length), size(name)] as const),
  );
  const scripts = new Set([...staticClosure(build, 'js/static.min.js'), ...staticClosure(build, cardChunk(build))]);
  const cardOnlyPage = new Map<string, number>([['paymentWidgets.js', gzipped(bootstrap)]]);
  for (const file of [...scripts, 'css/static.min.css', ...HOSTED_FIELD_FILES]) cardOnlyPage.set(file, size(file));
  const cardOnlyPageUncached = new Map(cardOnlyPage);
  for (const file of HOSTED_FIELD_FILES) {
    cardOnlyPageUncached.delete(file);
    cardOnlyPageUncached.set(`${file} ×2`, 2 * size(file));
  }
  const afterReady = [...staticClosure(build, submitChunk(build))].filter((file) => !scripts.has(file));
  return {
    cardOnlyPage,
    cardOnlyPageUncached,
    cardOnlyAfterReady: new Map(afterReady.map((file) => [file, size(file)])),
    bootstrap: gzipped(bootstrap),
    widget: size('js/static.min.js') + size('css/static.min.css'),
    hostedFields: HOSTED_FIELD_FILES.reduce((sum, file) => sum + size(file), 0),
    i18nEngine: size('js/i18n.min.js'),
    languages,
  };
}
