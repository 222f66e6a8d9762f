import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { GatewayError, invalidParameters, type ParameterError } from '../domain/errors.ts';
import { newNdc, newRequestId, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { LIFECYCLE_STATES, lifecycleOf, type LifecycleState } from '../domain/backOffice.ts';
import { parseAmount } from '../domain/money.ts';
import type { PaymentRecord, PaymentStatus } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { pathId } from '../http/pathIds.ts';
import { jsonResponse } from '../http/respond.ts';
import { processBackOffice } from '../payments/flows/backOffice.ts';
import { backOfficeCommand } from '../payments/request.ts';
import { paymentAnswer } from '../payments/routes.ts';
import { familyTotals, findPaymentsById, lifecycleStates } from '../payments/store/payments.ts';
import { countPayments, eachPayment, findPaymentPage, type PaymentCursor, type PaymentListCriteria } from '../query/paymentList.ts';
import { findLinkedPayments } from '../query/repository.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { chargebackRows, overviewOf } from './overview.ts';
import { actorOf, entitiesOf, entityScope, mayActFor, requireEntity, requireRole, requireSession, sessionCookie, sessionOf } from './access.ts';
import { actionsOnPayments, recordAction } from './audit.ts';
import { sentMessages } from '../control/control.ts';
import { acquirerAttemptsOf, eventsOf, paymentDetailView, paymentRowView, paymentsCsv, possibleActions, webhookAttemptsOf } from './paymentViews.ts';
import { endSession, SESSION_COOKIE, sessionExpiry, type Session } from './sessions.ts';

/**
 * The dashboard's JSON API (/dashboard/api): its own session and the pages' data, built on the same use-cases as the
 * API (the query API's store, the back office's commands), answered in the API's envelope. docs/dashboard.md lists it.
 */

export const PAGE_SIZE = 50;
const SUCCESS = { code: '000.000.000', description: 'Request successfully processed' } as const;
const SHORT_ID = /^[0-9]{4}\.[0-9]{4}\.[0-9]{4}$/;
const STATUSES: readonly PaymentStatus[] = ['approved', 'pending', 'declined'];
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const PAYMENT_TYPES = ['PA', 'DB', 'CD', 'CP', 'RV', 'RF', 'CB', 'CR'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function ok(c: Context<AppEnv>, body: Record<string, unknown> = {}, extraHeaders: Record<string, string> = {}): Response {
  return jsonResponse(c, envelope(SUCCESS, newNdc(newRequestId().slice(0, 32)), body), 200, extraHeaders);
}

/** The session as GET /session and a sign-in answer it: who (with a merchant user's role and merchant), the entities, the CSRF token. */
export async function sessionBody(deps: Pick<AppDependencies, 'store'>, session: Session): Promise<Record<string, unknown>> {
  const entities = await entitiesOf(deps.store, session.principal);
  return {
    session: {
      principal: {
        kind: session.principal.kind,
        name: session.principal.name,
        ...(session.principal.kind === 'merchant' ? { role: session.principal.role, merchant: session.principal.merchantName } : {}),
      },
      entities: entities.map((entity) => ({ id: entity.id, name: entity.name })),
      csrfToken: session.csrfToken,
      expiresAt: sessionExpiry(session).toISOString(),
    },
  };
}

/** The list's filters from the query string; each wrong one named in parameterErrors. */
function listCriteriaOf(query: Record<string, string>, session: Session): { criteria: PaymentListCriteria; cursor?: PaymentCursor } {
  const errors: ParameterError[] = [];
  const wrong = (name: string, message: string) => errors.push({ name, value: query[name] ?? '', message });
  const known = [
    'entityId', 'status', 'state', 'paymentBrand', 'paymentType', 'currency', 'amountFrom', 'amountTo', 'dateFrom', 'dateTo',
    'merchantTransactionId', 'shortId', 'last4Digits', 'bin', 'holder', 'email', 'q', 'cursor',
  ];
  for (const name of Object.keys(query)) if (!known.includes(name)) wrong(name, 'is not a filter of the list');
  const criteria: { -readonly [K in keyof PaymentListCriteria]: PaymentListCriteria[K] } = {};
  const scope = entityScope(session.principal);
  const { entityId } = query;
  if (entityId !== undefined) {
    if (!RESOURCE_ID.test(entityId)) wrong('entityId', 'must be 32 lowercase hexadecimal characters');
    else requireEntity(session.principal, entityId);
    criteria.entityIds = [entityId];
  } else if (scope) criteria.entityIds = scope;
  if (query.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(query.status)) criteria.status = query.status as PaymentStatus;
    else wrong('status', `must be one of ${STATUSES.join(', ')}`);
  }
  if (query.state !== undefined) {
    if ((LIFECYCLE_STATES as readonly string[]).includes(query.state)) criteria.state = query.state as LifecycleState;
    else wrong('state', `must be one of ${LIFECYCLE_STATES.join(', ')}`);
  }
  if (query.paymentType !== undefined) {
    if (PAYMENT_TYPES.includes(query.paymentType)) criteria.paymentType = query.paymentType;
    else wrong('paymentType', `must be one of ${PAYMENT_TYPES.join(', ')}`);
  }
  if (query.paymentBrand !== undefined) {
    if (/^[A-Z0-9_]{1,32}$/.test(query.paymentBrand)) criteria.paymentBrand = query.paymentBrand;
    else wrong('paymentBrand', 'must be a brand name such as VISA');
  }
  if (query.currency !== undefined) {
    if (/^[A-Z]{3}$/.test(query.currency)) criteria.currency = query.currency;
    else wrong('currency', 'must be three capital letters');
  }
  for (const [name, key] of [['amountFrom', 'amountFromMinor'], ['amountTo', 'amountToMinor']] as const) {
    const text = query[name];
    if (text === undefined) continue;
    const minor = parseAmount(text);
    if (minor === undefined) wrong(name, 'must be an amount such as 10.00');
    else criteria[key] = minor;
  }
  for (const [name, key, days] of [['dateFrom', 'from', 0], ['dateTo', 'to', 1]] as const) {
    const text = query[name];
    if (text === undefined) continue;
    const day = DAY.test(text) ? new Date(`${text}T00:00:00Z`) : undefined;
    if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) wrong(name, 'must be a day, yyyy-MM-dd');
    else criteria[key] = new Date(day.getTime() + days * 86_400_000);
  }
  if (query.merchantTransactionId !== undefined) {
    if (query.merchantTransactionId.length <= 255) criteria.merchantTransactionId = query.merchantTransactionId;
    else wrong('merchantTransactionId', 'has at most 255 characters');
  }
  if (query.shortId !== undefined) {
    if (SHORT_ID.test(query.shortId)) criteria.shortId = query.shortId;
    else wrong('shortId', 'must be a short id such as 1234.5678.9012');
  }
  const card: [string, RegExp, string, 'last4Digits' | 'bin'][] = [
    ['last4Digits', /^[0-9]{4}$/, 'must be 4 digits', 'last4Digits'],
    ['bin', /^[0-9]{6,8}$/, 'must be 6 to 8 digits', 'bin'],
  ];
  for (const [name, pattern, message, key] of card) {
    const text = query[name];
    if (text === undefined) continue;
    if (pattern.test(text)) criteria[key] = text;
    else wrong(name, message);
  }
  if (query.holder !== undefined) {
    if (query.holder.trim().length >= 2 && query.holder.length <= 128) criteria.holder = query.holder.trim();
    else wrong('holder', 'must be 2 to 128 characters of the card holder\'s name');
  }
  if (query.email !== undefined) {
    if (EMAIL.test(query.email) && query.email.length <= 128) criteria.email = query.email;
    else wrong('email', 'must be an e-mail address');
  }
  // The search box: an id, a short id, 4 digits (the card's last), 6 to 8 (its BIN), an e-mail address, an amount
  // (exactly), else the merchant's reference or a part of the card holder's name.
  const q = query.q?.trim();
  if (q) {
    const amount = /^[0-9]+\.[0-9]{2}$/.test(q) ? parseAmount(q) : undefined;
    if (RESOURCE_ID.test(q)) criteria.id = q;
    else if (SHORT_ID.test(q)) criteria.shortId = q;
    else if (/^[0-9]{4}$/.test(q)) criteria.last4Digits = q;
    else if (/^[0-9]{6,8}$/.test(q)) criteria.bin = q;
    else if (amount !== undefined) criteria.amountFromMinor = criteria.amountToMinor = amount;
    else if (EMAIL.test(q) && q.length <= 128) criteria.email = q;
    else if (q.length <= 255) criteria.text = q;
    else wrong('q', 'has at most 255 characters');
  }
  let cursor: PaymentCursor | undefined;
  if (query.cursor !== undefined) {
    cursor = decodeCursor(query.cursor);
    if (!cursor) wrong('cursor', 'is not a cursor this list gave');
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return { criteria, ...(cursor ? { cursor } : {}) };
}

const noSuchPayment = (): GatewayError => new GatewayError(RESULTS.transactionNotFound, 404);

/** The back-office operations the detail page offers, as the API's paymentType. */
const OPERATIONS = { capture: 'CP', refund: 'RF', reverse: 'RV' } as const;

export function dashboardApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const secure = new URL(config.publicUrl).protocol === 'https:';
  const signedIn = requireSession({ store, now: deps.now, publicUrl: config.publicUrl });

  // Signing in (POST /session, the second factor, invitations) is signInApi.ts's.
  routes.get('/session', signedIn, async (c) => ok(c, await sessionBody(deps, sessionOf(c))));
  routes.delete('/session', signedIn, async (c) => {
    await endSession(store, getCookie(c, SESSION_COOKIE) ?? '', deps.now());
    return ok(c, {}, { 'set-cookie': sessionCookie(undefined, secure) });
  });
  routes.all('/session', () => {
    throw methodNotAllowed(['GET', 'POST', 'DELETE']);
  });

  routes.get('/entities', signedIn, async (c) => {
    const entities = await entitiesOf(store, sessionOf(c).principal);
    return ok(c, { entities: entities.map((entity) => ({ id: entity.id, name: entity.name })) });
  });

  // A page: the rows only, so the first one is drawn as soon as it is read (a count of a million rows costs more).
  routes.get('/payments', signedIn, async (c) => {
    const { criteria, cursor } = listCriteriaOf(c.req.query(), sessionOf(c));
    const page = await findPaymentPage(store, criteria, PAGE_SIZE, cursor);
    return ok(c, {
      payments: page.payments.map(({ payment, state }) => paymentRowView(payment, state)),
      ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}),
    });
  });

  // How many payments the list's filters select, every page of them: the page asks once its first page is drawn.
  routes.get('/payments/count', signedIn, async (c) => {
    const { criteria } = listCriteriaOf(withoutCursor(c.req.query()), sessionOf(c));
    return ok(c, { total: await countPayments(store, criteria) });
  });

  // The list as it is filtered, every page of it, as CSV (streamed: read a thousand rows at a time).
  routes.get('/payments/export', signedIn, async (c) => {
    const { criteria } = listCriteriaOf(withoutCursor(c.req.query()), sessionOf(c));
    const stamp = deps.now().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
    return new Response(paymentsCsv(eachPayment(store, criteria)), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="payments-${stamp}.csv"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  });

  // The overview: the entity picked, else every entity the session sees.
  routes.get('/overview', signedIn, async (c) => {
    const { criteria } = listCriteriaOf(onlyEntity(c.req.query()), sessionOf(c));
    return ok(c, { overview: await overviewOf(store, criteria.entityIds, deps.now()) });
  });

  // The chargebacks, newest first, a page at a time like the payments, each with the payment it charged back.
  routes.get('/chargebacks', signedIn, async (c) => {
    const query = c.req.query();
    const { criteria, cursor } = listCriteriaOf({ ...onlyEntity(query), ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) }, sessionOf(c));
    const page = await findPaymentPage(store, { ...criteria, paymentType: 'CB' }, PAGE_SIZE, cursor);
    const rows = await chargebackRows(store, page.payments.map((listed) => listed.payment));
    return ok(c, { chargebacks: rows, ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}) });
  });

  // Another entity's payment is as unknown to a merchant as one nobody made.
  const visiblePayment = async (session: Session, id: string) => {
    const [payment] = await findPaymentsById(store, [id]);
    if (!payment || !mayActFor(session.principal, payment.entityId)) throw noSuchPayment();
    return payment;
  };

  routes.get('/payments/:id', signedIn, pathId('payment', noSuchPayment), async (c) => {
    const payment = await visiblePayment(sessionOf(c), c.req.param('id'));
    const linked = await findLinkedPayments(store, payment.entityId, payment.id);
    const family = await findPaymentsById(store, linked.map((ref) => ref.id));
    const ids = family.length > 0 ? family.map((member) => member.id) : [payment.id];
    const [events, webhookAttempts, acquirerAttempts, actions, lifecycle, states] = await Promise.all([
      eventsOf(store, [payment.id]),
      webhookAttemptsOf(store, [payment.id]),
      acquirerAttemptsOf(store, [payment.id]),
      actionsOnPayments(store, ids),
      familyTotals(store, payment.id).then((totals) => lifecycleOf(payment, totals)),
      lifecycleStates(store, ids),
    ]);
    return ok(c, {
      payment: paymentDetailView(payment, lifecycle),
      transactions: family
        .filter((member) => member.id !== payment.id)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || depthIn(family, a) - depthIn(family, b))
        .map((member) => paymentRowView(member, states.get(member.id) ?? member.status)),
      events,
      webhookAttempts,
      acquirerAttempts,
      operatorActions: actions.map((action) => ({
        who: action.actor,
        action: action.action,
        at: action.at.toISOString(),
        paymentId: action.paymentId,
        detail: action.detail,
        ...(action.resultCode ? { resultCode: action.resultCode } : {}),
      })),
      actions: possibleActions(lifecycle),
      // In test, everything the gateway sent about the payment (control/control.ts): webhook attempts with what they
      // carried, the checkout's calls, the shopper's pages — what a shop's tests read through the control API.
      ...(config.environment === 'test' ? { sent: await sentMessages(store, { paymentId: payment.id }) } : {}),
    });
  });

  for (const [operation, paymentType] of Object.entries(OPERATIONS)) {
    routes.post(`/payments/:id/${operation}`, signedIn, pathId('payment', noSuchPayment), async (c) => {
      const session = sessionOf(c);
      requireRole(session.principal, 'refunds');
      const payment = await visiblePayment(session, c.req.param('id'));
      const body = await adminJsonBody(c, paymentType === 'RV' ? {} : { amount: 'string' });
      // The API's own command and rules: the parameters a merchant's server would send to POST /v1/payments/{id}.
      const params = new Map<string, string>([['paymentType', paymentType]]);
      if (paymentType !== 'RV') {
        params.set('amount', typeof body.amount === 'string' ? body.amount : '');
        params.set('currency', payment.currency);
      }
      let answer: ReturnType<typeof paymentAnswer>;
      try {
        const command = backOfficeCommand(params, { entityId: payment.entityId, referencedId: payment.id, environment: config.environment, paymentId: newResourceId() });
        const made = await processBackOffice(deps.payments, command);
        if (!made) throw new Error('a back-office request was skipped');
        answer = paymentAnswer(made);
      } catch (error) {
        if (error instanceof GatewayError) {
          await recordAction(store, { actor: actorOf(session.principal), entityId: payment.entityId, paymentId: payment.id, action: operation, detail: amountDetail(params), resultCode: error.result.code, at: deps.now() });
        }
        throw error;
      }
      const made = answer.body as { id?: string; result?: { code?: string } };
      await recordAction(store, {
        actor: actorOf(session.principal),
        entityId: payment.entityId,
        paymentId: payment.id,
        action: operation,
        detail: { ...amountDetail(params), ...(made.id ? { transactionId: made.id } : {}) },
        ...(made.result?.code ? { resultCode: made.result.code } : {}),
        at: deps.now(),
      });
      return jsonResponse(c, answer.body, answer.status);
    });
  }

  return routes;
}

/** How many of the family's payments stand above this one (its parent, theirs...): made in one moment, a refund follows its capture. */
function depthIn(family: readonly PaymentRecord[], member: PaymentRecord): number {
  let depth = 0;
  for (let parentId = member.parentId; parentId !== null && depth < family.length; depth++) {
    parentId = family.find((candidate) => candidate.id === parentId)?.parentId ?? null;
  }
  return depth;
}

/** Of a query, only the entity picked (pages that take no other filter). */
const onlyEntity = (query: Record<string, string>): Record<string, string> => (query.entityId !== undefined ? { entityId: query.entityId } : {});

const withoutCursor = (query: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(query).filter(([name]) => name !== 'cursor'));

const amountDetail = (params: ReadonlyMap<string, string>): Record<string, string> =>
  params.has('amount') ? { amount: params.get('amount') ?? '', currency: params.get('currency') ?? '' } : {};
