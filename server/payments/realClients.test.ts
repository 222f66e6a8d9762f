import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueLegacyCredentials, type IssuedCredentials } from '../merchants/legacyCredentials.ts';
import {
  BROWSER_DATA,
  cardPayment,
  startTestGateway,
  STORE_KINDS,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestGateway,
} from '../testing/harness.ts';

warnIfPostgresSkipped('realClients.test.ts');

/**
 * What real clients send (issue 10, point 7). Their requests, byte for byte as they put them on the wire
 * (fixtures/real-clients-wire.json, with how they were captured), are replayed against the gateway with only the
 * host, the merchant's credentials and ids the gateway itself handed out changed, and checked with the clients' own
 * assertions. The rules those requests rely on are then tested one by one.
 */

interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
}

interface Wire {
  readonly activeMerchant: { entityId: string; wrongReferenceId: string; tests: { test: string; requests: WireRequest[] }[] };
  readonly phpOppwa: { entityId: string; userId: string; requests: WireRequest[] };
}

const wire = JSON.parse(readFileSync(new URL('./fixtures/real-clients-wire.json', import.meta.url), 'utf8')) as Wire;

/** ActiveMerchant's OppGateway#success_from and its tests' message assertions (remote_opp_test.rb). */
const ACTIVE_MERCHANT_SUCCESS = /^(000\.000\.|000\.100\.1|000\.[36])/;
const ACTIVE_MERCHANT_EXPECTS: Record<string, { success: boolean; message: RegExp }> = {
  test_failed_authorize: { success: false, message: /invalid creditcard/ },
  test_failed_capture: { success: false, message: /capture needs at least one successful transaction/ },
  test_failed_purchase: { success: false, message: /invalid creditcard/ },
  test_failed_refund: { success: false, message: /Invalid payment data/ },
  test_failed_void: { success: false, message: /reversal needs at least one successful transaction/ },
};
const SUCCESS = { success: true, message: /Request successfully processed/ };
/** php-oppwa's example password, sent in every body with its userId. */
const PHP_OPPWA_PASSWORD = 'qyyfHCN83e';

describe.each(STORE_KINDS)('what real clients send, on %s', (kind) => {
  let t: TestGateway;
  /** The test merchant's legacy credentials (COMPAT §1), in place of php-oppwa's example pair. */
  let issued: IssuedCredentials;
  beforeAll(async () => {
    t = await startTestGateway(kind);
    issued = await t.gateway.store.transaction((tx) => issueLegacyCredentials(tx, [t.entityId], 'php-oppwa'));
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Sends a captured request as its client did, with this gateway's merchant in place of the captured one: its
   * entity, and for a client that authenticates in the body, the legacy pair issued for it (then no Authorization
   * header is sent, as that client sends none).
   */
  async function replay(request: WireRequest, capturedEntityId: string, path = request.path): Promise<ApiResponse> {
    const legacy = request.body.includes('authentication.password=');
    const body = request.body
      .replace(`authentication.entityId=${capturedEntityId}`, `authentication.entityId=${t.entityId}`)
      .replace(`authentication.userId=${wire.phpOppwa.userId}`, `authentication.userId=${issued.userId}`)
      .replace(`authentication.password=${PHP_OPPWA_PASSWORD}`, `authentication.password=${encodeURIComponent(issued.password)}`)
      // The suites ask for a card valid two years from today, as the capture did then.
      .replace(/card\.expiryYear=\d{4}/, `card.expiryYear=${new Date().getUTCFullYear() + 2}`);
    return t.post(path, body, { headers: { 'Content-Type': request.contentType }, ...(legacy ? { token: null } : {}) });
  }

  describe("ActiveMerchant's remote OPP suite", () => {
    const { entityId, wrongReferenceId, tests } = wire.activeMerchant;
    it.each(tests.map((entry) => [entry.test, entry.requests] as const))('%s', async (test, requests) => {
      const expected = ACTIVE_MERCHANT_EXPECTS[test] ?? SUCCESS;
      let previous: ApiResponse | undefined;
      for (const request of requests) {
        // A follow-up (capture, refund, void) names the payment the previous request made, unless the test names none.
        const path = request.path.endsWith(wrongReferenceId) || !previous ? request.path : `/v1/payments/${previous.body.id}`;
        const answer = await replay(request, entityId, path);
        expect(answer.body.result.code, JSON.stringify(answer.body.result)).toMatch(expected.success ? ACTIVE_MERCHANT_SUCCESS : /^(?!000\.)/);
        expect(answer.status).toBe(expected.success ? 200 : 400);
        expect(answer.body.result.description).toMatch(expected.message);
        expect(answer.body.result.parameterErrors).toBeUndefined();
        previous = answer;
      }
    });
  });

  /**
   * ActiveMerchant's OppGateway#store and #purchase with the stored id (lib/active_merchant/billing/gateways/opp.rb):
   * its remote suite has no store test to capture, so these bodies are built the way its code builds them —
   * flatten_hash order, nil options sent as empty values, the upper-cased brand, customParameters[SHOPPER_pluginId],
   * authentication.entityId last — and its success_from decides.
   */
  it("stores a card and pays with it as ActiveMerchant's store and purchase(registration id) send them", async () => {
    const year = new Date().getUTCFullYear() + 2;
    const store = [
      'paymentBrand=AMERICAN_EXPRESS',
      'card.holder=Longbob+Longsen',
      'card.number=377777777777770',
      'card.expiryMonth=05',
      `card.expiryYear=${year}`,
      'card.cvv=1234',
      'billing.street1=456+My+Street',
      'billing.street2=Apt+1',
      'billing.city=Ottawa',
      'billing.state=ON',
      'billing.postcode=K1C2N6',
      'billing.country=CA',
      'testMode=EXTERNAL',
      'customParameters%5BSHOPPER_pluginId%5D=activemerchant',
      `authentication.entityId=${t.entityId}`,
    ].join('&');
    const stored = await t.post('/v1/registrations', store, { headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' } });
    expect(stored.body.result.code).toMatch(ACTIVE_MERCHANT_SUCCESS);
    expect(stored.body).toMatchObject({ paymentBrand: 'AMEX', card: { last4Digits: '7770' }, customParameters: { SHOPPER_pluginId: 'activemerchant' } });
    const purchase = [
      'paymentType=DB',
      'amount=1.00',
      'currency=EUR',
      'descriptor=',
      'merchantInvoiceId=',
      `merchantTransactionId=${'ab12'.repeat(8)}`,
      'testMode=EXTERNAL',
      'customParameters%5BSHOPPER_pluginId%5D=activemerchant',
      `authentication.entityId=${t.entityId}`,
    ].join('&');
    const paid = await t.post(`/v1/registrations/${stored.body.id}/payments`, purchase, { headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' } });
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toMatch(ACTIVE_MERCHANT_SUCCESS);
    expect(paid.body).toMatchObject({ paymentType: 'DB', registrationId: stored.body.id, paymentBrand: 'AMEX' });
  });

  describe('php-oppwa (legacy credentials in the body, no Authorization header: COMPAT §1)', () => {
    const { entityId, requests } = wire.phpOppwa;
    it.each(requests.map((request) => [`${request.method} ${request.path} ${request.body.replace(/.*entityId=\w+&/, '')}`, request] as const))(
      '%s',
      async (_label, request) => {
        const answer = await replay(request, entityId);
        expect(answer.status, JSON.stringify(answer.body.result)).toBe(200);
        expect(answer.body.result.code).toMatch(/^000\.(100\.110|200\.100)$/);
        // The legacy credentials in the body authenticate, and are neither shown back nor kept.
        expect(JSON.stringify(answer.body)).not.toContain(issued.password);
        expect(JSON.stringify(answer.body)).not.toContain(issued.userId);
        for (const value of [issued.password, issued.userId]) {
          const kept = await t.gateway.store.query<{ n: number }>(
            "SELECT (SELECT count(*) FROM checkouts WHERE parameters::text LIKE '%' || $1 || '%') + (SELECT count(*) FROM payments WHERE request_echo::text LIKE '%' || $1 || '%') AS n",
            [value],
          );
          expect(Number(kept.rows[0]?.n)).toBe(0);
        }
        if (request.path === '/v1/payments') {
          expect(answer.body.amount).toBe('10.00');
          // createRegistration=1 is true.
          expect(answer.body.registrationId !== undefined).toBe(request.body.includes('createRegistration=1'));
        }
      },
    );
  });

  describe('the rules behind them', () => {
    it('counts an empty value as absent on every endpoint: payments, back office, checkouts', async () => {
      const debit = await t.post('/v1/payments', { ...cardPayment(t.entityId), descriptor: '', merchantInvoiceId: '', 'billing.street2': '', 'customer.birthDate': '' });
      expect(debit.body.result.code).toBe('000.100.110');
      expect(debit.body.descriptor).not.toBe('');
      expect(debit.body.merchantInvoiceId).toBeUndefined();
      const reversal = await t.post(`/v1/payments/${debit.body.id}`, { entityId: t.entityId, paymentType: 'RV', amount: '', currency: '' });
      expect(reversal.body.result.code).toBe('000.100.110');
      const checkout = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '5.00', currency: 'EUR', paymentType: 'DB', notificationUrl: '', descriptor: '' });
      expect(checkout.status).toBe(200);
      // A required parameter sent empty is missing, and said so.
      const missing = await t.post('/v1/payments', { ...cardPayment(t.entityId), amount: '' });
      expect(missing.status).toBe(400);
      expect(missing.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'amount' })]);
    });

    it('checks phone-type fields for length only (1 to 25 characters)', async () => {
      const names = { 'customer.givenName': 'Jane', 'customer.surname': 'Jones' };
      const accepted = await t.post('/v1/payments', cardPayment(t.entityId, { ...names, 'customer.phone': '(?!?)555-5555', 'customer.mobile': 'ext. 12 / night' }));
      expect(accepted.body.result.code).toBe('000.100.110');
      const tooLong = await t.post('/v1/payments', cardPayment(t.entityId, { ...names, 'customer.phone': '1'.repeat(26) }));
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual(['customer.phone']);
    });

    it("accepts customer.ip and customer.browser.* without the customer's names; identity fields still need them", async () => {
      const ipAlone = await t.post('/v1/payments', cardPayment(t.entityId, { 'customer.ip': '101.102.103.104' }));
      expect(ipAlone.body.result.code).toBe('000.100.110');
      const browserAlone = await t.post('/v1/payments', cardPayment(t.entityId, { ...BROWSER_DATA, 'customer.ip': '2001:db8::1' }));
      expect(browserAlone.body.result.code).toMatch(/^000\./);
      const emailAlone = await t.post('/v1/payments', cardPayment(t.entityId, { 'customer.email': 'jane@jones.com' }));
      expect(emailAlone.status).toBe(400);
      expect(emailAlone.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['customer.givenName', 'customer.surname']);
    });

    it('accepts SOFORTUEBERWEISUNG with bankAccount.country alone, as the platform\'s own examples send it', async () => {
      const sofort = await t.post('/v1/payments', {
        entityId: t.entityId,
        amount: '12.00',
        currency: 'EUR',
        paymentType: 'DB',
        paymentBrand: 'SOFORTUEBERWEISUNG',
        'bankAccount.country': 'DE',
        shopperResultUrl: 'https://shop.example/return',
      });
      expect(sofort.status).toBe(200);
      expect(sofort.body.result.code).toBe('000.200.000');
      expect(sofort.body.redirect.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    });

    it.each([
      ['true', true],
      ['1', true],
      ['false', false],
      ['0', false],
    ])('reads createRegistration=%s as %s', async (value, stores) => {
      const answer = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: value }));
      expect(answer.body.result.code).toBe('000.100.110');
      expect(answer.body.registrationId !== undefined).toBe(stores);
    });

    it('refuses other spellings of booleans, naming the parameter', async () => {
      const answer = await t.post('/v1/payments', cardPayment(t.entityId, { createRegistration: 'yes' }));
      expect(answer.status).toBe(400);
      expect(answer.body.result.parameterErrors.map((error: { name: string }) => error.name)).toEqual(['createRegistration']);
    });

    it.each([
      ['AMERICAN_EXPRESS', 'AMEX', '377777777777770', '1234'],
      ['DINERS_CLUB', 'DINERS', '36006666333344', '123'],
    ])('takes paymentBrand %s as %s', async (alias, brand, number, cvv) => {
      const answer = await t.post('/v1/payments', cardPayment(t.entityId, { paymentBrand: alias, ...testCard({ paymentBrand: alias, 'card.number': number, 'card.cvv': cvv }) }));
      expect(answer.body.result.code).toBe('000.100.110');
      expect(answer.body.paymentBrand).toBe(brand);
    });

    it('answers a back-office operation with the payment it operates on (referencedId)', async () => {
      const authorization = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA' }));
      const capture = await t.post(`/v1/payments/${authorization.body.id}`, { entityId: t.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
      expect(capture.body).toMatchObject({ paymentType: 'CP', referencedId: authorization.body.id });
      expect(authorization.body.referencedId).toBeUndefined();
    });
  });
});
