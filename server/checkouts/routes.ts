import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { requireMerchant } from '../http/auth.ts';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import type { PaymentServices } from '../payments/services.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { throttledAnswer } from '../domain/errors.ts';
import { checkoutEntityLookup } from '../throttling/service.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { jsonResponse } from '../http/respond.ts';
import { answerResponse, idempotently, type Answer } from '../http/idempotency.ts';
import { isTrue } from '../params/values.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { paymentBody, paymentHttpStatus, redirectView, resultOf } from '../payments/view.ts';
import { noSession, notRegistrationOnly, CHECKOUT_RESULTS } from './results.ts';
import { createCheckout, deleteCheckout, integrityOf, readCheckoutResult, updateCheckout, type CheckoutContext, type ClickToPayRedemption } from './service.ts';
import { findCheckout, type CheckoutRecord } from './repository.ts';
import { isCheckoutId } from '../domain/ids.ts';
import { newCheckoutId, type CheckoutKind } from './state.ts';
import { submitCheckout } from './submit.ts';
import { executeSavedTransaction, saveTransactionData, SUMMARY_FLAG } from './summary.ts';
import { registrationCheckoutAnswer } from './verification.ts';

const BROWSER_HEADERS = [
  ['customer.browser.acceptHeader', 'accept'],
  ['customer.browser.userAgent', 'user-agent'],
] as const;

/**
 * Every answer about a checkout, errors included, carries the checkout id as its ndc (COMPAT §1). Only an
 * id of the right shape is echoed, so nothing a caller typed into the path is reflected back.
 */
const checkoutNdc: MiddlewareHandler<AppEnv> = async (c, next) => {
  const id = c.req.param('id');
  if (id !== undefined && isCheckoutId(id)) c.set('ndc', id);
  await next();
};

function checkoutAnswer(c: Context<AppEnv>, result: Result, id: string, extra: Record<string, unknown> = {}): Response {
  return answerResponse(c, checkoutBody(result, id, extra));
}

function checkoutBody(result: Result, id: string, extra: Record<string, unknown> = {}): Answer {
  return { status: 200, body: envelope(result, id, { id, ...extra }) };
}

/** The payment response with the checkout id as ndc: 200 for success and pending, 400 for a decline. */
function paymentAnswer(c: Context<AppEnv>, payment: PaymentRecord, checkoutId: string): Response {
  const result = resultOf(payment);
  return jsonResponse(c, envelope(result, checkoutId, paymentBody(payment)), paymentHttpStatus(payment));
}

/**
 * The answer to the shopper's unauthenticated submit: what the widget needs (the result, and where to go while
 * the payment is pending) and the payment id the redirect names anyway. The payment itself, with the merchant's
 * server-side parameters, is for the merchant's authenticated read.
 */
function shopperAnswer(c: Context<AppEnv>, payment: PaymentRecord, checkoutId: string): Response {
  const result = resultOf(payment);
  const body = { id: payment.id, ...(payment.redirect ? { redirect: redirectView(payment.redirect) } : {}) };
  return jsonResponse(c, envelope(result, checkoutId, body), paymentHttpStatus(payment));
}

/** /v1/checkouts: hosted checkouts, for the merchant's server and (the submit) for the shopper's browser. */
/** The edge's ports, the payment core, request limits and where the widget is served. */
type RouteDependencies = HttpDependencies & {
  readonly payments: PaymentServices;
  readonly throttling?: Throttling;
  readonly staticBaseUrl: string;
  /** Click to Pay's redemption of the shopper's chosen card (clickToPay/service.ts); none: CLICK_TO_PAY is refused. */
  readonly clickToPay?: ClickToPayRedemption;
};


export function checkoutRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const context: CheckoutContext = {
    store: deps.store,
    payments: deps.payments,
    environment: deps.config.environment,
    gatewayUrl: deps.config.publicUrl,
    staticBaseUrl: deps.staticBaseUrl,
    now: deps.now,
    logger: deps.logger,
    limits: deps.config.limits,
    throttling: deps.throttling,
    clickToPay: deps.clickToPay,
  };
  const entityOfCheckout = checkoutEntityLookup(deps.store);
  const router = new Hono<AppEnv>();
  // Per route, not router-wide, so a wrong method is answered 405 before any authentication.
  const merchantRequest = [requestParams, requireMerchant(deps)] as const;
  // Unknown, malformed, deleted or another entity's: the same answer (results.ts).
  const checkoutId = pathId('checkout', () => noSession());

  router.post('/', ...merchantRequest, async (c) => {
    const entityId = c.get('entityId');
    const created = (checkout: CheckoutRecord, integrity: string | undefined) =>
      checkoutBody(CHECKOUT_RESULTS.created, checkout.id, integrity ? { integrity } : {});
    return idempotently(c, deps, 'POST /v1/checkouts', () => newCheckoutId(context.environment), {
      run: async (id) => {
        const { checkout, integrity } = await createCheckout(context, entityId, c.get('params'), id);
        return created(checkout, integrity);
      },
      resume: async (id) => {
        const checkout = await findCheckout(deps.store, id, { entityId });
        if (!checkout) return undefined;
        return created(checkout, isTrue(c.get('params').get('integrity')) ? integrityOf(checkout.bootstrap) : undefined);
      },
    });
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  // The shopper's browser posts here: no Authorization header, the checkout id is the capability.
  const shopperSubmit = (path: CheckoutKind) => async (c: Context<AppEnv>) => {
    const id = c.req.param('id') as string;
    // COMPAT §17: a submit is a payment made, counted against its entity's payment creations.
    const entityId = deps.throttling ? await entityOfCheckout(id) : undefined;
    if (entityId) await deps.throttling?.admit(entityId, [{ limit: 'paymentCreationsPerMinute' }], { general: false });
    // 3-D Secure needs what the browser sent in its headers: a page cannot read them, the gateway can.
    const browserHeaders = new Map<string, string>();
    for (const [name, header] of BROWSER_HEADERS) {
      const value = c.req.header(header);
      if (value) browserHeaders.set(name, value.slice(0, 2048));
    }
    // The summary page (summary.ts): the card form's data saved for the merchant's server to pay, not paid.
    if (path === 'payment' && isTrue(c.get('params').get(SUMMARY_FLAG))) {
      const { result, ...body } = await saveTransactionData(context, id, c.get('params'), browserHeaders);
      return jsonResponse(c, envelope(result as Result, id, body), 200);
    }
    return shopperAnswer(c, await submitCheckout(context, id, path, c.get('params'), browserHeaders), id);
  };
  /** The merchant's server pays what the shopper saved on the summary page: the same route, with its credentials. */
  const merchantAuth = requireMerchant(deps);
  const executeSaved = async (c: Context<AppEnv>): Promise<Response> => {
    const id = c.req.param('id') as string;
    return paymentAnswer(c, await executeSavedTransaction(context, c.get('entityId'), id), id);
  };
  const authenticated = (c: Context<AppEnv>) => c.req.header('authorization') !== undefined || c.get('params').has('authentication.userId');
  // The merchant's server reads the result: the payment, or (a registration-only checkout, on either path) the registration.
  const resultRead = (path: CheckoutKind) => async (c: Context<AppEnv>) => {
    const id = c.req.param('id') as string;
    const read = await readCheckoutResult(context, c.get('entityId'), id, path);
    switch (read.kind) {
      case 'noSession':
        throw noSession();
      case 'throttled':
        throw throttledAnswer(read.retryAt, deps.now());
      case 'notRegistrationOnly':
        throw notRegistrationOnly();
      case 'pending':
        return jsonResponse(c, envelope(RESULTS.pending, id), 200);
      case 'payment':
        return paymentAnswer(c, read.payment, id);
      case 'registration': {
        const answer = registrationCheckoutAnswer(read.verification, read.registration);
        return jsonResponse(c, envelope(answer.result, id, answer.body), answer.status);
      }
    }
  };
  for (const path of ['payment', 'registration'] as const) {
    router.post(`/:id/${path}`, checkoutNdc, requestParams, checkoutId, async (c, next) => {
      if (path !== 'payment' || !authenticated(c)) return next();
      let answer: Response | undefined;
      await merchantAuth(c, async () => {
        answer = await executeSaved(c);
      });
      return answer ?? c.res;
    }, shopperSubmit(path));
    router.get(`/:id/${path}`, checkoutNdc, ...merchantRequest, checkoutId, resultRead(path));
    router.all(`/:id/${path}`, () => {
      throw methodNotAllowed(['GET', 'POST']);
    });
  }

  router.post('/:id', checkoutNdc, ...merchantRequest, checkoutId, async (c) => {
    const checkout = await updateCheckout(context, c.get('entityId'), c.req.param('id'), c.get('params'));
    return checkoutAnswer(c, CHECKOUT_RESULTS.updated, checkout.id);
  });
  router.delete('/:id', checkoutNdc, ...merchantRequest, checkoutId, async (c) => {
    const checkout = await deleteCheckout(context, c.get('entityId'), c.req.param('id'));
    return checkoutAnswer(c, CHECKOUT_RESULTS.deleted, checkout.id);
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['POST', 'DELETE']);
  });
  return router;
}
