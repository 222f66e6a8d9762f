import { Hono, type Context } from 'hono';
import { cardView } from '../domain/cards.ts';
import { GatewayError, invalidParameters, type ParameterError } from '../domain/errors.ts';
import { ENTITY_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { formatAmount } from '../domain/money.ts';
import { maskAccountNumber } from '../domain/sensitive.ts';
import type { AppDependencies } from '../deps.ts';
import { adminJsonBody, adminNotFound } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { pathId } from '../http/pathIds.ts';
import { deleteRegistration } from '../registrations/api.ts';
import { expiryOf, unusableRegistration } from '../registrations/storedCards.ts';
import { findScheduleById, type ScheduleRecord, type ScheduleStatus } from '../schedules/repository.ts';
import { cancelSchedule, unknownSchedule } from '../schedules/service.ts';
import { jobFields } from '../schedules/view.ts';
import { findDelivery, findWebhook, listDeliveries, listWebhooks, type WebhookRecord } from '../webhooks/repository.ts';
import { DEFAULT_DELIVERY_LIMIT, deliveryJson, MAX_DELIVERY_LIMIT, webhookConfigRefusal, webhookJson } from '../webhooks/routes.ts';
import {
  changeWebhook,
  createWebhook,
  removeWebhook,
  resendDelivery,
  sendActivation,
  WebhookConfigError,
  type ActivationOutcome,
  type WebhookChanges,
} from '../webhooks/service.ts';
import { decodeCursor, encodeCursor, type ListCursor } from './cursor.ts';
import { actorOf, entityScope, mayActFor, requireEntity, requireRole, requireSession, sessionOf } from './access.ts';
import { ok, PAGE_SIZE } from './api.ts';
import { recordAction } from './audit.ts';
import type { Session } from './sessions.ts';
import { actionsOnSubject, findRegistrationPage, findRegistrationRow, findSchedulePage, type ChargedRegistration, type RegistrationListRow } from './recordLists.ts';

/**
 * The dashboard's pages of stored instruments, schedules and webhooks (/dashboard/api): registrations (cards as BIN,
 * last 4, expiry and holder; bank accounts with the IBAN masked) and their deletion, schedules and their
 * cancellation, and an entity's webhooks — created, changed, switched off and on, deleted, tested, their deliveries
 * with every attempt, a delivery sent again. Every change goes through the use-case the API and the admin commands
 * use (deleteRegistration, cancelSchedule, createWebhook, changeWebhook, removeWebhook, sendActivation,
 * resendDelivery), so the dashboard refuses what they refuse, and is recorded (audit.ts). A merchant sees and acts
 * only for its own entities; another entity's registration, schedule, webhook or delivery is as unknown to it as one
 * that does not exist.
 *
 * A webhook's secret is answered once, by the request that made the gateway generate it (created without one); a
 * secret the merchant chose is write-only. No other answer, list or record carries a secret.
 */

const SCHEDULE_STATUSES: readonly ScheduleStatus[] = ['active', 'cancelled', 'ended'];

/** The query's filters, each wrong or unknown one named in parameterErrors; the entities the list covers. */
function listFilters(
  query: Record<string, string>,
  session: Session,
  known: readonly string[],
): { entityIds: readonly string[] | undefined; cursor?: ListCursor; errors: ParameterError[] } {
  const errors: ParameterError[] = [];
  const wrong = (name: string, message: string) => errors.push({ name, value: query[name] ?? '', message });
  for (const name of Object.keys(query)) if (!['entityId', ...known].includes(name)) wrong(name, 'is not a filter of the list');
  let entityIds = entityScope(session.principal);
  const { entityId } = query;
  if (entityId !== undefined) {
    if (!ENTITY_ID.test(entityId)) wrong('entityId', 'must be 32 lowercase hexadecimal characters');
    else requireEntity(session.principal, entityId);
    entityIds = [entityId];
  }
  let cursor: ListCursor | undefined;
  if (known.includes('cursor') && query.cursor !== undefined) {
    cursor = decodeCursor(query.cursor);
    if (!cursor) wrong('cursor', 'is not a cursor this list gave');
  }
  return { entityIds, ...(cursor ? { cursor } : {}), errors };
}

const iso = (at: Date | null | undefined): string | undefined => (at ? new Date(at).toISOString() : undefined);

/** A stored bank account as the dashboard shows it: holder, the IBAN masked (again: masking a masked IBAN keeps it), BIC, country, mandate. */
function bankAccountView(account: Record<string, unknown>): Record<string, unknown> {
  const text = (name: string) => (typeof account[name] === 'string' ? { [name]: account[name] as string } : {});
  const mandate = account.mandate as { id?: unknown } | undefined;
  return {
    ...text('holder'),
    iban: typeof account.iban === 'string' ? maskAccountNumber(account.iban) : '',
    ...text('bic'),
    ...text('country'),
    ...(typeof mandate?.id === 'string' ? { mandateId: mandate.id } : {}),
  };
}

/** active, deleted, or expired (its lifetime after its last successful use has passed). */
function registrationView(row: RegistrationListRow, lifetimeMonths: number, now: Date): Record<string, unknown> {
  const expiresAt = expiryOf(row, lifetimeMonths);
  const status = row.deletedAt ? 'deleted' : now.getTime() >= expiresAt.getTime() ? 'expired' : 'active';
  return {
    id: row.id,
    entityId: row.entityId,
    paymentBrand: row.paymentBrand,
    ...(row.card ? { card: cardView(row.card) } : {}),
    ...(row.bankAccount ? { bankAccount: bankAccountView(row.bankAccount) } : {}),
    status,
    ...(row.merchantTransactionId ? { merchantTransactionId: row.merchantTransactionId } : {}),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt.toISOString(),
    ...(status === 'deleted' ? { deletedAt: iso(row.deletedAt) } : { expiresAt: expiresAt.toISOString() }),
  };
}

function chargedView(registration: ChargedRegistration | undefined): Record<string, unknown> | undefined {
  if (!registration) return undefined;
  return {
    paymentBrand: registration.paymentBrand,
    ...(registration.card ? { card: { bin: registration.card.bin, last4Digits: registration.card.last4Digits } } : {}),
    ...(registration.bankAccount ? { bankAccount: { iban: bankAccountView(registration.bankAccount).iban } } : {}),
    deleted: registration.deletedAt !== null,
  };
}

/** A schedule as the dashboard shows it: the payment it makes, its Quartz job, where it stands. */
function scheduleView(schedule: ScheduleRecord, registration?: ChargedRegistration): Record<string, unknown> {
  const merchantTransactionId = schedule.requestEcho.merchantTransactionId;
  const charged = chargedView(registration);
  return {
    id: schedule.id,
    entityId: schedule.entityId,
    registrationId: schedule.registrationId,
    ...(charged ? { registration: charged } : {}),
    status: schedule.status,
    paymentType: schedule.paymentType,
    amount: formatAmount(schedule.amountMinor),
    currency: schedule.currency,
    ...(typeof merchantTransactionId === 'string' ? { merchantTransactionId } : {}),
    job: jobFields(schedule.job),
    ...(schedule.nextFireAt ? { nextFireAt: iso(schedule.nextFireAt) } : {}),
    startAt: iso(schedule.startAt),
    ...(schedule.endAt ? { endAt: iso(schedule.endAt) } : {}),
    createdAt: iso(schedule.createdAt),
    ...(schedule.cancelledAt ? { cancelledAt: iso(schedule.cancelledAt), cancelReason: schedule.cancelReason } : {}),
    ...(schedule.endedAt ? { endedAt: iso(schedule.endedAt) } : {}),
  };
}

const activationDetail = (activation: ActivationOutcome) => ({
  delivered: activation.delivered,
  ...(activation.httpStatus !== null ? { httpStatus: activation.httpStatus } : {}),
  ...(activation.error !== null ? { error: activation.error.slice(0, 200) } : {}),
});

const SUCCESS_CODE = '000.000.000';

export function recordsApiRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const { store, config } = deps;
  const signedIn = requireSession({ store, now: deps.now, publicUrl: config.publicUrl });

  /**
   * Does `work` for the entity and records it (who, what, the answer's code), refused or not: a refusal the use-case
   * made (a GatewayError, a refused webhook setting turned into one) is recorded with its code, then answered.
   */
  async function recorded<T>(
    c: Context<AppEnv>,
    what: { entityId: string; action: string; detail: Record<string, unknown>; notFound?: string },
    work: () => Promise<{ value: T; detail?: Record<string, unknown> }>,
  ): Promise<T> {
    const actor = actorOf(sessionOf(c).principal);
    let done: { value: T; detail?: Record<string, unknown> };
    try {
      done = await work();
    } catch (thrown) {
      const error = thrown instanceof WebhookConfigError ? webhookConfigRefusal(thrown, what.notFound ?? '') : thrown;
      if (error instanceof GatewayError) {
        await recordAction(store, { actor, entityId: what.entityId, action: what.action, detail: what.detail, resultCode: error.result.code, at: deps.now() });
      }
      throw error;
    }
    await recordAction(store, { actor, entityId: what.entityId, action: what.action, detail: { ...what.detail, ...done.detail }, resultCode: SUCCESS_CODE, at: deps.now() });
    return done.value;
  }

  // ------------------------------------------------------------------------------------------------------------
  // Registrations: stored cards and bank accounts

  routes.get('/registrations', signedIn, async (c) => {
    const { entityIds, cursor, errors } = listFilters(c.req.query(), sessionOf(c), ['cursor']);
    if (errors.length > 0) throw invalidParameters(errors);
    const page = await findRegistrationPage(store, entityIds, PAGE_SIZE, cursor);
    const now = deps.now();
    return ok(c, {
      registrations: page.rows.map((row) => registrationView(row, deps.payments.registrationLifetimeMonths, now)),
      ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}),
    });
  });

  // DELETE /v1/registrations/{id}'s use-case: the card erased from the vault, the REGISTRATION DELETED event (its
  // schedules cancelled by the event's subscriber); another entity's registration is unknown (400 100.150.200), a
  // deleted one is refused (400 100.150.202).
  const unknownRegistration = (_c: Context<AppEnv>, id: string) => unusableRegistration(RESULTS.registrationNotFound, undefined, id);
  routes.delete('/registrations/:id', signedIn, pathId('registration', unknownRegistration), async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const session = sessionOf(c);
    const id = c.req.param('id');
    const found = await findRegistrationRow(store, id);
    if (!found || !mayActFor(session.principal, found.entityId)) throw unknownRegistration(c, id);
    const deleted = await recorded(c, { entityId: found.entityId, action: 'delete registration', detail: { registrationId: id } }, async () => {
      const operation = await deleteRegistration(deps.payments, found.entityId, id);
      return { value: operation, detail: { deregistrationId: operation.id } };
    });
    const row = (await findRegistrationRow(store, id)) ?? found;
    return ok(c, { registration: registrationView(row, deps.payments.registrationLifetimeMonths, deps.now()), deregistrationId: deleted.id });
  });

  // ------------------------------------------------------------------------------------------------------------
  // Schedules

  routes.get('/schedules', signedIn, async (c) => {
    const query = c.req.query();
    const { entityIds, cursor, errors } = listFilters(query, sessionOf(c), ['status', 'cursor']);
    const status = query.status;
    if (status !== undefined && !(SCHEDULE_STATUSES as readonly string[]).includes(status)) {
      errors.push({ name: 'status', value: status, message: `must be one of ${SCHEDULE_STATUSES.join(', ')}` });
    }
    if (errors.length > 0) throw invalidParameters(errors);
    const page = await findSchedulePage(store, entityIds, status as ScheduleStatus | undefined, PAGE_SIZE, cursor);
    return ok(c, {
      schedules: page.rows.map((row) => scheduleView(row.schedule, row.registration)),
      ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}),
    });
  });

  // DELETE /scheduling/v1/schedules/{id}'s use-case: another entity's schedule is unknown (400 700.400.580), a
  // cancelled or ended one is closed (400 100.350.101).
  routes.post('/schedules/:id/cancel', signedIn, pathId('schedule', unknownSchedule), async (c) => {
    requireRole(sessionOf(c).principal, 'refunds');
    const session = sessionOf(c);
    const id = c.req.param('id');
    const found = await findScheduleById(store, id);
    if (!found || !mayActFor(session.principal, found.entityId)) throw unknownSchedule();
    const cancelled = await recorded(c, { entityId: found.entityId, action: 'cancel schedule', detail: { scheduleId: id } }, async () => ({
      value: await cancelSchedule(deps.payments, found.entityId, id, sessionOf(c).principal.kind === 'operator' ? 'operator' : 'merchant'),
    }));
    return ok(c, { schedule: scheduleView(cancelled) });
  });

  // ------------------------------------------------------------------------------------------------------------
  // Webhooks: never their secrets

  const noWebhook = (_c: Context<AppEnv>, id: string) => adminNotFound('webhook', id);
  /** The webhook, if the principal may see it (another entity's is as unknown as one that does not exist). */
  const visibleWebhook = async (session: Session, id: string): Promise<WebhookRecord> => {
    const webhook = await findWebhook(store, id);
    if (!webhook || !mayActFor(session.principal, webhook.entityId)) throw adminNotFound('webhook', id);
    return webhook;
  };

  routes.get('/webhooks', signedIn, async (c) => {
    const { entityIds, errors } = listFilters(c.req.query(), sessionOf(c), []);
    if (errors.length > 0) throw invalidParameters(errors);
    const webhooks = entityIds === undefined ? await listWebhooks(store) : (await Promise.all(entityIds.map((entityId) => listWebhooks(store, entityId)))).flat();
    webhooks.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    return ok(c, { webhooks: webhooks.map(webhookJson) });
  });

  routes.post('/webhooks', signedIn, async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const session = sessionOf(c);
    const body = await adminJsonBody(c, { entityId: 'string', url: 'string', types: 'strings', fields: 'string', wrapper: 'string', secret: 'string' });
    const missing = ['entityId', 'url'].filter((name) => body[name] === undefined);
    if (missing.length > 0) throw invalidParameters(missing.map((name) => ({ name, value: '', message: 'is required' })));
    const entityId = body.entityId as string;
    if (!ENTITY_ID.test(entityId)) throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be 32 lowercase hexadecimal characters' }]);
    requireEntity(session.principal, entityId);
    // What was asked, never the secret: only whether one was given.
    const asked = {
      url: body.url as string,
      ...(body.types !== undefined ? { types: body.types as string[] } : {}),
      ...(body.fields !== undefined ? { fields: body.fields as string } : {}),
      ...(body.wrapper !== undefined ? { wrapper: body.wrapper as string } : {}),
    };
    const created = await recorded(c, { entityId, action: 'create webhook', detail: { ...asked, secretGiven: body.secret !== undefined }, notFound: entityId }, async () => {
      const made = await createWebhook(deps.webhooks, entityId, { ...asked, ...(body.secret !== undefined ? { secret: body.secret as string } : {}) });
      return { value: made, detail: { webhookId: made.webhook.id, ...activationDetail(made.activation) } };
    });
    // A secret the gateway generated is answered this once, for the merchant's receiver; one the merchant gave is not.
    return ok(c, { webhook: webhookJson(created.webhook), activation: created.activation, ...(body.secret === undefined ? { secret: created.secret } : {}) });
  });

  // PATCH /admin/v1/webhooks/{id}'s use-case (changeWebhook): a new URL, or switching it on again, makes it pending
  // until its activation message gets a 2xx (sent here); `active: false` switches it off. Its secret never changes.
  routes.patch('/webhooks/:id', signedIn, pathId('webhook', noWebhook), async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const body = await adminJsonBody(c, { url: 'string', types: 'strings', fields: 'string', wrapper: 'string', active: 'boolean' });
    const webhook = await visibleWebhook(sessionOf(c), c.req.param('id'));
    const changes = body as WebhookChanges;
    const changed = await recorded(c, { entityId: webhook.entityId, action: 'change webhook', detail: { webhookId: webhook.id, ...changes }, notFound: webhook.id }, async () => {
      const done = await changeWebhook(deps.webhooks, webhook.id, changes);
      return { value: done, detail: { status: done.webhook.status, ...(done.activation ? activationDetail(done.activation) : {}) } };
    });
    return ok(c, { webhook: webhookJson(changed.webhook), activation: changed.activation ?? null });
  });

  // DELETE /admin/v1/webhooks/{id}'s use-case (removeWebhook): its deliveries (pending ones are not sent) and its
  // secret go with it. What was done to it stays in the record of actions.
  routes.delete('/webhooks/:id', signedIn, pathId('webhook', noWebhook), async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const webhook = await visibleWebhook(sessionOf(c), c.req.param('id'));
    const removed = await recorded(c, { entityId: webhook.entityId, action: 'delete webhook', detail: { webhookId: webhook.id, url: webhook.url }, notFound: webhook.id }, async () => ({
      value: await removeWebhook(deps.webhooks, webhook.id),
    }));
    return ok(c, { webhook: webhookJson(removed) });
  });

  routes.post('/webhooks/:id/test', signedIn, pathId('webhook', noWebhook), async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const webhook = await visibleWebhook(sessionOf(c), c.req.param('id'));
    const tested = await recorded(c, { entityId: webhook.entityId, action: 'test webhook', detail: { webhookId: webhook.id }, notFound: webhook.id }, async () => {
      const sent = await sendActivation(deps.webhooks, webhook.id);
      return { value: sent, detail: activationDetail(sent.activation) };
    });
    return ok(c, { webhook: webhookJson(tested.webhook), activation: tested.activation });
  });

  routes.get('/webhooks/:id/deliveries', signedIn, pathId('webhook', noWebhook), async (c) => {
    const query = c.req.query();
    const errors: ParameterError[] = Object.keys(query)
      .filter((name) => name !== 'limit')
      .map((name) => ({ name, value: query[name] ?? '', message: 'is not a filter of the list' }));
    const raw = query.limit;
    const limit = raw === undefined ? DEFAULT_DELIVERY_LIMIT : Number(raw);
    if (raw !== undefined && (!/^\d{1,7}$/.test(raw) || limit < 1 || limit > MAX_DELIVERY_LIMIT)) {
      errors.push({ name: 'limit', value: raw, message: `must be an integer between 1 and ${MAX_DELIVERY_LIMIT}` });
    }
    if (errors.length > 0) throw invalidParameters(errors);
    const webhook = await visibleWebhook(sessionOf(c), c.req.param('id'));
    const [deliveries, actions] = await Promise.all([listDeliveries(store, webhook.id, limit), actionsOnSubject(store, webhook.entityId, { key: 'webhookId', id: webhook.id })]);
    return ok(c, {
      webhook: webhookJson(webhook),
      deliveries: deliveries.map(deliveryJson),
      actions: actions.map((action) => ({ who: action.actor, action: action.action, at: action.at.toISOString(), detail: action.detail, ...(action.resultCode ? { resultCode: action.resultCode } : {}) })),
    });
  });

  // The operator's re-send (webhooks/service.ts): a job of its own, due now; a running gateway sends it.
  routes.post('/deliveries/:id/resend', signedIn, pathId('delivery', (_c, id) => adminNotFound('delivery', id)), async (c) => {
    requireRole(sessionOf(c).principal, 'admin');
    const session = sessionOf(c);
    const id = c.req.param('id');
    const delivery = await findDelivery(store, id);
    const webhook = delivery ? await findWebhook(store, delivery.webhookId) : undefined;
    if (!delivery || !webhook || !mayActFor(session.principal, webhook.entityId)) throw adminNotFound('delivery', id);
    await recorded(c, { entityId: webhook.entityId, action: 'resend delivery', detail: { webhookId: webhook.id, deliveryId: id }, notFound: id }, async () => ({
      value: await resendDelivery(deps.webhooks, id),
    }));
    return ok(c, { deliveryId: id, webhookId: webhook.id, resend: 'scheduled' });
  });

  return routes;
}
