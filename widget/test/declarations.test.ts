import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { renderBootstrap } from '../../server/checkouts/bootstrap.ts';
import { loadWidgetBuild } from '../../server/widget/build.ts';
import { DECLARATIONS, WIDGET_DIST } from '../build.ts';

/**
 * The merchants' TypeScript declarations (widget/types/wpwl.d.ts), compiled with the TypeScript compiler as a merchant's
 * page would be: a page script written for this widget API compiles without a diagnostic, and the mistakes merchants
 * make are errors that name them. Around that, the declarations are held to the widget's code (every option and
 * callback the widget reads is declared, and every declared one is read or says it is ignored; `wpwl` is what the
 * bootstrap and the widget define) and to what the gateway serves (the built file is this one). The types the
 * compiler can compare itself are held together by widget/types/agree.ts, which `tsc --noEmit` checks.
 */

const ROOT = new URL('../../', import.meta.url).pathname;
const SOURCE = readFileSync(join(ROOT, DECLARATIONS), 'utf8');

/** How a merchant's project compiles its page scripts: strict, for browsers, no Node types. */
const MERCHANT_OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  lib: ['lib.es2020.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  types: [],
  allowJs: true,
  checkJs: true,
  noEmit: true,
  // The declarations themselves are checked (they are not the compiler's own library).
  skipLibCheck: false,
  skipDefaultLibCheck: true,
};

/** The strictest a project may be: the declarations must compile there too. */
const STRICTEST_OPTIONS: ts.CompilerOptions = {
  ...MERCHANT_OPTIONS,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noPropertyAccessFromIndexSignature: true,
};

interface Found {
  readonly file: string;
  readonly line: number;
  readonly code: number;
  readonly message: string;
}

/** The compiler's library files, parsed once for every compilation of this file. */
const parsed = new Map<string, ts.SourceFile | undefined>();
const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

/**
 * Compiles `files` (name → text; `wpwl.d.ts` is the declarations, beside them as a merchant saves it) in a directory
 * of their own, and answers every diagnostic, of any file.
 */
function compile(files: Record<string, string>, options: ts.CompilerOptions = MERCHANT_OPTIONS): Found[] {
  const directory = mkdtempSync(join(tmpdir(), 'wpwl-merchant-'));
  directories.push(directory);
  const all = { 'wpwl.d.ts': SOURCE, ...files };
  for (const [name, text] of Object.entries(all)) writeFileSync(join(directory, name), text);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, onError) => {
    if (fileName.startsWith(directory)) return getSourceFile(fileName, language, onError);
    if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, language, onError));
    return parsed.get(fileName);
  };
  const program = ts.createProgram({ rootNames: Object.keys(files).map((name) => join(directory, name)), options, host });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ({
    file: diagnostic.file ? basename(diagnostic.file.fileName) : '',
    line: diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0,
    code: diagnostic.code,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

/** A merchant's page script, as a TypeScript script (no import: its declarations are the page's globals). */
const PAGE_SCRIPT = `/// <reference path="wpwl.d.ts" />
var wpwlOptions: WpwlOptions = {
  style: 'card',
  locale: 'de',
  brandDetection: true,
  brandDetectionType: 'binlist',
  brandDetectionPriority: ['CARTEBANCAIRE', 'VISA', 'MASTER'],
  showCVVHint: true,
  requireCvv: true,
  allowEmptyCardHolderName: 'false',
  autofocus: 'card.number',
  labels: { cardHolder: 'Karteninhaber', submit: 'Jetzt bezahlen', mobilePhone: 'Handy' },
  errorMessages: { cardNumberError: 'Ungültige Kartennummer' },
  iframeStyles: {
    'card-number-placeholder': { color: '#9ca3af', 'font-size': '16px' },
    cvv: { fontFamily: 'Georgia, serif' },
  },
  registrations: { requireCvv: 'true', hideInitialPaymentForms: false },
  spinner: { color: '#0070ba', lines: 12 },
  threeDIframeSize: { width: 400, height: '60vh' },
  paymentTarget: 'threeds-frame',
  shopperResultTarget: '_top',
  onReady: function (forms) {
    var card = document.querySelector('.wpwl-form-card');
    var terms = document.createElement('label');
    terms.className = 'shop-terms';
    terms.textContent = 'I accept the terms';
    if (card) card.insertBefore(terms, card.querySelector('.wpwl-group-submit'));
    forms.forEach(function (form) {
      console.log(form.container, form.brands.join(' '));
    });
  },
  onBeforeSubmitCard: function (event) {
    var holder = this.querySelector<HTMLInputElement>('.wpwl-control-cardHolder');
    if (!holder || holder.value.trim() === '') {
      holder?.classList.add('wpwl-has-error');
      event.preventDefault();
      return false;
    }
    return true;
  },
  onBeforeSubmitVirtualAccount: function (event) {
    if (event.originalEvent) console.log(event.originalEvent.type);
  },
  onAfterSubmit: function () {
    this.classList.add('shop-sent');
  },
  onChangeBrand: function (brand) {
    document.body.dataset.brand = brand.toLowerCase();
  },
  onDetectBrand: function (brands, activeBrand) {
    console.log(brands.length > 1 ? 'co-badged' : 'single', activeBrand);
  },
  onBlurCardNumber: function (valid) {
    this.classList.toggle('shop-number-invalid', !valid);
    // HyperPay's OpenCart extension: the brand through this.$form, the error added with jQuery's methods.
    if (this.$form.find('.wpwl-control-brand').val() === 'MADA') {
      this.$form.find('.wpwl-control-cardNumber').addClass('wpwl-has-error');
      this.$form.find('.wpwl-button-pay').prop('disabled', true);
    }
  },
  onBlurSecurityCode: function (valid: boolean) {
    console.log(valid);
  },
  onReadyIframeCommunication: function () {
    this.$iframe[0].setAttribute('data-shop', 'ready');
  },
  onLoadThreeDIframe: function () {
    this.style.minHeight = '400px';
    this.$iframe.attr('data-shop', 'challenge');
  },
  onError: function (error) {
    if (error.name === 'InvalidCheckoutIdError') location.reload();
    else console.warn(error.name, error.message, error.brand);
  },
};

var payButton = document.getElementById('shop-pay');
if (payButton) {
  payButton.addEventListener('click', function () {
    fetch('/cart/confirm', { method: 'POST' }).then(function () {
      wpwl.executePayment('wpwl-container-virtualAccount-PAYPAL');
    });
  });
}

function reloadWidget(checkoutId: string) {
  wpwl.unload();
  document.querySelectorAll('script[src*="paymentWidgets.js"], script[src*="static.min.js"]').forEach(function (script) {
    script.remove();
  });
  var script = document.createElement('script');
  script.src = 'https://pay.example.com/v1/paymentWidgets.js?checkoutId=' + checkoutId;
  document.body.appendChild(script);
}

if (wpwl.isReady && wpwl.checkout) {
  console.log(wpwl.checkout.id, wpwl.checkout.amount, wpwl.checkout.config.registrations.map(function (card) { return card.last4Digits; }));
}
document.getElementById('shop-other-card')?.addEventListener('click', function () { reloadWidget('8A8294174B7ECB28014B9699220015CA.uat01-vm-tx04'); });
`;

/** The same kind of page in JavaScript, checked by the compiler (`// @ts-check`, a JSDoc type on the options). */
const PAGE_JAVASCRIPT = `// @ts-check
/// <reference path="wpwl.d.ts" />
/** @type {WpwlOptions} */
var wpwlOptions = {
  style: 'plain',
  locale: 'fr-CH',
  maskCvv: true,
  onBeforeSubmitCard: function (event) {
    return !event.isDefaultPrevented() && this.checkValidity();
  },
  onBlurIban: function (valid) {
    this.classList.toggle('shop-iban-invalid', !valid);
  },
};
window.wpwlOptions.showLabels = false;
document.getElementById('shop-pay')?.addEventListener('click', function () {
  wpwl.executePayment('wpwl-container-card');
});
`;

/** A module (a bundled shop front): the types imported, the options set on window. */
const PAGE_MODULE = `import type { Wpwl, WpwlOptions, WpwlReadyForm } from './wpwl.d.ts';

const rendered: WpwlReadyForm[] = [];
const options: WpwlOptions = {
  locale: navigator.language,
  onReady: (forms) => {
    rendered.push(...forms);
  },
  onBeforeSubmitOneClickCard: (event) => event.target.querySelector('input[name="registrationId"]:checked') !== null,
};
window.wpwlOptions = options;

export function payWithStoredCard(widget: Wpwl | undefined = window.wpwl): void {
  widget?.executePayment('wpwl-container-registration');
}
`;

describe('the merchants’ TypeScript declarations', () => {
  it('compile on their own, under the strictest flags a project may set', () => {
    expect(compile({ 'wpwl.d.ts': SOURCE }, STRICTEST_OPTIONS)).toEqual([]);
  });

  it("compile a merchant's page script: the options in a var, the callbacks typed from them, wpwl.unload and wpwl.executePayment", () => {
    expect(compile({ 'page.ts': PAGE_SCRIPT })).toEqual([]);
    expect(compile({ 'page.ts': PAGE_SCRIPT }, STRICTEST_OPTIONS).filter((found) => found.file === 'wpwl.d.ts')).toEqual([]);
  });

  it('compile the same page in JavaScript with // @ts-check, and a module that imports the types', () => {
    expect(compile({ 'page.js': PAGE_JAVASCRIPT })).toEqual([]);
    expect(compile({ 'shop.ts': PAGE_MODULE })).toEqual([]);
  });

  it('make the mistakes merchants make errors that name them', () => {
    // One mistake a line, each its own statement (the compiler reports one error per object literal).
    const mistakes: readonly { readonly source: string; readonly code: number; readonly message: string }[] = [
      // An option spelt wrong, and one of another product: unknown options are errors, with the likely name.
      { source: `wpwlOptions = { showCvvHint: true };`, code: 2561, message: "'showCvvHint' does not exist in type 'WpwlOptions'. Did you mean to write 'showCVVHint'?" },
      { source: `wpwlOptions = { paypal: { clientId: 'x' } };`, code: 2353, message: "'paypal' does not exist in type 'WpwlOptions'" },
      { source: `wpwlOptions = { threeDIframeSize: { width: 400, heigth: 600 } };`, code: 2561, message: "Did you mean to write 'height'?" },
      { source: `wpwlOptions = { style: 'cards' };`, code: 2820, message: `Did you mean '"card"'?` },
      { source: `wpwlOptions = { brandDetectionPriority: 'VISA' };`, code: 2322, message: "Type 'string' is not assignable to type 'string[]'" },
      // A callback that returns the wrong type: the string "false" would not cancel the submit.
      { source: `wpwlOptions = { onBeforeSubmitCard: function () { return 'false'; } };`, code: 2322, message: "Type 'string' is not assignable to type 'boolean | void'" },
      { source: `wpwlOptions = { onBlurCardNumber: function (valid) { return valid.length > 0; } };`, code: 2339, message: "Property 'length' does not exist on type 'boolean'" },
      { source: `wpwlOptions = { onError: function (error) { if (error.name === 'InvalidCheckoutId') location.reload(); } };`, code: 2367, message: `'"InvalidCheckoutId"' have no overlap` },
      // onReady is not called on the form.
      { source: `wpwlOptions = { onReady: function () { this.querySelector('form'); } };`, code: 2339, message: "Property 'querySelector' does not exist on type 'void'" },
      { source: `wpwl.executePayment(42);`, code: 2345, message: "Argument of type 'number' is not assignable to parameter of type 'string'" },
      { source: `wpwl.executePayment();`, code: 2554, message: 'Expected 1 arguments, but got 0' },
      { source: `wpwl.reload();`, code: 2339, message: "Property 'reload' does not exist on type 'Wpwl'" },
      // An unknown or expired checkout has none.
      { source: `console.log(wpwl.checkout.id);`, code: 18047, message: "'wpwl.checkout' is possibly 'null'" },
    ];
    const page = ['/// <reference path="wpwl.d.ts" />', ...mistakes.map((mistake) => mistake.source)].join('\n');
    const found = compile({ 'mistakes.ts': page });
    expect(found.map(({ file, line, code }) => ({ file, line, code }))).toEqual(mistakes.map((mistake, index) => ({ file: 'mistakes.ts', line: index + 2, code: mistake.code })));
    for (const [index, mistake] of mistakes.entries()) expect(found[index]?.message, mistake.source).toContain(mistake.message);
  });

  it('refuse a var wpwlOptions without its type, saying which type it must have; a JavaScript page gets the same errors', () => {
    const untyped = compile({ 'page.ts': `/// <reference path="wpwl.d.ts" />\nvar wpwlOptions = { style: 'card' };\n` });
    expect(untyped.map(({ code }) => code)).toEqual([2403]);
    expect(untyped[0]?.message).toContain('Subsequent variable declarations must have the same type');
    expect(untyped[0]?.message).toMatch(/'WpwlOptions'/);
    const javascript = compile({
      'page.js': `// @ts-check\n/// <reference path="wpwl.d.ts" />\n/** @type {WpwlOptions} */\nvar wpwlOptions = { showCvvHint: true };\nwpwl.executePayment(42);\n`,
    });
    expect(javascript.map(({ file, line, code }) => ({ file, line, code }))).toEqual([
      { file: 'page.js', line: 4, code: 2561 },
      { file: 'page.js', line: 5, code: 2345 },
    ]);
  });
});

/** The declarations' syntax tree: the interfaces and type aliases inside `declare global`. */
function declared(): { members(name: string): ts.TypeElement[]; alias(name: string): ts.TypeAliasDeclaration } {
  const file = ts.createSourceFile(DECLARATIONS, SOURCE, ts.ScriptTarget.ES2022, true);
  const global = file.statements.find((statement): statement is ts.ModuleDeclaration => ts.isModuleDeclaration(statement) && statement.name.text === 'global');
  const statements: readonly ts.Statement[] = global?.body && ts.isModuleBlock(global.body) ? global.body.statements : [];
  return {
    members(name) {
      const found = statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === name);
      if (!found) throw new Error(`wpwl.d.ts declares no interface ${name}`);
      return [...found.members];
    },
    alias(name) {
      const found = statements.find((statement): statement is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(statement) && statement.name.text === name);
      if (!found) throw new Error(`wpwl.d.ts declares no type ${name}`);
      return found;
    },
  };
}

const memberName = (member: ts.TypeElement): string | undefined =>
  member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)) ? member.name.text : undefined;
const namesOf = (members: ts.TypeElement[]): string[] => members.flatMap((member) => memberName(member) ?? []).sort();

/** Every source file of the widget's app (what runs in the merchant's page). */
function appSources(): ts.SourceFile[] {
  const below = (directory: string): string[] =>
    readdirSync(directory).flatMap((entry) => {
      const path = join(directory, entry);
      return statSync(path).isDirectory() ? below(path) : /\.tsx?$/.test(entry) ? [path] : [];
    });
  return below(join(ROOT, 'widget/app')).map((path) => ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS));
}

function nodesOf(files: ts.SourceFile[]): ts.Node[] {
  const nodes: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    nodes.push(node);
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(file);
  return nodes;
}

describe('the declarations and the widget', () => {
  const options = declared().members('WpwlOptions');
  const app = nodesOf(appSources());
  /** The options in options.ts's WidgetOptions (`raw` is the object itself). */
  const normalized = (() => {
    const file = appSources().find((source) => source.fileName.endsWith('/app/options.ts'));
    const widgetOptions = file?.statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === 'WidgetOptions');
    return namesOf([...(widgetOptions?.members ?? [])]).filter((name) => name !== 'raw');
  })();
  /** Callbacks, by the names the widget looks them up by (invoke, cancelledByMerchant, postPageForm: string literals). */
  const callbacks = [...new Set(app.filter(ts.isStringLiteralLike).map((node) => node.text).filter((text) => /^on[A-Z][A-Za-z]+$/.test(text)))].sort();
  /** Options read from the raw object (`raw.threeDIframeSize`), besides those options.ts normalizes. */
  const rawReads = [
    ...new Set(
      app
        .filter(ts.isPropertyAccessExpression)
        .filter(({ expression }) => (ts.isIdentifier(expression) && expression.text === 'raw') || (ts.isPropertyAccessExpression(expression) && expression.name.text === 'raw'))
        .map((node) => node.name.text),
    ),
  ].sort();
  const read = new Set([...normalized, ...callbacks, ...rawReads]);
  const ignoredTag = (member: ts.TypeElement) => ts.getJSDocTags(member).find((tag) => tag.tagName.text === 'ignored');

  it('finds what the widget reads (the scan itself)', () => {
    expect(normalized).toEqual(expect.arrayContaining(['locale', 'style', 'iframeStyles', 'registrations', 'spinner']));
    expect(callbacks).toEqual(expect.arrayContaining(['onReady', 'onError', 'onBeforeSubmitCard', 'onBlurIban', 'onLoadThreeDIframe', 'onReadyIframeCommunication']));
    expect(rawReads).toContain('threeDIframeSize');
  });

  it('declare every option and callback the widget reads, callbacks as functions', () => {
    const names = new Set(namesOf(options));
    expect([...read].filter((name) => !names.has(name))).toEqual([]);
    const functions = options.filter(ts.isMethodSignature).flatMap((member) => memberName(member) ?? []);
    expect(callbacks.filter((name) => !functions.includes(name))).toEqual([]);
  });

  it('say of every option the widget does not read that it is ignored, and of none it reads', () => {
    const unread = options.filter((member) => !read.has(memberName(member) ?? ''));
    expect(unread.filter((member) => !ignoredTag(member)).map(memberName)).toEqual([]);
    expect(options.filter((member) => read.has(memberName(member) ?? '') && ignoredTag(member)).map(memberName)).toEqual([]);
    // COMPAT §5's options this gateway does not implement (docs/widget.md says so too).
    expect(unread.map(memberName).sort()).toEqual(
      [],
    );
  });

  it('document every option: what it does and its default', () => {
    for (const member of options) {
      const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
      const text = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
      expect(text.length, memberName(member)).toBeGreaterThan(12);
      expect(ts.getJSDocTags(member).some((tag) => tag.tagName.text === 'default'), `${memberName(member)} has a @default`).toBe(true);
    }
  });

  it('offer the autofocus names and the hosted-field styles the widget knows', () => {
    const autofocus = app
      .filter(ts.isBinaryExpression)
      .filter((node) => node.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken && ts.isPropertyAccessExpression(node.left) && node.left.name.text === 'autofocus')
      .flatMap((node) => (ts.isStringLiteral(node.right) ? [node.right.text] : []));
    const union = declared().alias('WpwlAutofocus').type;
    const offered = ts.isUnionTypeNode(union)
      ? union.types.flatMap((type) => (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal) ? [type.literal.text] : []))
      : [];
    expect(autofocus.length).toBeGreaterThan(5);
    expect([...new Set(autofocus)].sort()).toEqual([...offered].sort());
    // CardForm and RegistrationForm read iframeStyles as `styles['card-number']`...
    const styles = app
      .filter(ts.isElementAccessExpression)
      .filter((node) => ts.isIdentifier(node.expression) && node.expression.text === 'styles' && ts.isStringLiteral(node.argumentExpression))
      .map((node) => (node.argumentExpression as ts.StringLiteral).text);
    expect([...new Set(styles)].sort()).toEqual(namesOf(declared().members('WpwlIframeStyles')));
  });

  it('declare wpwl as paymentWidgets.js and the widget define it (the bootstrap’s reload hook, bundles, aside)', () => {
    const defined = (snapshot: Parameters<typeof renderBootstrap>[0]) => {
      const window: { wpwl?: Record<string, unknown> } = {};
      const document = { currentScript: null, head: { appendChild: () => undefined }, createElement: () => ({}) };
      runInNewContext(renderBootstrap(snapshot, { gatewayUrl: 'https://pay.example.com', staticBaseUrl: 'https://pay.example.com/v1/static/0123456789abcdef' }), { window, document });
      return window.wpwl ?? {};
    };
    const known = defined({
      checkoutId: '7A987D6B411CE700AFFCA163D679703E.sbx01-gw01',
      amount: '12.50',
      currency: 'EUR',
      paymentType: 'DB',
      resourcePath: '/v1/checkouts/7A987D6B411CE700AFFCA163D679703E.sbx01-gw01/payment',
      registrations: [{ id: '8ac7a4a27b4c7867017b510d33dd7188', brand: 'VISA', last4Digits: '0000', expiryMonth: '12', expiryYear: '2030', holder: 'Jane Doe' }],
      gatewayUrl: 'https://pay.example.com',
      staticBaseUrl: 'https://pay.example.com/v1/static/0123456789abcdef',
    });
    expect(Object.keys(defined(null)).sort()).toEqual(Object.keys(known).sort());
    // What the widget's entry adds: `wpwl.unload = ...`, `wpwl.bundles ??= ...`.
    const entry = nodesOf(appSources().filter((source) => source.fileName.endsWith('/app/index.tsx')));
    const assigned = entry
      .filter(ts.isBinaryExpression)
      .filter((node) => [ts.SyntaxKind.EqualsToken, ts.SyntaxKind.QuestionQuestionEqualsToken].includes(node.operatorToken.kind))
      .flatMap(({ left }) => (ts.isPropertyAccessExpression(left) && ts.isIdentifier(left.expression) && left.expression.text === 'wpwl' ? [left.name.text] : []));
    expect(assigned).toEqual(expect.arrayContaining(['unload', 'executePayment', 'isReady', 'bundles']));
    const exposed = [...new Set([...Object.keys(known), ...assigned])].filter((name) => name !== 'bundles').sort();
    expect(namesOf(declared().members('Wpwl'))).toEqual(exposed);
    const checkout = known.checkout as Record<string, unknown>;
    expect(namesOf(declared().members('WpwlCheckout'))).toEqual(Object.keys(checkout).sort());
    const [card] = (checkout.config as { registrations: Record<string, unknown>[] }).registrations;
    expect(namesOf(declared().members('WpwlStoredCard'))).toEqual(Object.keys(card ?? {}).sort());
  });

  it('are held to the widget’s types by agree.ts, which names the option a change left undeclared', () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (!config) throw new Error('tsconfig.json could not be read');
    const agree = join(ROOT, 'widget/types/agree.ts');
    const check = (declarations: string) => {
      const host = ts.createCompilerHost(config.options);
      const getSourceFile = host.getSourceFile.bind(host);
      host.getSourceFile = (fileName, language, onError) =>
        fileName === join(ROOT, DECLARATIONS) ? ts.createSourceFile(fileName, declarations, language) : getSourceFile(fileName, language, onError);
      const program = ts.createProgram({ rootNames: [agree], options: config.options, host });
      return ts.getPreEmitDiagnostics(program, program.getSourceFile(agree)).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    };
    expect(check(SOURCE)).toEqual([]);
    const withoutMaskCvv = SOURCE.replace(/\n\s*maskCvv\?: WpwlFlag;/, '');
    expect(withoutMaskCvv).not.toBe(SOURCE);
    expect(check(withoutMaskCvv)).toEqual([expect.stringContaining(`Type '"maskCvv"' does not satisfy the constraint 'never'`)]);
  });
});

describe('the declarations as the gateway serves them', () => {
  it('are built, unchanged, into types/wpwl.d.ts of the widget build, listed in its manifest, served as text', () => {
    expect(readFileSync(join(WIDGET_DIST, 'types/wpwl.d.ts'), 'utf8')).toBe(SOURCE);
    const manifest = JSON.parse(readFileSync(join(WIDGET_DIST, 'manifest.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('types/wpwl.d.ts');
    const served = loadWidgetBuild()?.files.get('types/wpwl.d.ts');
    expect(served?.contentType).toBe('text/plain; charset=utf-8');
    expect(new TextDecoder().decode(served?.bytes)).toBe(SOURCE);
    expect(served?.gzipped).toBeDefined();
  });

  it('are not part of any script the widget runs', () => {
    const build = loadWidgetBuild();
    const scripts = [...(build?.files.entries() ?? [])].filter(([name]) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(3);
    for (const [name, file] of scripts) expect(new TextDecoder().decode(file.bytes), name).not.toMatch(/WpwlOptions|wpwl\.d\.ts/);
  });
});
