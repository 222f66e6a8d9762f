import type { Acquirer } from '../acquirers/types.ts';
import { routedAcquirer, type RoutedPayment } from '../domain/routingRules.ts';
import type { PaymentServices } from './services.ts';

/**
 * The acquirer a new payment goes to (issue 33): the one the entity's first matching routing rule names
 * (domain/routingRules.ts), else the default acquirer. A rule naming an acquirer that is not configured any more is
 * passed over (and said so in the log): the payment goes where the next rules, or the default, send it.
 */
export async function acquirerFor(services: PaymentServices, entityId: string, payment: RoutedPayment): Promise<Acquirer> {
  const settings = await services.routing.get(entityId);
  if (!settings || settings.rules.length === 0) return services.acquirers.defaultAcquirer;
  const configured = settings.rules.filter((rule) => services.acquirers.get(rule.acquirer) !== undefined);
  if (configured.length < settings.rules.length) {
    services.logger.warn('routing rules name an acquirer that is not configured (ACQUIRERS): those rules are passed over', { entityId });
  }
  const name = routedAcquirer(configured, payment);
  return (name === undefined ? undefined : services.acquirers.get(name)) ?? services.acquirers.defaultAcquirer;
}
