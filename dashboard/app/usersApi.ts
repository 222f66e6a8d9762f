import { api, segment } from './api.ts';
import type { Envelope, Role } from './types.ts';

/**
 * The endpoints of the users page (server/dashboard/usersApi.ts), for operators and merchants' admins: the users
 * (never a password, a secret or an invitation's code), an invitation (its one-time link answered once), another link,
 * a role, a removal; a reset second factor for operators.
 */

export interface MerchantUser {
  readonly id: string;
  readonly entityId: string;
  readonly merchant: string;
  readonly email: string;
  readonly role: Role;
  /** invited: the link not used yet; active: signs in. */
  readonly status: 'invited' | 'active';
  readonly secondFactor: boolean;
  readonly invitedBy: string;
  readonly createdAt: string;
  readonly activatedAt?: string;
  readonly invitationExpiresAt?: string;
}

export interface InvitationAnswer extends Envelope {
  readonly user: MerchantUser;
  readonly invitation: { readonly link: string; readonly expiresAt: string };
}

export const usersApi = {
  list: (query: Readonly<Record<string, string | undefined>>, signal?: AbortSignal) => api.get<Envelope & { users: readonly MerchantUser[] }>('/users', query, signal),
  invite: (invite: { readonly entityId?: string; readonly email: string; readonly role: Role }) => api.post<InvitationAnswer>('/users', invite),
  reinvite: (id: string) => api.post<InvitationAnswer>(`/users/${segment(id)}/invitation`),
  setRole: (id: string, role: Role) => api.put<Envelope & { user: MerchantUser }>(`/users/${segment(id)}/role`, { role }),
  remove: (id: string) => api.delete<Envelope>(`/users/${segment(id)}`),
  resetSecondFactor: (id: string) => api.post<Envelope & { user: MerchantUser }>(`/users/${segment(id)}/second-factor/reset`),
};
