import { Hono, type Context } from 'hono';
import type { AppDependencies } from '../deps.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { jsonResponse } from '../http/respond.ts';
import { throttledError } from '../domain/errors.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { requireMerchant } from '../http/auth.ts';
import { requestParams } from '../http/requestParams.ts';
import { newNdc, RESOURCE_ID } from '../domain/ids.ts';
import { perMinute, throttle } from '../throttling/limiter.ts';
import { createPayment, getPayment, processBackOffice, type PaymentContext } from './service.ts';
import { paymentBody, paymentHttpStatus } from './view.ts';
import type { PaymentRecord } from './repository.ts';
import { createPaymentWriter } from './paymentWriter.ts';

/** The payment response: the payment in the envelope, 200 unless it was declined or refused. */
function paymentResponse(c: Context<AppEnv>, payment: PaymentRecord, ndc: string = payment.ndc): Response {
  const result = { code: payment.resultCode, description: payment.resultDescription };
  return jsonResponse(c, envelope(result, ndc, paymentBody(payment)), paymentHttpStatus(payment.resultCode));
}

/** What the payment use-cases run with, built once per app and shared by every route that makes payments. */
export function createPaymentContext(deps: AppDependencies): PaymentContext {
  return {
    store: deps.store,
    writer: createPaymentWriter(deps.store),
    acquirer: deps.acquirer,
    environment: deps.config.environment,
    now: deps.now,
    publicUrl: deps.config.publicUrl,
    vault: deps.vault,
  };
}

/** /v1/payments: server-to-server payments and back-office operations. */
export function paymentRoutes(deps: AppDependencies, context: PaymentContext): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  // Per route, not router-wide, so a wrong method is answered 405 before any authentication.
  const merchantRequest = [requestParams, requireMerchant(deps)] as const;
  const { limits } = deps.config;
  /** COMPAT §8: reads per payment, back-office calls per entity, counted in the store (every instance shares them). */
  const withinLimit = async (bucket: string, perMinuteCount: number) => {
    const decision = await throttle(deps.store, bucket, perMinute(perMinuteCount), deps.now());
    if (!decision.allowed) throw throttledError();
  };

  router.post('/', ...merchantRequest, async (c) => {
    return paymentResponse(c, await createPayment(context, c.get('entityId'), c.get('params')));
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  router.post('/:id', ...merchantRequest, async (c) => {
    const entityId = c.get('entityId');
    await withinLimit(`back-office:${entityId}`, limits.backOfficePerMinute);
    return paymentResponse(c, await processBackOffice(context, entityId, c.req.param('id'), c.get('params')));
  });
  router.get('/:id', ...merchantRequest, async (c) => {
    const entityId = c.get('entityId');
    const id = c.req.param('id');
    // Only ids of the right shape are counted: anything else is unknown without a look at the store.
    if (RESOURCE_ID.test(id)) await withinLimit(`payment-read:${entityId}:${id}`, limits.paymentReadsPerMinute);
    return paymentResponse(c, await getPayment(context, entityId, id), newNdc(entityId));
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });
  return router;
}
