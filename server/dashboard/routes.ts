import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import type { AppDependencies } from '../deps.ts';
import { acquirersApiRoutes } from './acquirersApi.ts';
import { dashboardApiRoutes } from './api.ts';
import { integrationApiRoutes } from './integrationApi.ts';
import { dashboardPageRoutes } from './pages.ts';
import { recordsApiRoutes } from './recordsApi.ts';
import { settingsApiRoutes } from './settingsApi.ts';
import { signInApiRoutes } from './signInApi.ts';
import { tokensApiRoutes } from './tokensApi.ts';
import { usersApiRoutes } from './usersApi.ts';

/**
 * The back office at /dashboard: its JSON API — signing in with the second factor and invitations (signInApi.ts),
 * the merchant users (usersApi.ts), the session and the payments (api.ts), registrations, schedules and
 * webhooks (recordsApi.ts), an entity's settings, settlements and reconciliation files (settingsApi.ts), its routing
 * rules and credentials at the connectors (acquirersApi.ts), the merchants' access tokens (tokensApi.ts, operators
 * only) — and the app's page and files (pages.ts).
 */
export function dashboardRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // Before api.ts's: its /session answers the methods it has not (POST is signInApi.ts's).
  routes.route('/api', signInApiRoutes(deps));
  routes.route('/api', usersApiRoutes(deps));
  routes.route('/api', dashboardApiRoutes(deps));
  routes.route('/api', settingsApiRoutes(deps));
  routes.route('/api', acquirersApiRoutes(deps));
  routes.route('/api', integrationApiRoutes(deps));
  routes.route('/api', recordsApiRoutes(deps));
  routes.route('/api', tokensApiRoutes(deps));
  routes.route('/', dashboardPageRoutes());
  return routes;
}
