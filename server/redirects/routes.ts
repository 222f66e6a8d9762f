import { Hono, type Context } from 'hono';
import type { AppDependencies } from '../deps.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { challengePage, completionPage, messagePage, providerPage, type Page } from './pages.ts';
import type { RedirectRecord } from '../payments/redirects.ts';
import { answerRedirect, viewRedirect, type RedirectAnswer } from '../payments/pending.ts';
import { languageFromHeader, pageTexts, type PageTexts } from './texts.ts';

/**
 * /v1/redirects/{id}: the pages redirect.url points at, opened by the shopper's browser (no credentials: the
 * random id is the capability). `GET` or `POST` (with redirect.parameters) shows the page; `POST .../answer`
 * is the shopper's answer.
 */

function htmlResponse(c: Context<AppEnv>, page: Page): Response {
  return new Response(page.html, { status: page.status, headers: { ...page.headers, ...c.get('baseHeaders') } });
}

const unknownPage = (texts: PageTexts) => messagePage(texts, 404, texts.text('threeDSecure.unknown'));
const otherPaymentPage = (texts: PageTexts) => messagePage(texts, 400, texts.text('threeDSecure.otherPayment'));

/** A redirect that had ended already: the page says why nothing changed, and hands the shopper back. */
function finishedPage(texts: PageTexts, redirect: RedirectRecord): Page {
  const timedOut = redirect.outcome === 'timeout';
  return completionPage(texts, redirect, texts.text(timedOut ? 'threeDSecure.timedOut' : 'threeDSecure.alreadyAnswered'), timedOut ? 410 : 409);
}

function answerOf(params: ReadonlyMap<string, string>): RedirectAnswer | undefined {
  const action = params.get('action');
  if (action !== 'submit' && action !== 'cancel') return undefined;
  return { action, otp: params.get('otp'), paymentId: params.get('paymentId') };
}

export function redirectRoutes(deps: AppDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const router = new Hono<AppEnv>();
  const textsOf = (c: Context<AppEnv>) => pageTexts(languageFromHeader(c.req.header('accept-language')));
  const redirectId = pathId('redirect', (c) => htmlResponse(c, unknownPage(textsOf(c))));

  const show = async (c: Context<AppEnv>) => {
    const texts = textsOf(c);
    const id = c.req.param('id') ?? '';
    const view = await viewRedirect(payments, id, c.get('params').get('paymentId'));
    switch (view.kind) {
      case 'unknown':
        return htmlResponse(c, unknownPage(texts));
      case 'otherPayment':
        return htmlResponse(c, otherPaymentPage(texts));
      case 'finished':
        return htmlResponse(c, finishedPage(texts, view.redirect));
      case 'open':
        return htmlResponse(c, view.redirect.kind === 'threeDSecure' ? challengePage(texts, view.redirect, view.payment) : providerPage(texts, view.redirect, view.payment));
    }
  };
  router.get('/:id', requestParams, redirectId, show);
  router.post('/:id', requestParams, redirectId, show);
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST']);
  });

  router.post('/:id/answer', requestParams, redirectId, async (c) => {
    const texts = textsOf(c);
    const id = c.req.param('id');
    const answer = answerOf(c.get('params'));
    // A form this page never renders (no action, or another one): malformed, nothing to decide.
    if (!answer) return htmlResponse(c, messagePage(texts, 400, texts.text('threeDSecure.unknown')));
    const result = await answerRedirect(payments, id, answer);
    switch (result.kind) {
      case 'unknown':
        return htmlResponse(c, unknownPage(texts));
      case 'otherPayment':
        return htmlResponse(c, otherPaymentPage(texts));
      case 'alreadyFinished':
        return htmlResponse(c, finishedPage(texts, result.redirect));
      case 'answered': {
        const outcome = result.redirect.outcome;
        const message = outcome === 'failure' ? 'threeDSecure.wrongCode' : outcome === 'timeout' ? 'threeDSecure.timedOut' : 'threeDSecure.done';
        return htmlResponse(c, completionPage(texts, result.redirect, texts.text(message), outcome === 'timeout' ? 410 : 200));
      }
    }
  });
  router.all('/:id/answer', () => {
    throw methodNotAllowed(['POST']);
  });
  return router;
}
