import { Hono } from 'hono';
import type { AppDependencies, AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { jsonResponse } from '../http/respond.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { requireMerchant } from '../http/auth.ts';
import { requestParams } from '../http/requestParams.ts';
import { newNdc } from '../domain/ids.ts';
import { createPayment, getPayment, processBackOffice, type PaymentContext } from './service.ts';
import { paymentBody, paymentHttpStatus } from './view.ts';
import type { PaymentRecord } from './repository.ts';
import { createPaymentWriter } from './paymentWriter.ts';

function result(payment: PaymentRecord) {
  return { code: payment.resultCode, description: payment.resultDescription };
}

/** /v1/payments: server-to-server payments and back-office operations. */
export function paymentRoutes(deps: AppDependencies): Hono<AppEnv> {
  const context: PaymentContext = {
    store: deps.store,
    writer: createPaymentWriter(deps.store),
    acquirer: deps.acquirer,
    environment: deps.config.environment,
    now: deps.now,
  };
  const router = new Hono<AppEnv>();
  // Per route, not router-wide, so a wrong method is answered 405 before any authentication.
  const merchantRequest = [requestParams, requireMerchant(deps.tokenAccess)] as const;

  router.post('/', ...merchantRequest, async (c) => {
    const payment = await createPayment(context, c.get('entityId'), c.get('params'));
    return jsonResponse(c, envelope(result(payment), payment.ndc, paymentBody(payment)), paymentHttpStatus(payment.resultCode));
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  router.post('/:id', ...merchantRequest, async (c) => {
    const payment = await processBackOffice(context, c.get('entityId'), c.req.param('id'), c.get('params'));
    return jsonResponse(c, envelope(result(payment), payment.ndc, paymentBody(payment)), paymentHttpStatus(payment.resultCode));
  });
  router.get('/:id', ...merchantRequest, async (c) => {
    const entityId = c.get('entityId');
    const payment = await getPayment(context, entityId, c.req.param('id'));
    return jsonResponse(c, envelope(result(payment), newNdc(entityId), paymentBody(payment)), paymentHttpStatus(payment.resultCode));
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });
  return router;
}
