import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Acquirer } from '../acquirers/types.ts';
import { createLogger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { expectRefusal, shopperCard } from '../testing/checkouts.ts';
import { STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';
import type { CheckoutContext } from './service.ts';
import { submitCheckout } from './submit.ts';

warnIfPostgresSkipped('checkouts/submitFailClosed.test.ts');

/**
 * A submit whose payment failed after its acquirer was asked (the acquirer answered, and the store could not record
 * the answer) keeps the checkout's attempt: the acquirer's approval is recovered later. When the submit cannot even
 * read whether the acquirer was asked, it must keep the attempt too (fail closed): releasing it would make the checkout
 * payable again, and a second payment possible while the first is in flight.
 */

/** The store, with the read of open acquirer attempts by payment failing while `failing.next` is set (once). */
function storeFailingOpenAttemptReads(store: Store, failing: { next: boolean; failed: number }): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'query') {
        return (...args: Parameters<Store['query']>) => {
          const [sql] = args;
          if (failing.next && /FROM acquirer_attempts WHERE payment_id = ANY/.test(sql)) {
            failing.next = false;
            failing.failed += 1;
            return Promise.reject(new Error('connection lost'));
          }
          return target.query(...args);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe.each(STORE_KINDS)('a checkout submit that cannot tell whether its acquirer was asked, on %s', (kind) => {
  let t: TestGateway;
  const failing = { next: false, failed: 0 };
  /** Payment ids the acquirer was asked to authorize. */
  const asked: string[] = [];
  let breakNextCall = false;

  // The acquirer answers the first authorization, and the store fails to record it; its read fails too then.
  let failRecord = false;
  const losingAnswers = (acquirer: Acquirer): Acquirer => ({
    ...acquirer,
    async authorize(request) {
      asked.push(request.paymentId);
      if (!breakNextCall) return acquirer.authorize(request);
      breakNextCall = false;
      failing.next = true;
      failRecord = true;
      return acquirer.authorize(request);
    },
  });

  beforeAll(async () => {
    t = await startTestGateway(kind, {}, { wrapAcquirer: losingAnswers });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps the attempt, logs, answers the payment’s own error; a second submit is refused and no second payment exists', async () => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '31.00', currency: 'EUR', paymentType: 'DB' });
    const checkoutId = created.body.id as string;
    const lines: string[] = [];
    const store = storeFailingOpenAttemptReads(t.gateway.store, failing);
    const context: CheckoutContext = {
      store,
      payments: {
        ...t.gateway.payments,
        store,
        ledger: {
          ...t.gateway.payments.ledger,
          record: (write) => {
            if (!failRecord) return t.gateway.payments.ledger.record(write);
            failRecord = false;
            return Promise.reject(new Error('the store could not record the acquirer’s answer'));
          },
        },
      },
      environment: 'test',
      gatewayUrl: t.url,
      staticBaseUrl: `${t.url}/v1/static/unbuilt`,
      now: () => new Date(),
      logger: createLogger({ level: 'error', sink: (line) => lines.push(line) }),
      limits: t.gateway.config.limits,
      throttling: undefined,
    };

    breakNextCall = true;
    await expect(submitCheckout(context, checkoutId, 'payment', new Map(Object.entries(shopperCard())))).rejects.toThrow(/could not record the acquirer’s answer/);
    expect(failing.failed).toBe(1);
    expect(asked).toHaveLength(1);

    const again = await t.post(`/v1/checkouts/${checkoutId}/payment`, shopperCard(), { token: null });
    expectRefusal(again, /in progress/);
    expect(asked).toHaveLength(1);
    const payments = await t.gateway.store.query('SELECT id FROM payments WHERE checkout_id = $1', [checkoutId]);
    expect(payments.rows).toHaveLength(0);
    const attempts = await t.gateway.store.query<{ payment_id: string }>('SELECT payment_id FROM checkout_payments WHERE checkout_id = $1', [checkoutId]);
    expect(attempts.rows.map((row) => row.payment_id)).toEqual(asked);
    expect(lines.join('\n')).toContain('checkout attempt kept');
  });
});
