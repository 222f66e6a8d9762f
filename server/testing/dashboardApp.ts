import { dashboardClientOf } from './dashboardClient.ts';

/**
 * The dashboard's API as its page calls it (the session cookie, the CSRF token on every change, the page's own
 * Origin), through the gateway's `app.request` instead of a socket: dashboardClient.ts's calls, for tests that need no
 * listener between them and the app.
 */
export function dashboardAppClient(gateway: () => { readonly url: string; readonly app: { request(input: string, init?: RequestInit): Response | Promise<Response> } }) {
  return dashboardClientOf(() => {
    const { url, app } = gateway();
    return { url, send: (input, init) => app.request(input, init) };
  });
}
