import type { GatewayConfig } from '../config.ts';
import type { Store } from '../store/index.ts';
import { createSimulatedAcquirer, createSimulatorRecords, withSimulatedLatency } from './simulator.ts';
import type { Acquirer, AcquirerRecords } from './types.ts';

/**
 * Acquirers are looked up, never assumed (DESIGN principle 11): a new payment goes to the default acquirer, and
 * every later operation on a payment (capture, refund, reversal, the authorization after a 3-D Secure challenge) to
 * the acquirer recorded with it, by name. Smart retry is routing over this registry (routing.ts).
 */
export interface AcquirerRegistry {
  readonly defaultAcquirer: Acquirer;
  /** The acquirer of that name, or undefined when it is not configured (any more). */
  get(name: string): Acquirer | undefined;
  /** The records its acquirers keep until the ledger's transaction writes them (acquirers/simulator.ts). */
  readonly records: AcquirerRecords;
}

export function createAcquirerRegistry(
  store: Store,
  config: Pick<GatewayConfig, 'acquirers' | 'defaultAcquirer' | 'simulatedAcquirerLatencyMs' | 'simulatorDurableRecords'>,
  /** Wraps each acquirer: tests observe (or stop) what reaches an acquirer this way. */
  wrap: (acquirer: Acquirer) => Acquirer = (acquirer) => acquirer,
): AcquirerRegistry {
  const records = createSimulatorRecords(store);
  const simulator = { durableRecords: config.simulatorDurableRecords, records };
  const byName = new Map(config.acquirers.map((name) => [name, wrap(withSimulatedLatency(createSimulatedAcquirer(name, store, simulator), config.simulatedAcquirerLatencyMs))]));
  return {
    defaultAcquirer: byName.get(config.defaultAcquirer) as Acquirer,
    get: (name) => byName.get(name),
    records,
  };
}
