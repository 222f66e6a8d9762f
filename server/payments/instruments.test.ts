import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../events/outbox.ts';
import { STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';

warnIfPostgresSkipped('payments/instruments.test.ts');

/**
 * The instruments other than cards (COMPAT §16) through POST /v1/payments: SEPA direct debit, network and external
 * tokens, the three mobile wallets and a virtual account paid without a redirect. Each answers with the simulator's
 * outcomes, takes the back-office operations that apply to it, and shows its account masked: the whole IBAN, token
 * number, cryptogram or wallet token appears in no answer, event, payment row or log line.
 */

const IBAN = 'DE23100000001234567890';
const IBAN_MASKED = 'DE2310************7890';
const BIC = 'MARKDEF1100';
const NETWORK_TOKEN = '4200000000000000';
const CRYPTOGRAM = 'AgAAAAAABk4DWZ4C28yUQAAAAAA=';
const APPLE_TOKEN = JSON.stringify({ version: 'EC_v1', data: 'c2VjcmV0LWFwcGxlLXRva2VuLWJsb2I=', signature: 'c2lnbmF0dXJl', header: { ephemeralPublicKey: 'a2V5', transactionId: 'abc123' } });
const GOOGLE_TOKEN = JSON.stringify({ signature: 'MEUCIQgoogle', protocolVersion: 'ECv2', signedMessage: '{"encryptedMessage":"secret-google-blob"}', paymentMethod: { network: 'MASTERCARD' } });
const SECRETS = [IBAN, CRYPTOGRAM, 'c2VjcmV0LWFwcGxlLXRva2VuLWJsb2I=', 'secret-google-blob', 'hunter2-secret'];

describe.each(STORE_KINDS)('payments with other instruments on %s', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A payment; a parameter given as undefined is left out. */
  const pay = (params: Record<string, string | undefined>) => {
    const sent = Object.entries({ entityId: t.entityId, amount: '25.00', currency: 'EUR', paymentType: 'DB', ...params }).filter((entry): entry is [string, string] => entry[1] !== undefined);
    return t.post('/v1/payments', Object.fromEntries(sent));
  };
  const operate = (id: string, params: Record<string, string>) => t.post(`/v1/payments/${id}`, { entityId: t.entityId, currency: 'EUR', ...params });
  const sepa = (overrides: Record<string, string | undefined> = {}) => ({ paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': IBAN, 'bankAccount.bic': BIC, 'bankAccount.country': 'DE', ...overrides });
  const today = () => new Date().toISOString().slice(0, 10);
  const paymentCount = async () => (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM payments')).rows[0]?.n;
  const refusedNaming = (answer: ApiResponse, code: string, name: string) => {
    expect(answer.status).toBe(400);
    expect(answer.body.result.code).toBe(code);
    expect(answer.body.result.parameterErrors.map((error: { name: string }) => error.name)).toContain(name);
  };
  /** Nothing of an instrument's secrets anywhere the merchant, an operator or a log reader could see it. */
  const expectNoSecrets = async (...answers: ApiResponse[]) => {
    const rows = await t.gateway.store.query<{ row: unknown }>('SELECT to_jsonb(p) AS row FROM payments p');
    const events = await t.gateway.store.query<{ payload: unknown }>('SELECT payload FROM events');
    const seen = [JSON.stringify(answers.map((answer) => answer.body)), JSON.stringify(rows.rows), JSON.stringify(events.rows), t.logLines.join('\n')].join('\n');
    for (const secret of SECRETS) expect(seen).not.toContain(secret);
  };

  describe('SEPA direct debit', () => {
    it('debits the test IBAN at once with the mode’s success code, the IBAN masked and a mandate made for it; refunds, reverses and charges it back as a SEPA return', async () => {
      const debit = await pay(sepa());
      expect(debit.status).toBe(200);
      expect(debit.body).toMatchObject({
        paymentType: 'DB',
        paymentBrand: 'DIRECTDEBIT_SEPA',
        amount: '25.00',
        result: { code: '000.100.110' },
        bankAccount: { holder: 'Jane Jones', iban: IBAN_MASKED, bic: BIC, country: 'DE', mandate: { dateOfSignature: today() } },
      });
      expect(debit.body.bankAccount.mandate.id).toMatch(/^[A-Za-z-]{1,256}$/);
      expect(debit.body.card).toBeUndefined();
      const read = await t.get(`/v1/payments/${debit.body.id}`, { entityId: t.entityId });
      expect(read.body.bankAccount).toEqual(debit.body.bankAccount);
      const [event] = await eventsOf(t.gateway.store, debit.body.id);
      expect(event?.payload).toMatchObject({ paymentBrand: 'DIRECTDEBIT_SEPA', paymentMethod: 'DD', bankAccount: { iban: IBAN_MASKED } });

      expect((await operate(debit.body.id, { paymentType: 'RF', amount: '5.00' })).body.result.code).toBe('000.100.110');
      const returned = await operate(debit.body.id, { paymentType: 'CB', amount: '20.00', chargebackResultCode: '000.100.204' });
      expect(returned.body).toMatchObject({ paymentType: 'CB', referencedId: debit.body.id, result: { code: '000.100.204', description: 'Mandate not Valid' } });
      const other = await pay(sepa());
      expect((await operate(other.body.id, { paymentType: 'RV' })).body).toMatchObject({ paymentType: 'RV', result: { code: '000.100.110' } });
      await expectNoSecrets(debit, read, returned);
    });

    it('answers each SEPA return reason (CB chargebackResultCode 000.100.202, 205…209) with its code and description', async () => {
      const reasons: [string, string][] = [
        ['000.100.202', 'Account Closed'],
        ['000.100.205', 'Mandate Cancelled'],
        ['000.100.206', 'Revocation or Dispute'],
        ['000.100.207', 'Cancellation in Circulation'],
        ['000.100.208', 'Bank Account Blocked'],
        ['000.100.209', 'Bank Account Dissolved'],
      ];
      for (const [code, description] of reasons) {
        const debit = await pay(sepa());
        expect(debit.status).toBe(200);
        const returned = await operate(debit.body.id, { paymentType: 'CB', amount: '25.00', chargebackResultCode: code });
        expect(returned.status, code).toBe(200);
        expect(returned.body, code).toMatchObject({ paymentType: 'CB', paymentBrand: 'DIRECTDEBIT_SEPA', referencedId: debit.body.id, result: { code, description } });
        expect((await t.get(`/v1/payments/${returned.body.id}`, { entityId: t.entityId })).body.result, code).toEqual({ code, description });
      }
    });

    it('keeps the merchant’s mandate and due date, and authorizes (PA) for a later capture', async () => {
      const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
      const authorized = await pay(sepa({ paymentType: 'PA', 'bankAccount.mandate.id': 'MANDATE-JONES', 'bankAccount.mandate.dateOfSignature': '2025-03-01', transactionDueDate: due, 'bankAccount.bic': undefined }));
      expect(authorized.status).toBe(200);
      expect(authorized.body).toMatchObject({ paymentType: 'PA', transactionDueDate: due, bankAccount: { mandate: { id: 'MANDATE-JONES', dateOfSignature: '2025-03-01' }, country: 'DE' } });
      expect(authorized.body.bankAccount.bic).toBeUndefined();
      expect((await operate(authorized.body.id, { paymentType: 'CP', amount: '25.00' })).body.result.code).toBe('000.100.110');
    });

    it('is declined with the code the holder names, as cards are (COMPAT §7)', async () => {
      const declined = await pay(sepa({ 'bankAccount.holder': '800.100.203' }));
      expect(declined.status).toBe(400);
      expect(declined.body).toMatchObject({ result: { code: '800.100.203' }, paymentBrand: 'DIRECTDEBIT_SEPA' });
      expect(declined.body.id).toMatch(/^[0-9a-f]{32}$/);
    });

    it('refuses a bad IBAN, BIC, country, mandate date, due date or payment type, naming the parameter, and records nothing', async () => {
      const before = await paymentCount();
      const checksum = await pay(sepa({ 'bankAccount.iban': 'DE23100000001234567891' }));
      refusedNaming(checksum, '100.100.101', 'bankAccount.iban');
      expect(JSON.stringify(checksum.body)).not.toContain('DE23100000001234567891');
      refusedNaming(await pay(sepa({ 'bankAccount.iban': 'DE231000000012345678' })), '100.100.101', 'bankAccount.iban');
      refusedNaming(await pay(sepa({ 'bankAccount.iban': 'DE23-1000' })), '200.300.404', 'bankAccount.iban');
      refusedNaming(await pay(sepa({ 'bankAccount.bic': '1ARKDEF1100' })), '200.300.404', 'bankAccount.bic');
      refusedNaming(await pay(sepa({ 'bankAccount.bic': 'MARKDEF11' })), '200.300.404', 'bankAccount.bic');
      refusedNaming(await pay(sepa({ 'bankAccount.country': 'AT' })), '200.300.404', 'bankAccount.country');
      refusedNaming(await pay(sepa({ 'bankAccount.mandate.dateOfSignature': '2999-01-01' })), '200.300.404', 'bankAccount.mandate.dateOfSignature');
      refusedNaming(await pay(sepa({ 'bankAccount.mandate.dateOfSignature': '2025-02-30' })), '200.300.404', 'bankAccount.mandate.dateOfSignature');
      refusedNaming(await pay(sepa({ transactionDueDate: '2020-01-01' })), '200.300.404', 'transactionDueDate');
      refusedNaming(await pay(sepa({ paymentType: 'CD' })), '200.300.404', 'paymentType');
      refusedNaming(await pay(sepa({ 'bankAccount.holder': undefined })), '200.300.404', 'bankAccount.holder');
      const numberOnly = await pay({ paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.number': '1234567890', 'bankAccount.bankCode': '10000000' });
      refusedNaming(numberOnly, '200.300.404', 'bankAccount.iban');
      // A brand that is no payment method of the gateway (COMPAT §7), named as such.
      refusedNaming(await pay(sepa({ paymentBrand: 'DIRECTDEBIT_DE' })), '600.200.100', 'paymentBrand');
      expect(await paymentCount()).toBe(before);
      await expectNoSecrets(checksum);
    });
  });

  describe('token accounts', () => {
    const network = (overrides: Record<string, string | undefined> = {}) => ({
      paymentBrand: 'VISA',
      'tokenAccount.type': 'NETWORK',
      'tokenAccount.number': NETWORK_TOKEN,
      'tokenAccount.expiryMonth': '05',
      'tokenAccount.expiryYear': '2034',
      'tokenAccount.cryptogram': CRYPTOGRAM,
      ...overrides,
    });

    it('pays with a network token and its cryptogram like a card whose 3-D Secure is done, the token masked', async () => {
      const paid = await pay(network({ 'threeDSecure.eci': '05' }));
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ paymentBrand: 'VISA', result: { code: '000.100.110' }, tokenAccount: { type: 'NETWORK', number: '420000******0000', expiryMonth: '05', expiryYear: '2034' }, threeDSecure: { eci: '05' } });
      expect(paid.body.tokenAccount.cryptogram).toBeUndefined();
      expect(paid.body.redirect).toBeUndefined();
      expect((await operate(paid.body.id, { paymentType: 'RF', amount: '25.00' })).status).toBe(200);
      // Every test card of COMPAT §7 works as a DPAN, with its outcome.
      const mastercard = await pay(network({ paymentBrand: 'MASTER', 'tokenAccount.number': '5454545454545454' }));
      expect(mastercard.body.result.code).toBe('000.100.110');
      const invalid = await pay(network({ 'tokenAccount.number': '4444444444444444' }));
      expect(invalid).toMatchObject({ status: 400, body: { result: { code: '100.100.101' } } });
      const luhn = await pay(network({ 'tokenAccount.number': '4200000000000001' }));
      expect(luhn.body.result.code).toBe('100.100.101');
      const expired = await pay(network({ 'tokenAccount.expiryYear': '2020' }));
      expect(expired.body.result.code).toBe('100.100.303');
      await expectNoSecrets(paid);
    });

    it('requires the cryptogram of a cardholder-initiated payment, 20 to 40 characters of base64, and not of a merchant-initiated one', async () => {
      refusedNaming(await pay(network({ 'tokenAccount.cryptogram': undefined })), '200.300.404', 'tokenAccount.cryptogram');
      refusedNaming(await pay(network({ 'tokenAccount.cryptogram': 'QUJD' })), '200.300.404', 'tokenAccount.cryptogram');
      refusedNaming(await pay(network({ 'tokenAccount.cryptogram': 'A'.repeat(44) })), '200.300.404', 'tokenAccount.cryptogram');
      refusedNaming(await pay(network({ 'tokenAccount.cryptogram': 'not base64 at all, no!!' })), '200.300.404', 'tokenAccount.cryptogram');
      refusedNaming(await pay(network({ 'tokenAccount.type': 'SCHEME' })), '200.300.404', 'tokenAccount.type');
      refusedNaming(await pay(network({ 'tokenAccount.expiryYear': undefined })), '200.300.404', 'tokenAccount.expiryYear');
      expect((await pay(network({ 'tokenAccount.cryptogram': 'A'.repeat(20) }))).status).toBe(200);
      const merchantInitiated = await pay(
        network({ 'tokenAccount.cryptogram': undefined, 'standingInstruction.source': 'MIT', 'standingInstruction.mode': 'REPEATED', 'standingInstruction.type': 'UNSCHEDULED', 'standingInstruction.initialTransactionId': '123456789012345' }),
      );
      expect(merchantInitiated.status).toBe(200);
    });

    it('declines a network token whose number is of another brand than paymentBrand (100.100.700), at no acquirer', async () => {
      for (const [paymentBrand, number] of [['MASTER', NETWORK_TOKEN], ['VISA', '5454545454545454'], ['AMEX', NETWORK_TOKEN]] as const) {
        const mismatch = await pay(network({ paymentBrand, 'tokenAccount.number': number }));
        expect([mismatch.status, mismatch.body.result.code, paymentBrand]).toEqual([400, '100.100.700', paymentBrand]);
        const operations = await t.gateway.store.query('SELECT o.operation FROM simulator_operations o JOIN acquirer_attempts a ON a.id = o.attempt_id WHERE a.payment_id = $1', [mismatch.body.id]);
        expect(operations.rows).toEqual([]);
      }
    });

    it('pays with an external provider’s token, named by its brand', async () => {
      const paid = await pay({ paymentBrand: 'MASTER', 'tokenAccount.type': 'EXTERNAL', 'tokenAccount.number': '987654321098765' });
      expect(paid).toMatchObject({ status: 200, body: { paymentBrand: 'MASTER', tokenAccount: { type: 'EXTERNAL', number: '987654*****8765' } } });
      refusedNaming(await pay({ 'tokenAccount.type': 'EXTERNAL', 'tokenAccount.number': '987654321098765' }), '200.300.404', 'paymentBrand');
      refusedNaming(await pay({ paymentBrand: 'VISA', 'tokenAccount.type': 'EXTERNAL', 'tokenAccount.number': '98765' }), '200.300.404', 'tokenAccount.number');
    });
  });

  describe('mobile wallets', () => {
    it('pays with a test Apple Pay token as the DPAN 420000…0000 of the network it names, shown as APPLEPAY', async () => {
      const paid = await pay({ paymentBrand: 'APPLEPAY', 'applePay.paymentToken': APPLE_TOKEN, 'applePay.source': 'web', 'applePay.cardNetwork': 'Visa' });
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ paymentBrand: 'APPLEPAY', result: { code: '000.100.110' }, card: { bin: '420000', last4Digits: '0000' } });
      expect(paid.body.card.expiryMonth).toMatch(/^(0[1-9]|1[0-2])$/);
      expect(paid.body.card.expiryYear).toMatch(/^20[0-9]{2}$/);
      const [event] = await eventsOf(t.gateway.store, paid.body.id);
      expect(event?.payload).toMatchObject({ paymentBrand: 'APPLEPAY', paymentMethod: 'VA' });
      expect((await operate(paid.body.id, { paymentType: 'RF', amount: '25.00' })).status).toBe(200);
      await expectNoSecrets(paid);
    });

    it('answers the testResult a token carries, for every wallet and the generic token name', async () => {
      const declined = await pay({ paymentBrand: 'GOOGLEPAY', 'googlePay.paymentToken': JSON.stringify({ testResult: '800.100.155', data: 'x' }), 'googlePay.source': 'web' });
      expect(declined).toMatchObject({ status: 400, body: { paymentBrand: 'GOOGLEPAY', result: { code: '800.100.155' }, card: { bin: '420000' } } });
      const google = await pay({ paymentBrand: 'GOOGLEPAY', 'googlePay.paymentToken': GOOGLE_TOKEN, 'googlePay.source': 'web' });
      expect(google.body.result.code).toBe('000.100.110');
      const samsung = await pay({ paymentBrand: 'SAMSUNGPAY', 'samsungPay.paymentToken': JSON.stringify({ data: 'y', testResult: '800.100.151' }) });
      expect(samsung.body.result.code).toBe('800.100.151');
      const generic = await pay({ paymentBrand: 'SAMSUNGPAY', 'virtualAccount.paymentToken': JSON.stringify({ data: 'z' }) });
      expect(generic).toMatchObject({ status: 200, body: { paymentBrand: 'SAMSUNGPAY' } });
      await expectNoSecrets(google);
    });

    it('pays with the card a merchant decrypted itself, with the wallet’s 3-D Secure data', async () => {
      const paid = await pay({
        paymentBrand: 'APPLEPAY',
        'card.number': '5454545454545454',
        'card.expiryMonth': '05',
        'card.expiryYear': '2034',
        'applePay.source': 'app',
        'threeDSecure.eci': '05',
        'threeDSecure.verificationId': 'AAACBllleHchZTBWIGV4AAAAAAA=',
      });
      expect(paid).toMatchObject({ status: 200, body: { paymentBrand: 'APPLEPAY', card: { bin: '545454', last4Digits: '5454' }, threeDSecure: { eci: '05' } } });
      refusedNaming(await pay({ paymentBrand: 'APPLEPAY', 'card.number': '5454545454545454', 'card.expiryMonth': '05', 'card.expiryYear': '2034' }), '200.300.404', 'applePay.source');
    });

    it('requires googlePay.source and samsungPay.source with the card a merchant decrypted itself, and records nothing without it', async () => {
      const decrypted = { 'card.number': '5454545454545454', 'card.expiryMonth': '05', 'card.expiryYear': '2034', 'threeDSecure.eci': '05' };
      const before = await paymentCount();
      refusedNaming(await pay({ paymentBrand: 'GOOGLEPAY', ...decrypted }), '200.300.404', 'googlePay.source');
      refusedNaming(await pay({ paymentBrand: 'SAMSUNGPAY', ...decrypted }), '200.300.404', 'samsungPay.source');
      expect(await paymentCount()).toBe(before);
      for (const [paymentBrand, source] of [['GOOGLEPAY', 'googlePay.source'], ['SAMSUNGPAY', 'samsungPay.source']] as const) {
        const paid = await pay({ paymentBrand, ...decrypted, [source]: 'app' });
        expect(paid).toMatchObject({ status: 200, body: { paymentBrand, card: { bin: '545454', last4Digits: '5454' } } });
      }
    });

    it('refuses a token that is not JSON, a token of another wallet, a wallet without a token, and registering a wallet card', async () => {
      const before = await paymentCount();
      const notJson = await pay({ paymentBrand: 'APPLEPAY', 'applePay.paymentToken': 'hunter2-secret', 'applePay.source': 'web' });
      refusedNaming(notJson, '100.100.101', 'applePay.paymentToken');
      expect(notJson.body.result.parameterErrors[0].value).not.toContain('hunter2');
      refusedNaming(await pay({ paymentBrand: 'GOOGLEPAY', 'applePay.paymentToken': APPLE_TOKEN }), '200.300.404', 'applePay.paymentToken');
      // A wallet without its token is asked for the token, not for card data (COMPAT §7).
      refusedNaming(await pay({ paymentBrand: 'APPLEPAY' }), '200.300.404', 'applePay.paymentToken');
      refusedNaming(await pay({ paymentBrand: 'VISA', 'googlePay.paymentToken': GOOGLE_TOKEN }), '200.300.404', 'paymentBrand');
      refusedNaming(await pay({ paymentBrand: 'APPLEPAY', 'applePay.paymentToken': APPLE_TOKEN, createRegistration: 'true' }), '200.300.404', 'createRegistration');
      expect(await paymentCount()).toBe(before);
      await expectNoSecrets(notJson);
    });
  });

  describe('virtual accounts', () => {
    it('pays with an MB WAY account id, and refuses one of the wrong form or an unknown provider', async () => {
      const paid = await pay({ paymentBrand: 'MBWAY', 'virtualAccount.accountId': '351#912345678' });
      expect(paid).toMatchObject({ status: 200, body: { paymentBrand: 'MBWAY', virtualAccount: { accountId: '351#912345678' }, result: { code: '000.100.110' } } });
      const [event] = await eventsOf(t.gateway.store, paid.body.id);
      expect(event?.payload).toMatchObject({ paymentMethod: 'VA' });
      refusedNaming(await pay({ paymentBrand: 'MBWAY', 'virtualAccount.accountId': '912345678' }), '200.300.404', 'virtualAccount.accountId');
      const unknown = await pay({ paymentBrand: 'NOSUCHWALLET', 'virtualAccount.accountId': 'jane', 'virtualAccount.password': 'hunter2-secret' });
      expect(unknown).toMatchObject({ status: 400, body: { result: { code: '600.200.100' } } });
      await expectNoSecrets(unknown);
    });
  });
});
