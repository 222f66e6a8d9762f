import { Hono, type Context } from 'hono';
import { GatewayError, withReason } from '../domain/errors.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { HttpDependencies } from '../http/access.ts';
import { readBody } from '../http/body.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse, pageResponse } from '../http/respond.ts';
import { providerNotified, shopperReturned } from '../payments/providerWord.ts';
import type { PaymentServices } from '../payments/services.ts';
import { completionPage, messagePage } from '../redirects/pages.ts';
import { languageFromHeader, pageTexts } from '../redirects/texts.ts';

/**
 * /v1/acquirers/{acquirer}/...: what a connector's provider sends the gateway (issue 33), with no merchant's
 * credentials — the shopper's browser coming back from the provider's page (the attempt's random id is the
 * capability, and all it can do is make the gateway ask the provider), and the provider's encrypted webhook
 * notifications (the acquirer's notificationKey proves them).
 */

type RouteDependencies = HttpDependencies & { readonly payments: PaymentServices };

/** What an endpoint of an acquirer that has none answers: as an unknown path. */
const noSuchEndpoint = (c: Context<AppEnv>) => new GatewayError(withReason(RESULTS.invalidRequestStructure, `no endpoint ${c.req.method} ${c.req.path}`), 404);

export function providerRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const router = new Hono<AppEnv>();
  const acquirerName = pathId('acquirer', noSuchEndpoint, 'acquirer');
  const unknownReturn = (c: Context<AppEnv>) => {
    const texts = pageTexts(languageFromHeader(c.req.header('accept-language')));
    return pageResponse(c, messagePage(texts, 404, texts.text('threeDSecure.unknown')));
  };

  const returned = async (c: Context<AppEnv>) => {
    const texts = pageTexts(languageFromHeader(c.req.header('accept-language')));
    const back = await shopperReturned(payments, c.req.param('acquirer') ?? '', c.req.param('attemptId') ?? '');
    if (!back) return unknownReturn(c);
    const message = texts.text(back.status === 'pending' ? 'redirect.waiting' : 'threeDSecure.done');
    return pageResponse(c, completionPage(texts, back, message));
  };
  // The provider sends the shopper back by GET or POST, with its own parameters (its payment's id): none is trusted.
  const attemptId = pathId('attempt', unknownReturn, 'attemptId');
  router.get('/:acquirer/returns/:attemptId', acquirerName, attemptId, returned);
  router.post('/:acquirer/returns/:attemptId', acquirerName, attemptId, returned);
  router.all('/:acquirer/returns/:attemptId', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });

  router.post('/:acquirer/notifications', acquirerName, async (c) => {
    const acquirer = payments.acquirers.get(c.req.param('acquirer'));
    if (!acquirer?.readNotification) throw noSuchEndpoint(c);
    const body = new TextDecoder('utf-8', { fatal: false }).decode(await readBody(c));
    const event = acquirer.readNotification(body, (name) => c.req.header(name));
    if (!event) {
      c.get('log').warn('an acquirer notification that does not decrypt with its key was refused', { acquirer: acquirer.name });
      throw new GatewayError(withReason(RESULTS.invalidAuthentication, 'the notification does not decrypt with this acquirer’s key'), 401);
    }
    const outcome = await providerNotified(payments, acquirer, event);
    c.get('log').info('acquirer notification', { acquirer: acquirer.name, outcome });
    return jsonResponse(c, envelope(RESULTS.successfulRequest, c.get('requestId'), { outcome }), 200);
  });
  router.all('/:acquirer/notifications', () => {
    throw methodNotAllowed(['POST']);
  });
  return router;
}
