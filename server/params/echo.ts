import { toNested } from './names.ts';
import { echoedValue, findSpec } from './validate.ts';

type Params = ReadonlyMap<string, string>;

/** Parameters the response shows in its own fields (or never: card data, credentials). */
const NOT_ECHOED = /^(entityId|authentication\.|card\.|testMode$|amount$|currency$|paymentType$|paymentBrand$|integrity$|sequence$|registrationId$)/;

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
