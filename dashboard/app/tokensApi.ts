import { api, segment } from './api.ts';
import type { Envelope } from './types.ts';

/**
 * The endpoints of the access tokens page (server/dashboard/tokensApi.ts), for operators only: the tokens (never the
 * token itself), a new one (answered once, in `accessToken`), a revocation.
 */

export interface AccessToken {
  readonly id: string;
  readonly label: string;
  readonly entityIds: readonly string[];
  readonly createdAt: string;
  readonly revokedAt: string | null;
  /** When an API request or a dashboard sign-in last used it, to the minute; null when never (or not known). */
  readonly lastUsedAt?: string | null;
}

export interface NewAccessToken {
  /** 1 to 200 characters; left out: `token`. */
  readonly label?: string;
  readonly entityIds: readonly string[];
}

export const tokensApi = {
  list: (query: Readonly<Record<string, string | undefined>>, signal?: AbortSignal) => api.get<Envelope & { tokens: readonly AccessToken[] }>('/tokens', query, signal),
  create: (token: NewAccessToken) => api.post<Envelope & { token: AccessToken; accessToken: string }>('/tokens', token),
  revoke: (id: string) => api.delete<Envelope & { token: AccessToken }>(`/tokens/${segment(id)}`),
};
