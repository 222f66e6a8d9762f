import { Hono } from 'hono';
import type { AppEnv } from './context.ts';
import { jsonResponse } from './respond.ts';

/**
 * What a load balancer, an orchestrator or a CI script asks before sending traffic (issue 24):
 *
 * - `GET /health`, liveness: the process answers HTTP. It asks nothing else, so a slow database never gets a live
 *   instance restarted.
 * - `GET /ready`, readiness: the store answers, every migration this build knows is applied, the background jobs run,
 *   and the gateway is not shutting down (a draining instance answers 503, so the balancer stops sending it new
 *   requests while it finishes its own). 503 names the check that failed.
 *
 * Neither needs credentials, and neither says more than ok or what is wrong: no versions, settings or addresses.
 */

/** One readiness check: `ok`, or why not (words for an operator, never a secret). */
export interface ReadinessCheck {
  readonly ok: boolean;
  readonly detail: string;
}

/** The checks behind /ready, by name (store, migrations, jobs, shutdown), run by the composition root. */
export type Readiness = () => Promise<Readonly<Record<string, ReadinessCheck>>>;

export function healthRoutes(readiness: Readiness): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/health', (c) => jsonResponse(c, { status: 'ok' }, 200));
  routes.get('/ready', async (c) => {
    const checks = await readiness();
    const ready = Object.values(checks).every((check) => check.ok);
    const shown = Object.fromEntries(Object.entries(checks).map(([name, check]) => [name, check.detail]));
    return jsonResponse(c, { status: ready ? 'ready' : 'not ready', checks: shown }, ready ? 200 : 503);
  });
  return routes;
}
