import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Acquirer, AuthorizationRequest } from '../acquirers/types.ts';
import { CHECKOUT_NOTIFICATION } from '../checkouts/callbacks.ts';
import { loadConfig, type GatewayConfig } from '../config.ts';
import { eventsOf } from '../events/outbox.ts';
import { startGateway } from '../gateway.ts';
import { findJobByKey } from '../jobs/repository.ts';
import {
  BROWSER_DATA,
  cardPayment,
  createTestClock,
  STORE_KINDS,
  startTestGateway,
  testCard,
  warnIfPostgresSkipped,
  type ApiResponse,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { startReceiver, type Receiver } from '../testing/receiver.ts';

warnIfPostgresSkipped('redirects.test.ts');

/**
 * 3-D Secure (the simulated directory server and issuer of COMPAT §7) and the asynchronous payment methods:
 * payments that wait for the shopper's visit to a gateway page, end to end over real HTTP, with the clock and
 * the job worker under the test's control.
 */

const MINUTE = 60_000;
const SHOP = 'https://shop.example/return?order=7';


/** Records what reaches the acquirer: the card network's side cannot exist here, so it is observed. */
function recordingAcquirer(seen: AuthorizationRequest[]): (simulator: Acquirer) => Acquirer {
  return (simulator) => ({
    ...simulator,
    authorize: async (request) => {
      seen.push(request);
      return simulator.authorize(request);
    },
  });
}

interface PageAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
}

describe.each(STORE_KINDS)('3-D Secure and redirect payments on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  let receiver: Receiver;
  const authorizations: AuthorizationRequest[] = [];
  beforeAll(async () => {
    receiver = await startReceiver();
    clock = createTestClock();
    // These tests read a payment as often as they need to see its state change: no per-payment read limit here.
    const limits = { ...loadConfig({}).limits, paymentReadsPerMinute: 0 };
    t = await startTestGateway(kind, { limits }, { now: clock.now, wrapAcquirer: recordingAcquirer(authorizations) });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const pay = (overrides: Record<string, string> = {}) =>
    t.post('/v1/payments', cardPayment(t.entityId, { shopperResultUrl: SHOP, ...BROWSER_DATA, ...overrides }));
  const read = (id: string) => t.get(`/v1/payments/${id}`, { entityId: t.entityId });
  const page = async (url: string, init: RequestInit = {}): Promise<PageAnswer> => {
    const response = await fetch(url, init);
    return { status: response.status, headers: response.headers, html: await response.text() };
  };
  /** The answer's redirect, which names its method as COMPAT §16 says (the pages take the parameters by POST). */
  const redirectOf = (answer: ApiResponse): { url: string; method: string; parameters: { name: string; value: string }[] } => {
    expect(answer.body.redirect.method).toBe('POST');
    return answer.body.redirect;
  };
  /** The shopper's answer, as the page's form posts it. */
  const answer = (payment: ApiResponse, fields: Record<string, string>) =>
    page(`${redirectOf(payment).url}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ paymentId: payment.body.id, ...fields }),
    });
  const challenge = () => pay({ 'card.number': '4200000000000042' });

  describe('the simulated directory server', () => {
    it('authenticates a frictionless VISA card (ECI 05) and authorizes it with the authentication', async () => {
      const paid = await pay({ 'card.number': '4200000000000091' });
      expect(paid.status).toBe(200);
      expect(paid.body.result.code).toBe('000.100.110');
      const threeDSecure = paid.body.threeDSecure;
      expect(threeDSecure).toMatchObject({ eci: '05', authenticationStatus: 'Y', version: '2.2.0' });
      expect(threeDSecure.verificationId).toMatch(/^[A-Za-z0-9+/]{27}=$/);
      expect(threeDSecure.xid).toMatch(/^[A-Za-z0-9+/=]{28}$/);
      expect(threeDSecure.dsTransactionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(authorizations.at(-1)?.threeDSecure).toEqual(threeDSecure);
      expect((await read(paid.body.id)).body.threeDSecure).toEqual(threeDSecure);
    });

    it('uses the Mastercard ECIs, and reports an attempt (A, ECI 06) as a success', async () => {
      const master = await pay({ paymentBrand: 'MASTER', 'card.number': '5200000000000007' });
      expect(master.body.threeDSecure).toMatchObject({ eci: '02', authenticationStatus: 'Y' });
      const attempt = await pay({ 'card.number': '4200000000000109' });
      expect(attempt.status).toBe(200);
      expect(attempt.body.result.code).toBe('000.100.110');
      expect(attempt.body.threeDSecure).toMatchObject({ eci: '06', authenticationStatus: 'A' });
    });

    it('refuses a card that is not enrolled (000.400.109) and a technical error (100.390.112, status U)', async () => {
      const notEnrolled = await pay({ 'card.number': '4012001037141112' });
      expect(notEnrolled.status).toBe(400);
      expect(notEnrolled.body.result.code).toBe('000.400.109');
      expect(notEnrolled.body.threeDSecure).toEqual({ version: '2.2.0', enrollmentStatus: 'N' });

      const technical = await pay({ 'card.number': '4012001037461114' });
      expect(technical.status).toBe(400);
      expect(technical.body.result.code).toBe('100.390.112');
      expect(technical.body.threeDSecure).toMatchObject({ authenticationStatus: 'U', eci: '07' });
      expect(technical.body.threeDSecure.verificationId).toBeUndefined();
    });

    it('leaves cards without a directory entry alone unless the merchant asks for 3-D Secure', async () => {
      const plain = await pay();
      expect(plain.body.result.code).toBe('000.100.110');
      expect(plain.body.threeDSecure).toBeUndefined();
      expect(authorizations.at(-1)?.threeDSecure).toBeUndefined();

      const enrolled = await pay({ 'customParameters[3DS2_enrolled]': 'true' });
      expect(enrolled.body.threeDSecure).toMatchObject({ authenticationStatus: 'Y' });
      const mandated = await pay({ 'threeDSecure.challengeIndicator': '04' });
      expect(mandated.body.result.code).toBe('000.400.109');
    });

    it('challenges when the flow is forced or the merchant mandates a challenge (indicator 04)', async () => {
      const cases: Record<string, string>[] = [
        { 'card.number': '4200000000000091', 'customParameters[3DS2_flow]': 'challenge' },
        { 'card.number': '4200000000000091', 'threeDSecure.challengeIndicator': '04' },
        { 'customParameters[3DS2_enrolled]': 'true', 'customParameters[3DS2_flow]': 'challenge' },
        { 'card.number': '5200000000000015', paymentBrand: 'MASTER' },
        { 'card.number': '4200000000000018' },
      ];
      for (const overrides of cases) {
        const answer = await pay(overrides);
        expect(answer.body.result.code, JSON.stringify(overrides)).toBe('000.200.000');
      }
      const frictionless = await pay({ 'card.number': '4200000000000042', 'customParameters[3DS2_flow]': 'frictionless' });
      expect(frictionless.body.result.code).toBe('000.100.110');
    });

    it('passes external authentication data to the acquirer untouched and echoes it as sent', async () => {
      const external = {
        'threeDSecure.eci': '05',
        'threeDSecure.verificationId': 'AAACBllleHchZTBWIGV4MAAAAAA=',
        'threeDSecure.xid': 'CAACCVVUlwCXUyhQNlSXAAAAAAA=',
        'threeDSecure.dsTransactionId': 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
        'threeDSecure.version': '2.1.0',
        'threeDSecure.authenticationStatus': 'Y',
      };
      // A challenge card with no browser data: the merchant's own server authenticated the shopper already.
      const paid = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', ...external }));
      expect(paid.status).toBe(200);
      expect(paid.body.result.code).toBe('000.100.110');
      expect(authorizations.at(-1)?.threeDSecure).toEqual({
        eci: '05',
        verificationId: 'AAACBllleHchZTBWIGV4MAAAAAA=',
        xid: 'CAACCVVUlwCXUyhQNlSXAAAAAAA=',
        dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
        version: '2.1.0',
        authenticationStatus: 'Y',
      });
      expect(paid.body.threeDSecure).toEqual(authorizations.at(-1)?.threeDSecure);
    });

    it('requires shopperResultUrl and the browser fields for an enrolled card, and an absolute http(s) shopperResultUrl', async () => {
      const bare = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042' }));
      expect(bare.status).toBe(400);
      expect(bare.body.result.code).toBe('200.300.404');
      const names = bare.body.result.parameterErrors.map((error: { name: string }) => error.name);
      expect(names).toEqual([...Object.keys(BROWSER_DATA), 'shopperResultUrl']);

      const noReturn = await t.post('/v1/payments', cardPayment(t.entityId, { 'card.number': '4200000000000042', ...BROWSER_DATA }));
      expect(noReturn.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'shopperResultUrl' })]);

      for (const url of ['/relative/result', 'javascript:alert(1)//', 'ftp://shop.example/result', 'https://user:pw@shop.example/']) {
        const refused = await pay({ shopperResultUrl: url });
        expect(refused.status, url).toBe(400);
        expect(refused.body.result.parameterErrors, url).toEqual([expect.objectContaining({ name: 'shopperResultUrl' })]);
      }
    });
  });

  describe('the challenge', () => {
    it('answers pending with a redirect to the gateway’s own challenge page', async () => {
      const pending = await challenge();
      expect(pending.status).toBe(200);
      expect(pending.body.result.code).toBe('000.200.000');
      const redirect = redirectOf(pending);
      expect(redirect.url).toMatch(new RegExp(`^${t.url}/v1/redirects/[0-9a-f]{32}$`));
      expect(redirect.parameters).toEqual([{ name: 'paymentId', value: pending.body.id }]);
      expect((await read(pending.body.id)).body).toMatchObject({ result: { code: '000.200.000' }, redirect });

      // The page as the shopper's browser gets it, after posting the redirect parameters.
      const shown = await page(redirect.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ paymentId: pending.body.id }),
      });
      expect(shown.status).toBe(200);
      expect(shown.html).toContain('Test merchant');
      expect(shown.html).toContain('92.00 EUR');
      expect(shown.html).toMatch(/<input id="otp" name="otp"/);
      expect(shown.html).toContain('1234');
      expect(shown.html).not.toContain('4200000000000042');
      const csp = shown.headers.get('content-security-policy') ?? '';
      expect(csp).toContain('frame-ancestors *');
      expect(csp).toMatch(/script-src 'nonce-[^']+'/);
      expect(csp).not.toContain('unsafe-inline');
      expect(shown.headers.get('x-frame-options')).toBeNull();
    });

    it('completes with the test code: authorized with the authentication, and the shopper is sent back', async () => {
      const pending = await challenge();
      const done = await answer(pending, { action: 'submit', otp: '1234' });
      expect(done.status).toBe(200);
      const returnUrl = `${SHOP}&id=${pending.body.id}&resourcePath=%2Fv1%2Fpayments%2F${pending.body.id}`;
      expect(done.html).toContain(JSON.stringify(returnUrl));
      const final = await read(pending.body.id);
      expect(final.status).toBe(200);
      expect(final.body.result.code).toBe('000.100.110');
      expect(final.body.redirect).toBeUndefined();
      expect(final.body.threeDSecure).toMatchObject({ eci: '05', authenticationStatus: 'Y' });
      expect(final.body.card).toMatchObject({ bin: '420000', last4Digits: '0042' });
      // The authorization after the challenge has the card, but never a security code: it was not kept.
      expect(authorizations.at(-1)).toMatchObject({ paymentId: pending.body.id, card: { number: '4200000000000042', cvv: undefined } });
    });

    it('fails with a wrong code (100.380.401) and ends on cancel (100.396.101)', async () => {
      const wrong = await challenge();
      expect((await answer(wrong, { action: 'submit', otp: '9999' })).status).toBe(200);
      const failed = await read(wrong.body.id);
      expect(failed.status).toBe(400);
      expect(failed.body.result.code).toBe('100.380.401');
      expect(failed.body.threeDSecure).toMatchObject({ authenticationStatus: 'N', eci: '07' });

      const cancelled = await challenge();
      expect((await answer(cancelled, { action: 'cancel' })).status).toBe(200);
      expect((await read(cancelled.body.id)).body.result.code).toBe('100.396.101');

      // A provider page's actions posted to a challenge, even with the right code, authenticate nobody.
      for (const action of ['pending', 'decline']) {
        const forged = await challenge();
        await answer(forged, { action, otp: '1234' });
        expect((await read(forged.body.id)).body.result.code, action).toBe('100.380.401');
      }
    });

    it('changes nothing on a replayed answer, and says why', async () => {
      const pending = await challenge();
      expect((await answer(pending, { action: 'cancel' })).status).toBe(200);
      const replay = await answer(pending, { action: 'submit', otp: '1234' });
      expect(replay.status).toBe(409);
      expect(replay.html).toContain('already been answered');
      expect((await read(pending.body.id)).body.result.code).toBe('100.396.101');
    });

    it('refuses an answer that names another payment, leaving both pending', async () => {
      const first = await challenge();
      const second = await challenge();
      const crossed = await page(`${redirectOf(first).url}/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ paymentId: second.body.id, action: 'submit', otp: '1234' }),
      });
      expect(crossed.status).toBe(400);
      expect(crossed.html).toContain('belongs to another payment');
      expect((await read(first.body.id)).body.result.code).toBe('000.200.000');
      expect((await read(second.body.id)).body.result.code).toBe('000.200.000');
      expect((await page(redirectOf(first).url, { method: 'POST', body: new URLSearchParams({ paymentId: second.body.id }) })).status).toBe(400);
    });

    it('times out an abandoned challenge into a final failure; a late answer changes nothing', async () => {
      const pending = await challenge();
      clock.advance(10 * MINUTE - 1000);
      await t.gateway.jobs.runDueJobs();
      expect((await read(pending.body.id)).body.result.code).toBe('000.200.000');
      clock.advance(1000);
      await t.gateway.jobs.runDueJobs();
      const timedOut = await read(pending.body.id);
      expect(timedOut.status).toBe(400);
      expect(timedOut.body.result.code).toBe('100.396.103');

      const late = await answer(pending, { action: 'submit', otp: '1234' });
      expect(late.status).toBe(410);
      expect(late.html).toContain('has expired');
      expect((await read(pending.body.id)).body.result.code).toBe('100.396.103');
    });

    it('ends a challenge answered after its time as timed out, even before the job has run', async () => {
      const pending = await challenge();
      clock.advance(10 * MINUTE);
      const late = await answer(pending, { action: 'submit', otp: '1234' });
      expect(late.status).toBe(410);
      expect((await read(pending.body.id)).body.result.code).toBe('100.396.103');
      await t.gateway.jobs.runDueJobs();
      expect((await read(pending.body.id)).body.result.code).toBe('100.396.103');
    });

    it('holds the card only sealed, and only until the payment is final', async () => {
      const pending = await challenge();
      const held = await t.gateway.store.query<{ id: string; sealed: unknown }>(
        `SELECT v.id, row_to_json(v) AS sealed FROM payment_redirects r JOIN vault_items v ON v.id = r.sealed_card_id
          WHERE r.payment_id = $1`,
        [pending.body.id],
      );
      const sealed = JSON.stringify(held.rows[0]?.sealed);
      expect(sealed).toMatch(/"iv"/);
      expect(sealed).not.toContain('4200000000000042');
      expect(sealed).not.toContain('Jane Jones');
      await answer(pending, { action: 'submit', otp: '1234' });
      const after = await t.gateway.store.query<{ sealed_card_id: unknown; outcome: string }>(
        'SELECT sealed_card_id, outcome FROM payment_redirects WHERE payment_id = $1',
        [pending.body.id],
      );
      expect(after.rows[0]).toEqual({ sealed_card_id: null, outcome: 'success' });
      const left = await t.gateway.store.query('SELECT 1 FROM vault_items WHERE id = $1', [held.rows[0]?.id]);
      expect(left.rows).toEqual([]);
      for (const line of t.logLines) expect(line).not.toContain('4200000000000042');
    });

    it('cannot capture a preauthorization while it waits for its challenge, and can afterwards', async () => {
      const pending = await pay({ 'card.number': '4200000000000042', paymentType: 'PA' });
      const early = await t.post(`/v1/payments/${pending.body.id}`, { entityId: t.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
      expect(early.status).toBe(400);
      expect(early.body.result.code).toMatch(/^700\./);
      await answer(pending, { action: 'submit', otp: '1234' });
      const capture = await t.post(`/v1/payments/${pending.body.id}`, { entityId: t.entityId, paymentType: 'CP', amount: '92.00', currency: 'EUR' });
      expect(capture.body.result.code).toBe('000.100.110');
    });

    /** Starts a challenge on one gateway, restarts on the same store (with `changes` to its config), answers it there. */
    async function challengeAcrossRestart(changes: Partial<GatewayConfig>): Promise<string> {
      const restartClock = createTestClock();
      const first = await startTestGateway(kind, {}, { now: restartClock.now });
      let second: Awaited<ReturnType<typeof startGateway>> | undefined;
      try {
        const pending = await first.post('/v1/payments', cardPayment(first.entityId, { 'card.number': '4200000000000042', shopperResultUrl: SHOP, ...BROWSER_DATA }));
        await first.gateway.close();
        second = await startGateway({ ...first.gateway.config, ...changes }, { now: restartClock.now, jobPollMs: 0, logSink: () => undefined });
        const done = await page(`${redirectOf(pending).url}/answer`, {
          method: 'POST',
          body: new URLSearchParams({ paymentId: pending.body.id, action: 'submit', otp: '1234' }),
        });
        expect(done.status).toBe(200);
        const final = await fetch(`${second.url}/v1/payments/${pending.body.id}?entityId=${first.entityId}`, {
          headers: { Authorization: `Bearer ${first.token}` },
        });
        return ((await final.json()) as { result: { code: string } }).result.code;
      } finally {
        await second?.close();
        await first.location.dispose();
      }
    }

    it('survives a restart: a challenge started by one gateway is completed by the next (same card-data key)', async () => {
      expect(await challengeAcrossRestart({})).toBe('000.100.110');
    });

    it('fails cleanly (100.390.112) when the held card cannot be opened: another card-data key', async () => {
      expect(await challengeAcrossRestart({ cardDataKey: Buffer.alloc(32, 7) })).toBe('100.390.112');
    });

    it('answers unknown, malformed and incomplete requests plainly', async () => {
      const pending = await challenge();
      expect((await page(`${t.url}/v1/redirects/${'0'.repeat(32)}`)).status).toBe(404);
      expect((await page(`${t.url}/v1/redirects/not-an-id`)).status).toBe(404);
      const noAction = await page(`${redirectOf(pending).url}/answer`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ paymentId: pending.body.id, action: 'steal' }),
      });
      expect(noAction.status).toBe(400);
      expect((await page(`${redirectOf(pending).url}/answer`)).status).toBe(405);
      expect((await page(redirectOf(pending).url, { method: 'PUT' })).status).toBe(405);
      expect((await read(pending.body.id)).body.result.code).toBe('000.200.000');
    });

    it('names the merchant as the merchant asks (threeDSecure.merchant.name), escaped', async () => {
      const pending = await pay({ 'card.number': '4200000000000042', 'threeDSecure.merchant.name': 'Socks & <Co>' });
      const shown = await page(redirectOf(pending).url);
      expect(shown.html).toContain('Socks &#38; &#60;Co&#62;');
      expect(shown.html).not.toContain('<Co>');
    });

    it('speaks the shopper’s language', async () => {
      const pending = await challenge();
      const german = await page(redirectOf(pending).url, { headers: { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' } });
      expect(german.html).toContain('<html lang="de"');
      expect(german.html).toContain('Einmalcode');
      const arabic = await page(redirectOf(pending).url, { headers: { 'accept-language': 'ar' } });
      expect(arabic.html).toContain('dir="rtl"');
    });
  });

  describe('asynchronous payment methods', () => {
    // Sofort asks for the shopper's bank's country (COMPAT §7), as the platform's own samples send it.
    const redirectPayment = (brand: string, overrides: Record<string, string> = {}) =>
      t.post('/v1/payments', {
        entityId: t.entityId, amount: '25.50', currency: 'EUR', paymentType: 'DB', paymentBrand: brand, shopperResultUrl: SHOP,
        ...(brand === 'SOFORTUEBERWEISUNG' ? { 'bankAccount.country': 'DE' } : {}),
        ...overrides,
      });

    it.each(['PAYPAL', 'SOFORTUEBERWEISUNG'])('%s goes pending → provider page → final', async (brand) => {
      const pending = await redirectPayment(brand);
      expect(pending.status).toBe(200);
      expect(pending.body.result.code).toBe('000.200.000');
      expect(pending.body.paymentBrand).toBe(brand);
      // COMPAT §16: redirect{url, method, parameters[]}.
      expect(Object.keys(pending.body.redirect)).toEqual(['url', 'method', 'parameters']);
      expect(pending.body.redirect.method).toBe('POST');
      expect(pending.body.card).toBeUndefined();
      const shown = await page(redirectOf(pending).url);
      expect(shown.html).toContain(brand === 'PAYPAL' ? 'PayPal' : 'Sofort');
      expect(shown.html).toContain('25.50 EUR');
      expect(shown.html).not.toContain('id="otp"');
      const done = await answer(pending, { action: 'submit' });
      expect(done.status).toBe(200);
      expect((await read(pending.body.id)).body.result.code).toBe('000.100.110');
    });

    it.each([
      ['GIROPAY', 'giropay', { 'bankAccount.bic': 'TESTDETT421', 'bankAccount.iban': 'DE14940593100000012346', 'bankAccount.country': 'DE' }],
      ['IDEAL', 'iDEAL', { 'bankAccount.bankName': 'ING_TEST', 'bankAccount.country': 'NL' }],
    ])('%s (COMPAT §16, with its test bank) goes pending → provider page → final, notified as an online transfer', async (brand, label, bank) => {
      const pending = await redirectPayment(brand, bank);
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({ paymentBrand: brand, result: { code: '000.200.000' } });
      expect(JSON.stringify(pending.body)).not.toContain('DE14940593100000012346');
      expect((await page(redirectOf(pending).url)).html).toContain(label);
      expect((await answer(pending, { action: 'submit' })).status).toBe(200);
      expect((await read(pending.body.id)).body.result.code).toBe('000.100.110');
      const events = await eventsOf(t.gateway.store, pending.body.id);
      expect(events.at(-1)?.payload).toMatchObject({ paymentMethod: 'OT', result: { code: '000.100.110' } });
      const cancelled = await redirectPayment(brand, bank);
      await answer(cancelled, { action: 'cancel' });
      expect((await read(cancelled.body.id)).body.result.code).toBe('100.396.101');
    });

    it('ends in the asynchronous group on cancel (100.396.101) and on timeout (100.396.103)', async () => {
      const cancelled = await redirectPayment('SOFORTUEBERWEISUNG');
      await answer(cancelled, { action: 'cancel' });
      expect((await read(cancelled.body.id)).body.result.code).toBe('100.396.101');

      const abandoned = await redirectPayment('PAYPAL');
      clock.advance(10 * MINUTE);
      await t.gateway.jobs.runDueJobs();
      expect((await read(abandoned.body.id)).body.result.code).toBe('100.396.103');
    });

    it('needs a shopperResultUrl to bring the shopper back', async () => {
      const refused = await t.post('/v1/payments', { entityId: t.entityId, amount: '25.50', currency: 'EUR', paymentType: 'DB', paymentBrand: 'PAYPAL' });
      expect(refused.status).toBe(400);
      expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'shopperResultUrl' })]);
    });
  });

  describe('through a checkout', () => {
    it('keeps the checkout in progress during the challenge, returns to the checkout result, then notifies', async () => {
      const created = await t.post('/v1/checkouts', {
        entityId: t.entityId,
        amount: '92.00',
        currency: 'EUR',
        paymentType: 'DB',
        notificationUrl: `${receiver.url}/notify`,
      });
      const checkoutId = created.body.id as string;
      const { 'customer.browser.acceptHeader': _accept, 'customer.browser.userAgent': _agent, ...pageFields } = BROWSER_DATA;
      // The widget's submit: browser data from the page; accept header and user agent from the request itself.
      const pending = await t.post(
        `/v1/checkouts/${checkoutId}/payment`,
        testCard({ 'card.number': '4200000000000042', shopperResultUrl: SHOP, ...pageFields }),
        { token: null, headers: { 'user-agent': 'Mozilla/5.0' } },
      );
      expect(pending.status).toBe(200);
      expect(pending.body.result.code).toBe('000.200.000');
      expect(pending.body.ndc).toBe(checkoutId);
      const status = await t.get(`/v1/checkouts/${checkoutId}/payment`, { entityId: t.entityId });
      expect(status.body.result.code).toBe('000.200.000');
      // A second submit while the challenge is open is refused.
      expect((await t.post(`/v1/checkouts/${checkoutId}/payment`, testCard({ shopperResultUrl: SHOP }), { token: null })).status).toBe(400);

      const done = await answer(pending, { action: 'submit', otp: '1234' });
      const returnUrl = `${SHOP}&id=${checkoutId}&resourcePath=%2Fv1%2Fcheckouts%2F${encodeURIComponent(checkoutId)}%2Fpayment`;
      expect(done.html).toContain(JSON.stringify(returnUrl));
      await t.gateway.jobs.runDueJobs();
      expect(await findJobByKey(t.gateway.store, `${CHECKOUT_NOTIFICATION}:${pending.body.id}`)).toMatchObject({ attempts: 1 });
      expect(receiver.requestsFor(checkoutId).map((request) => request.path)).toEqual(['/notify']);
      clock.advance(MINUTE);
      const final = await t.get(`/v1/checkouts/${checkoutId}/payment`, { entityId: t.entityId });
      expect(final.body.result.code).toBe('000.100.110');
      expect(final.body.threeDSecure).toMatchObject({ authenticationStatus: 'Y' });
    });
  });
});
