import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerRedirect,
  BROWSER_DATA,
  cardPayment,
  CIT_INITIAL,
  MIT_REPEATED,
  startTestGateway,
  STORE_KINDS,
  testCard,
  warnIfPostgresSkipped,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('payments/cardOnFile.test.ts');

/** Card on file (doc 3 §2.14, COMPAT §11): standing instructions, scheme references, MIT payments, follow-up authorizations. */

const SCHEME_REFERENCE = /^[1-9][0-9]{14}$/;
const BROWSER = { shopperResultUrl: 'https://shop.example/result', ...BROWSER_DATA };

describe.each(STORE_KINDS)('card on file on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const payWith = (registrationId: string, overrides: Record<string, string> = {}) =>
    t.post(`/v1/registrations/${registrationId}/payments`, { entityId: t.entityId, amount: '9.99', currency: 'EUR', paymentType: 'DB', ...overrides });
  const storedInitialTransactionId = async (registrationId: string) =>
    (await t.gateway.store.query<{ initial_transaction_id: string | null }>('SELECT initial_transaction_id FROM registrations WHERE id = $1', [registrationId]))
      .rows[0]?.initial_transaction_id;

  it('gives an approved INITIAL CIT payment a scheme reference, echoed, in resultDetails and kept on its registration', async () => {
    const { 'card.cvv': _cvv, ...withoutCvv } = testCard();
    // INITIAL without a CVV is accepted.
    const initial = await t.post('/v1/payments', { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...withoutCvv, ...CIT_INITIAL });
    expect(initial.status).toBe(200);
    const reference = initial.body.standingInstruction.initialTransactionId as string;
    expect(reference).toMatch(SCHEME_REFERENCE);
    expect(initial.body.resultDetails.CardholderInitiatedTransactionID).toBe(reference);
    expect(initial.body.standingInstruction).toEqual({ ...Object.fromEntries(Object.entries(CIT_INITIAL).map(([name, value]) => [name.split('.')[1], value])), initialTransactionId: reference });
    expect(initial.body.recurringType).toBe('INITIAL');
    expect(await storedInitialTransactionId(initial.body.registrationId)).toBe(reference);
    // The merchant's later read shows the same.
    const read = await t.get(`/v1/payments/${initial.body.id}`, { entityId: t.entityId });
    expect(read.body.standingInstruction.initialTransactionId).toBe(reference);

    // MIT REPEATED without initialTransactionId: the registration's is filled in.
    const repeated = await payWith(initial.body.registrationId, MIT_REPEATED);
    expect(repeated.status).toBe(200);
    expect(repeated.body.standingInstruction).toMatchObject({ source: 'MIT', mode: 'REPEATED', initialTransactionId: reference });
    expect(repeated.body.recurringType).toBe('REPEATED');
    expect(repeated.body.resultDetails.CardholderInitiatedTransactionID).toBeUndefined();
  });

  it('takes the scheme reference from the request, or our id of the INITIAL payment, and refuses MIT without one (600.200.501)', async () => {
    // A registration migrated from elsewhere without its scheme reference names no agreement.
    const migrated = { 'recurringMigration.paymentType': 'DB' };
    const plain = (await t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), ...migrated })).body.id as string;
    const none = await payWith(plain, MIT_REPEATED);
    expect(none.status).toBe(400);
    expect(none.body.result.code).toBe('600.200.501');
    const given = await payWith(plain, { ...MIT_REPEATED, 'standingInstruction.initialTransactionId': '123456789012345' });
    expect(given.status).toBe(200);
    expect(given.body.standingInstruction.initialTransactionId).toBe('123456789012345');

    const initial = await t.post('/v1/payments', cardPayment(t.entityId, CIT_INITIAL));
    const byOurId = await t.post('/v1/payments', cardPayment(t.entityId, { ...MIT_REPEATED, 'standingInstruction.initialTransactionId': initial.body.id, 'card.cvv': '' }));
    expect(byOurId.status).toBe(200);
    expect(byOurId.body.standingInstruction.initialTransactionId).toBe(initial.body.standingInstruction.initialTransactionId);
    // Our id of a payment that was not an approved INITIAL one names no agreement.
    const declined = await t.post('/v1/payments', cardPayment(t.entityId, { ...CIT_INITIAL, 'card.holder': '800.100.151' }));
    expect(declined.body.standingInstruction.initialTransactionId).toBeUndefined();
    const noAgreement = await t.post('/v1/payments', cardPayment(t.entityId, { ...MIT_REPEATED, 'standingInstruction.initialTransactionId': declined.body.id }));
    expect(noAgreement.body.result.code).toBe('600.200.501');
    // A card sent with MIT and no agreement at all.
    expect((await t.post('/v1/payments', cardPayment(t.entityId, MIT_REPEATED))).body.result.code).toBe('600.200.501');
  });

  it('takes a registration the shopper made as the agreement\'s cardholder-initiated step: MITs on it need no initialTransactionId (COMPAT §11)', async () => {
    // POST /v1/registrations with the card: the registration is the shopper's step and has a scheme reference of its own.
    const registered = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() });
    const reference = await storedInitialTransactionId(registered.body.id);
    expect(reference).toMatch(SCHEME_REFERENCE);
    const onRegistered = await payWith(registered.body.id, MIT_REPEATED);
    expect([onRegistered.status, onRegistered.body.result.code]).toEqual([200, '000.100.110']);
    expect(onRegistered.body.standingInstruction.initialTransactionId).toBe(reference);

    // createRegistration=true on a payment without a standing instruction: the approved payment gets the reference.
    const paid = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true' }));
    expect(paid.body.resultDetails.CardholderInitiatedTransactionID).toMatch(SCHEME_REFERENCE);
    expect(await storedInitialTransactionId(paid.body.registrationId)).toBe(paid.body.resultDetails.CardholderInitiatedTransactionID);
    const onPaid = await payWith(paid.body.registrationId, MIT_REPEATED);
    expect([onPaid.status, onPaid.body.standingInstruction.initialTransactionId]).toEqual([200, paid.body.resultDetails.CardholderInitiatedTransactionID]);
    // The same after a 3-D Secure challenge: the reference comes with the final answer.
    const challenged = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', createRegistration: 'true', ...BROWSER }));
    await answerRedirect(challenged);
    const final = await t.get(`/v1/payments/${challenged.body.id}`, { entityId: t.entityId });
    expect(await storedInitialTransactionId(final.body.registrationId)).toBe(final.body.resultDetails.CardholderInitiatedTransactionID);
    expect((await payWith(final.body.registrationId, MIT_REPEATED)).status).toBe(200);

    // A migration that names its agreement (connectorTxId1) keeps that reference.
    const named = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), 'recurringMigration.paymentType': 'DB', 'recurringMigration.connectorTxId1': '987654321098765' });
    expect((await payWith(named.body.id, MIT_REPEATED)).body.standingInstruction.initialTransactionId).toBe('987654321098765');
    // A declined payment stores nothing and starts no agreement.
    const declined = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'true', 'card.holder': '800.100.151' }));
    expect(declined.body.registrationId).toBeUndefined();
    expect(declined.body.resultDetails?.CardholderInitiatedTransactionID).toBeUndefined();
  });

  it('refuses MIT INITIAL with 600.200.501 and unknown values with 200.300.404 naming the parameter', async () => {
    const mitInitial = await t.post('/v1/payments', cardPayment(t.entityId, { ...CIT_INITIAL, 'standingInstruction.source': 'MIT' }));
    expect(mitInitial.status).toBe(400);
    expect(mitInitial.body.result.code).toBe('600.200.501');
    const unknown = await t.post('/v1/payments', cardPayment(t.entityId, { ...CIT_INITIAL, 'standingInstruction.mode': 'FIRST' }));
    expect(unknown.body.result.code).toBe('200.300.404');
    expect(unknown.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'standingInstruction.mode', value: 'FIRST' })]);
    const legacy = await t.post('/v1/payments', cardPayment(t.entityId, { recurringType: 'SOMETIMES' }));
    expect(legacy.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'recurringType' })]);
  });

  it('never runs 3-D Secure for MIT; a CIT INITIAL on an enrolled card is challenged and gets its reference only when final', async () => {
    const enrolled = { 'card.number': '4200000000000042' };
    const cit = await t.post('/v1/payments', cardPayment(t.entityId, { ...enrolled, ...CIT_INITIAL, createRegistration: 'true', ...BROWSER }));
    expect(cit.body.result.code).toBe('000.200.000');
    expect(cit.body.standingInstruction.initialTransactionId).toBeUndefined();
    expect(cit.body.resultDetails?.CardholderInitiatedTransactionID).toBeUndefined();
    await answerRedirect(cit);
    const final = await t.get(`/v1/payments/${cit.body.id}`, { entityId: t.entityId });
    expect(final.body.result.code).toBe('000.100.110');
    const reference = final.body.standingInstruction.initialTransactionId as string;
    expect(reference).toMatch(SCHEME_REFERENCE);
    expect(await storedInitialTransactionId(final.body.registrationId)).toBe(reference);

    const mit = await payWith(final.body.registrationId, { ...MIT_REPEATED, ...BROWSER });
    expect(mit.status).toBe(200);
    expect(mit.body.result.code).toBe('000.100.110');
    expect(mit.body.redirect).toBeUndefined();
    expect(mit.body.threeDSecure).toBeUndefined();
  });

  it('stores recurringMigration.connectorTxId1 as the agreement of a registration made elsewhere', async () => {
    const migrated = await t.post('/v1/registrations', {
      entityId: t.entityId,
      ...testCard(),
      'recurringMigration.paymentType': 'DB',
      'recurringMigration.connectorTxId1': 'MIGRATED-REF-0001',
    });
    expect(migrated.status).toBe(200);
    expect(migrated.body.result.code).toBe('000.100.110');
    const mit = await payWith(migrated.body.id, MIT_REPEATED);
    expect(mit.status).toBe(200);
    expect(mit.body.standingInstruction.initialTransactionId).toBe('MIGRATED-REF-0001');
    const incomplete = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), 'recurringMigration.connectorTxId1': 'X' });
    expect(incomplete.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'recurringMigration.paymentType' })]);
  });

  it('lets card.holder fill in an empty stored holder only with overrideHolder=true', async () => {
    const { 'card.holder': _holder, ...withoutHolder } = testCard();
    const id = (await t.post('/v1/registrations', { entityId: t.entityId, ...withoutHolder })).body.id as string;
    const without = await payWith(id, { 'card.holder': 'Sent Holder' });
    expect(without.body.card.holder).toBeUndefined();
    const overridden = await payWith(id, { 'card.holder': 'Sent Holder', overrideHolder: 'true' });
    expect(overridden.body.card.holder).toBe('Sent Holder');
    // For that payment only: the registration keeps no holder.
    expect((await t.get(`/v1/registrations/${id}`, { entityId: t.entityId })).body.card.holder).toBeUndefined();
    const held = (await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() })).body.id as string;
    expect((await payWith(held, { 'card.holder': 'Someone Else', overrideHolder: 'true' })).body.card.holder).toBe('Jane Jones');
  });

  describe('follow-up authorizations (referenceUuid)', () => {
    const authorize = (amount: string) => t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount }));
    const capture = (id: string, amount: string) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, paymentType: 'CP', amount, currency: 'EUR' });

    it('INCREMENTAL_AUTH links a PA to the original, whose captures may then total both', async () => {
      const original = await authorize('100.00');
      const increment = await t.post('/v1/payments', {
        entityId: t.entityId,
        paymentType: 'PA',
        amount: '50.00',
        currency: 'EUR',
        referenceUuid: original.body.id,
        'standingInstruction.industryPractice': 'INCREMENTAL_AUTH',
      });
      expect(increment.status).toBe(200);
      expect(increment.body).toMatchObject({ paymentType: 'PA', referencedId: original.body.id, card: { last4Digits: '0000' } });
      // The same through the original's path.
      const second = await t.post(`/v1/payments/${original.body.id}`, {
        entityId: t.entityId,
        paymentType: 'PA',
        amount: '10.00',
        currency: 'EUR',
        'standingInstruction.industryPractice': 'INCREMENTAL_AUTH',
      });
      expect(second.body).toMatchObject({ paymentType: 'PA', referencedId: original.body.id, result: { code: '000.100.110' } });
      expect((await capture(original.body.id, '160.01')).body.result.code).toBe('700.400.100');
      expect((await capture(original.body.id, '160.00')).status).toBe(200);
      // An increment is captured through its original only.
      expect((await capture(increment.body.id, '1.00')).body.result.code).toBe('700.300.100');
    });

    it('REAUTHORIZATION makes a new PA linked to the original, captured on its own', async () => {
      const original = await authorize('30.00');
      const again = await t.post('/v1/payments', {
        entityId: t.entityId,
        paymentType: 'PA',
        amount: '30.00',
        currency: 'EUR',
        referenceUuid: original.body.id,
        'standingInstruction.industryPractice': 'REAUTHORIZATION',
      });
      expect(again.body.referencedId).toBe(original.body.id);
      expect((await capture(again.body.id, '30.00')).status).toBe(200);
    });

    it('refuses an unknown reference (200.300.404), a reference to a non-PA (700.100.700) and referenceUuid without its practice', async () => {
      const follow = (referenceUuid: string, overrides: Record<string, string> = {}) =>
        t.post('/v1/payments', {
          entityId: t.entityId,
          paymentType: 'PA',
          amount: '5.00',
          currency: 'EUR',
          referenceUuid,
          'standingInstruction.industryPractice': 'INCREMENTAL_AUTH',
          ...overrides,
        });
      const unknown = await follow('d'.repeat(32));
      expect(unknown.status).toBe(400);
      expect(unknown.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'referenceUuid' })]);
      const debit = await t.post('/v1/payments', cardPayment(t.entityId));
      expect((await follow(debit.body.id)).body.result.code).toBe('700.100.700');
      const other = await t.newMerchant();
      const foreign = await t.post('/v1/payments', { entityId: other.entityId, paymentType: 'PA', amount: '5.00', currency: 'EUR', referenceUuid: debit.body.id, 'standingInstruction.industryPractice': 'INCREMENTAL_AUTH' }, { token: other.token });
      expect(foreign.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'referenceUuid' })]);
      const original = await authorize('10.00');
      const noPractice = await follow(original.body.id, { 'standingInstruction.industryPractice': 'RESUBMISSION' });
      expect(noPractice.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'referenceUuid' })]);
      expect((await follow(original.body.id, { currency: 'USD' })).body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'currency' })]);
    });
  });
});
