import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { newNdc, newRequestId } from './domain/ids.ts';
import { RESULTS } from './domain/resultCodes.ts';
import type { AppDependencies, AppEnv } from './http/context.ts';
import { envelope } from './http/envelope.ts';
import { GatewayError, withReason } from './http/errors.ts';
import { MAX_BODY_BYTES } from './http/requestParams.ts';
import { withRequestId } from './logger.ts';
import { paymentRoutes } from './payments/routes.ts';

/**
 * Builds the gateway's Hono app from its feature routers. No I/O happens here: the store, acquirer and
 * logger come in ready, so tests call `app.request()` on as many apps as they like.
 */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { logger } = deps;

  app.use('*', async (c, next) => {
    const requestId = newRequestId();
    c.set('requestId', requestId);
    const started = performance.now();
    await withRequestId(requestId, async () => {
      await next();
      c.header('X-Request-Id', requestId);
      logger.info('request', {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    });
  });

  app.use(
    '*',
    cors({
      origin: '*',
      allowMethods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type'],
      exposeHeaders: ['X-Request-Id'],
      maxAge: 600,
    }),
  );
  app.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    // Answered before the body was read (404, 413, refused Content-Type): the unread rest stays on the
    // connection and the server drops it later, under the client's next request. Say so and close it now.
    const length = c.req.header('content-length');
    const sentBody = (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
    if (sentBody && (Object.keys(c.req.bodyCache).length === 0 || c.res.status === 413)) c.header('Connection', 'close');
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new GatewayError(
          withReason(RESULTS.invalidParameter, `request body larger than ${MAX_BODY_BYTES} bytes`),
          413,
        );
      },
    }),
  );

  app.route('/v1/payments', paymentRoutes(deps));

  app.notFound((c) => {
    const answer = withReason(RESULTS.invalidRequestStructure, `no endpoint ${c.req.method} ${c.req.path}`);
    return c.json(envelope(answer, c.get('requestId')), 404);
  });

  app.onError((error, c) => {
    const entityId = c.get('entityId') as string | undefined;
    const ndc = entityId ? newNdc(entityId) : c.get('requestId');
    if (error instanceof GatewayError) {
      const result = error.parameterErrors ? { ...error.result, parameterErrors: error.parameterErrors } : error.result;
      return c.json(envelope(result, ndc), error.status, error.headers);
    }
    if (error instanceof HTTPException && error.status < 500) {
      const answer = withReason(RESULTS.invalidRequestStructure, error.message || 'malformed request');
      return c.json(envelope(answer, ndc), error.status);
    }
    logger.error('unexpected error', { error, method: c.req.method, path: c.req.path });
    return c.json(envelope(RESULTS.unexpectedError, ndc), 500);
  });

  return app;
}
