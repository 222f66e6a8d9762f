import { Hono } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import type { PaymentServices } from '../payments/services.ts';
import { newNdc, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { requireMerchant } from '../http/auth.ts';
import { perResource } from '../throttling/service.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { answerResponse, idempotently, type Answer } from '../http/idempotency.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { resolveTestMode } from '../params/testMode.ts';
import { findSchedule, type ScheduleRecord } from './repository.ts';
import { createScheduleCommand } from './request.ts';
import { cancelSchedule, createSchedule, readSchedule, unknownSchedule } from './service.ts';
import { scheduleBody } from './view.ts';

/** The schedule answer (COMPAT §12): 000.000.000 in every mode (the executions carry the test-mode codes). */
function scheduleAnswer(schedule: ScheduleRecord): Answer {
  return { status: 200, body: envelope(RESULTS.succeeded, newNdc(schedule.entityId), scheduleBody(schedule)) };
}

/** /scheduling/v1/schedules: subscription payments on stored cards (COMPAT §12). */
type RouteDependencies = HttpDependencies & { readonly payments: PaymentServices; readonly throttling?: Throttling };


export function scheduleRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const { environment } = deps.config;
  const router = new Hono<AppEnv>();
  // COMPAT §17: schedules share the payment limits: creating one is a payment made, reading one a payment's read,
  // cancelling one a back-office call.
  const paymentCreation = [requestParams, requireMerchant(deps, { limit: 'paymentCreationsPerMinute' })] as const;
  const scheduleRead = [requestParams, requireMerchant(deps, perResource('paymentReadsPerMinute', RESOURCE_ID))] as const;
  const backOffice = [requestParams, requireMerchant(deps, { limit: 'backOfficePerMinute' })] as const;
  const scheduleId = pathId('schedule', unknownSchedule);

  router.post('/', ...paymentCreation, async (c) => {
    const entityId = c.get('entityId');
    return idempotently(c, deps, 'POST /scheduling/v1/schedules', newResourceId, {
      run: async (scheduleId) => scheduleAnswer(await createSchedule(payments, createScheduleCommand(c.get('params'), { entityId, environment, now: payments.now() }), scheduleId)),
      resume: async (scheduleId) => {
        const made = await findSchedule(deps.store, entityId, scheduleId);
        return made ? scheduleAnswer(made) : undefined;
      },
    });
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  router.get('/:id', ...scheduleRead, scheduleId, async (c) => {
    return answerResponse(c, scheduleAnswer(await readSchedule(payments, c.get('entityId'), c.req.param('id'))));
  });
  router.delete('/:id', ...backOffice, scheduleId, async (c) => {
    resolveTestMode(c.get('params'), environment);
    const cancelled = await cancelSchedule(payments, c.get('entityId'), c.req.param('id'));
    return answerResponse(c, { status: 200, body: envelope(RESULTS.succeeded, newNdc(cancelled.entityId), { id: cancelled.id }) });
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'DELETE']);
  });
  return router;
}
