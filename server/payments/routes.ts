import { Hono } from 'hono';
import type { GatewayEnvironment } from '../config.ts';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { newNdc, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { requireMerchant } from '../http/auth.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { answerResponse, idempotently, type Answer } from '../http/idempotency.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId, type UnknownIdAnswer } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { perResource } from '../throttling/service.ts';
import { createPayment } from './createPayment.ts';
import { processBackOffice, refusalBeforeLookup, unknownReference } from './flows/backOffice.ts';
import { unknownOriginal } from './flows/followUp.ts';
import { paymentsInFlight, recoverInFlight } from './inFlight.ts';
import { backOfficeCommand, createPaymentCommand } from './request.ts';
import type { PaymentServices } from './services.ts';
import { findPayment } from './store/payments.ts';
import { paymentBody, paymentHttpStatus, resultOf } from './view.ts';

/** The edge's ports, the payment core and the request limits. */
type RouteDependencies = HttpDependencies & { readonly payments: PaymentServices; readonly throttling?: Throttling };

/** The payment answer: the payment in the envelope, 200 unless it was declined or refused. */
export function paymentAnswer(payment: PaymentRecord, ndc: string = payment.ndc): Answer {
  const result = resultOf(payment);
  return { status: paymentHttpStatus(payment), body: envelope(result, ndc, paymentBody(payment)) };
}

/** What a request with an idempotency key that a crash cut short made: found once its acquirer's answer is recorded. */
export function resumePayment(payments: PaymentServices, entityId: string) {
  return async (paymentId: string): Promise<Answer | undefined> => {
    // No other request is making this payment: the key is this request's now, whichever instance made it before.
    await recoverInFlight(payments, await paymentsInFlight(payments.store, [paymentId]));
    const made = await findPayment(payments.store, entityId, paymentId);
    return made ? paymentAnswer(made) : undefined;
  };
}

const FOLLOW_UP_PRACTICES = ['INCREMENTAL_AUTH', 'REAUTHORIZATION'];

/** COMPAT §11: an incremental authorization or reauthorization sent to the original's path (= referenceUuid). */
function isFollowUp(params: ReadonlyMap<string, string>): boolean {
  return params.get('paymentType') === 'PA' && FOLLOW_UP_PRACTICES.includes(params.get('standingInstruction.industryPractice') ?? '');
}

/** GET /v1/payments/{id} of a payment the entity does not have (COMPAT part two: it stays 404). */
const unknownPayment = (): GatewayError => new GatewayError(RESULTS.transactionNotFound, 404);

/**
 * POST /v1/payments/{id} naming a payment the entity does not have: what the operation asked for answers then, its
 * parameters checked first (the command is built for its checks), as for a well-formed id.
 */
function unknownReferenced(environment: GatewayEnvironment): UnknownIdAnswer {
  return (c, id) => {
    const params = c.get('params');
    const context = { entityId: c.get('entityId'), environment };
    if (isFollowUp(params)) {
      createPaymentCommand(params, { ...context, source: 'API', referenceUuid: id });
      return unknownOriginal(id);
    }
    const command = backOfficeCommand(params, { ...context, referencedId: id });
    return refusalBeforeLookup(command, environment) ?? unknownReference(command.paymentType);
  };
}

/** /v1/payments: server-to-server payments and back-office operations. */
export function paymentRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const router = new Hono<AppEnv>();
  // Per route, not router-wide, so a wrong method is answered 405 before any authentication.
  // Each counts against the entity's request limits, and its own (COMPAT §8, §17: throttling/service.ts).
  const paymentCreation = [requestParams, requireMerchant(deps, { limit: 'paymentCreationsPerMinute' })] as const;
  const backOffice = [requestParams, requireMerchant(deps, { limit: 'backOfficePerMinute' })] as const;
  // Only ids of the right shape are counted: anything else is unknown without a look at the store.
  const paymentRead = [requestParams, requireMerchant(deps, perResource('paymentReadsPerMinute', RESOURCE_ID))] as const;
  const { environment } = deps.config;

  router.post('/', ...paymentCreation, async (c) => {
    const entityId = c.get('entityId');
    return idempotently(c, deps, 'POST /v1/payments', newResourceId, {
      run: async (paymentId, freshPaymentId) =>
        paymentAnswer(await createPayment(payments, createPaymentCommand(c.get('params'), { entityId, environment, source: 'API', paymentId, freshPaymentId }))),
      resume: resumePayment(payments, entityId),
    });
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  router.post('/:id', ...backOffice, pathId('payment', unknownReferenced(environment)), async (c) => {
    const entityId = c.get('entityId');
    const referencedId = c.req.param('id');
    const params = c.get('params');
    return idempotently(c, deps, `POST /v1/payments/${referencedId}`, newResourceId, {
      run: async (paymentId) => {
        if (isFollowUp(params)) {
          const followUp = createPaymentCommand(params, { entityId, environment, source: 'API', paymentId, referenceUuid: referencedId });
          return paymentAnswer(await createPayment(payments, followUp));
        }
        const payment = await processBackOffice(payments, backOfficeCommand(params, { entityId, referencedId, environment, paymentId }));
        // Only the automatic capture of a PA.CP is ever skipped, never a merchant's request.
        if (!payment) throw new Error('a back-office request was skipped');
        return paymentAnswer(payment);
      },
      resume: resumePayment(payments, entityId),
    });
  });
  router.get('/:id', ...paymentRead, pathId('payment', unknownPayment), async (c) => {
    const entityId = c.get('entityId');
    const id = c.req.param('id');
    const payment = await findPayment(deps.store, entityId, id);
    // Only the entity's own payments exist for it.
    if (!payment) throw unknownPayment();
    return answerResponse(c, paymentAnswer(payment, newNdc(entityId)));
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });
  return router;
}

/** Only payments are made with a registration: operations on payments reference the payment, not the registration. */
const PAYMENT_TYPES_WITH_REGISTRATION = ['PA', 'DB', 'CD', 'PA.CP'];

/**
 * POST /v1/registrations/{id}/payments (COMPAT §10): a payment with a stored card, mounted under /v1/registrations
 * (app.ts) beside the registration routes. It counts as a payment made (COMPAT §17).
 */
export function registrationPaymentRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const { environment } = deps.config;
  const router = new Hono<AppEnv>();
  const paymentCreation = [requestParams, requireMerchant(deps, { limit: 'paymentCreationsPerMinute' })] as const;
  // COMPAT §10: an id that is not 32 characters is 100.150.101, before any look at the registrations.
  const registrationId = pathId('registration', () => new GatewayError(RESULTS.invalidRegistrationId, 400));

  router.post('/:id/payments', ...paymentCreation, registrationId, async (c) => {
    const entityId = c.get('entityId');
    const id = c.req.param('id');
    const params = c.get('params');
    const paymentType = params.get('paymentType');
    if (paymentType !== undefined && !PAYMENT_TYPES_WITH_REGISTRATION.includes(paymentType)) {
      throw new GatewayError(withReason(RESULTS.registrationNotApplicable, `${paymentType} references a payment: send it to /v1/payments/{id}`), 400);
    }
    const named = ['card.number', 'card.expiryMonth', 'card.expiryYear', 'registrationId'].filter((name) => params.has(name));
    if (named.length > 0) {
      throw invalidParameters(named.map((name) => ({ name, value: params.get(name) ?? '', message: 'cannot be sent with a payment on a registration: the registration is the card' })));
    }
    return idempotently(c, deps, `POST /v1/registrations/${id}/payments`, newResourceId, {
      run: async (paymentId, freshPaymentId) =>
        paymentAnswer(await createPayment(payments, createPaymentCommand(params, { entityId, environment, source: 'API', paymentId, freshPaymentId, registrationId: id }))),
      resume: resumePayment(payments, entityId),
    });
  });
  router.all('/:id/payments', () => {
    throw methodNotAllowed(['POST']);
  });
  return router;
}
