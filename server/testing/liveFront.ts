import { randomBytes } from 'node:crypto';
import type { OppConnectorSettings } from '../acquirerConfig.ts';
import { saveCredentials, type ProviderCredentials } from '../acquirers/credentials.ts';
import type { GatewayConfig } from '../config.ts';
import { createTestClock, startTestGateway, TEST_DATABASE_URL, type StoreKind, type TestClock, type TestGateway } from './harness.ts';

/**
 * A live gateway in front of providers, for the connector's tests (issue 33): in this process (its clock moved by the
 * test, its jobs run when the test says), on the store kind given, its acquirers connectors to the providers' URLs
 * (real processes: testing/upstream.ts, often through a fault proxy: testing/faultProxy.ts), and its test merchant's
 * credentials at each.
 */

/** A live gateway's store: PostgreSQL, as production has it (PGlite only where no PostgreSQL is given). */
export const LIVE_STORE: StoreKind = TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';

export interface LiveFront extends TestGateway {
  readonly clock: TestClock;
  /** Sets an entity's credentials at an acquirer, as the operator does. */
  setCredentials(entityId: string, acquirer: string, credentials: ProviderCredentials): Promise<void>;
}

export async function startLiveFront(
  kind: StoreKind,
  connectors: Readonly<Record<string, OppConnectorSettings>>,
  credentials: Readonly<Record<string, ProviderCredentials>>,
  overrides: Partial<GatewayConfig> = {},
): Promise<LiveFront> {
  const clock = createTestClock();
  const acquirers = Object.keys(connectors);
  const t = await startTestGateway(
    kind,
    { environment: 'live', acquirers, defaultAcquirer: acquirers[0] as string, connectors, cardDataKey: randomBytes(32), simulatedSettlementMinutes: 0, outboundAllowPrivate: true, ...overrides },
    { now: clock.now },
  );
  const setCredentials: LiveFront['setCredentials'] = async (entityId, acquirer, given) => {
    await t.gateway.store.transaction((tx) => saveCredentials(tx, t.gateway.payments.vault, entityId, acquirer, given, clock.now()));
    t.gateway.payments.acquirers.credentials.forget(entityId, acquirer);
  };
  for (const [acquirer, given] of Object.entries(credentials)) await setCredentials(t.entityId, acquirer, given);
  return { ...t, clock, setCredentials };
}
