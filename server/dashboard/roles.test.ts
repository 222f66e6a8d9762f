import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type RequestLimits } from '../config.ts';
import { dashboardClient, merchantUser, type DashboardBrowser } from '../testing/dashboardClient.ts';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';
import { pathWith, routesOf } from '../testing/routeTable.ts';
import type { Need } from './access.ts';
import { createOperator } from './operators.ts';
import type { Role } from './users.ts';

/**
 * Every dashboard route that changes something, read from the app's own route table, and the role it needs
 * (access.ts requireRole): a route added without an entry here fails, and each is asked by a viewer, a refunds user,
 * an admin of the entity and an operator — refused with 403 exactly where the role falls short, whatever else the
 * request lacks.
 */

const NEEDS: Readonly<Record<string, Need>> = {
  'POST /dashboard/api/payments/:id/capture': 'refunds',
  'POST /dashboard/api/payments/:id/refund': 'refunds',
  'POST /dashboard/api/payments/:id/reverse': 'refunds',
  'POST /dashboard/api/schedules/:id/cancel': 'refunds',
  'DELETE /dashboard/api/registrations/:id': 'admin',
  'POST /dashboard/api/webhooks': 'admin',
  'PATCH /dashboard/api/webhooks/:id': 'admin',
  'DELETE /dashboard/api/webhooks/:id': 'admin',
  'POST /dashboard/api/webhooks/:id/test': 'admin',
  'POST /dashboard/api/deliveries/:id/resend': 'admin',
  'POST /dashboard/api/entities/:entityId/reconciliation-files/:date/resend': 'admin',
  'POST /dashboard/api/users': 'admin',
  'POST /dashboard/api/users/:id/invitation': 'admin',
  'PUT /dashboard/api/users/:id/role': 'admin',
  'DELETE /dashboard/api/users/:id': 'admin',
  'POST /dashboard/api/users/:id/second-factor/reset': 'operator',
  'PUT /dashboard/api/entities/:entityId/smart-retry': 'operator',
  'DELETE /dashboard/api/entities/:entityId/smart-retry': 'operator',
  'PUT /dashboard/api/entities/:entityId/brands': 'operator',
  'DELETE /dashboard/api/entities/:entityId/brands': 'operator',
  'PUT /dashboard/api/entities/:entityId/ftp': 'operator',
  'DELETE /dashboard/api/entities/:entityId/ftp': 'operator',
  'PUT /dashboard/api/entities/:entityId/routing': 'operator',
  'DELETE /dashboard/api/entities/:entityId/routing': 'operator',
  'PUT /dashboard/api/entities/:entityId/acquirers/:name': 'operator',
  'DELETE /dashboard/api/entities/:entityId/acquirers/:name': 'operator',
  'POST /dashboard/api/tokens': 'operator',
  'DELETE /dashboard/api/tokens/:id': 'operator',
};

/** Signing in and out, and an invitation's acceptance: for whoever is not signed in (or is), no role. */
const ANYONE = new Set([
  'POST /dashboard/api/session',
  'DELETE /dashboard/api/session',
  'POST /dashboard/api/session/second-factor',
  'POST /dashboard/api/invitation',
  'POST /dashboard/api/invitation/accept',
]);

const RANK: Readonly<Record<Role | 'operator', number>> = { viewer: 0, refunds: 1, admin: 2, operator: 3 };
const PASSWORD = 'an operator password of length';

describe('the roles of the dashboard', () => {
  let t: TestGateway;
  const { signIn, call } = dashboardClient(() => t.url);
  const browsers = new Map<Role | 'operator', DashboardBrowser>();

  beforeAll(async () => {
    const limits = Object.fromEntries(Object.keys(loadConfig({}).limits).map((name) => [name, 0])) as unknown as RequestLimits;
    t = await startTestGateway('PGlite', { limits });
    await createOperator(t.gateway.store, 'olivia', PASSWORD, new Date());
    browsers.set('operator', await signIn({ operator: 'olivia', password: PASSWORD }));
    for (const role of ['viewer', 'refunds', 'admin'] as const) browsers.set(role, await signIn(await merchantUser(t.gateway.store, t.entityId, role)));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('names the role of every route that changes something, and refuses each with 403 below it', async () => {
    const changing = routesOf(t.gateway.app)
      .filter((route) => route.path.startsWith('/dashboard/api/') && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
      .map((route) => ({ route, key: `${route.method} ${route.path}` }))
      .filter(({ key }) => !ANYONE.has(key));
    expect(changing.map(({ key }) => key).filter((key) => NEEDS[key] === undefined)).toEqual([]);
    expect(Object.keys(NEEDS).filter((key) => !changing.some((found) => found.key === key))).toEqual([]);

    const values: Record<string, string> = { entityId: t.entityId, name: 'simulator', date: '2026-01-01' };
    for (const { route, key } of changing) {
      const need = NEEDS[key] as Need;
      const path = pathWith(route, (parameter) => values[parameter] ?? randomBytes(16).toString('hex')).slice('/dashboard/api'.length);
      for (const [who, browser] of browsers) {
        const answer = await call(browser, route.method, path, {});
        if (RANK[who] < RANK[need]) {
          expect(answer.status, `${who} ${key}: ${answer.text}`).toBe(403);
          expect(answer.body.result.code).toBe('800.900.300');
        } else {
          expect(answer.status, `${who} ${key}: ${answer.text}`).not.toBe(403);
        }
      }
    }
  });
});
