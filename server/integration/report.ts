import { WPWL_OPTION_NAMES } from '../../widget/shared/wpwlOptionNames.ts';
import type { Queryable } from '../store/index.ts';
import type { ObservationKind } from './observations.ts';

/**
 * A merchant's integration report (issue 36 point 7): what its integration leans on that a live provider may refuse or
 * has retired, what it never tried, and what its webhook receiver failed — from what the gateway saw in the report's
 * window (the last 30 days): the observations (observations.ts), and the entity's own payments, 3-D Secure pages and
 * webhook attempts. Read by the dashboard, the admin API, the command line and the CI fixture (the JSON and the text
 * below are the artifact a CI job keeps).
 */

export const REPORT_WINDOW_DAYS = 30;

/**
 * How much a finding matters before going live: `refused` — a live provider may refuse the request; `retired` — the
 * platform deprecates it; `failing` — something the shop runs fails now; `untested` — a path the shop's tests never
 * took; `notice` — the gateway ignored something the shop sends.
 */
export type Severity = 'refused' | 'retired' | 'failing' | 'untested' | 'notice';

const SEVERITY_ORDER: readonly Severity[] = ['refused', 'retired', 'failing', 'untested', 'notice'];

export interface Finding {
  readonly id: string;
  readonly severity: Severity;
  readonly title: string;
  /** What to do about it. */
  readonly advice: string;
  readonly count: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  /** Ids of payments, requests or checkouts it was seen with (at most a few). */
  readonly examples: readonly string[];
  /** What it was seen as, by name (the parameters ignored, the options, the receivers): name and count. */
  readonly details?: readonly { readonly name: string; readonly count: number }[];
}

/** The paths a shop's tests should take before going live, and whether they did (how many times). */
export const SCENARIOS = {
  approvedPayment: 'a payment approved',
  declinedPayment: 'a payment declined by the bank',
  threeDSecureChallenge: 'a 3-D Secure challenge passed',
  threeDSecureFailed: 'a 3-D Secure challenge failed, cancelled or abandoned',
  asynchronousPayment: 'a payment that waited for its provider',
  capture: 'a capture',
  refund: 'a refund',
  reversal: 'a reversal',
  chargeback: 'a chargeback',
  webhookReceived: 'a webhook your receiver took (2xx)',
} as const;
export type Scenario = keyof typeof SCENARIOS;

/** The untried scenarios that are findings (the others are shown in the coverage only). */
const UNTESTED_FINDINGS: readonly Scenario[] = ['declinedPayment', 'threeDSecureChallenge', 'threeDSecureFailed'];

export interface IntegrationReport {
  readonly entityId: string;
  readonly generatedAt: string;
  readonly since: string;
  readonly payments: number;
  readonly findings: readonly Finding[];
  readonly coverage: Readonly<Record<Scenario, number>>;
  /** The wpwlOptions the merchant's pages set, as the widget reported them. */
  readonly widgetOptions: readonly string[];
}

interface ObservationRow {
  kind: ObservationKind;
  detail: string;
  count: string;
  first_seen: Date;
  last_seen: Date;
  example: string | null;
}

const iso = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** Rows counted over a span (observations, a receiver's failed attempts): the counts summed, the earliest and latest. */
function seen(rows: readonly { readonly count: string; readonly first_seen: Date; readonly last_seen: Date }[]): Pick<Finding, 'count' | 'firstSeen' | 'lastSeen'> {
  const first = rows.reduce((earliest, row) => (row.first_seen < earliest ? row.first_seen : earliest), rows[0]?.first_seen as Date);
  const last = rows.reduce((latest, row) => (row.last_seen > latest ? row.last_seen : latest), rows[0]?.last_seen as Date);
  return { count: rows.reduce((sum, row) => sum + Number(row.count), 0), firstSeen: iso(first), lastSeen: iso(last) };
}

/** One finding from the observations of a kind: their counts summed, the span, the examples, the details by name. */
function fromObservations(rows: readonly ObservationRow[], finding: Pick<Finding, 'id' | 'severity' | 'title' | 'advice'>, withDetails: boolean): Finding | undefined {
  if (rows.length === 0) return undefined;
  return {
    ...finding,
    ...seen(rows),
    examples: [...new Set(rows.map((row) => row.example).filter((example): example is string => example !== null))].slice(0, 3),
    ...(withDetails ? { details: rows.map((row) => ({ name: row.detail, count: Number(row.count) })).sort((a, b) => b.count - a.count) } : {}),
  };
}

export async function integrationReport(db: Queryable, entityId: string, now: Date): Promise<IntegrationReport> {
  const since = new Date(now.getTime() - REPORT_WINDOW_DAYS * 86_400_000);
  const observed = await db.query<ObservationRow>(
    'SELECT kind, detail, count::text AS count, first_seen, last_seen, example FROM integration_observations WHERE entity_id = $1 AND last_seen >= $2 ORDER BY kind, detail',
    [entityId, since],
  );
  const ofKind = (kind: ObservationKind, detail?: (value: string) => boolean) => observed.rows.filter((row) => row.kind === kind && (detail === undefined || detail(row.detail)));
  const findings: (Finding | undefined)[] = [];

  findings.push(
    fromObservations(ofKind('legacyCredentials'), {
      id: 'legacyCredentials',
      severity: 'retired',
      title: 'Requests authenticated with authentication.userId and authentication.password',
      advice: 'Send the access token in an Authorization: Bearer header; providers issue tokens and retire the legacy pair.',
    }, false),
  );

  const short = await db.query<{ count: string; first_seen: Date | null; last_seen: Date | null; examples: string[] | null }>(
    `SELECT count(*)::text AS count, min(created_at) AS first_seen, max(created_at) AS last_seen, (array_agg(id ORDER BY created_at DESC))[1:3] AS examples
       FROM payments WHERE entity_id = $1 AND created_at >= $2 AND length(merchant_transaction_id) < 8`,
    [entityId, since],
  );
  const shortRow = short.rows[0];
  if (shortRow && Number(shortRow.count) > 0) {
    findings.push({
      id: 'shortMerchantTransactionId',
      severity: 'refused',
      title: 'merchantTransactionId shorter than the spec’s 8 characters',
      advice: 'This gateway takes them (shops send order numbers); a provider that checks the spec refuses them: pad the order number (e.g. 00000123).',
      count: Number(shortRow.count),
      firstSeen: iso(shortRow.first_seen),
      lastSeen: iso(shortRow.last_seen),
      examples: shortRow.examples ?? [],
    });
  }

  findings.push(
    fromObservations(ofKind('threeDSecureWithoutBrowserData'), {
      id: 'threeDSecureWithoutBrowserData',
      severity: 'refused',
      title: '3-D Secure payments sent without the browser data 3-D Secure 2 needs',
      advice: 'Send customer.browser.* (acceptHeader, language, screenHeight, screenWidth, timezone, userAgent, javaEnabled) with server-to-server card payments, or pay through the widget.',
    }, false),
  );
  findings.push(
    fromObservations(ofKind('testMode'), {
      id: 'testMode',
      severity: 'refused',
      title: 'testMode sent with payments',
      advice: 'testMode belongs to test systems only: a live provider refuses it. Leave it out of what your live configuration sends.',
    }, true),
  );
  findings.push(
    fromObservations(ofKind('deprecatedParameter'), {
      id: 'deprecatedParameter',
      severity: 'retired',
      title: 'Parameters the spec deprecates',
      advice: 'notificationUrl is replaced by webhooks (spec doc 1 §8); recurringMigration by registrations with standing instructions.',
    }, true),
  );

  const failures = await db.query<{ url: string; count: string; first_seen: Date; last_seen: Date; last_status: number | null; last_error: string | null; delivery_id: string }>(
    `SELECT w.url, count(*)::text AS count, min(a.attempted_at) AS first_seen, max(a.attempted_at) AS last_seen,
            (array_agg(a.http_status ORDER BY a.id DESC))[1] AS last_status, (array_agg(a.error ORDER BY a.id DESC))[1] AS last_error,
            (array_agg(a.delivery_id ORDER BY a.id DESC))[1] AS delivery_id
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhooks w ON w.id = d.webhook_id
      WHERE w.entity_id = $1 AND a.attempted_at >= $2 AND (a.http_status IS NULL OR a.http_status NOT BETWEEN 200 AND 299)
      GROUP BY w.url ORDER BY count(*) DESC`,
    [entityId, since],
  );
  if (failures.rows.length > 0) {
    findings.push({
      id: 'webhookFailures',
      severity: 'failing',
      title: 'Webhook deliveries your receiver did not take',
      advice: 'Answer 2xx once the notification is decrypted and stored; a receiver that keeps failing for 5 days is switched off.',
      ...seen(failures.rows),
      examples: failures.rows.map((row) => row.delivery_id).slice(0, 3),
      details: failures.rows.map((row) => ({ name: `${row.url} (last: ${row.last_status ?? row.last_error ?? 'no answer'})`, count: Number(row.count) })),
    });
  }

  const options = ofKind('widgetOption');
  const documented = new Set<string>(WPWL_OPTION_NAMES);
  findings.push(
    fromObservations(
      options.filter((row) => !documented.has(row.detail)),
      {
        id: 'ignoredWidgetOptions',
        severity: 'notice',
        title: 'wpwlOptions the widget does not know (misspelt, or another product’s)',
        advice: 'The widget ignores them: check the names against the widget’s options (docs/widget.md).',
      },
      true,
    ),
  );
  findings.push(
    fromObservations(ofKind('ignoredParameter'), {
      id: 'ignoredParameters',
      severity: 'notice',
      title: 'Parameters the gateway ignored (the spec does not define them)',
      advice: 'Check the names against the spec (a misspelt one is silently left out); custom data goes in customParameters[...].',
    }, true),
  );

  const coverage = await scenarioCounts(db, entityId, since);
  const payments = await db.query<{ count: string }>('SELECT count(*)::text AS count FROM payments WHERE entity_id = $1 AND created_at >= $2', [entityId, since]);
  const paymentCount = Number(payments.rows[0]?.count ?? 0);
  if (paymentCount > 0) {
    for (const scenario of UNTESTED_FINDINGS) {
      if (coverage[scenario] > 0) continue;
      findings.push({
        id: `untested.${scenario}`,
        severity: 'untested',
        title: `Never tested: ${SCENARIOS[scenario]}`,
        advice: UNTESTED_ADVICE[scenario] ?? '',
        count: 0,
        firstSeen: null,
        lastSeen: null,
        examples: [],
      });
    }
  }

  const sorted = findings.filter((finding): finding is Finding => finding !== undefined).sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity));
  return {
    entityId,
    generatedAt: now.toISOString(),
    since: since.toISOString(),
    payments: paymentCount,
    findings: sorted,
    coverage,
    widgetOptions: options.map((row) => row.detail),
  };
}

const UNTESTED_ADVICE: Partial<Record<Scenario, string>> = {
  declinedPayment: 'Pay with a declining test card (card.holder 800.100.151, docs/widget.md#test-cards) and check what your shop shows.',
  threeDSecureChallenge: 'Pay with a challenged test card (4200000000000042, OTP 1234) and check the shopper comes back to your result page.',
  threeDSecureFailed: 'Fail or cancel a challenge (a wrong OTP) and check your shop shows the decline, and offers to pay again.',
};

async function scenarioCounts(db: Queryable, entityId: string, since: Date): Promise<Record<Scenario, number>> {
  const found = await db.query<Record<Scenario, string>>(
    `SELECT
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND parent_id IS NULL AND status = 'approved')::text AS "approvedPayment",
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND parent_id IS NULL AND status = 'declined' AND acquirer <> 'gateway')::text AS "declinedPayment",
       (SELECT count(*) FROM payment_redirects r JOIN payments p ON p.id = r.payment_id
         WHERE p.entity_id = $1 AND r.created_at >= $2 AND r.kind = 'threeDSecure' AND r.outcome = 'success')::text AS "threeDSecureChallenge",
       (SELECT count(*) FROM payment_redirects r JOIN payments p ON p.id = r.payment_id
         WHERE p.entity_id = $1 AND r.created_at >= $2 AND r.kind = 'threeDSecure' AND r.outcome IN ('failure', 'cancel', 'timeout'))::text AS "threeDSecureFailed",
       (SELECT count(*) FROM payment_redirects r JOIN payments p ON p.id = r.payment_id
         WHERE p.entity_id = $1 AND r.created_at >= $2 AND r.kind <> 'threeDSecure')::text AS "asynchronousPayment",
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND payment_type = 'CP' AND status = 'approved')::text AS "capture",
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND payment_type = 'RF' AND status = 'approved')::text AS "refund",
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND payment_type = 'RV' AND status = 'approved')::text AS "reversal",
       (SELECT count(*) FROM payments WHERE entity_id = $1 AND created_at >= $2 AND payment_type = 'CB' AND status = 'approved')::text AS "chargeback",
       (SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN webhooks w ON w.id = d.webhook_id
         WHERE w.entity_id = $1 AND a.attempted_at >= $2 AND a.http_status BETWEEN 200 AND 299)::text AS "webhookReceived"`,
    [entityId, since],
  );
  const row = found.rows[0];
  return Object.fromEntries(Object.keys(SCENARIOS).map((scenario) => [scenario, Number(row?.[scenario as Scenario] ?? 0)])) as Record<Scenario, number>;
}

/** The report as text, for a CI log and the artifact beside the JSON. */
export function reportText(report: IntegrationReport): string {
  const lines = [
    `Integration report for entity ${report.entityId}`,
    `${report.generatedAt} (what the gateway saw since ${report.since}: ${report.payments} payment(s))`,
    '',
  ];
  if (report.findings.length === 0) lines.push('Nothing found: nothing your integration leans on is refused or retired by live providers.', '');
  for (const finding of report.findings) {
    const seen = finding.count > 0 ? ` — ${finding.count} time(s), last ${finding.lastSeen}` : '';
    lines.push(`[${finding.severity}] ${finding.title}${seen}`);
    for (const detail of finding.details ?? []) lines.push(`    ${detail.name}: ${detail.count}`);
    if (finding.examples.length > 0) lines.push(`    e.g. ${finding.examples.join(', ')}`);
    lines.push(`    ${finding.advice}`, '');
  }
  lines.push('Coverage:');
  for (const [scenario, count] of Object.entries(report.coverage) as [Scenario, number][]) lines.push(`    ${count > 0 ? '✓' : '✗'} ${SCENARIOS[scenario]}: ${count}`);
  if (report.widgetOptions.length > 0) lines.push('', `Widget options your pages set: ${report.widgetOptions.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
