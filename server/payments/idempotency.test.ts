import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from '../testing/envelope.ts';
import { cardPayment, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';

/**
 * Idempotency-Key (Stripe's semantics) on POST /v1/payments, /v1/payments/{id} and /v1/checkouts: the same key and
 * the same parameters give the same answer and one resource; the same key with other parameters is refused.
 */

warnIfPostgresSkipped('idempotency.test.ts');

describe.each(STORE_KINDS)('idempotency keys on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const payWithKey = (key: string, overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', cardPayment(t.entityId, overrides), { headers: { 'Idempotency-Key': key } });
  const countPayments = async (merchantTransactionId: string) =>
    (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE merchant_transaction_id = $1', [merchantTransactionId])).rows[0]?.n;

  it('answers a repeated request with the first answer, and makes one payment', async () => {
    const first = await payWithKey('order-1001-attempt', { merchantTransactionId: 'order-1001' });
    expect(first.status).toBe(200);
    const again = await payWithKey('order-1001-attempt', { merchantTransactionId: 'order-1001' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await countPayments('order-1001')).toBe(1);
  });

  it('keeps a declined answer too: the same key never pays again', async () => {
    const declined = await payWithKey('order-1002-attempt', { merchantTransactionId: 'order-1002', 'card.holder': '800.100.203' });
    expect(declined.status).toBe(400);
    const again = await payWithKey('order-1002-attempt', { merchantTransactionId: 'order-1002', 'card.holder': '800.100.203' });
    expect(again.body).toEqual(declined.body);
    expect(await countPayments('order-1002')).toBe(1);
  });

  it('refuses the same key with other parameters', async () => {
    await payWithKey('order-1003-attempt', { merchantTransactionId: 'order-1003', amount: '10.00' });
    const other = await payWithKey('order-1003-attempt', { merchantTransactionId: 'order-1003', amount: '11.00' });
    expectEnvelope(other);
    expect(other.status).toBe(400);
    expect(other.body.result.code).toBe('200.300.404');
    expect(other.body.result.parameterErrors).toEqual([
      { name: 'Idempotency-Key', value: 'order-1003-attempt', message: expect.stringMatching(/used with other parameters/) },
    ]);
    expect(await countPayments('order-1003')).toBe(1);
  });

  it('keeps no key for a request whose parameters were refused: fixed, it goes through', async () => {
    const refused = await payWithKey('order-1004-attempt', { merchantTransactionId: 'order-1004', amount: 'ten' });
    expect(refused.status).toBe(400);
    const fixed = await payWithKey('order-1004-attempt', { merchantTransactionId: 'order-1004', amount: '10.00' });
    expect(fixed.status).toBe(200);
    expect(await countPayments('order-1004')).toBe(1);
  });

  it('makes one payment of 20 concurrent requests with one key; the others get it, or are told it is in progress', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => payWithKey('order-1005-attempt', { merchantTransactionId: 'order-1005' })));
    expect(await countPayments('order-1005')).toBe(1);
    const paid = answers.filter((answer) => answer.status === 200);
    expect(paid.length).toBeGreaterThanOrEqual(1);
    expect(new Set(paid.map((answer) => answer.body.id)).size).toBe(1);
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.body.result.description).toMatch(/still being processed/);
    }
  });

  it('scopes keys by entity: another merchant may use the same key', async () => {
    const other = await t.newMerchant();
    const mine = await payWithKey('shared-key');
    const theirs = await t.post('/v1/payments', cardPayment(other.entityId), { token: other.token, headers: { 'Idempotency-Key': 'shared-key' } });
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('makes one refund and one checkout per key', async () => {
    const debit = await payWithKey('order-1006-debit', { merchantTransactionId: 'order-1006' });
    const refund = () =>
      t.post(`/v1/payments/${debit.body.id}`, { entityId: t.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' }, { headers: { 'Idempotency-Key': 'order-1006-refund' } });
    const first = await refund();
    const second = await refund();
    expect(second.body).toEqual(first.body);
    const refunds = await t.gateway.store.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE parent_id = $1 AND payment_type = 'RF'", [debit.body.id]);
    expect(refunds.rows[0]?.n).toBe(1);
    // The same key on another payment is another request: refused.
    const elsewhere = await t.post(`/v1/payments/${(await payWithKey('order-1006-other')).body.id}`, { entityId: t.entityId, paymentType: 'RF', amount: '10.00', currency: 'EUR' }, {
      headers: { 'Idempotency-Key': 'order-1006-refund' },
    });
    expect(elsewhere.status).toBe(400);

    const checkout = () =>
      t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB' }, { headers: { 'Idempotency-Key': 'cart-77' } });
    const [a, b] = [await checkout(), await checkout()];
    expect(a.status).toBe(200);
    expect(b.body.id).toBe(a.body.id);
  });

  it('refuses a malformed key', async () => {
    const response = await payWithKey('x'.repeat(256));
    expect(response.status).toBe(400);
    expect(response.body.result.parameterErrors[0].name).toBe('Idempotency-Key');
  });
});
