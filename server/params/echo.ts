import { toNested } from './names.ts';
import { echoedValue, findSpec } from './validate.ts';

type Params = ReadonlyMap<string, string>;

/** Parameters the response shows in its own fields (or never: card data, credentials). */
export const NOT_ECHOED = /^(entityId|authentication\.|card\.|testMode$|amount$|currency$|paymentType$|paymentBrand$|integrity$|sequence$|registrationId$)/;

/**
 * The request structures a response echoes (and the payment, registration or schedule row keeps): every known
 * parameter but those above, nested, with account numbers masked and secrets left out (echoedValue).
 */
export function requestEcho(params: Params): Record<string, unknown> {
  const echoed: [string, string][] = [];
  const templates = new Map<string, string>();
  for (const [name, value] of params) {
    const match = NOT_ECHOED.test(name) ? undefined : findSpec(name);
    const shown = match ? echoedValue(match.spec, value) : undefined;
    if (!match || shown === undefined) continue;
    echoed.push([name, shown]);
    templates.set(name, match.spec.name);
  }
  return toNested(echoed, (name) => templates.get(name));
}

/** Structures whose entries are keys in brackets (`customParameters[KEY]`), as the catalogue's `[*]` templates name them. */
const KEYED_STRUCTURES = new Set(['customParameters', 'merchant.data', 'risk.parameters', 'overridePaymentType']);

/**
 * What a connector forwards to a provider speaking the platform's API (acquirers/opp/): the request structures as the
 * merchant sent them, by their wire names (requestEcho's inverse: `cart.items[0].name`, `customParameters[KEY]`), but
 * those the gateway answers for itself or sends otherwise — its own references, URLs and registrations, the payment
 * instrument (sent from the vault or the command, never masked as echoed). The standing instruction goes as sent; the
 * connector puts what the gateway resolved of it (source, mode, the agreement's scheme reference) in its place.
 */
const NOT_FORWARDED = new Set([
  'merchantTransactionId',
  'shopperResultUrl',
  'notificationUrl',
  'createRegistration',
  'registrations',
  'recurringMigration',
  'recurringType',
  'referenceUuid',
  'overrideHolder',
  'bankAccount',
  'virtualAccount',
  'tokenAccount',
  'applePay',
  'googlePay',
  'samsungPay',
  'giftCard',
]);

export function forwardedParameters(echo: Readonly<Record<string, unknown>>): Record<string, string> {
  const flat: Record<string, string> = {};
  const walk = (value: unknown, name: string): void => {
    if (typeof value === 'string') {
      flat[name] = value;
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, `${name}[${index}]`));
    } else if (typeof value === 'object' && value !== null) {
      const keyed = KEYED_STRUCTURES.has(name);
      for (const [key, child] of Object.entries(value)) walk(child, keyed ? `${name}[${key}]` : `${name}.${key}`);
    }
  };
  for (const [key, value] of Object.entries(echo)) if (!NOT_FORWARDED.has(key)) walk(value, key);
  return flat;
}
