import { session } from './state.ts';

/**
 * What the signed-in principal may change, as the server decides it (server/dashboard/access.ts requireRole): a
 * merchant user's role — viewer reads, refunds moves money, admin also manages users and webhooks — and the operator
 * above them all. Pages hide what the role may not do; the server refuses it anyway (403).
 */

export type Need = 'refunds' | 'admin' | 'operator';

const RANK = { viewer: 0, refunds: 1, admin: 2, operator: 3 } as const;

export function mayDo(need: Need): boolean {
  const principal = session.value?.principal;
  if (!principal) return false;
  return RANK[principal.kind === 'operator' ? 'operator' : (principal.role ?? 'viewer')] >= RANK[need];
}
