import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope } from '../testing/envelope.ts';
import { createTestClock, liveApp, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestClock, type TestGateway } from '../testing/harness.ts';
import { CORRELATION_LIFETIME_MS, SESSION_LIFETIME_MS } from './service.ts';

warnIfPostgresSkipped('clickToPay.test.ts');

/**
 * Click to Pay with the test environment's simulated SRC system (issue 35 point 6): the shopper's e-mail, the one-time
 * code, the card list and the choice, each checked on a real gateway; the checkout's submit pays the chosen card's
 * network token once, for its own checkout only, before its correlation id expires (the clock moved by the test).
 */

const ENROLLED = 'jane.jones@example.com';
const DPANS = ['4200000000000000', '5454545454545454', '377777777777770'];
const MINUTE = 60_000;

describe.each(STORE_KINDS)('Click to Pay on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    clock = createTestClock();
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  const newCheckout = async (): Promise<string> => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** A step of the shopper's browser: no Authorization header; nothing sensitive in any answer. */
  const step = async (checkoutId: string, name: string, params: Record<string, string>): Promise<ApiResponse> => {
    const answer = await t.post(`/v1/checkouts/${checkoutId}/clickToPay/${name}`, params, { token: null });
    expectEnvelope(answer);
    expect(answer.status).toBeLessThan(500);
    const text = JSON.stringify(answer.body);
    for (const secret of [...DPANS, '123456', 'jane.jones']) expect(text).not.toContain(secret);
    return answer;
  };
  const lookUp = (checkoutId: string, email = ENROLLED) => step(checkoutId, 'lookup', { email });
  const validated = async (checkoutId: string) => {
    const sessionId = (await lookUp(checkoutId)).body.clickToPay.sessionId as string;
    const answer = await step(checkoutId, 'validation', { sessionId, otp: '123456' });
    expect(answer.body.clickToPay.status).toBe('VALIDATED');
    return { sessionId, cards: answer.body.clickToPay.cards as { id: string; brand: string }[] };
  };
  const chosen = async (checkoutId: string, brand = 'VISA') => {
    const { sessionId, cards } = await validated(checkoutId);
    const card = cards.find((candidate) => candidate.brand === brand) as { id: string };
    const answer = await step(checkoutId, 'checkout', { sessionId, cardId: card.id });
    expect(answer.status).toBe(200);
    return answer.body.clickToPay.correlationId as string;
  };
  const submit = (checkoutId: string, params: Record<string, string>) =>
    t.post(`/v1/checkouts/${checkoutId}/payment`, { paymentBrand: 'CLICK_TO_PAY', shopperResultUrl: 'https://shop.example/result', ...params }, { token: null });
  const refusedNaming = (answer: ApiResponse, name: string) => {
    expect(answer.status).toBe(400);
    expect(answer.body.result.code).toBe('200.300.404');
    expect((answer.body.result.parameterErrors as { name: string }[]).map((error) => error.name)).toContain(name);
  };

  it('finds the enrolled shopper by e-mail, sends the code to the masked channel, and opens the card list with 123456', async () => {
    const checkoutId = await newCheckout();
    const found = await lookUp(checkoutId, '  Jane.Jones@Example.com ');
    expect(found.status).toBe(200);
    expect(found.body.result.code).toBe('000.000.100');
    expect(found.body.clickToPay).toEqual({ status: 'OTP_SENT', sessionId: expect.stringMatching(/^[0-9a-f]{32}$/), channel: { type: 'EMAIL', masked: 'ja•••••••@example.com' } });
    const opened = await step(checkoutId, 'validation', { sessionId: found.body.clickToPay.sessionId, otp: '123456' });
    expect(opened.body.clickToPay).toEqual({
      status: 'VALIDATED',
      cards: [
        { id: 'src-jane-visa', brand: 'VISA', descriptor: 'Visa Classic', last4: '1111', expiryMonth: '12', expiryYear: '2034' },
        { id: 'src-jane-master', brand: 'MASTER', descriptor: 'Mastercard Gold', last4: '4444', expiryMonth: '05', expiryYear: '2033' },
      ],
    });
    const sms = await lookUp(checkoutId, 'max.mustermann@example.com');
    expect(sms.body.clickToPay.channel).toEqual({ type: 'SMS', masked: '+49 ••• •••• 42' });
  });

  it('answers NOT_ENROLLED for any other e-mail, OTP_CHANNEL_INVALID for a profile without a channel, and refuses what is no e-mail', async () => {
    const checkoutId = await newCheckout();
    expect((await lookUp(checkoutId, 'someone.else@example.com')).body.clickToPay).toEqual({ status: 'NOT_ENROLLED' });
    expect((await lookUp(checkoutId, 'no.channel@example.com')).body.clickToPay).toEqual({ status: 'OTP_CHANNEL_INVALID' });
    for (const email of ['', 'jane', 'jane@', '@example.com', 'a b@example.com', `${'x'.repeat(300)}@example.com`]) {
      const refused = await lookUp(checkoutId, email);
      refusedNaming(refused, 'email');
      // What the shopper typed is not echoed.
      expect(refused.body.result.parameterErrors[0].value).toBe('');
    }
    refusedNaming(await step(checkoutId, 'lookup', {}), 'email');
  });

  it('says how many tries are left after a wrong code, locks the session at the third, and keeps it locked', async () => {
    const checkoutId = await newCheckout();
    const sessionId = (await lookUp(checkoutId)).body.clickToPay.sessionId as string;
    expect((await step(checkoutId, 'validation', { sessionId, otp: '000000' })).body.clickToPay).toEqual({ status: 'OTP_INVALID', attemptsLeft: 2 });
    expect((await step(checkoutId, 'validation', { sessionId, otp: '111111' })).body.clickToPay).toEqual({ status: 'OTP_INVALID', attemptsLeft: 1 });
    expect((await step(checkoutId, 'validation', { sessionId, otp: '222222' })).body.clickToPay).toEqual({ status: 'LOCKED' });
    // The right code no longer opens it, and no card can be chosen from it.
    expect((await step(checkoutId, 'validation', { sessionId, otp: '123456' })).body.clickToPay).toEqual({ status: 'LOCKED' });
    refusedNaming(await step(checkoutId, 'checkout', { sessionId, cardId: 'src-jane-visa' }), 'sessionId');
    // A new lookup starts a new session.
    expect((await validated(checkoutId)).cards).toHaveLength(2);
  });

  it('refuses malformed steps with the parameter named, never a 500', async () => {
    const checkoutId = await newCheckout();
    const sessionId = (await lookUp(checkoutId)).body.clickToPay.sessionId as string;
    refusedNaming(await step(checkoutId, 'validation', { sessionId, otp: '12345' }), 'otp');
    refusedNaming(await step(checkoutId, 'validation', { sessionId, otp: 'abcdef' }), 'otp');
    refusedNaming(await step(checkoutId, 'validation', { sessionId: 'nope', otp: '123456' }), 'sessionId');
    refusedNaming(await step(checkoutId, 'validation', { sessionId: '0'.repeat(32), otp: '123456' }), 'sessionId');
    // A session is its checkout's: another checkout does not know it.
    refusedNaming(await step(await newCheckout(), 'validation', { sessionId, otp: '123456' }), 'sessionId');
    // The card list is not open before the code.
    refusedNaming(await step(checkoutId, 'checkout', { sessionId, cardId: 'src-jane-visa' }), 'sessionId');
    await step(checkoutId, 'validation', { sessionId, otp: '123456' });
    refusedNaming(await step(checkoutId, 'checkout', { sessionId, cardId: 'src-max-amex' }), 'cardId');
    refusedNaming(await step(checkoutId, 'checkout', { sessionId, cardId: '<script>' }), 'cardId');
    // An unknown or malformed checkout, another method, a session past its lifetime.
    const unknown = await t.post('/v1/checkouts/0123456789ABCDEF0123456789ABCDEF.sbx01/clickToPay/lookup', { email: ENROLLED }, { token: null });
    expect(unknown.status).toBe(400);
    expect(unknown.body.result.description).toContain('No payment session found');
    expect((await t.post('/v1/checkouts/not-a-checkout/clickToPay/lookup', { email: ENROLLED }, { token: null })).status).toBe(400);
    expect((await t.get(`/v1/checkouts/${checkoutId}/clickToPay/lookup`, {}, { token: null })).status).toBe(405);
    clock.advance(SESSION_LIFETIME_MS + MINUTE);
    refusedNaming(await step(checkoutId, 'validation', { sessionId, otp: '123456' }), 'sessionId');
  });

  it('pays the chosen card through the checkout as its network token: the merchant reads its brand and masked token, the page never sees it', async () => {
    const checkoutId = await newCheckout();
    const correlationId = await chosen(checkoutId, 'MASTER');
    const paid = await submit(checkoutId, { 'clickToPay.correlationId': correlationId });
    expect(paid.status).toBe(200);
    expect(paid.body.result.code).toBe('000.100.110');
    expect(paid.body.redirect).toBeUndefined();
    for (const dpan of DPANS) expect(JSON.stringify(paid.body)).not.toContain(dpan);
    const read = await t.get(`/v1/checkouts/${checkoutId}/payment`, { entityId: t.entityId });
    expect(read.body).toMatchObject({ paymentBrand: 'MASTER', amount: '92.00', tokenAccount: { type: 'NETWORK', number: '545454******5454', expiryMonth: '05', expiryYear: '2033' } });
    expect(read.body.tokenAccount.cryptogram).toBeUndefined();
  });

  it('spends a correlation id once, for its own checkout only, and only before it expires', async () => {
    const first = await newCheckout();
    const other = await newCheckout();
    const correlationId = await chosen(first);
    // Another checkout cannot use it, and trying does not spend it.
    refusedNaming(await submit(other, { 'clickToPay.correlationId': correlationId }), 'clickToPay.correlationId');
    // A refused submit rolls the redemption back with everything else.
    refusedNaming(await submit(first, { 'clickToPay.correlationId': correlationId, 'card.number': '4200000000000000' }), 'card.number');
    const paid = await submit(first, { 'clickToPay.correlationId': correlationId });
    expect(paid.body.result.code).toBe('000.100.110');
    // Replayed, even on a checkout a decline would have left open: refused.
    refusedNaming(await submit(other, { 'clickToPay.correlationId': correlationId }), 'clickToPay.correlationId');
    refusedNaming(await submit(other, {}), 'clickToPay.correlationId');
    refusedNaming(await submit(other, { 'clickToPay.correlationId': 'x'.repeat(500) }), 'clickToPay.correlationId');

    const late = await chosen(other);
    clock.advance(CORRELATION_LIFETIME_MS + 1);
    refusedNaming(await submit(other, { 'clickToPay.correlationId': late }), 'clickToPay.correlationId');
    // Chosen again, it pays.
    const again = await chosen(other, 'VISA');
    expect((await submit(other, { 'clickToPay.correlationId': again })).body.result.code).toBe('000.100.110');
    const read = await t.get(`/v1/checkouts/${other}/payment`, { entityId: t.entityId });
    expect(read.body).toMatchObject({ paymentBrand: 'VISA', tokenAccount: { number: '420000******0000' } });
  });

  it('forgets sessions nothing can use any more (the hourly housekeeping), and keeps those still in use', async () => {
    const sessionsOf = async (checkoutId: string) =>
      Number((await t.gateway.store.query<{ count: string }>('SELECT count(*) AS count FROM click_to_pay_sessions WHERE checkout_id = $1', [checkoutId])).rows[0]?.count);
    const HOUR = 60 * MINUTE;
    const old = await newCheckout();
    await lookUp(old);
    await chosen(old);
    // Past the old sessions' lifetimes (and their correlation id's), to within a minute of the next full hour, when
    // the housekeeping is due.
    clock.advance(SESSION_LIFETIME_MS + CORRELATION_LIFETIME_MS);
    const nextHour = Math.ceil(clock.now().getTime() / HOUR) * HOUR;
    clock.advance(Math.max(0, nextHour - clock.now().getTime() - MINUTE));
    const current = await newCheckout();
    await lookUp(current);
    expect([await sessionsOf(old), await sessionsOf(current)]).toEqual([2, 1]);
    clock.advance(2 * MINUTE);
    await t.gateway.jobs.runDueJobs();
    expect([await sessionsOf(old), await sessionsOf(current)]).toEqual([0, 1]);
  });

  it('is refused by a live gateway, which has no simulated SRC system (live pages use the networks\' SDKs: networks.test.ts)', async () => {
    const live = await liveApp(t, clock.now);
    const checkoutId = await newCheckout();
    for (const [name, params] of [
      ['lookup', { email: ENROLLED }],
      ['validation', { sessionId: '0'.repeat(32), otp: '123456' }],
      ['checkout', { sessionId: '0'.repeat(32), cardId: 'src-jane-visa' }],
    ] as const) {
      const response = await live.request(`/v1/checkouts/${checkoutId}/clickToPay/${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
      });
      const body = (await response.json()) as { result: { code: string; description: string } };
      expect([response.status, body.result.code]).toEqual([400, '600.200.200']);
      expect(body.result.description).toContain("live pages use the networks' SDKs");
    }
  });

  it('refuses a closed checkout, and logs no e-mail, code, token or cryptogram', async () => {
    const checkoutId = await newCheckout();
    const correlationId = await chosen(checkoutId);
    await submit(checkoutId, { 'clickToPay.correlationId': correlationId });
    const closed = await t.post(`/v1/checkouts/${checkoutId}/clickToPay/lookup`, { email: ENROLLED }, { token: null });
    expect(closed.status).toBe(400);
    expect(closed.body.result.description).toContain('already paid');
    const logs = t.logLines.join('\n').toLowerCase();
    for (const secret of [...DPANS, ENROLLED, 'max.mustermann', '"123456"', '=123456', '"222222"']) expect(logs).not.toContain(secret);
  });
});
