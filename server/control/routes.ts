import { Hono } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import { isCheckoutId, RESOURCE_ID } from '../domain/ids.ts';
import { adminNotFound } from '../http/admin.ts';
import type { AppEnv } from '../http/context.ts';
import { requestParams } from '../http/requestParams.ts';
import { jsonResponse } from '../http/respond.ts';
import type { ObservationRecorder } from '../integration/observations.ts';
import { reportText } from '../integration/report.ts';
import { readReport } from '../integration/routes.ts';
import type { Queryable } from '../store/index.ts';
import { lastNotificationSent, lastWebhookSent, NOTIFICATION_KINDS, sentMessages, type ControlledClock, type SentFilter } from './control.ts';
import { runTrigger, TRIGGER_NAMES, type TriggerDependencies } from './triggers.ts';

/**
 * The test-only control API, under /test/v1 (TEST_CONTROL_API=true; refused in live, absent otherwise), for CI
 * pipelines whose tests must see what time does without waiting for it:
 *
 * - `POST /test/v1/clock` with `advanceSeconds`: moves the gateway's clock forward, then runs what fell due (jobs:
 *   the 29-minute call, webhook retries, captures, expiry and recovery; schedules; settlements and files) until
 *   nothing more is due; answers the new time, the step and the total advance, and how much ran. With `reset=true`
 *   (or `DELETE /test/v1/clock`), back to the machine's time: nothing runs. `GET /test/v1/clock` reads it.
 * - `POST /test/v1/triggers/{name}`: an event made to happen now on the caller's objects (triggers.ts), answering
 *   what it caused; `GET /test/v1/triggers` lists them.
 * - `GET /test/v1/sent` (`paymentId`, `checkoutId`, `entityId`, `kind`, `limit`): everything sent, newest first
 *   (control.ts sentMessages); `GET /test/v1/sent/webhook` (`entityId` optional): the last webhook delivery attempt,
 *   with the notification it carried as the receiver decrypts it; `GET /test/v1/sent/notification`: the last call to a
 *   checkout's shopperResultUrl or notificationUrl. 404 when nothing was sent.
 * - `GET /test/v1/report?entityId=` (`format=text`): the entity's integration report (integration/report.ts).
 */

/** A year and a month at most per call: a CI test moves days ahead (a registration's expiry, a monthly schedule). */
const MAX_ADVANCE_SECONDS = 400 * 86_400;

export interface ControlDependencies {
  readonly clock: ControlledClock;
  readonly store: Queryable;
  /** Runs the jobs and schedules due now, once; resolves with how many ran. */
  runDueWork(): Promise<number>;
  /** What the integration report is written from before it is read. */
  readonly observations: ObservationRecorder;
  /** What the triggers act through (besides runUntilQuiet, made here). */
  readonly triggers: Omit<TriggerDependencies, 'runUntilQuiet'>;
}

/** Rounds of due work after an advance: what one round makes due (a retry after a failure) runs in the next. */
const MAX_ROUNDS = 20;

export function controlRoutes(control: ControlDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  /** Runs what is due, round after round, until a round finds nothing; how many ran. */
  const runUntilQuiet = async (): Promise<number> => {
    let ran = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = await control.runDueWork();
      ran += now;
      if (now === 0) break;
    }
    return ran;
  };
  const triggerDeps: TriggerDependencies = { ...control.triggers, runUntilQuiet };
  /** The time, the total advance, and (after a change) the step just taken, in seconds. */
  const clockAnswer = (steppedSeconds?: number) => ({
    now: control.clock.now().toISOString(),
    ...(steppedSeconds === undefined ? {} : { steppedSeconds }),
    advancedSeconds: control.clock.offsetMs() / 1000,
  });
  const reset = () => ({ ...clockAnswer(-control.clock.reset() / 1000), ran: 0 });
  routes.get('/clock', (c) => jsonResponse(c, clockAnswer(), 200));
  routes.delete('/clock', (c) => jsonResponse(c, reset(), 200));
  routes.post('/clock', requestParams, async (c) => {
    const params = c.get('params');
    const resetAsked = params.get('reset');
    if (resetAsked !== undefined) {
      if (resetAsked !== 'true' || params.has('advanceSeconds')) {
        throw invalidParameters([{ name: 'reset', value: resetAsked, message: 'must be true, alone: back to the machine’s time (or advanceSeconds to move forward)' }]);
      }
      return jsonResponse(c, reset(), 200);
    }
    const raw = params.get('advanceSeconds') ?? '';
    const seconds = Number(raw);
    if (!/^\d{1,9}$/.test(raw) || seconds < 1 || seconds > MAX_ADVANCE_SECONDS) {
      throw invalidParameters([{ name: 'advanceSeconds', value: raw, message: `must be a whole number of seconds from 1 to ${MAX_ADVANCE_SECONDS}` }]);
    }
    control.clock.advance(seconds * 1000);
    const ran = await runUntilQuiet();
    return jsonResponse(c, { ...clockAnswer(seconds), ran }, 200);
  });
  routes.get('/sent/webhook', requestParams, async (c) => {
    const entityId = c.get('params').get('entityId');
    const sent = await lastWebhookSent(control.store, entityId && /^[0-9a-f]{32}$/.test(entityId) ? entityId : undefined);
    return sent ? jsonResponse(c, sent, 200) : jsonResponse(c, { error: 'no webhook sent yet' }, 404);
  });
  routes.get('/sent/notification', async (c) => {
    const sent = await lastNotificationSent(control.store, NOTIFICATION_KINDS);
    return sent ? jsonResponse(c, sent, 200) : jsonResponse(c, { error: 'no notification sent yet' }, 404);
  });
  routes.get('/sent', requestParams, async (c) => {
    const params = c.get('params');
    const filter: { -readonly [K in keyof SentFilter]: SentFilter[K] } = {};
    const problems = [];
    for (const name of ['paymentId', 'checkoutId', 'entityId'] as const) {
      const value = params.get(name);
      if (value === undefined) continue;
      if (name === 'checkoutId' ? isCheckoutId(value) : RESOURCE_ID.test(value)) filter[name] = value;
      else problems.push({ name, value, message: 'must be an id the gateway answered' });
    }
    const kind = params.get('kind');
    if (kind === 'webhook' || kind === 'notification' || kind === 'redirect') filter.kind = kind;
    else if (kind !== undefined) problems.push({ name: 'kind', value: kind, message: 'must be webhook, notification or redirect' });
    const limit = params.get('limit');
    if (limit !== undefined && /^\d{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= 1000) filter.limit = Number(limit);
    else if (limit !== undefined) problems.push({ name: 'limit', value: limit, message: 'must be a whole number from 1 to 1000' });
    if (problems.length > 0) throw invalidParameters(problems);
    return jsonResponse(c, { sent: await sentMessages(control.store, filter) }, 200);
  });
  routes.get('/report', requestParams, async (c) => {
    const entityId = c.get('params').get('entityId') ?? '';
    if (!RESOURCE_ID.test(entityId)) throw invalidParameters([{ name: 'entityId', value: entityId, message: 'must be the entity’s 32-character id' }]);
    const report = await readReport({ store: control.store, observations: control.observations, now: control.clock.now }, entityId);
    if (!report) throw adminNotFound('entity', entityId);
    const format = c.get('params').get('format') ?? 'json';
    if (format === 'json') return jsonResponse(c, report, 200);
    if (format !== 'text') throw invalidParameters([{ name: 'format', value: format, message: 'must be json or text' }]);
    return c.body(reportText(report), 200, { 'content-type': 'text/plain; charset=utf-8', ...c.get('baseHeaders') });
  });
  routes.get('/triggers', (c) => jsonResponse(c, { triggers: TRIGGER_NAMES }, 200));
  routes.post('/triggers/:name', requestParams, async (c) => {
    const { status = 200, ...answer } = await runTrigger(triggerDeps, c.req.param('name'), c.get('params'));
    return jsonResponse(c, { trigger: c.req.param('name'), ...answer }, status);
  });
  return routes;
}
