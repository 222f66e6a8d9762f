import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_SESSION_DESCRIPTION } from '../checkouts/results.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { cardPayment, readResponse, STORE_KINDS, startTestGateway, warnIfPostgresSkipped, type ApiResponse, type TestGateway } from '../testing/harness.ts';

/**
 * What fuzzing every route found (issue 20): a NUL in a path id reached the database (a 500 and an error logged), and
 * values echoed in errors skipped the masking and the length cap every other parameter error has. Each case as an
 * attacker sends it, on both stores.
 */

warnIfPostgresSkipped('hostile input');

const ADMIN_TOKEN = 'admin-token-for-hostile-input-tests-0123456789';
const CARD = '4200000000000000';
const MASKED_CARD = '420000******0000';
const UNKNOWN_ID = '0123456789abcdef0123456789abcdef';
const REGISTRATION_ID = UNKNOWN_ID;

describe.each(STORE_KINDS)('hostile input on %s', (kind) => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway(kind, { adminToken: ADMIN_TOKEN });
  });

  afterAll(async () => {
    await t?.close();
  });

  /** The answer to a raw request (the path as sent, percent sequences included). */
  async function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<ApiResponse> {
    return readResponse(await fetch(`${t.url}${path}`, { method, headers: init.headers ?? {}, ...(init.body !== undefined ? { body: init.body } : {}) }));
  }

  const form = { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' };

  function errorLines(): string[] {
    return t.logLines.filter((line) => (JSON.parse(line) as { level: string }).level === 'error');
  }

  function expectNoCardNumber(response: ApiResponse): void {
    expect(JSON.stringify(response.body)).not.toContain(CARD);
  }

  it.each(['payment', 'registration'])('a NUL in the checkout id of the shopper submit (/%s) is no session, and nothing is logged as an error', async (path) => {
    const response = await send('POST', `/v1/checkouts/%00/${path}`, { headers: form, body: new URLSearchParams({ paymentBrand: 'VISA', 'card.number': CARD }).toString() });
    expect(response.status).toBe(400);
    expectEnvelope(response);
    expect(response.body.result).toEqual({ code: '200.300.404', description: NO_SESSION_DESCRIPTION });
    const embedded = await send('POST', `/v1/checkouts/7A987D6B411CE700AFFCA163D679703E.sbx01%00/${path}`, { headers: form, body: '' });
    expect(embedded.status).toBe(400);
    expect(embedded.body.result.description).toBe(NO_SESSION_DESCRIPTION);
    expect(errorLines()).toEqual([]);
  });

  it('a NUL in the payment id of a capture sent with an Idempotency-Key is an unknown payment, and the key is free for the right id', async () => {
    const headers = { ...form, Authorization: `Bearer ${t.token}`, 'Idempotency-Key': 'capture-with-nul' };
    const body = new URLSearchParams({ entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: 'CP' }).toString();
    const response = await send('POST', '/v1/payments/%00', { headers, body });
    expect(response.status).toBe(400);
    expectEnvelope(response);
    // What a capture of a payment the entity does not have answers.
    const unknown = await send('POST', `/v1/payments/${UNKNOWN_ID}`, { headers: { ...form, Authorization: `Bearer ${t.token}` }, body });
    expect(unknown.status).toBe(400);
    expect(response.body.result).toEqual(unknown.body.result);
    const authorization = await t.post('/v1/payments', cardPayment(t.entityId, { paymentType: 'PA', amount: '10.00' }));
    expect(authorization.status).toBe(200);
    const capture = await send('POST', `/v1/payments/${authorization.body.id as string}`, { headers, body });
    expect(capture.status).toBe(200);
    expect(errorLines()).toEqual([]);
  });

  it.each([
    ['job.expression', CARD],
    ['job.expression', `0 0 ${CARD} * * ?`],
    ['job.second', CARD],
    ['job.dayOfMonth', `1,${CARD}`],
  ])('a card number in %s comes back masked in parameterErrors', async (name, value) => {
    const response = await t.post('/scheduling/v1/schedules', {
      entityId: t.entityId,
      registrationId: REGISTRATION_ID,
      amount: '10.00',
      currency: 'EUR',
      paymentType: 'DB',
      [name]: value,
    });
    expect(response.status).toBe(400);
    expectEnvelope(response);
    const errors = response.body.result.parameterErrors as { name: string; value: string }[];
    expect(errors.map((error) => error.name)).toEqual([name]);
    // Masked as a card number is wherever it appears (with the digits around it, when only spaces part them).
    expect(errors[0]?.value).toMatch(/[0-9]{6}\*{6,}0000/);
    expectNoCardNumber(response);
  });

  it.each([
    ['an hour out of range at its end', `0 0 ${'1,'.repeat(400_000)}99 * * ?`],
    ['one field', 'x'.repeat(800_000)],
  ])('an 800 kB job.expression (%s) comes back cut to what every parameter error shows', async (_label, expression) => {
    const response = await t.post('/scheduling/v1/schedules', {
      entityId: t.entityId,
      registrationId: REGISTRATION_ID,
      amount: '10.00',
      currency: 'EUR',
      paymentType: 'DB',
      'job.expression': expression,
    });
    expect(response.status).toBe(400);
    expectEnvelope(response);
    const [error] = response.body.result.parameterErrors as { name: string; value: string }[];
    expect(error?.name).toBe('job.expression');
    expect(error?.value.length).toBeLessThanOrEqual(257);
    expect(JSON.stringify(response.body).length).toBeLessThan(2000);
  });

  it('a card number sent as paymentType of a payment on a registration is not echoed', async () => {
    const response = await t.post(`/v1/registrations/${REGISTRATION_ID}/payments`, { entityId: t.entityId, amount: '10.00', currency: 'EUR', paymentType: CARD });
    expect(response.status).toBe(400);
    expectEnvelope(response);
    expectNoCardNumber(response);
  });

  it.each([
    ['GET', `/admin/v1/webhooks/${CARD}`, 'no webhook'],
    ['GET', `/admin/v1/webhooks/${CARD}/deliveries`, 'no webhook'],
    ['POST', `/admin/v1/webhooks/deliveries/${CARD}/resend`, 'no delivery'],
    ['GET', `/admin/v1/entities/${CARD}/smart-retry`, 'no entity'],
    ['DELETE', `/admin/v1/entities/${CARD}/throttling`, 'no entity'],
  ])('the admin API masks a card number used as the path id of %s %s, as the app\'s own 404 does', async (method, path, reason) => {
    const response = await send(method, path, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(404);
    expectEnvelope(response);
    expect(response.body.result.description).toContain(`${reason} ${MASKED_CARD}`);
    expectNoCardNumber(response);
    const unknownPath = await send(method, `/v1/nothing/${CARD}`);
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.body.result.description).toContain(MASKED_CARD);
  });
});
