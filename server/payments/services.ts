import type { PaymentRecord } from '../domain/payment.ts';
import type { AcquirerRegistry } from '../acquirers/registry.ts';
import type { ThreeDSecureDirectory } from '../acquirers/threeDSecure.ts';
import type { GatewayEnvironment } from '../config.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { AcquirerCallOutcome } from '../metrics/metrics.ts';
import { cachedSmartRetry, type SmartRetryLookup } from '../merchants/smartRetrySettings.ts';
import { cachedBrandOffers, type BrandOffers } from '../merchants/brands.ts';
import { cachedRoutingRules, type RoutingLookup } from '../merchants/routingRules.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import type { RiskCheck } from '../risk/velocity.ts';
import { createLastUses } from '../registrations/storedCards.ts';
import { createLedger, type Ledger } from './ledger.ts';

/**
 * What the payment use-cases run with: built once per gateway process (the ledger group-commits payments and
 * attempts across every request and job of the process) and shared by the routes and the jobs.
 */
export interface PaymentServices {
  readonly store: Store;
  /** The only writer of payment rows and acquirer attempts. */
  readonly ledger: Ledger;
  /** Told the payments the ledger recorded (the metrics), once committed. */
  readonly onPaymentsRecorded?: (payments: readonly PaymentRecord[]) => void;
  /** Told how each call to an acquirer ended (the metrics): acquirerCalls.ts. */
  readonly onAcquirerCall?: (acquirer: string, outcome: AcquirerCallOutcome) => void;
  readonly outbox: Outbox;
  readonly acquirers: AcquirerRegistry;
  /** The 3-D Secure directory server: the simulated one in test, none in live (external authentication only). */
  readonly directory: ThreeDSecureDirectory | undefined;
  /** Seals the cards the gateway keeps (a challenge's, a registration's). */
  readonly vault: CardVault;
  readonly environment: GatewayEnvironment;
  /** COMPAT §10: a registration expires this many months after its creation or last successful payment. */
  readonly registrationLifetimeMonths: number;
  /** The entities' smart retry settings, cached briefly (merchants/smartRetrySettings.ts). */
  readonly smartRetry: SmartRetryLookup;
  /** The entities' routing rules, cached briefly (merchants/routingRules.ts): which acquirer a new payment goes to. */
  readonly routing: RoutingLookup;
  /** When this process last saw each registration's expiry clock move (registrations/storedCards.ts). */
  readonly lastUses: Map<string, number>;
  readonly now: () => Date;
  /** The gateway's public base URL: redirects point at its own pages. */
  readonly publicUrl: string;
  readonly logger: Logger;
  /** The entities' risk velocity rules (COMPAT §17, risk/velocity.ts), checked before an initial payment's acquirer; none: not checked. */
  readonly risk?: RiskCheck;
  /** The brands each entity offers (COMPAT §7), cached briefly (merchants/brands.ts). */
  readonly brandOffers: BrandOffers;
  /**
   * How long after a cash voucher or prepayment (or a provider page the shopper left pending) the simulated provider
   * settles it by itself (SIMULATED_SETTLEMENT_MINUTES); 0: only on the operator's word, or never (live).
   */
  readonly simulatedSettlementMs: number;
}

export function createPaymentServices(
  parts: Omit<PaymentServices, 'ledger' | 'lastUses' | 'smartRetry' | 'routing' | 'brandOffers' | 'simulatedSettlementMs'> & {
    readonly simulatedSettlementMs?: number;
  },
): PaymentServices {
  return {
    simulatedSettlementMs: 0,
    ...parts,
    brandOffers: cachedBrandOffers(parts.store, parts.now),
    ledger: createLedger(parts.store, parts.outbox, parts.acquirers.records, parts.onPaymentsRecorded),
    lastUses: createLastUses(),
    smartRetry: cachedSmartRetry(parts.store, parts.now),
    routing: cachedRoutingRules(parts.store, parts.now),
  };
}
