import type { ProviderCredentials } from '../acquirers/credentials.ts';
import { DEFAULT_DEMO_MERCHANT } from '../config.ts';
import { startGatewayProcess, type GatewayProcess } from './gatewayProcess.ts';
import { freePort } from './harness.ts';

/**
 * A provider for the connector's tests (issue 33): this gateway itself, in test mode, in a process of its own on
 * loopback (`npm run start:ci`: its database in memory), speaking the platform's API exactly as it does to any
 * merchant. Its demo merchant is the front gateway's merchant there; its admin API configures the webhook that
 * notifies the front gateway. Its request limits are lifted: the front gateway's inquiries are the point of the tests.
 */

export const UPSTREAM_ADMIN_TOKEN = 'upstream-admin-token-for-connector-tests-0123';

export interface Upstream {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The front gateway's merchant at the provider (the upstream's demo merchant). */
  readonly credentials: ProviderCredentials;
  readonly process: GatewayProcess;
  /** Calls the upstream's API as its merchant (GET with a query, POST with a form). */
  api(method: 'GET' | 'POST', path: string, params?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Calls its admin API (JSON). */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startUpstream(env: Readonly<Record<string, string>> = {}): Promise<Upstream> {
  // A known port: the provider's redirects (its challenge, its pages) point at its own address.
  const port = await freePort();
  const child = startGatewayProcess(
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: '',
      ADMIN_TOKEN: UPSTREAM_ADMIN_TOKEN,
      THROTTLE_PAYMENT_READS_PER_MINUTE: '0',
      THROTTLE_QUERY_READS_PER_MINUTE: '0',
      THROTTLE_LIST_QUERIES_PER_SECOND: '0',
      THROTTLE_CHECKOUT_READS_PER_MINUTE: '0',
      ...env,
    },
    'server/main.ts',
    ['--in-memory'],
  );
  const banner = await child.listening;
  const url = /Gateway listening on (\S+)/.exec(banner)?.[1] as string;
  const demo = DEFAULT_DEMO_MERCHANT;
  const read = async (response: Response) => {
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  };
  return {
    url,
    credentials: { entityId: demo.entityId, accessToken: demo.accessToken },
    process: child,
    async api(method, path, params = {}) {
      const query = method === 'GET' ? `?${new URLSearchParams({ entityId: demo.entityId, ...params })}` : '';
      return read(
        await fetch(`${url}${path}${query}`, {
          method,
          headers: { Authorization: `Bearer ${demo.accessToken}`, ...(method === 'POST' ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
          ...(method === 'POST' ? { body: new URLSearchParams({ entityId: demo.entityId, ...params }) } : {}),
        }),
      );
    },
    async admin(method, path, body) {
      return read(
        await fetch(`${url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${UPSTREAM_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
    },
    close: () => child.kill(),
  };
}
