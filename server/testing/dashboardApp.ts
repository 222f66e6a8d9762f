import { expect } from 'vitest';
import type { Role } from '../dashboard/users.ts';
import { findTokenAccess } from '../merchants/repository.ts';
import type { Queryable } from '../store/index.ts';
import { merchantUser, type DashboardAnswer, type DashboardBrowser } from './dashboardClient.ts';

/**
 * The dashboard's API as its page calls it (the session cookie, the CSRF token on every change, the page's own
 * Origin), through the gateway's `app.request` instead of a socket: dashboardClient.ts's calls, for tests that need no
 * listener between them and the app.
 */
export function dashboardAppClient(gateway: () => { readonly url: string; readonly app: { request(input: string, init?: RequestInit): Response | Promise<Response> } }) {
  async function call(browser: DashboardBrowser, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<DashboardAnswer> {
    const { url, app } = gateway();
    const response = await app.request(`${url}/dashboard/api${path}`, {
      method,
      headers: {
        ...(browser.cookie ? { cookie: browser.cookie } : {}),
        ...(browser.csrf && method !== 'GET' ? { 'x-csrf-token': browser.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        origin: url,
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: DashboardAnswer['body'] = {};
    try {
      parsed = JSON.parse(text) as DashboardAnswer['body'];
    } catch {
      // Not JSON: the test reads the text.
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  /** Signs in (an operator's name and password, or a merchant user's e-mail address and password). */
  async function signIn(credentials: Record<string, string>): Promise<DashboardBrowser> {
    const answer = await call({}, 'POST', '/session', credentials);
    expect(answer.status, answer.text).toBe(200);
    const cookie = /^(gw_dashboard=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    return { cookie: cookie as string, csrf: answer.body.session.csrfToken as string };
  }

  /** Signs in as the merchant user with `role` (admin unless said) of the entity `token` acts for (dashboardClient.ts merchantUser). */
  async function signInMerchant(store: Queryable, token: string, role: Role = 'admin'): Promise<DashboardBrowser> {
    const access = await findTokenAccess(store, token);
    const entityId = access.known ? [...access.entityIds][0] : undefined;
    if (!entityId) throw new Error('not a live token of an entity');
    return signIn(await merchantUser(store, entityId, role));
  }

  return { call, signIn, signInMerchant };
}
