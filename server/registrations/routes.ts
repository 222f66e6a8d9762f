import { Hono } from 'hono';
import type { HttpDependencies } from '../http/access.ts';
import type { Throttling } from '../throttling/service.ts';
import { GatewayError } from '../domain/errors.ts';
import { newNdc, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { RESULTS, successResultOf } from '../domain/resultCodes.ts';
import { requireMerchant } from '../http/auth.ts';
import { perResource } from '../throttling/service.ts';
import type { AppEnv } from '../http/context.ts';
import { envelope } from '../http/envelope.ts';
import { methodNotAllowed } from '../http/errors.ts';
import { answerResponse, idempotently, type Answer } from '../http/idempotency.ts';
import { pathId } from '../http/pathIds.ts';
import { requestParams } from '../http/requestParams.ts';
import { resolveTestMode } from '../params/testMode.ts';
import { findRegistration, type RegistrationRecord } from './repository.ts';
import { registrationCommand, registrationUpdateOf } from './request.ts';
import {
  createRegistration,
  deleteRegistration,
  extendRegistrationLife,
  readRegistration,
  updateRegistration,
  type RegistrationOperation,
  type RegistrationOutcome,
} from './api.ts';
import { registrationBody, registrationResult, type RegistrationServices } from './storedCards.ts';

/** The gateway's payment services are what a registration's use-cases need (RegistrationServices), by that name. */
type RouteDependencies = HttpDependencies & { readonly payments: RegistrationServices; readonly throttling?: Throttling };

/** The registration answer (COMPAT §10): the registration in the envelope. */
export function registrationAnswer(registration: RegistrationRecord, ndc: string = newNdc(registration.entityId)): Answer {
  return { status: 200, body: envelope(registrationResult(registration), ndc, registrationBody(registration)) };
}

function outcomeAnswer(entityId: string, outcome: RegistrationOutcome): Answer {
  if (outcome.kind === 'created') return registrationAnswer(outcome.registration);
  // COMPAT §10: a refused card is 400, and the answer still carries the id and the card.
  const { id, paymentBrand, card, result } = outcome.refused;
  return { status: 400, body: envelope(result, newNdc(entityId), { id, ...(paymentBrand ? { paymentBrand } : {}), card }) };
}

/** A deregistration (DR) or life extension (TE): its own id, the registration it references, the mode's success. */
function operationAnswer(operation: RegistrationOperation, testMode: string | null | undefined): Answer {
  const body = { id: operation.id, referencedId: operation.registration.id, paymentType: operation.paymentType };
  return { status: 200, body: envelope(successResultOf(testMode), newNdc(operation.registration.entityId), body) };
}

/** /v1/registrations: stored cards, server to server (COMPAT §10). */
export function registrationRoutes(deps: RouteDependencies): Hono<AppEnv> {
  const { payments } = deps;
  const { environment } = deps.config;
  const router = new Hono<AppEnv>();
  // Per route, not router-wide, so a wrong method is answered 405 before any authentication.
  // COMPAT §17: registrations share the payment limits: creating one is a payment made (as is a payment with one:
  // payments/routes.ts); reading one is a payment's read; updating, deleting or extending one is a back-office call.
  const paymentCreation = [requestParams, requireMerchant(deps, { limit: 'paymentCreationsPerMinute' })] as const;
  const registrationRead = [requestParams, requireMerchant(deps, perResource('paymentReadsPerMinute', RESOURCE_ID))] as const;
  const backOffice = [requestParams, requireMerchant(deps, { limit: 'backOfficePerMinute' })] as const;
  // COMPAT §10: an id that is not 32 characters is 100.150.101, before any look at the registrations.
  const registrationId = pathId('registration', () => new GatewayError(RESULTS.invalidRegistrationId, 400));

  router.post('/', ...paymentCreation, async (c) => {
    const entityId = c.get('entityId');
    return idempotently(c, deps, 'POST /v1/registrations', newResourceId, {
      run: async (registrationId) =>
        outcomeAnswer(entityId, await createRegistration(payments, registrationCommand(c.get('params'), { entityId, environment, registrationId }))),
      resume: async (registrationId) => {
        const made = await findRegistration(deps.store, entityId, registrationId);
        return made ? registrationAnswer(made) : undefined;
      },
    });
  });
  router.all('/', () => {
    throw methodNotAllowed(['POST']);
  });

  router.post('/:id/extendlife', ...backOffice, registrationId, async (c) => {
    const testMode = resolveTestMode(c.get('params'), environment);
    const extended = await extendRegistrationLife(payments, c.get('entityId'), c.req.param('id'));
    return answerResponse(c, operationAnswer(extended, testMode));
  });
  router.all('/:id/extendlife', () => {
    throw methodNotAllowed(['POST']);
  });

  router.get('/:id', ...registrationRead, registrationId, async (c) => {
    return answerResponse(c, registrationAnswer(await readRegistration(payments, c.get('entityId'), c.req.param('id'))));
  });
  router.post('/:id', ...backOffice, registrationId, async (c) => {
    const params = c.get('params');
    resolveTestMode(params, environment);
    const updated = await updateRegistration(payments, c.get('entityId'), c.req.param('id'), registrationUpdateOf(params));
    return answerResponse(c, registrationAnswer(updated));
  });
  router.delete('/:id', ...backOffice, registrationId, async (c) => {
    const testMode = resolveTestMode(c.get('params'), environment);
    const deleted = await deleteRegistration(payments, c.get('entityId'), c.req.param('id'));
    return answerResponse(c, operationAnswer(deleted, testMode));
  });
  router.all('/:id', () => {
    throw methodNotAllowed(['GET', 'POST', 'DELETE']);
  });
  return router;
}
