import type { GatewayConfig } from './config.ts';
import type { Logger } from './logger.ts';
import type { LegacyAccessLookup } from './merchants/legacyAccessCache.ts';
import type { TokenAccessLookup } from './merchants/tokenAccessCache.ts';
import type { PaymentServices } from './payments/services.ts';
import type { Store } from './store/index.ts';
import type { AuthFailureGuard } from './throttling/authFailures.ts';
import type { Throttling } from './throttling/service.ts';
import type { WebhookServices } from './webhooks/service.ts';
import type { WidgetBuild } from './widget/build.ts';

/** What the app is built from: no module-level state, so tests build as many apps as they like. */
export interface AppDependencies {
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly logger: Logger;
  /** The payment core (ledger, acquirers, vault): one per process, shared with the jobs. */
  readonly payments: PaymentServices;
  /** Which entities an access token may act for (cached: see tokenAccessCache.ts). */
  readonly tokenAccess: TokenAccessLookup;
  /** Which entities a legacy authentication.userId/password pair may act for (COMPAT §1; legacyAccessCache.ts). */
  readonly legacyAccess: LegacyAccessLookup;
  /** Failed authentications per client address (throttling/authFailures.ts). */
  readonly authFailures: AuthFailureGuard;
  /** Request limits per entity (COMPAT §17, throttling/service.ts); absent: requests are not limited. */
  readonly throttling?: Throttling;
  /** The built widget files, or undefined when the widget was not built (npm run build). */
  readonly widgetBuild: WidgetBuild | undefined;
  /** `<PUBLIC_URL>/v1/static/<version>`: where this build's widget files are served. */
  readonly staticBaseUrl: string;
  /** The clock used for expiry checks; tests may pin it. */
  readonly now: () => Date;
  /** Webhook configuration use-cases, for the admin API (webhooks/routes.ts, when ADMIN_TOKEN is set). */
  readonly webhooks: WebhookServices;
}
