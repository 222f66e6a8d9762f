import type { CreatePaymentCommand } from '../domain/commands.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import type { Result } from '../domain/resultCodes.ts';
import { chargebackRateExceeded, RISK_RESULTS, riskCountsOf, type ChargebackRateRule, type PaymentFacts, type RiskCount } from '../domain/riskRules.ts';
import type { Queryable, Store } from '../store/index.ts';
import type { ThrottlingLookup } from '../throttling/settings.ts';

/**
 * The risk velocity rules (COMPAT §17, domain/riskRules.ts) applied to an initial payment before any acquirer sees
 * it: the entity's rules (none unless set; read through the throttling settings' cache, so an entity without rules
 * costs no statement), then, when it has some, every counter the payment adds to raised in one transaction, each
 * only if it stays within its rule (the row lock makes concurrent payments on every instance count one after the
 * other: a window never holds more than its rule allows). A payment over a rule counts nowhere and is declined
 * with the rule's code. Every payment that passes counts, whatever its acquirer answers afterwards.
 */

export interface RiskCheck {
  /**
   * The result of the rule the payment breaks, or undefined (and the payment is counted). `account`: what the
   * account rules count it by (risk/accountKey.ts), or undefined when it names no account of its own.
   */
  check(command: CreatePaymentCommand, payment: PaymentRecord, account: string | undefined): Promise<Result | undefined>;
}

/** Chargeback counts per BIN are read at most once a minute per entity and BIN. */
const CHARGEBACK_CACHE_MS = 60_000;
const MAX_CACHED = 10_000;

/** Refuses the transaction it is thrown in: the rule a count was over. */
class OverRule extends Error {
  constructor(readonly result: Result) {
    super(result.code);
  }
}

const windowStartOf = (now: Date, windowMs: number) => Math.floor(now.getTime() / windowMs) * windowMs;

/** Adds the count, if it stays within its rule; false (nothing added) when it would not. */
async function addWithin(tx: Queryable, count: RiskCount, now: Date): Promise<boolean> {
  if (count.amount > count.max) return false;
  const windowStart = windowStartOf(now, count.windowMs);
  const added = await tx.query(
    `INSERT INTO risk_counters AS r (bucket, window_start, total, expires_at) VALUES ($1, $2, $3, to_timestamp($4 / 1000.0))
     ON CONFLICT (bucket, window_start) DO UPDATE SET total = r.total + excluded.total WHERE r.total + excluded.total <= $5
     RETURNING total`,
    [count.bucket, windowStart, count.amount, windowStart + count.windowMs, count.max],
    { preparedAs: 'risk-add' },
  );
  return added.rows.length > 0;
}

function stringAt(echo: Record<string, unknown>, group: string, name: string): string | undefined {
  const nested = echo[group];
  if (typeof nested !== 'object' || nested === null) return undefined;
  const value = (nested as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function createRiskCheck(parts: {
  readonly store: Store;
  readonly settings: ThrottlingLookup;
  /** A keyed hash (vault fingerprint): accounts are counted by it, never by their number. */
  readonly fingerprint: (text: string) => string;
  /** The acquirer new payments go to (its merchant account, 800.120.401). */
  readonly acquirer: string;
  readonly now: () => Date;
}): RiskCheck {
  const { store, settings, now } = parts;
  const chargebacks = new Map<string, { readonly count: number; readonly until: number }>();

  async function chargebacksOf(entityId: string, bin: string, rule: ChargebackRateRule, time: Date): Promise<number> {
    const key = `${entityId}:${bin}:${rule.windowMinutes}`;
    const cached = chargebacks.get(key);
    if (cached && cached.until > time.getTime()) return cached.count;
    const since = new Date(windowStartOf(time, rule.windowMinutes * 60_000));
    const found = await store.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM payments cb LEFT JOIN payments p ON p.id = cb.parent_id
        WHERE cb.entity_id = $1 AND cb.payment_type = 'CB' AND cb.created_at >= $2::timestamptz
          AND coalesce(cb.card, p.card) ->> 'bin' = $3`,
      [entityId, since.toISOString(), bin],
    );
    const count = Number(found.rows[0]?.n ?? 0);
    chargebacks.delete(key);
    if (chargebacks.size >= MAX_CACHED) chargebacks.delete(chargebacks.keys().next().value as string);
    chargebacks.set(key, { count, until: time.getTime() + CHARGEBACK_CACHE_MS });
    return count;
  }

  return {
    async check(command, payment, account) {
      const rules = (await settings.get(command.entityId))?.risk;
      if (!rules || Object.keys(rules).length === 0) return undefined;
      const time = now();
      const facts: PaymentFacts = {
        entityId: command.entityId,
        amountMinor: command.amountMinor,
        currency: command.currency,
        accountHash: account === undefined ? undefined : parts.fingerprint(`risk-account:${account}`),
        ip: stringAt(command.echo, 'customer', 'ip'),
        email: stringAt(command.echo, 'customer', 'email'),
        bin: payment.card?.bin,
        // The acquirer the payment was routed to, when it was before the check (the default's merchant account else).
        acquirer: payment.acquirer === 'gateway' ? parts.acquirer : payment.acquirer,
      };
      const counts = riskCountsOf(rules, facts);
      const rate = rules.binChargebackRate;
      const binBucket = rate && facts.bin !== undefined ? `binPayments:${facts.entityId}:${facts.bin}:${rate.windowMinutes}` : undefined;
      if (rate && binBucket && facts.bin !== undefined) {
        const windowMs = rate.windowMinutes * 60_000;
        const seen = await store.query<{ total: string | number }>('SELECT total FROM risk_counters WHERE bucket = $1 AND window_start = $2', [
          binBucket,
          windowStartOf(time, windowMs),
        ]);
        const paymentsOfBin = Number(seen.rows[0]?.total ?? 0);
        if (chargebackRateExceeded(rate, paymentsOfBin, await chargebacksOf(facts.entityId, facts.bin, rate, time))) return RISK_RESULTS.binChargebackRate;
      }
      if (binBucket && rate) counts.push({ rule: 'volume', bucket: binBucket, amount: 1, max: Number.MAX_SAFE_INTEGER, windowMs: rate.windowMinutes * 60_000 });
      if (counts.length === 0) return undefined;
      try {
        await store.transaction(async (tx) => {
          for (const count of counts) {
            if (!(await addWithin(tx, count, time))) throw new OverRule(RISK_RESULTS[count.rule]);
          }
        });
      } catch (error) {
        if (error instanceof OverRule) return error.result;
        throw error;
      }
      return undefined;
    },
  };
}
