import { Hono } from 'hono';
import { invalidParameters } from '../domain/errors.ts';
import { CHECKOUT_NOTIFICATION, SHOPPER_RESULT_CALL } from '../checkouts/callbacks.ts';
import type { AppEnv } from '../http/context.ts';
import { requestParams } from '../http/requestParams.ts';
import { jsonResponse } from '../http/respond.ts';
import type { Queryable } from '../store/index.ts';
import { lastNotificationSent, lastWebhookSent, type ControlledClock } from './control.ts';

/**
 * The test-only control API, under /test/v1 (TEST_CONTROL_API=true; refused in live, absent otherwise), for CI
 * pipelines whose tests must see what time does without waiting for it:
 *
 * - `POST /test/v1/clock` with `advanceSeconds`: moves the gateway's clock forward, then runs what fell due (jobs:
 *   the 29-minute call, webhook retries, captures, expiry and recovery; schedules; settlements and files) until
 *   nothing more is due; answers the new time, the step and the total advance, and how much ran. With `reset=true`
 *   (or `DELETE /test/v1/clock`), back to the machine's time: nothing runs. `GET /test/v1/clock` reads it.
 * - `GET /test/v1/sent/webhook` (`entityId` optional): the last webhook delivery attempt, with the notification it
 *   carried as the receiver decrypts it; `GET /test/v1/sent/notification`: the last call to a checkout's
 *   shopperResultUrl or notificationUrl. 404 when nothing was sent.
 */

/** A year and a month at most per call: a CI test moves days ahead (a registration's expiry, a monthly schedule). */
const MAX_ADVANCE_SECONDS = 400 * 86_400;

export interface ControlDependencies {
  readonly clock: ControlledClock;
  readonly store: Queryable;
  /** Runs the jobs and schedules due now, once; resolves with how many ran. */
  runDueWork(): Promise<number>;
}

/** Rounds of due work after an advance: what one round makes due (a retry after a failure) runs in the next. */
const MAX_ROUNDS = 20;

export function controlRoutes(control: ControlDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
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
    let ran = 0;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = await control.runDueWork();
      ran += now;
      if (now === 0) break;
    }
    return jsonResponse(c, { ...clockAnswer(seconds), ran }, 200);
  });
  routes.get('/sent/webhook', requestParams, async (c) => {
    const entityId = c.get('params').get('entityId');
    const sent = await lastWebhookSent(control.store, entityId && /^[0-9a-f]{32}$/.test(entityId) ? entityId : undefined);
    return sent ? jsonResponse(c, sent, 200) : jsonResponse(c, { error: 'no webhook sent yet' }, 404);
  });
  routes.get('/sent/notification', async (c) => {
    const sent = await lastNotificationSent(control.store, [SHOPPER_RESULT_CALL, CHECKOUT_NOTIFICATION]);
    return sent ? jsonResponse(c, sent, 200) : jsonResponse(c, { error: 'no notification sent yet' }, 404);
  });
  return routes;
}
