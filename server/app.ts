import { Hono, type Context } from 'hono';
import { routePath } from 'hono/route';
import { newNdc, newRequestId } from './domain/ids.ts';
import { shownText } from './domain/sensitive.ts';
import { RESULTS } from './domain/resultCodes.ts';
import type { AppDependencies } from './deps.ts';
import type { AppEnv } from './http/context.ts';
import { envelope } from './http/envelope.ts';
import { GatewayError, MadeByAnotherRunError, stillBeingMade, withReason } from './domain/errors.ts';
import { maskedParameterError } from './params/validate.ts';
import { baseHeadersFor, CORS_PREFLIGHT_HEADERS, jsonResponse } from './http/respond.ts';
import { checkoutRoutes } from './checkouts/routes.ts';
import { clickToPayRoutes } from './clickToPay/routes.ts';
import { clickToPayRedemption } from './clickToPay/service.ts';
import { clickToPaySettingsAdminRoutes } from './clickToPay/settingsRoutes.ts';
import { paymentRoutes, registrationPaymentRoutes } from './payments/routes.ts';
import { queryRoutes } from './query/routes.ts';
import { redirectRoutes } from './redirects/routes.ts';
import { walletRoutes } from './wallets/routes.ts';
import { applePayValidationSettings } from './wallets/applePaySession.ts';
import { applePayIdentityAdminRoutes } from './wallets/applePayIdentityRoutes.ts';
import { providerRoutes } from './providers/routes.ts';
import { registrationRoutes } from './registrations/routes.ts';
import { scheduleRoutes } from './schedules/routes.ts';
import { findBootstrapSnapshot } from './checkouts/repository.ts';
import { demoRoutes } from './demo/routes.ts';
import { credentialAdminRoutes } from './merchants/credentialRoutes.ts';
import { entityAdminRoutes, tokenAdminRoutes } from './merchants/entityRoutes.ts';
import { smartRetryAdminRoutes } from './merchants/smartRetryRoutes.ts';
import { routingAdminRoutes } from './merchants/routingRoutes.ts';
import { acquirerCredentialsAdminRoutes } from './acquirers/credentialsRoutes.ts';
import { throttlingAdminRoutes } from './throttling/routes.ts';
import { brandsAdminRoutes } from './merchants/brandsRoutes.ts';
import { settlementAdminRoutes } from './payments/settlementRoutes.ts';
import { webhookAdminRoutes } from './webhooks/routes.ts';
import { reconciliationDayRoutes, reconciliationEntityRoutes } from './reconciliation/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { commandAdminRoutes } from './cli/commandRoutes.ts';
import { settlementRunAdminRoutes, settlementSettingsAdminRoutes } from './reports/adminRoutes.ts';
import { widgetRoutes } from './widget/routes.ts';
import { healthRoutes } from './http/health.ts';
import { homeRoutes } from './http/home.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { metricsResponder } from './metrics/routes.ts';
import { controlRoutes } from './control/routes.ts';
import { observeRequests } from './integration/observations.ts';
import { integrationReportAdminRoutes, widgetReportRoutes } from './integration/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';

/** The route template that answered, as a metrics label (never the path itself: it holds ids), or `unmatched`. */
function routeTemplateOf(c: Context<AppEnv>): string {
  const template = routePath(c);
  return template === '' || template === '*' || template === '/*' ? 'unmatched' : template;
}

/**
 * Builds the gateway's Hono app from its feature routers. No I/O happens here: the store, acquirer and
 * logger come in ready, so tests call `app.request()` on as many apps as they like.
 */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { logger } = deps;
  const baseHeaders = baseHeadersFor(deps.config.publicUrl);

  app.use('*', async (c, next) => {
    const requestId = newRequestId();
    const log = logger.forRequest(requestId);
    c.set('requestId', requestId);
    c.set('log', log);
    c.set('bodyConsumed', false);
    c.set('baseHeaders', baseHeaders);
    if (deps.movedClock) c.set('clock', deps.now);
    const started = performance.now();
    await next();
    const elapsedMs = performance.now() - started;
    deps.metrics?.requestAnswered({ route: routeTemplateOf(c), method: c.req.method, status: c.res.status, resultCode: c.get('resultCode'), seconds: elapsedMs / 1000 });
    // Enough to follow a payment through the logs: who asked (entityId), what it made or read (id) and the answer.
    log.info('request', {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round(elapsedMs * 10) / 10,
      entityId: c.get('entityId'),
      id: c.get('resourceId'),
      resultCode: c.get('resultCode'),
    });
  });

  // What merchants' servers send, seen for their integration reports (integration/observations.ts): every request a
  // merchant's credentials authenticated, whatever its path (on '*', so an unmatched path stays `unmatched` above).
  app.use('*', observeRequests(deps.observations));

  // The back office is same-origin: /dashboard gives a page of another site no CORS permission, neither to a preflight
  // (it is not answered as one) nor on an answer (jsonResponse gives every JSON answer the API's CORS headers).
  const isDashboard = (path: string) => path === '/dashboard' || path.startsWith('/dashboard/');
  app.use('/dashboard/*', async (c, next) => {
    await next();
    for (const name of [...c.res.headers.keys()]) if (name.startsWith('access-control-')) c.res.headers.delete(name);
  });
  const preflight = () => new Response(null, { status: 204, headers: { ...CORS_PREFLIGHT_HEADERS, ...baseHeaders } });
  app.options('*', (c, next) => (isDashboard(c.req.path) ? next() : preflight()));

  app.route('/v1/payments', paymentRoutes(deps));
  app.route('/v1/checkouts', checkoutRoutes({ ...deps, clickToPay: clickToPayRedemption(deps.payments.vault) }));
  // Issue 35 point 6: Click to Pay's steps with the test environment's simulated SRC system or the networks', per checkout.
  app.route('/v1/checkouts', clickToPayRoutes(deps));
  // Issue 36: the widget tells which wpwlOptions the page set (the integration report).
  app.route('/v1/checkouts', widgetReportRoutes(deps));
  app.route('/v1/registrations', registrationRoutes(deps));
  app.route('/v1/registrations', registrationPaymentRoutes(deps));
  app.route('/scheduling/v1/schedules', scheduleRoutes(deps));
  app.route('/v1/redirects', redirectRoutes(deps));
  app.route(
    '/v1/wallets',
    walletRoutes({
      environment: deps.config.environment,
      staticBaseUrl: deps.staticBaseUrl,
      googlePayGateway: deps.config.googlePayGateway,
      applePay: {
        store: deps.store,
        vault: deps.payments.vault,
        now: deps.now,
        settings: deps.applePay ?? applePayValidationSettings({ allowPrivateAddresses: deps.config.outboundAllowPrivate }),
        ...(deps.throttling ? { limits: deps.throttling } : {}),
      },
    }),
  );
  // Issue 33: what connectors' providers send back (the shopper's return, their notifications).
  app.route('/v1/acquirers', providerRoutes(deps));
  // COMPAT §14: the settlement reports (summary, detail, paged detail), under the platform's spellings too.
  app.route('/reports', reportRoutes(deps));
  // COMPAT §14: the query API answers under both versions.
  app.route('/v1/query', queryRoutes(deps));
  app.route('/v3/query', queryRoutes(deps));
  app.route(
    '/v1',
    widgetRoutes({
      build: deps.widgetBuild,
      gatewayUrl: deps.config.publicUrl,
      staticBaseUrl: deps.staticBaseUrl,
      findSnapshot: (checkoutId) => findBootstrapSnapshot(deps.store, checkoutId, deps.now()),
    }),
  );
  // The admin API exists only with an ADMIN_TOKEN: without one, its paths answer 404 like any unknown path.
  const { adminToken } = deps.config;
  if (adminToken) {
    app.route('/admin/v1/webhooks', webhookAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', smartRetryAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', throttlingAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', brandsAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', routingAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', acquirerCredentialsAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', applePayIdentityAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', clickToPaySettingsAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', integrationReportAdminRoutes(deps, adminToken));
    app.route('/admin/v1/payments', settlementAdminRoutes(deps, adminToken));
    app.route('/admin/v1/credentials', credentialAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', entityAdminRoutes(deps, adminToken));
    app.route('/admin/v1/tokens', tokenAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', settlementSettingsAdminRoutes(deps, adminToken));
    app.route('/admin/v1/settlements', settlementRunAdminRoutes(deps, adminToken));
    app.route('/admin/v1/entities', reconciliationEntityRoutes(deps, adminToken));
    app.route('/admin/v1/reconciliation', reconciliationDayRoutes(deps, adminToken));
  }
  // Commands (cli/remote.ts): with ADMIN_TOKEN, and for the command line beside a gateway holding an embedded store,
  // with the token that gateway wrote in DATA_DIR (cli/localCommands.ts), ADMIN_TOKEN or not.
  const commandTokens = [adminToken, deps.commandToken].filter((token): token is string => token !== undefined);
  if (commandTokens.length > 0) app.route('/admin/v1/commands', commandAdminRoutes(deps, commandTokens));
  const demo = deps.config.demoMerchant;
  if (demo) app.route('/demo', demoRoutes({ publicUrl: deps.config.publicUrl, merchant: demo }));
  app.route('/', healthRoutes(deps.readiness));
  if (deps.control) app.route('/test/v1', controlRoutes(deps.control));
  // On the main port only behind its token (METRICS_TOKEN); METRICS_PORT has a listener of its own (gateway.ts).
  const metricsToken = deps.config.metrics.token;
  if (deps.metrics && metricsToken !== undefined) {
    const respond = metricsResponder(deps.metrics, metricsToken);
    app.get('/metrics', (c) => respond(c.req.raw));
  }
  app.route('/dashboard', dashboardRoutes(deps));
  app.route('/', homeRoutes({ demo: demo !== undefined }));
  // The OpenAPI document (/v1/openapi.json) and the reference (/docs), made from this app's route table once it is complete.
  app.route('/', openApiRoutes({ routes: () => app.routes, publicUrl: deps.config.publicUrl }));

  app.notFound((c) => {
    // The path is the caller's text: shown as any text a caller sent is (a card number typed into it masked, cut).
    const answer = withReason(RESULTS.invalidRequestStructure, `no endpoint ${shownText(`${c.req.method} ${c.req.path}`)}`);
    return jsonResponse(c, envelope(answer, c.get('requestId')), 404);
  });

  app.onError((thrown, c) => {
    let error = thrown;
    const entityId = c.get('entityId') as string | undefined;
    const ndc = (c.get('ndc') as string | undefined) ?? (entityId ? newNdc(entityId) : c.get('requestId'));
    // Another run is making the same resource (a payment whose earlier request or job is still under way).
    if (error instanceof MadeByAnotherRunError) error = stillBeingMade();
    if (error instanceof GatewayError) {
      // The one way a refusal leaves: what its parameterErrors quote is masked here (the catalogue knows what is secret).
      const result = error.parameterErrors ? { ...error.result, parameterErrors: error.parameterErrors.map(maskedParameterError) } : error.result;
      return jsonResponse(c, envelope(result, ndc), error.status, error.headers);
    }
    (c.get('log') ?? logger).error('unexpected error', { error, method: c.req.method, path: c.req.path });
    return jsonResponse(c, envelope(RESULTS.unexpectedError, ndc), 500);
  });

  return app;
}
