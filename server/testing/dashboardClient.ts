import { expect } from 'vitest';
import { acceptInvitation, findUser, inviteUser, type Role } from '../dashboard/users.ts';
import { findTokenAccess } from '../merchants/repository.ts';
import type { Queryable } from '../store/index.ts';

/**
 * The dashboard's API as its page calls it, for tests over a real socket: the session cookie, the CSRF token on every
 * change and the page's own Origin, as a browser sends them.
 */

/** What a browser holds after signing in. */
export interface DashboardBrowser {
  readonly cookie?: string;
  readonly csrf?: string;
}

export interface DashboardAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The JSON answer; {} for one that is not JSON (a CSV download). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: Record<string, any>;
}

/** Where the calls go: the gateway's address and how a request reaches it (fetch over a socket, or `app.request`). */
export interface DashboardTarget {
  readonly url: string;
  readonly send: (input: string, init: RequestInit) => Response | Promise<Response>;
}

/** `gatewayUrl` is asked at each call: a test makes the client before its gateway starts. */
export function dashboardClient(gatewayUrl: () => string) {
  return dashboardClientOf(() => ({ url: gatewayUrl(), send: fetch }));
}

/**
 * The same calls, sent where `target` says at each call (dashboardApp.ts: through `app.request`, for tests that need no
 * listener). A string body goes as it is (a malformed one, say); any other as JSON.
 */
export function dashboardClientOf(target: () => DashboardTarget) {
  async function call(browser: DashboardBrowser, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<DashboardAnswer> {
    const { url, send } = target();
    const response = await send(`${url}/dashboard/api${path}`, {
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

  /**
   * Signs in (an operator's name and password, or a merchant user's e-mail address and password) and gives the
   * browser's cookie and CSRF token. On a gateway that asks for the second factor, sign in step by step instead.
   */
  async function signIn(credentials: Record<string, string>): Promise<DashboardBrowser> {
    const answer = await call({}, 'POST', '/session', credentials);
    expect(answer.status, answer.text).toBe(200);
    const cookie = /^(gw_dashboard=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    return { cookie: cookie as string, csrf: answer.body.session.csrfToken as string };
  }

  /**
   * Signs in as a merchant user of the entity `token` acts for (its first), with `role` (admin unless said): the user
   * `<role>@<entity id>.test`, invited and accepted the first time. What a test that signed in with the merchant's
   * token before merchant users signs in with.
   */
  async function signInMerchant(store: Queryable, token: string, role: Role = 'admin'): Promise<DashboardBrowser> {
    const access = await findTokenAccess(store, token);
    const entityId = access.known ? [...access.entityIds][0] : undefined;
    if (!entityId) throw new Error('not a live token of an entity');
    const { email, password } = await merchantUser(store, entityId, role);
    return signIn({ email, password });
  }

  return { call, signIn, signInMerchant };
}

export const MERCHANT_USER_PASSWORD = 'a merchant user password';

/** The active user `<role>@<entity id>.test` of the entity (invited and accepted the first time it is asked for). */
export async function merchantUser(store: Queryable, entityId: string, role: Role, email = `${role}@${entityId}.test`): Promise<{ email: string; password: string }> {
  if (!(await findUser(store, { email }))) {
    const now = new Date();
    const invited = await inviteUser(store, { entityId, email, role, invitedBy: 'test' }, now);
    await acceptInvitation(store, invited.code, MERCHANT_USER_PASSWORD, now);
  }
  return { email, password: MERCHANT_USER_PASSWORD };
}
