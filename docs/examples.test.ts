import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.ts';
import { startGateway, type RunningGateway } from '../server/gateway.ts';
import { freePort, freshStoreLocation, TEST_DATABASE_URL, warnIfPostgresSkipped, type StoreLocation } from '../server/testing/harness.ts';
import { routesOf } from '../server/testing/routeTable.ts';

/**
 * The documentation's examples run, so the docs cannot rot: every sh/bash/shell/console block of README.md and
 * docs/*.md is run with bash against one gateway started here (PostgreSQL when TEST_DATABASE_URL is set, so the
 * `npm run gateway` commands run beside it as they do on a real deployment; PGlite otherwise, where the blocks with
 * commands are skipped, loudly). Each block must exit 0, and every curl in it must get a 2xx (or 3xx) answer whose
 * result code, when it has one, is a success or pending code, unless the block's info string expects other codes.
 * Around that, the docs are checked against the code: links and anchors resolve, no curl hides outside a run block,
 * every route of the app and every variable the configuration reads is documented, every documented command exists.
 *
 * Info strings: `sh setup` (run before every block: the variables the examples use), `sh expect=CODE,CODE` (these
 * codes may answer, and each must), `sh norun -- <why>` (not run; listed with its reason), `sh shop` (run by
 * ci/package.test.ts in a shop made from `npm pack`, against the gateway it installed: not here).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** How the examples address the gateway, and the merchant receiver the webhook examples name. */
const DOCS_GATEWAY = 'http://localhost:8080';
const DOCS_WEBHOOK_URL = 'https://shop.example.com/hook';
const SHELLS = new Set(['sh', 'bash', 'shell', 'console']);
/** Success and pending classes of the platform's result codes. */
const SUCCESS_OR_PENDING = /^(000\.000\.|000\.100\.[12]|000\.[36]|000\.400\.(0[^3]|100)|000\.200\.)/;
/** Blocks marked norun: a handful (installing, starting, the suite itself); more means examples stopped being run. */
const MAX_NORUN = 3;
const BLOCK_TIMEOUT_MS = 90_000;

interface Block {
  readonly page: string;
  readonly line: number;
  readonly lang: string;
  readonly info: string;
  readonly code: string;
}

interface Page {
  readonly path: string;
  readonly text: string;
  readonly blocks: readonly Block[];
  /** The page's text outside fenced blocks. */
  readonly prose: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*(.*)$/;

function parsePage(path: string): Page {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const prose: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] as string);
    if (!open) {
      prose.push(lines[index] as string);
      continue;
    }
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] as string;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const lang = info.trim().split(/\s+/)[0] ?? '';
    blocks.push({ page: path, line: index + 1, lang, info: info.trim(), code: body.join('\n') });
    index = end;
  }
  return { path, text, blocks, prose: prose.join('\n') };
}

const docsPages = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .sort()
  .map((name) => `docs/${name}`);
const PAGES = ['README.md', ...docsPages].map(parsePage);
const ALL_BLOCKS = PAGES.flatMap((page) => page.blocks);
/** docs/ci.md's blocks run in a shop that installed the gateway (ci/package.test.ts). */
const isShopBlock = (block: { readonly lang: string; readonly info: string }) => SHELLS.has(block.lang) && /\bshop\b/.test(block.info.slice(block.lang.length));
const SHELL_BLOCKS = ALL_BLOCKS.filter((block) => SHELLS.has(block.lang) && !isShopBlock(block));
const SETUP = SHELL_BLOCKS.filter((block) => /\bsetup\b/.test(block.info.slice(block.lang.length)));

function norunReason(block: Block): string | undefined {
  const match = /\bnorun\b(?:\s*--\s*(.*))?/.exec(block.info.slice(block.lang.length));
  if (!match) return undefined;
  return match[1]?.trim() ?? '';
}

function expectedCodes(block: Block): string[] {
  const match = /\bexpect=(\S+)/.exec(block.info);
  return match ? (match[1] as string).split(',') : [];
}

/** The commands of a block: a console block's `$ ` lines, any other block whole. */
function commandsOf(block: Block): string {
  if (block.lang !== 'console') return block.code;
  return block.code
    .split('\n')
    .filter((line) => line.startsWith('$ '))
    .map((line) => line.slice(2))
    .join('\n');
}

const needsCommands = (block: Block) => /\bnpm run\b/.test(block.code);

/** GitHub's heading anchors: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, ... */
function anchorsOf(page: Page): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of page.prose.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] as string)
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Prose without inline code spans, for link parsing. */
const withoutCode = (prose: string) => prose.replace(/`[^`\n]*`/g, '');
const inlineCode = (prose: string) => [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1] as string);

// ---------------------------------------------------------------------------------------------------------------
// Running a block

interface CurlCall {
  readonly url: string;
  readonly status: string;
  readonly body: string;
  readonly code: string | undefined;
}

interface BlockRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly calls: readonly CurlCall[];
}

/**
 * The test's curl: the real one, recording each answer (status and body) in $DOCS_LOG for the checks after the block;
 * it fails on a 4xx/5xx unless the block expects codes. List queries and reports are paced to one a second, the
 * entity's limit, since blocks run back to back (a person pasting them does not).
 */
const PRELUDE = String.raw`
set -euo pipefail
npm() { command npm --prefix "$DOCS_REPO" "$@"; }
__docs_pace() {
  local now last
  now=$(date +%s%N); last=$(cat "$DOCS_PACE" 2>/dev/null || echo 0)
  if [ "$last" -ge "$((now / 1000000000))" ]; then sleep "$(printf '0.%09d' $((1000000000 - now % 1000000000)))"; fi
}
curl() {
  local n url="" own_output=no status rc=0 arg
  n=$(( $(cat "$DOCS_LOG/count" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$DOCS_LOG/count"
  for arg in "$@"; do
    case "$arg" in http://*|https://*) url=$arg ;; -o|--output|-O|--remote-name) own_output=yes ;; esac
  done
  printf '%s' "$url" > "$DOCS_LOG/$n.url"
  case "$url" in */v1/query\?*|*/v3/query\?*|*/reports/*) __docs_pace ;; esac
  if [ "$own_output" = yes ]; then
    status=$(command curl -sS -w '%{http_code}' "$@") || rc=$?
    : > "$DOCS_LOG/$n.body"
  else
    status=$(command curl -sS -o "$DOCS_LOG/$n.body" -w '%{http_code}' "$@") || rc=$?
    cat "$DOCS_LOG/$n.body"
  fi
  case "$url" in */v1/query\?*|*/v3/query\?*|*/reports/*) date +%s > "$DOCS_PACE" ;; esac
  printf '%s' "$status" > "$DOCS_LOG/$n.status"
  [ "$rc" -eq 0 ] || return "$rc"
  case "$status" in 2??|3??) return 0 ;; esac
  [ -n "$DOCS_EXPECT" ] && return 0
  echo "curl: HTTP $status from $url" >&2
  return 22
}
`;

function run(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }) {
  return new Promise<{ exitCode: number | null; stdout: string; stderr: string }>((resolveRun) => {
    // Its own process group, so a timeout ends the commands it started too.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${options.timeoutMs} ms)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolveRun({ exitCode, stdout, stderr });
    });
  });
}

function readCalls(log: string): CurlCall[] {
  const count = existsSync(join(log, 'count')) ? Number(readFileSync(join(log, 'count'), 'utf8')) : 0;
  const calls: CurlCall[] = [];
  for (let n = 1; n <= count; n++) {
    const read = (suffix: string) => (existsSync(join(log, `${n}.${suffix}`)) ? readFileSync(join(log, `${n}.${suffix}`), 'utf8') : '');
    const body = read('body');
    let code: string | undefined;
    try {
      code = (JSON.parse(body) as { result?: { code?: string } }).result?.code;
    } catch {
      // Not JSON (a page, a CSV): the status decides.
    }
    calls.push({ url: read('url'), status: read('status'), body, code });
  }
  return calls;
}

/** `curl` commands in a block's text, comments left out. */
function curlCommandsIn(code: string): number {
  return code
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .reduce((sum, line) => sum + [...line.matchAll(/(^|[\s($|])curl\s/g)].length, 0);
}

// ---------------------------------------------------------------------------------------------------------------

let location: StoreLocation;
let gateway: RunningGateway;
let receiver: Server;
let environment: NodeJS.ProcessEnv;
let work: string;
const adminToken = randomBytes(24).toString('hex');
const metricsToken = randomBytes(24).toString('hex');
const skipped: string[] = [];
let ranBlocks = 0;
let ranCalls = 0;

beforeAll(async () => {
  const kind = TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
  if (kind === 'PGlite') warnIfPostgresSkipped('docs/examples.test.ts (the blocks with npm run gateway commands)');
  location = await freshStoreLocation(kind);
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('OK'));
  });
  await new Promise<void>((resolveListen) => receiver.listen(0, '127.0.0.1', resolveListen));
  const port = await freePort();
  work = mkdtempSync(join(tmpdir(), 'docs-examples-'));
  // docs/live.md's credentials examples need a connector; nothing in the docs pays through it, so it reaches no provider.
  const acquirersFile = join(work, 'acquirers.json');
  writeFileSync(acquirersFile, JSON.stringify({ acquirers: { hyperpay: { kind: 'opp', url: 'http://127.0.0.1:9' } } }));
  // The gateways' environment, which the commands get too (as docs/operating.md asks of an operator).
  const gatewayEnv: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: location.dataDir,
    ...(location.databaseUrl ? { DATABASE_URL: location.databaseUrl } : {}),
    ...(location.cardDataKey ? { CARD_DATA_KEY: location.cardDataKey.toString('hex') } : {}),
    ADMIN_TOKEN: adminToken,
    METRICS_TOKEN: metricsToken,
    // docs/ci.md's control API examples.
    TEST_CONTROL_API: 'true',
    // The smart retry and routing examples name a fallback acquirer.
    ACQUIRERS: 'simulator,fallback,hyperpay',
    ACQUIRERS_FILE: acquirersFile,
    // Today's payments settle today however late in the (UTC) day the examples run.
    SETTLEMENT_CUTOFF_UTC: '23:59',
    LOG_LEVEL: 'silent',
  };
  gateway = await startGateway(loadConfig(gatewayEnv));
  const { DATABASE_URL: _ignored, CARD_DATA_KEY: _key, ...inherited } = process.env;
  environment = { ...inherited, ...gatewayEnv, DOCS_REPO: ROOT, npm_config_update_notifier: 'false' };
});

afterAll(async () => {
  await gateway?.close();
  await new Promise<void>((resolveClose) => (receiver ? receiver.close(() => resolveClose()) : resolveClose()));
  await location?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the documentation', () => {
  it('cites nothing outside the repository', () => {
    for (const page of PAGES) {
      for (const pattern of [/\.\.\/shared/, /DESIGN(\.md| principle)/, /COMPAT/, /§/, /spec doc/i]) {
        expect(page.text, `${page.path} ${pattern}`).not.toMatch(pattern);
      }
    }
  });

  it('links only to pages and headings that exist, inside the repository', () => {
    const anchors = new Map(PAGES.map((page) => [page.path, anchorsOf(page)]));
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const [, target] of withoutCode(page.prose).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue;
        const [file = '', anchor] = (target as string).split('#');
        const path = file === '' ? page.path : relative(ROOT, resolve(ROOT, dirname(page.path), file));
        if (path.startsWith('..') || !existsSync(join(ROOT, path))) broken.push(`${page.path}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchors.get(path)?.has(anchor)) broken.push(`${page.path}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('shows curl only in blocks that run', () => {
    const hidden: string[] = [];
    for (const block of ALL_BLOCKS) {
      if (!SHELLS.has(block.lang) && /^\s*(\$\s*)?curl\s/m.test(block.code)) hidden.push(`${block.page}:${block.line} (${block.lang || 'no language'})`);
    }
    for (const page of PAGES) {
      for (const code of inlineCode(page.prose)) if (/^curl\s/.test(code)) hidden.push(`${page.path}: \`${code}\``);
    }
    expect(hidden).toEqual([]);
  });

  it(`marks few blocks norun (at most ${MAX_NORUN}), each with its reason`, () => {
    const norun = SHELL_BLOCKS.filter((block) => norunReason(block) !== undefined);
    for (const block of norun) expect(norunReason(block), `${block.page}:${block.line}`).not.toBe('');
    expect(norun.length).toBeLessThanOrEqual(MAX_NORUN);
    expect(SETUP.length, 'one setup block').toBe(1);
  });

  it('mentions every route of the gateway, with its method', () => {
    const lines = PAGES.flatMap((page) => page.text.split('\n')).map((line) => line.replace(/\{[^}/]*\}/g, '{}'));
    const missing: string[] = [];
    for (const route of routesOf(gateway.app)) {
      if (route.method === 'ALL') continue;
      const prefix = route.path.endsWith('/*');
      const path = route.path.replace(/\/\*$/, '/').replace(/:[A-Za-z0-9_]+/g, '{}');
      const pathAt = (line: string) => {
        for (let at = line.indexOf(path); at >= 0; at = line.indexOf(path, at + 1)) {
          if (prefix || !/[A-Za-z0-9/{}:_.-]/.test(line.charAt(at + path.length))) return true;
        }
        return false;
      };
      const covered = lines.some(
        (line) => pathAt(line) && (new RegExp(`\\b${route.method}\\b`).test(line) || (route.method === 'GET' && line.includes(`${DOCS_GATEWAY}${path}`))),
      );
      if (!covered) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
  });

  it('lists every configuration variable in docs/operating.md', () => {
    const read = new Set<string>();
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      get: (_target, name) => {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(env);
    const operating = PAGES.find((page) => page.path === 'docs/operating.md')?.text ?? '';
    const undocumented = [...read].filter((name) => !operating.includes(`| \`${name}\` |`));
    expect(read.size).toBeGreaterThan(40);
    expect(undocumented).toEqual([]);
  });

  it('names only commands the command line knows, and every one of them', async () => {
    // --help prints the usage before any store is opened (the embedded store is this gateway's).
    const usage = await run('npm', ['run', '--silent', 'gateway', '--', '--help'], { cwd: ROOT, env: environment, timeoutMs: 30_000 });
    const known = new Set([...usage.stdout.matchAll(/^ {2}([a-z][a-z-]*) ([a-z][a-z-]*)/gm)].map((match) => `${match[1]} ${match[2]}`));
    expect(known.size, usage.stdout).toBeGreaterThan(30);
    const text = PAGES.map((page) => page.text).join('\n');
    const named = [...text.matchAll(/npm run (?:--silent )?gateway -- ([a-z][a-z-]*) ([a-z][a-z-]*)/g)].map((match) => `${match[1]} ${match[2]}`);
    expect(named.filter((command) => !known.has(command) && command !== 'key generate')).toEqual([]);
    expect([...known].filter((command) => !text.includes(command))).toEqual([]);
  });
});

describe('the documentation examples', () => {
  const setup = SETUP.map((block) => block.code).join('\n');
  let counter = 0;
  const substitute = (code: string) =>
    code
      .replaceAll(DOCS_WEBHOOK_URL, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`)
      .replaceAll(DOCS_GATEWAY, gateway.url);

  for (const block of SHELL_BLOCKS) {
    const name = `${block.page}:${block.line}`;
    const reason = norunReason(block);
    if (reason !== undefined) {
      skipped.push(`${name}: norun (${reason})`);
      continue;
    }
    if (needsCommands(block) && !TEST_DATABASE_URL) {
      skipped.push(`${name}: npm run gateway beside a running gateway needs PostgreSQL (TEST_DATABASE_URL)`);
      continue;
    }
    it(
      name,
      async () => {
        ranBlocks++;
        // The block's own directory, where its examples write their files; the curl log inside it.
        const cwd = join(work, `block-${++counter}`);
        const log = join(cwd, 'log');
        mkdirSync(log, { recursive: true });
        const script = `${PRELUDE}\n${substitute(setup)}\n${substitute(commandsOf(block))}\n`;
        writeFileSync(join(cwd, 'example.sh'), script);
        const expected = expectedCodes(block);
        const result = await run('bash', ['example.sh'], {
          cwd,
          env: { ...environment, DOCS_LOG: log, DOCS_PACE: join(work, 'last-list-query'), DOCS_EXPECT: expected.join(',') },
          timeoutMs: BLOCK_TIMEOUT_MS - 5_000,
        });
        const outcome: BlockRun = { ...result, calls: readCalls(log) };
        ranCalls += outcome.calls.length;
        const report = `exit ${outcome.exitCode}\n--- stdout\n${outcome.stdout.slice(-4000)}\n--- stderr\n${outcome.stderr.slice(-4000)}`;
        expect(outcome.exitCode, report).toBe(0);
        expect(outcome.calls.length, `curl calls made, of ${curlCommandsIn(commandsOf(block))} in the block\n${report}`).toBeGreaterThanOrEqual(
          curlCommandsIn(commandsOf(block)),
        );
        for (const call of outcome.calls) {
          const what = `${call.url} answered ${call.status} ${call.body.slice(0, 600)}`;
          if (/^[23]/.test(call.status)) {
            if (call.code !== undefined && !SUCCESS_OR_PENDING.test(call.code)) expect(expected, what).toContain(call.code);
          } else {
            expect(expected, what).toContain(call.code);
          }
        }
        const answered = new Set(outcome.calls.map((call) => call.code));
        for (const code of expected) expect(answered.has(code), `expected ${code} from some call\n${report}`).toBe(true);
      },
      BLOCK_TIMEOUT_MS,
    );
  }

  // Blocks not run are no tests of their own (nothing is left skipped): this one names them, and why.
  it('says what it ran and what it did not run', () => {
    // ranBlocks counts every block started, passed or failed: the failures are reported by their own tests.
    process.stderr.write(
      `\ndocs examples: ${ranBlocks} blocks run (${ranCalls} curl calls), ${skipped.length} skipped:\n` +
        skipped.map((line) => `  - ${line}\n`).join(''),
    );
    expect(ranBlocks + skipped.length).toBe(SHELL_BLOCKS.length);
  });
});
