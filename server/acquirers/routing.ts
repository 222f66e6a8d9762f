import { retriesRejection, type RejectedAuthorization, type SmartRetrySettings } from '../domain/smartRetryRules.ts';
import type { AcquirerRegistry } from './registry.ts';
import type { Acquirer } from './types.ts';

/**
 * Smart retry as routing in the acquirer registry (DESIGN principle 11): where a rejected authorization goes next.
 * The entity's settings decide whether it is retried (domain/smartRetryRules.ts); the registry decides whether their
 * fallback can take it: it must be configured now, and not the acquirer that just rejected the payment (an
 * operator may have made the fallback the default since the settings were saved: no acquirer is asked twice).
 */
export type SmartRetryRoute =
  | { readonly kind: 'retry'; readonly fallback: Acquirer }
  | { readonly kind: 'none' }
  /** The settings would retry, but their fallback cannot be used: the payment keeps its rejection. */
  | { readonly kind: 'unavailable'; readonly reason: string };

export function smartRetryRoute(
  registry: AcquirerRegistry,
  settings: SmartRetrySettings | undefined,
  rejectedBy: Acquirer,
  rejected: RejectedAuthorization,
): SmartRetryRoute {
  if (!settings || !retriesRejection(settings, rejected)) return { kind: 'none' };
  const fallback = registry.get(settings.fallbackAcquirer);
  if (!fallback) return { kind: 'unavailable', reason: `the fallback acquirer ${settings.fallbackAcquirer} is not configured (ACQUIRERS)` };
  if (fallback.name === rejectedBy.name) return { kind: 'unavailable', reason: `the fallback acquirer ${fallback.name} is the acquirer that rejected the payment` };
  return { kind: 'retry', fallback };
}
