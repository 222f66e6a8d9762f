import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importGraph } from './testing/importGraph.ts';

/**
 * The structure docs/architecture.md describes, checked on every run: dependencies point down the floors below, no
 * cycle between files or between folders, and the domain imports nothing but itself and the widget's shared rules.
 * Type-only imports count: a type that points up ties the floors together as much as a call does.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The server's floors, ground first. A folder (or a file at the server's top) may import its own floor and those
 * below; an import that points up must be in UPWARD_IMPORTS with the reason it is right.
 */
const FLOORS: Readonly<Record<string, number>> = {
  // The rules of the business: ids, money, cards, result codes, state machines. Pure functions, no I/O.
  domain: 0,
  // Platform: configuration, logging, metrics, the parameter catalogue, the store, the outbox, outbound HTTP, jobs, the
  // card vault, idempotency keys, and the HTTP edge's toolkit (auth, envelopes, ids in paths) with the ports it declares.
  // Where the package's own files are (docs, built assets, migrations), from its sources or compiled.
  'paths.ts': 1,
  'config.ts': 1,
  'logger.ts': 1,
  metrics: 1,
  'settlementConfig.ts': 1,
  'acquirerConfig.ts': 1,
  params: 1,
  store: 1,
  events: 1,
  outbound: 1,
  jobs: 1,
  vault: 1,
  idempotency: 1,
  http: 1,
  // What a payment is made with and against: merchants and their settings, acquirers, risk, request limits.
  merchants: 2,
  acquirers: 2,
  risk: 2,
  throttling: 2,
  // Stored cards, which payments use.
  registrations: 3,
  // The payment core: the ledger, acquirer attempts, the flows, recovery.
  payments: 4,
  // Features on the payment core.
  checkouts: 5,
  // Click to Pay's steps with the SRC system, and the redemption the checkouts' submit is given (a port of theirs).
  clickToPay: 5,
  // The wallet buttons' side: the environment they are told, the simulated sheet of the test environment.
  wallets: 5,
  schedules: 5,
  webhooks: 5,
  redirects: 5,
  query: 5,
  reports: 5,
  reconciliation: 5,
  // What connectors' providers send: the shopper's return from their pages, their notifications, their reports.
  providers: 5,
  // What merchants' integrations lean on (observed requests, the widget's options), reported over the features' tables.
  integration: 5,
  // The test-only control API (a clock to move, what was sent, triggers), over the features' tables.
  control: 5,
  // Composition: the app, the process, the commands, the demo, the widget's server side, the test harness.
  'app.ts': 6,
  'deps.ts': 6,
  'gateway.ts': 6,
  'main.ts': 6,
  'run.ts': 6,
  'bin.ts': 6,
  'compile.ts': 6,
  cli: 6,
  // The back office: its API over the features, operators and sessions, and its app's page.
  dashboard: 6,
  demo: 6,
  // The OpenAPI document and the reference at /docs, generated from the app's route table and the catalogue.
  openapi: 6,
  widget: 6,
  testing: 6,
};

/** Imports that point up a floor, each with why it is right. Keep this list short and every reason true. */
const UPWARD_IMPORTS: Readonly<Record<string, string>> = {};

/** `payments` for server/payments/ledger.ts, `config.ts` for server/config.ts. */
function unitOf(path: string): string {
  return path.split('/')[1]!;
}

const server = importGraph(ROOT, 'server');
const serverEdges = server.edges.filter((edge) => edge.to.startsWith('server/'));

describe('the import graph', () => {
  it('has every server folder and top-level file on a floor', () => {
    const unplaced = [...new Set(server.files.map(unitOf))].filter((unit) => FLOORS[unit] === undefined);
    expect(unplaced).toEqual([]);
  });

  it('has no cycle between server files', () => {
    expect(cyclesOf(server.files, serverEdges.map((edge) => [edge.from, edge.to] as const))).toEqual([]);
  });

  it('has no cycle between server folders', () => {
    const units = new Set(server.files.map(unitOf));
    const edges = serverEdges.map((edge) => [unitOf(edge.from), unitOf(edge.to)] as const);
    expect(cyclesOf(units, edges)).toEqual([]);
  });

  it('keeps the domain on the ground: it imports only itself and the widget’s shared rules', () => {
    const outside = server.edges.filter(
      (edge) => unitOf(edge.from) === 'domain' && unitOf(edge.to) !== 'domain' && !edge.to.startsWith('widget/shared/'),
    );
    expect(outside).toEqual([]);
  });

  it('points every import down the floors, but for the few listed with their reason', () => {
    const upward = serverEdges
      .filter((edge) => FLOORS[unitOf(edge.to)]! > FLOORS[unitOf(edge.from)]!)
      .map((edge) => `${edge.from} -> ${edge.to}`);
    expect(upward.filter((edge) => UPWARD_IMPORTS[edge] === undefined)).toEqual([]);
    // A listed import that no longer exists is a stale reason: remove it.
    expect(Object.keys(UPWARD_IMPORTS).filter((edge) => !upward.includes(edge))).toEqual([]);
  });

  it('has no cycle between widget files', () => {
    const widget = importGraph(ROOT, 'widget');
    const edges = widget.edges.filter((edge) => edge.to.startsWith('widget/')).map((edge) => [edge.from, edge.to] as const);
    expect(cyclesOf(widget.files, edges)).toEqual([]);
  });

  it('has no cycle between dashboard files', () => {
    const dashboard = importGraph(ROOT, 'dashboard');
    const edges = dashboard.edges.filter((edge) => edge.to.startsWith('dashboard/')).map((edge) => [edge.from, edge.to] as const);
    expect(dashboard.files.length).toBeGreaterThan(10);
    expect(cyclesOf(dashboard.files, edges)).toEqual([]);
  });

  it('keeps the dashboard app to itself: it imports no server or widget file (it talks to the server over its API)', () => {
    const outside = importGraph(ROOT, 'dashboard').edges.filter((edge) => edge.from.startsWith('dashboard/app/') && !edge.to.startsWith('dashboard/'));
    expect(outside).toEqual([]);
  });

  it('finds the cycles it is meant to find (the checker itself)', () => {
    expect(cyclesOf(['a', 'b', 'c', 'd'], [['a', 'b'], ['b', 'c'], ['c', 'a'], ['c', 'd']])).toEqual([['a', 'b', 'c']]);
    expect(cyclesOf(['a', 'b'], [['a', 'b']])).toEqual([]);
    const edges = server.edges.map((edge) => `${edge.from} -> ${edge.to}`);
    // Type-only and value imports are both seen.
    expect(edges).toContain('server/deps.ts -> server/payments/services.ts');
    expect(edges).toContain('server/app.ts -> server/payments/routes.ts');
  });
});
