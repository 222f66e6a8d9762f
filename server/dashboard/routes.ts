import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import type { AppDependencies } from '../deps.ts';
import { acquirersApiRoutes } from './acquirersApi.ts';
import { dashboardApiRoutes } from './api.ts';
import { dashboardPageRoutes } from './pages.ts';
import { recordsApiRoutes } from './recordsApi.ts';
import { settingsApiRoutes } from './settingsApi.ts';

/**
 * The back office at /dashboard: its JSON API — the session and the payments (api.ts), registrations, schedules and
 * webhooks (recordsApi.ts), an entity's settings, settlements and reconciliation files (settingsApi.ts), its routing
 * rules and credentials at the connectors (acquirersApi.ts) — and the app's page and files (pages.ts).
 */
export function dashboardRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.route('/api', dashboardApiRoutes(deps));
  routes.route('/api', settingsApiRoutes(deps));
  routes.route('/api', acquirersApiRoutes(deps));
  routes.route('/api', recordsApiRoutes(deps));
  routes.route('/', dashboardPageRoutes());
  return routes;
}
