import { ConfigError, type GatewayConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { cachedCredentials, type CredentialsLookup } from './credentials.ts';
import { createOppConnector } from './opp/connector.ts';
import { createSimulatedAcquirer, createSimulatorRecords, withSimulatedLatency } from './simulator.ts';
import type { Acquirer, AcquirerRecords } from './types.ts';

/**
 * Acquirers are looked up, never assumed (DESIGN principle 11): a new payment goes to the acquirer its entity's routing
 * rules choose (routing.ts; the default acquirer when none does), and every later operation on a payment (capture,
 * refund, reversal, the authorization after a 3-D Secure challenge) to the acquirer recorded with it, by name. Smart
 * retry is routing over this registry too. A name ACQUIRERS_FILE describes is a connector to a real provider
 * (opp/); any other is a simulated acquirer, which a live gateway never has (issue 33: live never pretends).
 */
export interface AcquirerRegistry {
  readonly defaultAcquirer: Acquirer;
  /** The acquirer of that name, or undefined when it is not configured (any more). */
  get(name: string): Acquirer | undefined;
  /** The names of the acquirers that are connectors: an entity needs credentials at each it pays through. */
  readonly connectors: readonly string[];
  /** The entities' credentials at the connectors' providers, as the connectors read them. */
  readonly credentials: CredentialsLookup;
  /** The records its simulated acquirers keep until the ledger's transaction writes them (simulator.ts). */
  readonly records: AcquirerRecords;
  /** Closes the connectors' connections. */
  close(): void;
}

/** The registry's connectors (the acquirers that are providers behind connectors). */
export function connectorsIn(registry: AcquirerRegistry): Acquirer[] {
  return registry.connectors.flatMap((name) => registry.get(name) ?? []);
}

export interface RegistryDependencies {
  readonly vault: CardVault;
  readonly now: () => Date;
  readonly logger: Logger;
}

export function createAcquirerRegistry(
  store: Store,
  config: Pick<GatewayConfig, 'acquirers' | 'defaultAcquirer' | 'connectors' | 'environment' | 'simulatedAcquirerLatencyMs' | 'simulatorDurableRecords'>,
  deps: RegistryDependencies,
  /** Wraps each acquirer: tests observe (or stop) what reaches an acquirer this way. */
  wrap: (acquirer: Acquirer) => Acquirer = (acquirer) => acquirer,
): AcquirerRegistry {
  const records = createSimulatorRecords(store);
  const simulator = { durableRecords: config.simulatorDurableRecords, records };
  const credentials = cachedCredentials(store, deps.vault, deps.now);
  const closers: (() => void)[] = [];
  const acquirerNamed = (name: string): Acquirer => {
    const connector = config.connectors[name];
    if (connector) {
      const opp = createOppConnector(name, connector, { credentials, now: deps.now, logger: deps.logger });
      closers.push(() => opp.close());
      return opp;
    }
    // config.ts refuses the start already; this guards any other way of making a gateway (a test's own configuration).
    if (config.environment === 'live') throw new ConfigError(`the acquirer ${name} would be simulated: a live gateway never pays through a simulated acquirer (describe it in ACQUIRERS_FILE)`);
    return withSimulatedLatency(createSimulatedAcquirer(name, store, simulator), config.simulatedAcquirerLatencyMs);
  };
  const byName = new Map(config.acquirers.map((name) => [name, wrap(acquirerNamed(name))]));
  return {
    defaultAcquirer: byName.get(config.defaultAcquirer) as Acquirer,
    get: (name) => byName.get(name),
    connectors: config.acquirers.filter((name) => config.connectors[name] !== undefined),
    credentials,
    records,
    close: () => {
      for (const close of closers) close();
    },
  };
}
