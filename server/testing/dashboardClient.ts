import { expect } from 'vitest';

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

/** `gatewayUrl` is asked at each call: a test makes the client before its gateway starts. */
export function dashboardClient(gatewayUrl: () => string) {
  async function call(browser: DashboardBrowser, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<DashboardAnswer> {
    const url = gatewayUrl();
    const response = await fetch(`${url}/dashboard/api${path}`, {
      method,
      headers: {
        ...(browser.cookie ? { cookie: browser.cookie } : {}),
        ...(browser.csrf && method !== 'GET' ? { 'x-csrf-token': browser.csrf } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        origin: url,
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
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

  /** Signs in (an operator's name and password, or a token) and gives the browser's cookie and CSRF token. */
  async function signIn(credentials: Record<string, string>): Promise<DashboardBrowser> {
    const answer = await call({}, 'POST', '/session', credentials);
    expect(answer.status, answer.text).toBe(200);
    const cookie = /^(gw_dashboard=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1];
    return { cookie: cookie as string, csrf: answer.body.session.csrfToken as string };
  }

  return { call, signIn };
}
