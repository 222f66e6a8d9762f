import { Hono } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { PaymentServices } from './services.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { adminJsonBody, adminNotFound, requireAdminToken } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { settleWaiting, type SettlementOutcome } from './flows/asynchronous.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { findPayment } from './store/payments.ts';
import { paymentBody, resultOf } from './view.ts';

/**
 * The operator speaking for a simulated provider (COMPAT §7): `POST /admin/v1/payments/{paymentId}/settlement` with
 * `{"outcome": "approved" | "declined"}` settles an asynchronous payment that waits — a cash voucher or prepayment whose
 * money arrived (or not), a transfer the shopper left pending that the bank confirmed (or refused) — at once, and
 * answers the payment as it is then. Test only: in live no simulated provider exists to speak for.
 */

const OUTCOMES: readonly SettlementOutcome[] = ['approved', 'declined'];
const noPayment = (id: string) => adminNotFound('waiting payment', id);

/**
 * Settles a waiting payment by its id (settleWaiting) and gives it as it is then; what does not wait is refused as the
 * admin API answers it: unknown 404, a 3-D Secure challenge or a final payment 409. The operator's route and a test's
 * trigger (control/triggers.ts) both speak for the provider through it.
 */
export async function settlePayment(services: PaymentServices, paymentId: string, outcome: SettlementOutcome): Promise<PaymentRecord> {
  const settled = await settleWaiting(services, paymentId, outcome, { byPayment: true });
  switch (settled.kind) {
    case 'unknown':
      throw noPayment(paymentId);
    case 'notAsynchronous':
      throw new GatewayError(withReason(RESULTS.invalidParameter, `payment ${paymentId} waits for its 3-D Secure challenge, which only the shopper answers`), 409);
    case 'alreadyFinished':
      throw new GatewayError(withReason(RESULTS.invalidParameter, `payment ${paymentId} is final already; nothing was changed`), 409);
    case 'settled': {
      const payment = await findPayment(services.store, settled.redirect.entityId, paymentId);
      if (!payment) throw noPayment(paymentId);
      return payment;
    }
  }
}

export function settlementAdminRoutes(deps: Pick<HttpDependencies, 'authFailures' | 'config' | 'store' | 'now'> & { readonly payments: PaymentServices }, adminToken: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use('*', requireAdminToken(deps, adminToken));
  const paymentPathId = pathId('payment', (_c, id) => noPayment(id), 'paymentId');

  routes.post('/:paymentId/settlement', paymentPathId, async (c) => {
    const paymentId = c.req.param('paymentId');
    const body = await adminJsonBody(c, { outcome: 'string' });
    const outcome = OUTCOMES.find((known) => known === body.outcome);
    if (outcome === undefined) throw invalidParameters([{ name: 'outcome', value: String(body.outcome ?? ''), message: `must be one of ${OUTCOMES.join(', ')}` }]);
    if (deps.config.environment === 'live') {
      throw new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, 'a live gateway has no simulated provider: its providers settle their payments themselves'), 400);
    }
    const payment = await settlePayment(deps.payments, paymentId, outcome);
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { payment: { ...paymentBody(payment), result: resultOf(payment) } }), 200);
  });

  routes.all('/:paymentId/settlement', () => {
    throw methodNotAllowed(['POST']);
  });
  return routes;
}
