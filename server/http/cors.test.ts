import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

/**
 * CORS (issue 34 §4): merchants' servers and pages call the API cross-origin (COMPAT §1), so /v1 answers preflights and
 * every answer with `Access-Control-Allow-Origin: *`; the back office at /dashboard is same-origin and gives no page of
 * another site any CORS permission, a preflight included.
 */

const EVIL = 'https://evil.example';

function accessControlHeaders(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.toLowerCase().startsWith('access-control-'));
}

describe('CORS', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const request = async (method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Response> => {
    const response = await fetch(`${t.url}${path}`, { method, headers: { Origin: EVIL, ...headers }, ...(body === undefined ? {} : { body }) });
    await response.arrayBuffer();
    return response;
  };

  it("gives the dashboard's API no CORS permission: a cross-origin preflight gets no Access-Control-* header", async () => {
    for (const path of ['/dashboard/api/session', '/dashboard/api/payments', '/dashboard', '/dashboard/']) {
      const preflight = await request('OPTIONS', path, { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-csrf-token' });
      expect(accessControlHeaders(preflight), path).toEqual([]);
      expect(preflight.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });

  it("sends no CORS header on the dashboard's answers either", async () => {
    const session = await request('GET', '/dashboard/api/session');
    expect(session.status).toBe(401);
    expect(accessControlHeaders(session)).toEqual([]);
    const signIn = await request('POST', '/dashboard/api/session', { 'Content-Type': 'application/json' }, JSON.stringify({ username: 'nobody', password: 'wrong-password' }));
    expect(signIn.status).toBeGreaterThanOrEqual(400);
    expect(accessControlHeaders(signIn)).toEqual([]);
  });

  it('keeps the API cross-origin (COMPAT §1): preflights and answers under /v1 allow any origin', async () => {
    const preflight = await request('OPTIONS', '/v1/payments', { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    const answer = await request('GET', `/v1/payments/${'0'.repeat(32)}?entityId=${t.entityId}`, { Authorization: `Bearer ${t.token}` });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });
});
