import type { HttpDependencies } from './http/access.ts';
import type { Readiness } from './http/health.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { ControlDependencies } from './control/routes.ts';
import type { ObservationRecorder } from './integration/observations.ts';
import type { PaymentServices } from './payments/services.ts';
import type { Throttling } from './throttling/service.ts';
import type { WebhookServices } from './webhooks/service.ts';
import type { ApplePayValidationSettings } from './wallets/applePaySession.ts';
import type { WidgetBuild } from './widget/build.ts';

/**
 * What the app is built from: no module-level state, so tests build as many apps as they like. The composition
 * root's own type: route modules never import it; each takes the edge's ports (HttpDependencies) and the services of
 * its feature, which this satisfies.
 */
export interface AppDependencies extends HttpDependencies {
  /** The payment core (ledger, acquirers, vault): one per process, shared with the jobs. */
  readonly payments: PaymentServices;
  /** Request limits per entity (COMPAT §17, throttling/service.ts); absent: requests are not limited. */
  readonly throttling?: Throttling;
  /** The built widget files, or undefined when the widget was not built (npm run build). */
  readonly widgetBuild: WidgetBuild | undefined;
  /** `<PUBLIC_URL>/v1/static/<version>`: where this build's widget files are served. */
  readonly staticBaseUrl: string;
  /** Webhook configuration use-cases, for the admin API (webhooks/routes.ts, when ADMIN_TOKEN is set). */
  readonly webhooks: WebhookServices;
  /** The checks behind GET /ready (http/health.ts). */
  readonly readiness: Readiness;
  /** Prometheus metrics (metrics/metrics.ts); absent in apps tests build without them. */
  readonly metrics?: Metrics;
  /**
   * 'notAsked': the dashboard signs operators and merchant users in without the second factor. Only the test harness
   * sets it (testing/harness.ts), for tests of other features; a gateway the process entry starts always asks.
   */
  readonly dashboardSecondFactor?: 'asked' | 'notAsked';
  /**
   * How Apple Pay's merchant validation reaches Apple (wallets/applePaySession.ts); absent: Apple's hosts under the
   * configured outbound policy (OUTBOUND_ALLOW_PRIVATE).
   */
  readonly applePay?: ApplePayValidationSettings;
  /** What merchants' integrations are seen doing, for their integration reports (integration/observations.ts). */
  readonly observations: ObservationRecorder;
  /** The test-only control API (control/routes.ts), with TEST_CONTROL_API=true only. */
  readonly control?: ControlDependencies;
  /**
   * Whether `now` is a clock of its own (the control API's, a test's) rather than the machine's: then the answers'
   * `timestamp` is read from it too (http/respond.ts), as everything else the gateway shows is.
   */
  readonly movedClock?: boolean;
  /**
   * The token `POST /admin/v1/commands` takes besides ADMIN_TOKEN: a gateway holding an embedded store on disk makes
   * one and writes it in DATA_DIR for the command line (cli/localCommands.ts); absent otherwise.
   */
  readonly commandToken?: string;
}
