import { Hono, type Context } from 'hono';
import { RESOURCE_ID } from '../domain/ids.ts';
import type { AppDependencies, AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { requestParams } from '../http/requestParams.ts';
import { challengePage, completionPage, messagePage, providerPage, type Page } from './pages.ts';
import type { RedirectRecord } from './repository.ts';
import { answerRedirect, viewRedirect, type RedirectAnswer, type RedirectContext } from './service.ts';
import { languageFromHeader, pageTexts, type PageTexts } from './texts.ts';

/**
 * /v1/redirects/{id}: the pages redirect.url points at, opened by the shopper's browser (no credentials: the
 * random id is the capability). `GET` or `POST` (with redirect.parameters) shows the page; `POST .../answer`
 * is the shopper's answer.
 */

function htmlResponse(page: Page): Response {
  return new Response(page.html, { status: page.status, headers: page.headers });
}

/** Why a finished redirect cannot be answered again, in the shopper's words. */
function finishedMessage(texts: PageTexts, redirect: RedirectRecord): string {
  return texts.text(redirect.outcome === 'timeout' ? 'threeDSecure.timedOut' : 'threeDSecure.alreadyAnswered');
}

function answerOf(params: ReadonlyMap<string, string>): RedirectAnswer | undefined {
  const action = params.get('action');
  if (action !== 'submit' && action !== 'cancel') return undefined;
  return { action, otp: params.get('otp'), paymentId: params.get('paymentId') };
}

export function redirectRoutes(deps: AppDependencies): Hono<AppEnv> {
  const context: RedirectContext = { store: deps.store, acquirer: deps.acquirer, vault: deps.vault, now: deps.now, logger: deps.logger };
  const router = new Hono<AppEnv>();
  const textsOf = (c: Context<AppEnv>) => pageTexts(languageFromHeader(c.req.header('accept-language')));

  const show = async (c: Context<AppEnv>) => {
    const texts = textsOf(c);
    const id = c.req.param('id') ?? '';
    if (!RESOURCE_ID.test(id)) return htmlResponse(messagePage(texts, 404, texts.text('threeDSecure.unknown')));
    const view = await viewRedirect(context, id, c.get('params').get('paymentId'));
    switch (view.kind) {
      case 'unknown':
        return htmlResponse(messagePage(texts, 404, texts.text('threeDSecure.unknown')));
      case 'otherPayment':
        return htmlResponse(messagePage(texts, 400, texts.text('threeDSecure.otherPayment')));
      case 'finished':
        return htmlResponse(completionPage(texts, view.redirect, finishedMessage(texts, view.redirect), view.redirect.outcome === 'timeout' ? 410 : 409));
      case 'open':
        return htmlResponse(view.redirect.kind === 'threeDSecure' ? challengePage(texts, view.redirect, view.payment) : providerPage(texts, view.redirect, view.payment));
    }
  };
  router.get('/:id', requestParams, show);
  router.post('/:id', requestParams, show);
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });

  router.post('/:id/answer', requestParams, async (c) => {
    const texts = textsOf(c);
    const id = c.req.param('id');
    const answer = answerOf(c.get('params'));
    if (!RESOURCE_ID.test(id)) return htmlResponse(messagePage(texts, 404, texts.text('threeDSecure.unknown')));
    if (!answer) return htmlResponse(messagePage(texts, 400, texts.text('threeDSecure.unknown')));
    const result = await answerRedirect(context, id, answer);
    switch (result.kind) {
      case 'unknown':
        return htmlResponse(messagePage(texts, 404, texts.text('threeDSecure.unknown')));
      case 'otherPayment':
        return htmlResponse(messagePage(texts, 400, texts.text('threeDSecure.otherPayment')));
      case 'alreadyFinished':
        return htmlResponse(completionPage(texts, result.redirect, finishedMessage(texts, result.redirect), result.redirect.outcome === 'timeout' ? 410 : 409));
      case 'answered': {
        const outcome = result.redirect.outcome;
        const message = outcome === 'failure' ? 'threeDSecure.wrongCode' : outcome === 'timeout' ? 'threeDSecure.timedOut' : 'threeDSecure.done';
        return htmlResponse(completionPage(texts, result.redirect, texts.text(message), outcome === 'timeout' ? 410 : 200));
      }
    }
  });
  router.all('/:id/answer', () => {
    throw methodNotAllowed(['POST']);
  });
  return router;
}
