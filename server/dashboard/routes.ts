import { Hono } from 'hono';
import type { AppEnv } from '../http/context.ts';
import type { AppDependencies } from '../deps.ts';
import { dashboardApiRoutes } from './api.ts';
import { dashboardPageRoutes } from './pages.ts';
import { recordsApiRoutes } from './recordsApi.ts';
import { settingsApiRoutes } from './settingsApi.ts';

/** The back office at /dashboard: its JSON API (api.ts) and the app's page and files (pages.ts). */
export function dashboardRoutes(deps: AppDependencies): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.route('/api', dashboardApiRoutes(deps));
  routes.route('/api', settingsApiRoutes(deps));
  routes.route('/api', recordsApiRoutes(deps));
  routes.route('/', dashboardPageRoutes({ publicUrl: deps.config.publicUrl }));
  return routes;
}
