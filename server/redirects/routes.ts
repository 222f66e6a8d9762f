import { Hono, type Context } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import type { PaymentServices } from '../payments/services.ts';
import type { AppEnv } from '../http/context.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { pageResponse } from '../http/respond.ts';
import { requestParams } from '../http/requestParams.ts';
import { challengePage, completionPage, messagePage, providerPage, voucherPage, type Page } from './pages.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import type { RedirectRecord } from '../payments/store/paymentRedirects.ts';
import { answerRedirect, viewRedirect, type RedirectAnswer } from '../payments/flows/pending.ts';
import { languageFromHeader, pageTexts, type PageTexts } from './texts.ts';

/**
 * /v1/redirects/{id}: the pages redirect.url points at, opened by the shopper's browser (no credentials: the
 * random id is the capability). `GET` or `POST` (with redirect.parameters) shows the page; `POST .../answer`
 * is the shopper's answer.
 */

const unknownPage = (texts: PageTexts) => messagePage(texts, 404, texts.text('threeDSecure.unknown'));
const otherPaymentPage = (texts: PageTexts) => messagePage(texts, 400, texts.text('threeDSecure.otherPayment'));

/** A redirect that had ended already: the page says why nothing changed, and hands the shopper back. */
function finishedPage(texts: PageTexts, redirect: RedirectRecord): Page {
  const timedOut = redirect.outcome === 'timeout';
  return completionPage(texts, redirect, texts.text(timedOut ? 'threeDSecure.timedOut' : 'threeDSecure.alreadyAnswered'), timedOut ? 410 : 409);
}

const ACTIONS: readonly RedirectAnswer['action'][] = ['submit', 'cancel', 'decline', 'pending'];

function answerOf(params: ReadonlyMap<string, string>): RedirectAnswer | undefined {
  const action = ACTIONS.find((known) => known === params.get('action'));
  if (action === undefined) return undefined;
  return { action, otp: params.get('otp'), pin: params.get('pin'), paymentId: params.get('paymentId') };
}

/** A payment that waits for the provider or the money: nothing to do on the page but go back to the shop. */
const waitingPage = (texts: PageTexts, redirect: RedirectRecord) => completionPage(texts, redirect, texts.text('redirect.waiting'));

/** The page of an open redirect: the challenge, the provider's page, or the cash voucher. */
function openPage(texts: PageTexts, redirect: RedirectRecord, payment: PaymentRecord): Page {
  if (redirect.kind === 'threeDSecure') return challengePage(texts, redirect, payment);
  return redirect.kind === 'cashVoucher' ? voucherPage(texts, redirect, payment) : providerPage(texts, redirect, payment);
}

/** What the shopper is told when their answer ended the page. */
function answeredMessage(redirect: RedirectRecord): string {
  switch (redirect.outcome) {
    case 'failure':
      return redirect.kind === 'threeDSecure' ? 'threeDSecure.wrongCode' : 'redirect.declined';
    case 'timeout':
      return 'threeDSecure.timedOut';
    default:
      return 'threeDSecure.done';
  }
}

type RouteDependencies = HttpDependencies & { readonly payments: PaymentServices; readonly throttling?: Throttling };


export function redirectRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const router = new Hono<AppEnv>();
  const textsOf = (c: Context<AppEnv>) => pageTexts(languageFromHeader(c.req.header('accept-language')));
  const redirectId = pathId('redirect', (c) => pageResponse(c, unknownPage(textsOf(c))));

  const show = async (c: Context<AppEnv>) => {
    const texts = textsOf(c);
    const id = c.req.param('id') ?? '';
    const view = await viewRedirect(payments, id, c.get('params').get('paymentId'));
    switch (view.kind) {
      case 'unknown':
        return pageResponse(c, unknownPage(texts));
      case 'otherPayment':
        return pageResponse(c, otherPaymentPage(texts));
      case 'finished':
        return pageResponse(c, finishedPage(texts, view.redirect));
      case 'open':
        return pageResponse(c, openPage(texts, view.redirect, view.payment));
      case 'waiting':
        return pageResponse(c, waitingPage(texts, view.redirect));
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
    if (!answer) return pageResponse(c, messagePage(texts, 400, texts.text('threeDSecure.unknown')));
    const result = await answerRedirect(payments, id, answer);
    switch (result.kind) {
      case 'unknown':
        return pageResponse(c, unknownPage(texts));
      case 'otherPayment':
        return pageResponse(c, otherPaymentPage(texts));
      case 'alreadyFinished':
        return pageResponse(c, finishedPage(texts, result.redirect));
      case 'answered':
        return pageResponse(c, completionPage(texts, result.redirect, texts.text(answeredMessage(result.redirect)), result.redirect.outcome === 'timeout' ? 410 : 200));
      case 'waiting':
        return pageResponse(c, waitingPage(texts, result.redirect));
      case 'leftPending':
        return pageResponse(c, completionPage(texts, result.redirect, texts.text('redirect.leftPending')));
      case 'incomplete':
        return pageResponse(c, providerPage(texts, result.redirect, result.payment, true));
    }
  });
  router.all('/:id/answer', () => {
    throw methodNotAllowed(['POST']);
  });
  return router;
}
