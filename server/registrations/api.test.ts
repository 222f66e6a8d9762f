import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../events/outbox.ts';
import {
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('registrations/api.test.ts');

/** The registrations API server to server (COMPAT §10): create, read, pay with, update, extend, delete, expire. */

const DAY_MS = 24 * 60 * 60_000;
const NDC = /^[0-9a-f]{32}_[0-9a-f]{32}$/;

describe.each(STORE_KINDS)('the registrations API on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock(new Date('2026-03-31T10:00:00Z'));
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (overrides: Record<string, string> = {}) => t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), ...overrides });
  const registered = async (overrides: Record<string, string> = {}): Promise<string> => {
    const answer = await register(overrides);
    expect(answer.status).toBe(200);
    return answer.body.id as string;
  };
  const pay = (id: string, overrides: Record<string, string> = {}) =>
    t.post(`/v1/registrations/${id}/payments`, { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'DB', ...overrides });
  const read = (id: string) => t.get(`/v1/registrations/${id}`, { entityId: t.entityId });
  const sealedCardOf = async (id: string) =>
    (await t.gateway.store.query<{ sealed_card_id: string | null }>('SELECT sealed_card_id FROM registrations WHERE id = $1', [id])).rows[0]?.sealed_card_id;

  it('stores a card and answers the registration in the shape of COMPAT §10, ignoring amount, currency and paymentType', async () => {
    const answer = await register({
      'customer.givenName': 'Jane',
      'customer.surname': 'Jones',
      'customParameters[SHOP_ref]': 'abc',
      amount: 'not an amount',
      currency: 'EUR',
      paymentType: 'DB',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      paymentBrand: 'VISA',
      result: { code: '000.100.110', description: expect.any(String) },
      card: { bin: '420000', last4Digits: '0000', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034' },
      customer: { givenName: 'Jane', surname: 'Jones' },
      customParameters: { SHOP_ref: 'abc' },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: expect.stringMatching(NDC),
    });
    expect(answer.body.ndc.startsWith(`${t.entityId}_`)).toBe(true);
    const { result: _result, buildNumber: _build, timestamp: _timestamp, ndc: _ndc, ...registration } = answer.body;
    const again = await read(answer.body.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ ...registration, result: answer.body.result });
    // Never the number or the CVV in the row (the number is sealed in the vault).
    const row = await t.gateway.store.query('SELECT * FROM registrations WHERE id = $1', [answer.body.id]);
    expect(JSON.stringify(row.rows)).not.toMatch(/4200000000000000|"123"/);
    const [created] = await eventsOf(t.gateway.store, answer.body.id);
    expect(created).toMatchObject({ type: 'REGISTRATION', action: 'CREATED', payload: { id: answer.body.id, card: { last4Digits: '0000' } } });
  });

  it('answers the mode’s success code, accepts authentication.entityId and the brand names clients upper-case', async () => {
    expect((await register({ testMode: 'EXTERNAL' })).body.result.code).toBe('000.100.112');
    const aliased = await t.post('/v1/registrations', {
      'authentication.entityId': t.entityId,
      ...testCard({ paymentBrand: 'AMERICAN_EXPRESS', 'card.number': '377777777777770', 'card.cvv': '1234' }),
    });
    expect(aliased.status).toBe(200);
    expect(aliased.body.paymentBrand).toBe('AMEX');
    const { 'card.cvv': _cvv, ...withoutCvv } = testCard();
    expect((await t.post('/v1/registrations', { entityId: t.entityId, ...withoutCvv })).status).toBe(200);
  });

  it('refuses an invalid card with 100.100.101, still naming an id and the card, and stores nothing', async () => {
    const refused = await register({ 'card.number': '4200000000000001' });
    expect(refused.status).toBe(400);
    expect(refused.body.result.code).toBe('100.100.101');
    expect(refused.body.id).toMatch(/^[0-9a-f]{32}$/);
    expect(refused.body.card).toMatchObject({ bin: '420000', last4Digits: '0001' });
    expect((await read(refused.body.id)).body.result.code).toBe('100.150.200');
    const mismatch = await register({ paymentBrand: 'MASTER' });
    expect(mismatch.body.result.code).toBe('100.100.700');
    const missing = await t.post('/v1/registrations', { entityId: t.entityId, paymentBrand: 'VISA' });
    expect(missing.status).toBe(400);
    expect(missing.body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual(['card.number', 'card.expiryMonth', 'card.expiryYear']);
    // A bank account that fails its checksum (SEPA registrations: bankAccounts.test.ts).
    const sepa = await t.post('/v1/registrations', { entityId: t.entityId, paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE89370400440532013001' });
    expect(sepa.body.result.code).toBe('100.100.101');
    expect(JSON.stringify(sepa.body)).not.toContain('DE89370400440532013001');
  });

  it('answers unknown, malformed, foreign and deleted ids with their own codes, and another merchant learns nothing', async () => {
    const id = await registered();
    expect((await read('f'.repeat(32))).body.result.code).toBe('100.150.200');
    expect((await read('f'.repeat(31))).body.result.code).toBe('100.150.101');
    expect((await read('F'.repeat(32))).body.result.code).toBe('100.150.101');
    const other = await t.newMerchant();
    const foreignRead = await t.get(`/v1/registrations/${id}`, { entityId: other.entityId }, { token: other.token });
    const unknownRead = await t.get(`/v1/registrations/${'e'.repeat(32)}`, { entityId: other.entityId }, { token: other.token });
    expect(foreignRead.status).toBe(400);
    expect(foreignRead.body.result).toEqual(unknownRead.body.result);
    const foreignPay = await t.post(`/v1/registrations/${id}/payments`, { entityId: other.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB' }, { token: other.token });
    expect(foreignPay.body.result.code).toBe('100.150.200');
    const foreignDelete = await t.delete(`/v1/registrations/${id}`, { entityId: other.entityId }, { token: other.token });
    expect(foreignDelete.body.result.code).toBe('100.150.200');
    // Still the owner's, and usable.
    expect((await pay(id)).status).toBe(200);
    // The owner deletes it: now it is deleted for the owner, and still unknown for the other merchant.
    expect((await t.delete(`/v1/registrations/${id}`, { entityId: t.entityId })).status).toBe(200);
    expect((await read(id)).body.result.code).toBe('100.150.202');
    expect((await t.get(`/v1/registrations/${id}`, { entityId: other.entityId }, { token: other.token })).body.result).toEqual(unknownRead.body.result);
  });

  it('deletes with the parameters in the query or a form body, erases the sealed card, and refuses a second delete', async () => {
    const id = await registered();
    const sealedCardId = await sealedCardOf(id);
    const deleted = await t.delete(`/v1/registrations/${id}`, { entityId: t.entityId, testMode: 'EXTERNAL' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      referencedId: id,
      paymentType: 'DR',
      result: { code: '000.100.112', description: expect.any(String) },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: expect.stringMatching(NDC),
    });
    expect(deleted.body.id).not.toBe(id);
    expect(await sealedCardOf(id)).toBeNull();
    expect((await t.gateway.store.query('SELECT 1 FROM vault_items WHERE id = $1', [sealedCardId])).rows).toEqual([]);
    expect((await eventsOf(t.gateway.store, id)).map((event) => event.action)).toEqual(['CREATED', 'DELETED']);
    const twice = await t.delete(`/v1/registrations/${id}`, {}, { body: { entityId: t.entityId } });
    expect(twice.status).toBe(400);
    expect(twice.body.result.code).toBe('100.150.202');
    expect((await pay(id)).body.result.code).toBe('100.150.202');

    const byBody = await registered();
    expect((await t.delete(`/v1/registrations/${byBody}`, {}, { body: { entityId: t.entityId } })).body.result.code).toBe('000.100.110');
  });

  it('pays with a registration (PA, DB, CD, PA.CP), naming it in the answer; operations on payments are not made through it', async () => {
    const id = await registered();
    for (const paymentType of ['PA', 'DB', 'CD']) {
      const paid = await pay(id, { paymentType });
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ paymentType, registrationId: id, card: { last4Digits: '0000' }, result: { code: '000.100.110' } });
    }
    // PA.CP answers as on /v1/payments: the capture of the preauthorization it made.
    const captured = await pay(id, { paymentType: 'PA.CP' });
    expect(captured.body).toMatchObject({ paymentType: 'CP', result: { code: '000.100.110' } });
    const authorization = await t.get(`/v1/payments/${captured.body.referencedId}`, { entityId: t.entityId });
    expect(authorization.body).toMatchObject({ paymentType: 'PA', registrationId: id });
    const refund = await pay(id, { paymentType: 'RF' });
    expect(refund.status).toBe(400);
    expect(refund.body.result.code).toBe('100.350.201');
    const withCard = await pay(id, { 'card.number': '4200000000000000' });
    expect(withCard.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'card.number' })]);
    expect(JSON.stringify(withCard.body)).not.toContain('4200000000000000');
    expect((await pay(id, { paymentBrand: 'MASTER' })).body.result.code).toBe('100.100.700');
    expect((await pay('a'.repeat(12))).body.result.code).toBe('100.150.101');
    expect((await pay('a'.repeat(32))).body.result.code).toBe('100.150.200');
    // A CVV is never echoed, not even a malformed one.
    const malformedCvv = await pay(id, { 'card.cvv': '12' });
    expect(malformedCvv.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'card.cvv', value: '**' })]);
  });

  it('updates holder and expiry: the card is sealed again, the old sealed value erased, an UPDATED event written', async () => {
    const id = await registered({ 'card.expiryYear': '2027', 'card.expiryMonth': '01' });
    const before = await sealedCardOf(id);
    const updated = await t.post(`/v1/registrations/${id}`, { entityId: t.entityId, 'card.expiryYear': '2031', 'card.holder': 'Jane Q Jones' });
    expect(updated.status).toBe(200);
    expect(updated.body.card).toEqual({ bin: '420000', last4Digits: '0000', holder: 'Jane Q Jones', expiryMonth: '01', expiryYear: '2031' });
    expect(await sealedCardOf(id)).not.toBe(before);
    expect((await t.gateway.store.query('SELECT 1 FROM vault_items WHERE id = $1', [before])).rows).toEqual([]);
    expect((await eventsOf(t.gateway.store, id)).map((event) => event.action)).toEqual(['CREATED', 'UPDATED']);
    const paid = await pay(id);
    expect(paid.body.card).toMatchObject({ holder: 'Jane Q Jones', expiryYear: '2031' });
    const refused = await t.post(`/v1/registrations/${id}`, { entityId: t.entityId, 'card.number': '5454545454545454' });
    expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'card.number' })]);
    expect((await t.post(`/v1/registrations/${id}`, { entityId: t.entityId, 'card.expiryMonth': '13' })).status).toBe(400);
  });

  it('expires 13 months after the last successful use; a payment or extendlife starts the clock again', async () => {
    const id = await registered();
    const other = await registered();
    clock.advance(365 * DAY_MS);
    expect((await pay(id)).status).toBe(200);
    const extended = await t.post(`/v1/registrations/${other}/extendlife`, { entityId: t.entityId });
    expect(extended.body).toMatchObject({ referencedId: other, paymentType: 'TE', result: { code: '000.100.110' } });
    clock.advance(365 * DAY_MS);
    expect((await read(id)).status).toBe(200);
    expect((await read(other)).status).toBe(200);
    const never = await registered();
    clock.advance(31 * DAY_MS);
    // 13 months after the payment and the extension: both expired; the one made a month ago is not.
    for (const expired of [id, other]) {
      const answer = await read(expired);
      expect(answer.status).toBe(400);
      expect(answer.body.result.code).toBe('100.150.203');
      expect((await pay(expired)).body.result.code).toBe('100.150.203');
    }
    expect((await read(never)).status).toBe(200);
    // An expired registration can still be deleted, and its card goes.
    expect((await t.delete(`/v1/registrations/${id}`, { entityId: t.entityId })).status).toBe(200);
    expect(await sealedCardOf(id)).toBeNull();
  });

  it('moves the expiry clock at most once an hour, so payments in a burst do not all write the registration', async () => {
    const id = await registered();
    const lastUsed = async () =>
      (await t.gateway.store.query<{ last_used_at: Date }>('SELECT last_used_at FROM registrations WHERE id = $1', [id])).rows[0]?.last_used_at.getTime();
    const created = await lastUsed();
    clock.advance(10 * 60_000);
    expect((await pay(id)).status).toBe(200);
    expect(await lastUsed()).toBe(created);
    clock.advance(60 * 60_000);
    expect((await pay(id)).status).toBe(200);
    expect(await lastUsed()).toBe(clock.now().getTime());
  });

  it('never loses a delete racing payments on the same registration: each payment is made or refused with 100.150.202', async () => {
    const id = await registered();
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, () => pay(id)),
      t.delete(`/v1/registrations/${id}`, { entityId: t.entityId }),
      ...Array.from({ length: 8 }, () => pay(id)),
    ]);
    for (const answer of answers) {
      expect(answer.status === 200 || answer.body.result.code === '100.150.202').toBe(true);
    }
    expect(answers.filter((answer) => answer.body.paymentType === 'DR')).toHaveLength(1);
    expect(await sealedCardOf(id)).toBeNull();
    expect(t.logLines.join('\n')).not.toMatch(/unexpected error/);
  });
});

describe.each(STORE_KINDS)('the registration lifetime on %s', (kind) => {
  it('is configurable (REGISTRATION_LIFETIME_MONTHS), counted in calendar months', async () => {
    const clock = createTestClock(new Date('2026-01-31T12:00:00Z'));
    const t = await startTestGateway(kind, { registrationLifetimeMonths: 1 }, { now: clock.now });
    try {
      const id = (await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() })).body.id as string;
      // One month after 31 January is the last day of February.
      clock.advance(27 * DAY_MS);
      expect((await t.get(`/v1/registrations/${id}`, { entityId: t.entityId })).status).toBe(200);
      clock.advance(DAY_MS);
      expect((await t.get(`/v1/registrations/${id}`, { entityId: t.entityId })).body.result.code).toBe('100.150.203');
    } finally {
      await t.close();
    }
  });
});
