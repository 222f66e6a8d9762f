import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/harness.ts';

/**
 * Instruments the API declares but this gateway does not process yet (bank accounts, virtual accounts, network
 * tokens, wallets): a payment with one is refused with a clear answer before anything is recorded, and the
 * instrument's secrets appear nowhere in it. (Not a validation error: the request is well-formed.)
 */
describe('payments with instruments not processed yet', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const IBAN = 'DE89370400440532013000';
  const WALLET_TOKEN = 'eyJ3YWxsZXQiOiJ0b2tlbi12YWx1ZSJ9';
  const NETWORK_TOKEN = '4895370012003478';

  it.each([
    ['bankAccount', { paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': IBAN, 'bankAccount.bic': 'COBADEFFXXX', 'bankAccount.country': 'DE' }],
    ['virtualAccount', { 'virtualAccount.accountId': 'jane@jones.example', 'virtualAccount.password': 'hunter2-secret' }],
    ['tokenAccount', { paymentBrand: 'VISA', 'tokenAccount.number': NETWORK_TOKEN, 'tokenAccount.expiryMonth': '05', 'tokenAccount.expiryYear': '2034', 'tokenAccount.type': 'NETWORK' }],
    ['wallet', { paymentBrand: 'APPLEPAY', 'walletA.paymentToken': WALLET_TOKEN, 'walletA.source': 'web' }],
  ])('a %s payment: 600.200.200, HTTP 400, no payment recorded, no secret in the answer', async (kind, instrument) => {
    const before = await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
    const answer = await t.post('/v1/payments', { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', ...instrument });
    expect(answer.status).toBe(400);
    expect(answer.body.result.code).toBe('600.200.200');
    expect(answer.body.result.description).toContain(kind);
    expect(answer.body.result.parameterErrors).toBeUndefined();
    const text = JSON.stringify(answer.body);
    for (const secret of [IBAN, WALLET_TOKEN, NETWORK_TOKEN, 'hunter2-secret']) expect(text).not.toContain(secret);
    const after = await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM payments');
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
  });

  it('a gift card, which the API has no payment for: refused naming the parameter', async () => {
    const answer = await t.post('/v1/payments', { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', 'giftCard.number': '6036280000000000', 'giftCard.pin': '1234' });
    expect(answer.status).toBe(400);
    expect(answer.body.result.code).toBe('200.300.404');
    expect(answer.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain('giftCard.number');
    expect(JSON.stringify(answer.body)).not.toContain('6036280000000000');
  });
});
