import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../events/outbox.ts';
import { BROWSER_DATA, cardPayment, liveApp, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type TestGateway } from '../testing/harness.ts';

warnIfPostgresSkipped('payments/chargebacks.test.ts');

/**
 * Chargebacks (COMPAT §15): CB on a successful DB or CP (in test the merchant stands in for the acquirer's dispute
 * feed), its reversal CR (and a CR of the CR: a representment), the codes of every wrong workflow, and the money: a
 * charged-back payment is neither refunded nor reversed, and refunds and chargebacks together never exceed it.
 */

describe.each(STORE_KINDS)('chargebacks on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    // Its errors logged: an unexpected one (a 500) is shown with the assertion that finds it.
    t = await startTestGateway(kind, { logLevel: 'error' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const pay = (overrides: Record<string, string> = {}) => t.post('/v1/payments', cardPayment(t.entityId, overrides));
  const operate = (id: string, params: Record<string, string>) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });
  const debit = async (amount = '92.00') => {
    const made = await pay({ amount });
    expect(made.status).toBe(200);
    return made.body.id as string;
  };

  it('records a chargeback of a debit with its reason code, at the debit’s acquirer, with its PAYMENT event', async () => {
    const id = await debit();
    const chargeback = await operate(id, { paymentType: 'CB', amount: '92.00' });
    expect(chargeback.status).toBe(200);
    expect(chargeback.body).toMatchObject({ referencedId: id, paymentType: 'CB', amount: '92.00', currency: 'EUR', result: { code: '000.100.200', description: 'Reason not Specified' } });
    expect(chargeback.body.id).not.toBe(id);
    const reasoned = await operate(await debit(), { paymentType: 'CB', amount: '10.00', chargebackResultCode: '000.100.203' });
    expect(reasoned.body.result).toEqual({ code: '000.100.203', description: 'Insufficient Funds' });
    const [event] = await eventsOf(t.gateway.store, chargeback.body.id);
    expect(event).toMatchObject({ type: 'PAYMENT', action: 'CREATED', payload: { id: chargeback.body.id, paymentType: 'CB', referencedId: id, result: { code: '000.100.200' } } });
    const operations = await t.gateway.store.query<{ acquirer: string; operation: string }>(
      'SELECT o.acquirer, o.operation FROM simulator_operations o JOIN acquirer_attempts a ON a.id = o.attempt_id WHERE a.payment_id = $1',
      [chargeback.body.id],
    );
    expect(operations.rows).toEqual([{ acquirer: 'simulator', operation: 'CB' }]);
  });

  it('answers every back-office operation (CP, RF, RV, CB, CR) with referencedId and resultDetails holding ExtendedDescription', async () => {
    const preauthorization = (await pay({ paymentType: 'PA', amount: '30.00' })).body.id as string;
    const capture = await operate(preauthorization, { paymentType: 'CP', amount: '30.00' });
    const refund = await operate(capture.body.id, { paymentType: 'RF', amount: '5.00' });
    const reversal = await operate((await pay({ paymentType: 'PA', amount: '7.00' })).body.id, { paymentType: 'RV', amount: '7.00' });
    const chargeback = await operate(await debit('12.00'), { paymentType: 'CB', amount: '12.00', chargebackResultCode: '000.100.203' });
    const chargebackReversal = await operate(chargeback.body.id, { paymentType: 'CR', amount: '12.00' });
    for (const [type, answer] of Object.entries({ CP: capture, RF: refund, RV: reversal, CB: chargeback, CR: chargebackReversal })) {
      expect(answer.status, type).toBe(200);
      expect(answer.body.referencedId, type).toMatch(/^[0-9a-f]{32}$/);
      expect(answer.body.resultDetails, type).toMatchObject({
        ExtendedDescription: answer.body.result.description,
        AcquirerResponse: answer.body.result.code.replace(/\./g, ''),
        ConnectorTxID1: expect.stringMatching(/^SIMULATOR-/),
      });
      // The same on a read.
      expect((await t.get(`/v1/payments/${answer.body.id}`, { entityId: t.entityId })).body.resultDetails, type).toEqual(answer.body.resultDetails);
    }
  });

  it('refuses a refund or reversal of a charged-back payment until the chargeback is reversed (CR), then refunds what is left', async () => {
    const id = await debit('50.00');
    expect((await operate(id, { paymentType: 'RF', amount: '10.00' })).status).toBe(200);
    const chargeback = await operate(id, { paymentType: 'CB', amount: '30.00' });
    expect(chargeback.status).toBe(200);
    for (const refused of [await operate(id, { paymentType: 'RF', amount: '1.00' }), await operate(id, { paymentType: 'RV', amount: '50.00' })]) {
      expect(refused).toMatchObject({ status: 400, body: { result: { code: '700.300.600' } } });
    }
    const reversal = await operate(chargeback.body.id, { paymentType: 'CR', amount: '30.00' });
    expect(reversal).toMatchObject({ status: 200, body: { referencedId: chargeback.body.id, paymentType: 'CR', result: { code: '000.100.110' } } });
    expect((await operate(id, { paymentType: 'RF', amount: '40.01' })).body.result.code).toBe('700.400.200');
    expect((await operate(id, { paymentType: 'RF', amount: '40.00' })).status).toBe(200);
    // A reversal of the reversal is a representment; a second reversal of the same transaction is refused.
    expect((await operate(reversal.body.id, { paymentType: 'CR', amount: '30.00' })).status).toBe(200);
    expect((await operate(chargeback.body.id, { paymentType: 'CR', amount: '30.00' })).body.result.code).toBe('700.400.410');
  });

  it('answers the §15 codes for chargebacks of the wrong transaction, a second chargeback and reversals without one', async () => {
    const id = await debit('20.00');
    const declined = await pay({ 'card.holder': '800.100.151' });
    const preauthorization = await pay({ paymentType: 'PA', amount: '20.00' });
    const pending = await pay({ 'card.number': '4200000000000042', shopperResultUrl: 'https://shop.example/return', ...BROWSER_DATA });
    expect(pending.body.result.code).toBe('000.200.000');
    const cases: [string, Record<string, string>, string][] = [
      [declined.body.id, { paymentType: 'CB', amount: '1.00' }, '700.400.550'],
      [pending.body.id, { paymentType: 'CB', amount: '1.00' }, '700.400.550'],
      [preauthorization.body.id, { paymentType: 'CB', amount: '1.00' }, '700.400.550'],
      ['0123456789abcdef0123456789abcdef', { paymentType: 'CB', amount: '1.00' }, '700.400.550'],
      [id, { paymentType: 'CR', amount: '20.00' }, '700.400.420'],
      ['0123456789abcdef0123456789abcdef', { paymentType: 'CR', amount: '1.00' }, '700.400.420'],
      [id, { paymentType: 'CB', amount: '20.01' }, '700.400.400'],
      [id, { paymentType: 'CP', amount: '1.00', chargebackResultCode: '000.100.201' }, '200.300.404'],
      [id, { paymentType: 'CB', amount: '1.00', chargebackResultCode: '000.100.100' }, '200.300.404'],
    ];
    for (const [reference, params, code] of cases) {
      const answer = await operate(reference, params);
      expect([answer.status, answer.body.result.code, JSON.stringify(params)]).toEqual([400, code, JSON.stringify(params)]);
    }
    const chargeback = await operate(id, { paymentType: 'CB', amount: '5.00' });
    expect(chargeback.status).toBe(200);
    expect((await operate(id, { paymentType: 'CB', amount: '5.00' })).body.result.code).toBe('700.300.500');
    expect((await operate(chargeback.body.id, { paymentType: 'CR', amount: '4.00' })).body.result.code).toBe('700.400.410');
    // A capture can be charged back like a debit.
    const capture = await operate(preauthorization.body.id, { paymentType: 'CP', amount: '20.00' });
    expect((await operate(capture.body.id, { paymentType: 'CB', amount: '20.00' })).status).toBe(200);
  });

  it('refuses chargebacks sent by a merchant in live (700.400.402)', async () => {
    const live = await liveApp(t);
    const id = await debit();
    const answer = await live.request(`/v1/payments/${id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: t.entityId, paymentType: 'CB', amount: '1.00', currency: 'EUR' }).toString(),
    });
    expect(answer.status).toBe(400);
    expect((await answer.json()).result.code).toBe('700.400.402');
  });

  it('refuses a chargeback reversal (CR) sent by a merchant in live (700.400.402), and records nothing', async () => {
    const live = await liveApp(t);
    const chargeback = await operate(await debit('15.00'), { paymentType: 'CB', amount: '15.00' });
    expect(chargeback.status).toBe(200);
    const answer = await live.request(`/v1/payments/${chargeback.body.id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ entityId: t.entityId, paymentType: 'CR', amount: '15.00', currency: 'EUR' }).toString(),
    });
    expect(answer.status).toBe(400);
    expect((await answer.json()).result.code).toBe('700.400.402');
    const children = await t.gateway.store.query('SELECT id FROM payments WHERE parent_id = $1', [chargeback.body.id]);
    expect(children.rows).toEqual([]);
    // The chargeback is still there to be reversed.
    expect((await operate(chargeback.body.id, { paymentType: 'CR', amount: '15.00' })).status).toBe(200);
  });

  it('refuses a chargeback of a reversed debit (700.400.400)', async () => {
    const id = await debit('18.00');
    expect((await operate(id, { paymentType: 'RV', amount: '18.00' })).status).toBe(200);
    for (const amount of ['18.00', '1.00']) {
      const answer = await operate(id, { paymentType: 'CB', amount });
      expect([answer.status, answer.body.result.code, amount]).toEqual([400, '700.400.400', amount]);
    }
    const approved = await t.gateway.store.query("SELECT id FROM payments WHERE parent_id = $1 AND payment_type = 'CB' AND status = 'approved'", [id]);
    expect(approved.rows).toEqual([]);
  });

  it('never lets 20 concurrent refunds and chargebacks of one payment exceed what was paid', async () => {
    const id = await debit('50.00');
    // 15 refunds of 3.00 (45.00) and 5 chargebacks of 20.00 ask for 145.00 of a 50.00 debit; one chargeback at most.
    const requests = [
      ...Array.from({ length: 15 }, () => ({ paymentType: 'RF', amount: '3.00' })),
      ...Array.from({ length: 5 }, () => ({ paymentType: 'CB', amount: '20.00' })),
    ].sort(() => Math.random() - 0.5);
    const answers = await Promise.all(requests.map((params) => operate(id, params)));
    for (const answer of answers) expect([200, 400], t.logLines.join('\n')).toContain(answer.status);
    const stored = await t.gateway.store.query<{ payment_type: string; total: string; n: number }>(
      "SELECT payment_type, sum(amount_minor)::text AS total, count(*)::int AS n FROM payments WHERE parent_id = $1 AND status = 'approved' GROUP BY payment_type",
      [id],
    );
    const byType = Object.fromEntries(stored.rows.map((row) => [row.payment_type, row]));
    expect(byType.CB?.n ?? 0).toBeLessThanOrEqual(1);
    const total = stored.rows.reduce((sum, row) => sum + Number(row.total), 0);
    expect(total).toBeLessThanOrEqual(5000);
    // What the answers said is what was stored.
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(stored.rows.reduce((sum, row) => sum + row.n, 0));
  });
});
