import type { Queryable } from '../store/index.ts';

/** What was done through the dashboard: who, what, when, to which entity and payment, and the answer's result code. */
export interface DashboardAction {
  readonly actor: string;
  readonly entityId: string;
  readonly paymentId?: string;
  readonly action: string;
  /** What was asked (an amount, a setting's new value): never a secret. */
  readonly detail: Record<string, unknown>;
  readonly resultCode?: string;
  readonly at: Date;
}

/** A NUL, or half of a surrogate pair: what jsonb refuses even escaped, so a refused request's detail could not be kept. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What was asked as jsonb can hold it: every such character of its texts (names too) shown as U+FFFD. */
function storable(value: unknown): unknown {
  const text = (raw: string) => raw.replace(UNSTORABLE, '\ufffd');
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map(storable);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, inner]) => [text(name), storable(inner)]));
  return value;
}

/** Records an action; one of no entity (an operator's sign-in) has entityId null. */
export async function recordAction(db: Queryable, action: Omit<DashboardAction, 'entityId'> & { readonly entityId: string | null }): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_actions (actor, entity_id, payment_id, action, detail, result_code, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [action.actor, action.entityId, action.paymentId ?? null, action.action, JSON.stringify(storable(action.detail)), action.resultCode ?? null, action.at],
  );
}

/** The actions done on these payments (a payment and its linked transactions), oldest first. */
export async function actionsOnPayments(db: Queryable, paymentIds: readonly string[]): Promise<DashboardAction[]> {
  if (paymentIds.length === 0) return [];
  const found = await db.query<{ actor: string; entity_id: string; payment_id: string; action: string; detail: Record<string, unknown>; result_code: string | null; at: Date }>(
    `SELECT actor, entity_id, payment_id, action, detail, result_code, at FROM dashboard_actions
      WHERE payment_id = ANY($1::char(32)[]) ORDER BY at, id`,
    [paymentIds],
  );
  return found.rows.map((row) => ({
    actor: row.actor,
    entityId: row.entity_id,
    paymentId: row.payment_id,
    action: row.action,
    detail: row.detail,
    ...(row.result_code !== null ? { resultCode: row.result_code } : {}),
    at: new Date(row.at),
  }));
}
