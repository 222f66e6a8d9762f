import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYNC_BRANDS } from '../../widget/shared/asyncBrands.ts';
import { loadConfig } from '../config.ts';
import { eventsOf } from '../events/outbox.ts';
import { runCli } from '../cli/index.ts';
import { saveOfferedBrands } from '../merchants/brands.ts';
import { paymentsCommand } from '../cli/payments.ts';
import {
  createTestClock,
  freshStoreLocation,
  readResponse,
  STORE_KINDS,
  startTestGateway,
  warnIfPostgresSkipped,
  type ApiResponse,
  type StoreLocation,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';
import { settleWaiting } from './flows/asynchronous.ts';
import { shortIdOf } from './view.ts';

warnIfPostgresSkipped('payments/asynchronous.test.ts');

/**
 * The asynchronous brands of the platform's catalogue (COMPAT §7), simulated by family over real HTTP: what each asks
 * for, what each answers, the provider page's four answers, cash vouchers and prepayments waiting for the money, and
 * what ends every wait — the simulated provider (an hour later by default), the operator, or the deadline — with the
 * clock and the jobs under the test's control.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SHOP = 'https://shop.example/return?order=7';
const ADMIN_TOKEN = 'admin-token-for-asynchronous-brands-0123456789';

/** A value for each parameter a brand may require (asyncBrands.ts `requires`). */
const SAMPLE_VALUES: Readonly<Record<string, string>> = {
  'customer.givenName': 'Jane',
  'customer.surname': 'Jones',
  'customer.email': 'jane@example.com',
  'customer.companyName': 'Jones Ltd',
  'customer.mobile': '+966500000001',
  'customer.identificationDocId': '11111111111',
  'billing.street1': 'Main Street 1',
  'billing.city': 'Berlin',
  'billing.postcode': '10115',
  'billing.country': 'DE',
  'shipping.street1': 'Main Street 1',
  'shipping.city': 'Berlin',
  'shipping.postcode': '10115',
  'shipping.country': 'DE',
};

/** What a merchant's server sends for `brand`: each requirement met with its first parameter, the brand's first country. */
function brandParameters(brand: string): Record<string, string> {
  const rules = ASYNC_BRANDS[brand];
  const params: Record<string, string> = {};
  for (const requirement of rules?.requires ?? []) {
    const name = requirement.split('|')[0] as string;
    params[name] = name === 'bankAccount.country' ? (rules?.countries?.[0] as string) : (SAMPLE_VALUES[name] as string);
  }
  if (params['customer.identificationDocId']) params['customer.identificationDocType'] = 'TAXSTATEMENT';
  return params;
}

describe.each(STORE_KINDS)('asynchronous brands on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    clock = createTestClock();
    // These tests read a payment as often as they need to see its state change.
    const limits = { ...loadConfig({}).limits, paymentReadsPerMinute: 0 };
    t = await startTestGateway(kind, { limits, adminToken: ADMIN_TOKEN }, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const pay = (brand: string, overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', { entityId: t.entityId, amount: '25.50', currency: 'EUR', paymentType: 'DB', paymentBrand: brand, shopperResultUrl: SHOP, ...brandParameters(brand), ...overrides });
  const read = (id: string) => t.get(`/v1/payments/${id}`, { entityId: t.entityId });
  const page = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, init);
    return { status: response.status, html: await response.text() };
  };
  const answer = (payment: ApiResponse, fields: Record<string, string>) =>
    page(`${payment.body.redirect.url}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ paymentId: payment.body.id, ...fields }),
    });
  const codeOf = async (id: string) => (await read(id)).body.result.code as string;

  it('answers every asynchronous brand of the catalogue pending, each family with what it hands the shopper', async () => {
    for (const [brand, rules] of Object.entries(ASYNC_BRANDS)) {
      for (const paymentType of ['DB', 'PA']) {
        const pending = await pay(brand, { paymentType });
        expect([brand, paymentType, pending.status, pending.body.result.code]).toEqual([brand, paymentType, 200, '000.200.000']);
        expect(pending.body).toMatchObject({ paymentBrand: brand, paymentType, amount: '25.50', currency: 'EUR' });
        expect(pending.body.card, brand).toBeUndefined();
        if (rules.family === 'prepayment') {
          // Nowhere to go: the answer says where to transfer to, quoting the payment's short id.
          expect(pending.body.redirect, brand).toBeUndefined();
          expect(pending.body.resultDetails).toMatchObject({ BankAccountIban: 'DE89370400440532013000', BankAccountBic: 'COBADEFFXXX', TransferReference: shortIdOf(pending.body.id) });
        } else {
          expect(pending.body.redirect, brand).toMatchObject({ url: expect.stringContaining('/v1/redirects/'), method: 'POST' });
        }
        if (rules.family === 'cashVoucher') expect(pending.body.resultDetails, brand).toMatchObject({ VoucherNumber: expect.stringMatching(/^[0-9]{14}$/), VoucherExpiry: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
      }
    }
    // The brands' own voucher fields, which integrations read.
    expect((await pay('BOLETO')).body.resultDetails).toMatchObject({ BarCodeNumber: expect.stringMatching(/^[0-9]{44}$/), DigitableLine: expect.stringMatching(/^[0-9. ]{54}$/) });
    expect((await pay('SIBS_MULTIBANCO')).body.resultDetails).toMatchObject({ ptmntEntty: '25002', pmtRef: expect.stringMatching(/^[0-9]{9}$/) });
  });

  it('asks each brand for what its family needs, naming each parameter, and never for card data', async () => {
    for (const [brand, rules] of Object.entries(ASYNC_BRANDS)) {
      const sent = brandParameters(brand);
      const bare = await t.post('/v1/payments', { entityId: t.entityId, amount: '25.50', currency: 'EUR', paymentType: 'DB', paymentBrand: brand, shopperResultUrl: SHOP });
      const named = (bare.body.result.parameterErrors ?? []).map((error: { name: string }) => error.name);
      const required = (rules.requires ?? []).map((requirement) => requirement.split('|')[0]);
      expect([brand, bare.status, named.sort()]).toEqual([brand, required.length > 0 ? 400 : 200, [...required].sort()]);
      expect(named.filter((name: string) => name.startsWith('card.')), brand).toEqual([]);
      if (required.length > 0) expect(bare.body.result.code).toBe('200.300.404');
      if (rules.countries && sent['bankAccount.country']) {
        const elsewhere = await pay(brand, { 'bankAccount.country': 'JP' });
        expect([brand, elsewhere.status, elsewhere.body.result.parameterErrors?.[0]?.name]).toEqual([brand, 400, 'bankAccount.country']);
      }
    }
    // Every asynchronous payment brings the shopper back somewhere.
    const noReturn = await pay('PREPAYMENT', { shopperResultUrl: '' });
    expect(noReturn.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'shopperResultUrl' })]);
    // BOLETO's CPF may come as the platform's older Bradesco parameter.
    const bradesco = brandParameters('BOLETO');
    delete bradesco['customer.identificationDocId'];
    delete bradesco['customer.identificationDocType'];
    expect((await pay('BOLETO', { ...bradesco, 'customParameters[BRADESCO_cpfsacado]': '11111111111' })).body.result.code).toBe('000.200.000');
  });

  it('refuses a brand that is no payment method (600.200.100), one the entity does not offer (600.200.201) and a credit (600.200.202), naming paymentBrand', async () => {
    const unknown = await t.post('/v1/payments', { entityId: t.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'NOSUCHBRAND', shopperResultUrl: SHOP });
    expect([unknown.status, unknown.body.result.code]).toEqual([400, '600.200.100']);
    expect(unknown.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'paymentBrand', value: 'NOSUCHBRAND' })]);

    const merchant = await t.newMerchant();
    await saveOfferedBrands(t.gateway.store, merchant.entityId, ['VISA', 'PAYPAL'], clock.now());
    const post = (brand: string, extra: Record<string, string> = {}) =>
      t.post('/v1/payments', { entityId: merchant.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', paymentBrand: brand, shopperResultUrl: SHOP, ...brandParameters(brand), ...extra }, { token: merchant.token });
    const notOffered = await post('KLARNA_INVOICE');
    expect([notOffered.status, notOffered.body.result.code]).toEqual([400, '600.200.201']);
    expect(notOffered.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'paymentBrand', value: 'KLARNA_INVOICE' })]);
    expect((await post('PAYPAL')).body.result.code).toBe('000.200.000');
    // A card of a brand the entity does not offer, named or not.
    const card = { 'card.number': '5454545454545454', 'card.holder': 'Jane Jones', 'card.expiryMonth': '05', 'card.expiryYear': '2034', 'card.cvv': '123' };
    expect((await post('MASTER', card)).body.result.code).toBe('600.200.201');
    const { paymentBrand: _brand, ...unnamed } = { paymentBrand: '', ...card };
    const detected = await t.post('/v1/payments', { entityId: merchant.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', ...unnamed }, { token: merchant.token });
    expect([detected.body.result.code, detected.body.result.parameterErrors?.[0]?.value]).toEqual(['600.200.201', 'MASTER']);
    // Nothing was recorded for the refused ones: the merchant has one payment, the PAYPAL one.
    expect((await t.gateway.store.query('SELECT id FROM payments WHERE entity_id = $1', [merchant.entityId])).rows).toHaveLength(1);

    const credit = await pay('PAYPAL', { paymentType: 'CD' });
    expect([credit.status, credit.body.result.code]).toEqual([400, '600.200.202']);
  });

  describe('the simulated provider page', () => {
    const providerBrands = ['EPS', 'PAYPAL', 'KLARNA_INVOICE', 'PAYSAFECARD'];
    const approval = (brand: string) => ({ action: 'submit', ...(ASYNC_BRANDS[brand]?.family === 'voucher' ? { pin: '0000 1111 2222 3333' } : {}) });

    it.each(providerBrands)('%s: approved, declined (800.100.100) or cancelled (100.396.101) by the tester, each notified', async (brand) => {
      const approved = await pay(brand);
      const shown = await page(approved.body.redirect.url);
      expect(shown.html).toContain(ASYNC_BRANDS[brand]?.label);
      expect(shown.html).toContain('25.50 EUR');
      for (const action of ['submit', 'decline', 'pending', 'cancel']) expect(shown.html).toContain(`value="${action}"`);
      expect((await answer(approved, approval(brand))).status).toBe(200);
      expect(await codeOf(approved.body.id)).toBe('000.100.110');

      const declined = await pay(brand);
      const refused = await answer(declined, { action: 'decline' });
      expect(refused.html).toContain('The provider declined the payment');
      expect(await codeOf(declined.body.id)).toBe('800.100.100');
      const cancelled = await pay(brand);
      await answer(cancelled, { action: 'cancel' });
      expect(await codeOf(cancelled.body.id)).toBe('100.396.101');

      for (const [id, code] of [[approved.body.id, '000.100.110'], [declined.body.id, '800.100.100']]) {
        const events = await eventsOf(t.gateway.store, id);
        expect(events.map((event) => event.payload.result)).toEqual([expect.objectContaining({ code: '000.200.000' }), expect.objectContaining({ code })]);
      }
    });

    it('asks for a prepaid voucher\'s PIN before approving, deciding nothing without it', async () => {
      const pending = await pay('PAYSAFECARD');
      const again = await answer(pending, { action: 'submit', pin: '12' });
      expect(again.status).toBe(400);
      expect(again.html).toContain('aria-invalid="true"');
      expect(await codeOf(pending.body.id)).toBe('000.200.000');
      await answer(pending, { action: 'submit', pin: '1234567812345678' });
      expect(await codeOf(pending.body.id)).toBe('000.100.110');
    });

    it('leaves the payment pending for the provider, which the simulated one confirms an hour later', async () => {
      const pending = await pay('SOFORTUEBERWEISUNG');
      const left = await answer(pending, { action: 'pending' });
      expect(left.html).toContain('pending with the provider');
      // The page cannot be answered again, and says the payment waits.
      expect((await answer(pending, { action: 'submit' })).html).toContain('waiting for the provider');
      expect((await page(pending.body.redirect.url)).html).toContain('waiting for the provider');
      clock.advance(59 * MINUTE);
      await t.gateway.jobs.runDueJobs();
      // The page's own ten minutes are over, but the provider has a day to confirm.
      expect(await codeOf(pending.body.id)).toBe('000.200.000');
      clock.advance(MINUTE);
      await t.gateway.jobs.runDueJobs();
      expect(await codeOf(pending.body.id)).toBe('000.100.110');
    });

    it('times out a transfer left pending as an online transfer (100.395.501), a wallet payment as any (100.396.103)', async () => {
      const transfer = await pay('EPS');
      const wallet = await pay('PAYPAL');
      await answer(transfer, { action: 'pending' });
      await answer(wallet, { action: 'pending' });
      // Nothing confirmed them within the provider's day: a confirmation that comes after it comes too late.
      clock.advance(DAY);
      await t.gateway.jobs.runDueJobs();
      expect(await codeOf(transfer.body.id)).toBe('100.395.501');
      expect(await codeOf(wallet.body.id)).toBe('100.396.103');
    });
  });

  describe("the local brands of HyperPay's OpenCart extension (issue 35)", () => {
    /** Each brand in its market's currency, with the shopper's data as the extension sends it on the checkout. */
    const LOCAL = [
      { brand: 'STC_PAY', family: 'eWallet', currency: 'SAR', shopper: {} },
      { brand: 'TABBY', family: 'invoice', currency: 'SAR', shopper: { 'customer.givenName': 'Noura', 'customer.surname': 'Alharbi', 'customer.email': 'noura@example.sa', 'customer.mobile': '+966500000001' } },
      { brand: 'VALU', family: 'invoice', currency: 'EGP', shopper: { 'customer.givenName': 'Omar', 'customer.surname': 'Hassan', 'customer.email': 'omar@example.eg' } },
      { brand: 'ZOODPAY', family: 'invoice', currency: 'SAR', shopper: { 'customer.givenName': 'Noura', 'customer.surname': 'Alharbi', 'customer.email': 'noura@example.sa', 'customer.mobile': '966500000001', 'billing.country': 'SA' } },
    ] as const;
    const payLocal = (brand: string, currency: string, shopper: Record<string, string>) =>
      t.post('/v1/payments', { entityId: t.entityId, amount: '230.00', currency, paymentType: 'DB', paymentBrand: brand, shopperResultUrl: SHOP, ...shopper });

    it.each(LOCAL)('$brand ($family): pending with a redirect to the provider page, approved or declined there, the final state read', async ({ brand, family, currency, shopper }) => {
      expect(ASYNC_BRANDS[brand]).toMatchObject({ family, form: 'virtualAccount' });
      const approved = await payLocal(brand, currency, shopper);
      expect([approved.status, approved.body.result.code]).toEqual([200, '000.200.000']);
      expect(approved.body).toMatchObject({ paymentBrand: brand, amount: '230.00', currency, redirect: { url: expect.stringContaining('/v1/redirects/'), method: 'POST' } });
      const shown = await page(approved.body.redirect.url);
      expect(shown.html).toContain(ASYNC_BRANDS[brand]?.label);
      expect(shown.html).toContain(`230.00 ${currency}`);
      expect(shown.html).toContain(family === 'invoice' ? 'by invoice or in instalments' : 'value="submit"');
      expect((await answer(approved, { action: 'submit' })).status).toBe(200);
      const final = await read(approved.body.id);
      expect(final.body).toMatchObject({ id: approved.body.id, paymentBrand: brand, result: { code: '000.100.110' } });
      expect(final.body.redirect).toBeUndefined();

      const declined = await payLocal(brand, currency, shopper);
      expect((await answer(declined, { action: 'decline' })).html).toContain('The provider declined the payment');
      expect(await codeOf(declined.body.id)).toBe('800.100.100');
    });

    it('refuses a payment without what the brand needs (200.300.404), naming each missing parameter', async () => {
      const [, tabby, valu, zoodpay] = LOCAL;
      const without = (shopper: Record<string, string>, ...names: string[]) => Object.fromEntries(Object.entries(shopper).filter(([name]) => !names.includes(name)));
      const cases = [
        { ...tabby, missing: ['customer.mobile'] },
        { ...tabby, missing: ['customer.email', 'customer.mobile'] },
        { ...valu, missing: ['customer.email'] },
        { ...zoodpay, missing: ['billing.country'] },
      ];
      for (const { brand, currency, shopper, missing } of cases) {
        const refused = await payLocal(brand, currency, without(shopper, ...missing));
        expect([brand, refused.status, refused.body.result.code]).toEqual([brand, 400, '200.300.404']);
        expect(refused.body.result.parameterErrors).toEqual(missing.map((name) => ({ name, value: '', message: `is required for ${brand}` })));
        expect(refused.body.id, brand).toBeUndefined();
      }
    });
  });

  describe('waiting for the money', () => {
    it('hands a cash voucher with its printable page, pending until the money arrives (the simulated shopper pays an hour later)', async () => {
      const pending = await pay('BOLETO');
      const voucher = await page(pending.body.redirect.url);
      expect(voucher.status).toBe(200);
      expect(voucher.html).toContain(pending.body.resultDetails.VoucherNumber);
      expect(voucher.html).toContain(pending.body.resultDetails.DigitableLine);
      expect(voucher.html).not.toContain('value="submit"');
      // The shopper cannot pay it by answering the page.
      expect((await answer(pending, { action: 'submit' })).html).toContain('waiting for the provider');
      clock.advance(HOUR);
      await t.gateway.jobs.runDueJobs();
      const paid = await read(pending.body.id);
      expect(paid.body.result.code).toBe('000.100.110');
      // The voucher stays on the paid payment.
      expect(paid.body.resultDetails).toMatchObject({ VoucherNumber: pending.body.resultDetails.VoucherNumber });
      expect(paid.body.redirect).toBeUndefined();
    });

    it('times out a voucher nobody paid within its three days (100.396.103), keeping what it said', async () => {
      const pending = await pay('OXXO');
      clock.advance(3 * DAY);
      await t.gateway.jobs.runDueJobs();
      const expired = await read(pending.body.id);
      expect(expired.body.result.code).toBe('100.396.103');
      expect(expired.body.resultDetails.VoucherNumber).toBe(pending.body.resultDetails.VoucherNumber);
    });

    it('settles a prepayment on the operator\'s word (approved or declined), once', async () => {
      const approved = await pay('PREPAYMENT', { paymentType: 'PA' });
      const declined = await pay('PREPAYMENT');
      expect(await settleWaiting(t.gateway.payments, approved.body.id, 'approved', { byPayment: true, entityId: t.entityId })).toMatchObject({ kind: 'settled' });
      expect(await settleWaiting(t.gateway.payments, declined.body.id, 'declined', { byPayment: true })).toMatchObject({ kind: 'settled' });
      expect(await codeOf(approved.body.id)).toBe('000.100.110');
      expect(await codeOf(declined.body.id)).toBe('800.100.100');
      // A second word, or the simulated shopper's transfer an hour later, changes nothing.
      expect(await settleWaiting(t.gateway.payments, declined.body.id, 'approved', { byPayment: true })).toMatchObject({ kind: 'alreadyFinished' });
      clock.advance(HOUR);
      await t.gateway.jobs.runDueJobs();
      expect(await codeOf(declined.body.id)).toBe('800.100.100');
      // Another entity's payment is not found; a 3-D Secure challenge is not the provider's to settle.
      expect(await settleWaiting(t.gateway.payments, approved.body.id, 'approved', { byPayment: true, entityId: '0'.repeat(32) })).toEqual({ kind: 'unknown' });
      // The approved preauthorization is captured like any other.
      const captured = await t.post(`/v1/payments/${approved.body.id}`, { entityId: t.entityId, paymentType: 'CP', amount: '25.50', currency: 'EUR' });
      expect([captured.status, captured.body.result.code]).toEqual([200, '000.100.110']);
    });
  });

  describe('for the operator', () => {
    const admin = async (method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<ApiResponse> =>
      readResponse(
        await fetch(`${t.url}/admin/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );

    it('sets the brands an entity offers through the admin API, in effect at once, and back to the default', async () => {
      const merchant = await t.newMerchant();
      const shown = await admin('GET', `/entities/${merchant.entityId}/brands`);
      expect(shown.status).toBe(200);
      expect(shown.body.offeredBrands).toMatchObject({ entityId: merchant.entityId, default: true });
      expect(shown.body.offeredBrands.brands).toEqual(expect.arrayContaining(['VISA', 'PAYPAL', 'BOLETO', 'PREPAYMENT', 'DIRECTDEBIT_SEPA', 'APPLEPAY']));

      const set = await admin('PUT', `/entities/${merchant.entityId}/brands`, { brands: ['VISA', 'EPS'] });
      expect(set.body.offeredBrands).toMatchObject({ brands: ['VISA', 'EPS'], default: false });
      const refused = await t.post('/v1/payments', { entityId: merchant.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PAYPAL', shopperResultUrl: SHOP }, { token: merchant.token });
      expect(refused.body.result.code).toBe('600.200.201');

      const unknown = await admin('PUT', `/entities/${merchant.entityId}/brands`, { brands: ['VISA', 'NOSUCHBRAND'] });
      expect([unknown.status, unknown.body.result.parameterErrors]).toEqual([400, [expect.objectContaining({ name: 'brands', value: 'NOSUCHBRAND' })]]);
      expect((await admin('PUT', `/entities/${merchant.entityId}/brands`, {})).status).toBe(400);
      expect((await admin('GET', `/entities/${'0'.repeat(32)}/brands`)).status).toBe(404);
      expect((await admin('GET', `/entities/${merchant.entityId}/brands`, undefined, 'not-the-admin-token-not-the-admin-token')).status).toBe(403);

      expect((await admin('DELETE', `/entities/${merchant.entityId}/brands`)).body.offeredBrands.default).toBe(true);
      const again = await t.post('/v1/payments', { entityId: merchant.entityId, amount: '1.00', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PAYPAL', shopperResultUrl: SHOP }, { token: merchant.token });
      expect(again.body.result.code).toBe('000.200.000');
    });

    it('settles a waiting payment through the admin API, and refuses what does not wait', async () => {
      const pending = await pay('PREPAYMENT');
      const settled = await admin('POST', `/payments/${pending.body.id}/settlement`, { outcome: 'approved' });
      expect(settled.status).toBe(200);
      expect(settled.body.payment).toMatchObject({ id: pending.body.id, paymentBrand: 'PREPAYMENT', result: { code: '000.100.110' } });
      expect((await admin('POST', `/payments/${pending.body.id}/settlement`, { outcome: 'declined' })).status).toBe(409);
      expect((await admin('POST', `/payments/${pending.body.id}/settlement`, { outcome: 'maybe' })).status).toBe(400);
      expect((await admin('POST', `/payments/${'0'.repeat(32)}/settlement`, { outcome: 'approved' })).status).toBe(404);
      expect((await admin('GET', `/payments/${pending.body.id}/settlement`)).status).toBe(405);
    });

    it('settles a waiting payment from the command line, through the next running gateway', async () => {
      const pending = await pay('OXXO');
      const usage = (message: string) => new Error(message);
      const said = await paymentsCommand('settle', [pending.body.id, 'declined'], t.gateway.store, 'test', clock.now, usage);
      expect(said).toContain('will be declined by the next running gateway');
      expect(await codeOf(pending.body.id)).toBe('000.200.000');
      await t.gateway.jobs.runDueJobs();
      expect(await codeOf(pending.body.id)).toBe('800.100.100');
      await expect(paymentsCommand('settle', [pending.body.id, 'sometimes'], t.gateway.store, 'test', clock.now, usage)).rejects.toThrow('approved or declined');
      await expect(paymentsCommand('settle', [pending.body.id, 'approved'], t.gateway.store, 'live', clock.now, usage)).rejects.toThrow('no simulated provider');
    });
  });

  describe('through a checkout', () => {
    it('takes the bank\'s country from the payment page, keeps the checkout in progress, and calls the result URL at 29 minutes', async () => {
      const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB', shopperResultUrl: `${receiver.url}/result` });
      const checkoutId = created.body.id as string;
      const submitted = await t.post(
        `/v1/checkouts/${checkoutId}/payment`,
        { paymentBrand: 'SOFORTUEBERWEISUNG', 'bankAccount.country': 'AT', shopperResultUrl: `${receiver.url}/result` },
        { token: null },
      );
      expect([submitted.status, submitted.body.result.code, submitted.body.ndc]).toEqual([200, '000.200.000', checkoutId]);
      // The payment page may send the country only with an asynchronous brand.
      const other = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '12.00', currency: 'EUR', paymentType: 'DB' });
      const misplaced = await t.post(`/v1/checkouts/${other.body.id}/payment`, { paymentBrand: 'VISA', 'bankAccount.country': 'AT', shopperResultUrl: SHOP }, { token: null });
      expect(misplaced.body.result.parameterErrors).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'bankAccount.country' })]));

      await answer(submitted, { action: 'pending' });
      expect((await t.get(`/v1/checkouts/${checkoutId}/payment`, { entityId: t.entityId })).body.result.code).toBe('000.200.000');
      clock.advance(29 * MINUTE);
      await t.gateway.jobs.runDueJobs();
      const calls = receiver.requestsFor(checkoutId).map((request) => request.path);
      expect(calls).toEqual(['/result']);
      // The provider's confirmation (an hour after the shopper left) is what the merchant finally reads.
      clock.advance(31 * MINUTE);
      await t.gateway.jobs.runDueJobs();
      expect(await codeOf(submitted.body.id)).toBe('000.100.110');
    });
  });
});

describe.each(STORE_KINDS)('the brands commands on %s', (kind) => {
  let location: StoreLocation;
  beforeAll(async () => {
    location = await freshStoreLocation(kind);
  });
  afterAll(async () => {
    await location?.dispose();
  });
  const gateway = (...args: string[]) =>
    runCli(args, { env: { DATA_DIR: location.dataDir, DATABASE_URL: location.databaseUrl ?? '', CARD_DATA_KEY: location.cardDataKey?.toString('hex') ?? '' }, progress: () => {} });

  it('shows, sets and resets the brands an entity offers, and lists the catalogue', async () => {
    const created = await gateway('entity', 'create', '--name', 'Brand shop');
    const entityId = /^entityId\s+(\S+)$/m.exec(created.stdout)?.[1] as string;
    expect((await gateway('brands', 'show', entityId)).stdout).toMatch(/offers \d+ brands \(the default\)/);
    const set = await gateway('brands', 'set', entityId, 'VISA', 'BOLETO');
    expect([set.exitCode, set.stdout]).toEqual([0, expect.stringContaining('offers 2 brands (set ')]);
    expect((await gateway('brands', 'show', entityId)).stdout).toContain('VISA BOLETO');
    const refused = await gateway('brands', 'set', entityId, 'VISA', 'NOSUCHBRAND');
    expect([refused.exitCode, refused.stderr]).toEqual([1, expect.stringContaining('NOSUCHBRAND is not a payment brand of the gateway')]);
    expect((await gateway('brands', 'reset', entityId)).stdout).toContain('(the default)');
    expect((await gateway('brands', 'show', '0'.repeat(32))).stderr).toContain('no entity');
    expect((await gateway('brands', 'catalogue')).stdout).toContain('PREPAYMENT  (prepayment)');
  });
});
