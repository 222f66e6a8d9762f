import { Hono, type MiddlewareHandler } from 'hono';
import { isCheckoutId } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { HttpDependencies } from '../http/access.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { jsonResponse } from '../http/respond.ts';
import { noSession } from '../checkouts/results.ts';
import type { CardVault } from '../vault/cardVault.ts';
import { choose, lookUp, start, validate, type ClickToPayContext } from './service.ts';

/**
 * /v1/checkouts/{id}/clickToPay/...: the widget's Click to Pay form talking to the test environment's simulated SRC
 * system (lookup, validation, checkout with a card id) or, with the networks' SDKs, opening a session (session) and
 * handing over a network's checkout response (checkout with checkoutResponse): service.ts. Like the checkout's submit,
 * no credentials: the checkout id is the capability. Every answer is the envelope with `clickToPay`, the step's
 * outcome; what the shopper typed wrongly is a 400 naming the parameter.
 */

const checkoutNdc: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = c.req.param('id');
  if (id !== undefined && isCheckoutId(id)) c.set('ndc', id);
  await next();
};

export function clickToPayRoutes(deps: HttpDependencies & { readonly payments: { readonly vault: CardVault } }): Hono<AppEnv> {
  const context: ClickToPayContext = { store: deps.store, vault: deps.payments.vault, environment: deps.config.environment, now: deps.now };
  const router = new Hono<AppEnv>();
  const checkoutId = pathId('checkout', () => noSession());
  const steps = {
    session: (context: ClickToPayContext, id: string) => start(context, id),
    lookup: lookUp,
    validation: validate,
    checkout: choose,
  } as const;
  for (const [step, run] of Object.entries(steps)) {
    const path = `/:id/clickToPay/${step}`;
    router.post(path, checkoutNdc, requestParams, checkoutId, async (c) => {
      const id = c.req.param('id') as string;
      const outcome = await run(context, id, c.get('params'));
      return jsonResponse(c, envelope(RESULTS.successfulRequest, id, { clickToPay: outcome }), 200);
    });
    router.all(path, () => {
      throw methodNotAllowed(['POST']);
    });
  }
  return router;
}
