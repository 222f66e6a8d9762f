import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../params/catalogue.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { cardPayment, startTestGateway, testCard, type ApiResponse, type TestGateway } from '../testing/harness.ts';

/**
 * Random parameter maps against POST /v1/payments: valid card payments, catalogue names with random values
 * and random names. Whatever is sent, the answer is 200 or 400, a full envelope, and a result code of the
 * class its status says.
 */

/** COMPAT §8: success, success needing review, pending. */
const SUCCESS = /^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0)/;
const SUCCESS_REVIEW = /^(000\.400\.0[^3]|000\.400\.100)/;
const PENDING = /^(000\.200)/;

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway('PGlite');
});

afterAll(async () => {
  await t?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Generators

const catalogueName = fc
  .record({
    template: fc.constantFrom(...CATALOGUE.map((spec) => spec.name)),
    indexes: fc.array(fc.oneof({ weight: 5, arbitrary: fc.nat({ max: 3 }) }, fc.constantFrom(999, 1000, 999_999_999)), {
      minLength: 4,
      maxLength: 4,
    }),
    keys: fc.array(
      fc.oneof(
        fc.constantFrom('SHOPPER_note', 'abc', 'my.param', 'x', '__proto__', '', 'A'.repeat(65)),
        fc.string({ maxLength: 12 }),
      ),
      { minLength: 4, maxLength: 4 },
    ),
  })
  .map(({ template, indexes, keys }) => {
    let index = 0;
    let key = 0;
    return template.replace(/\[n\]/g, () => `[${indexes[index++ % indexes.length]}]`).replace(/\[\*\]/g, () => `[${keys[key++ % keys.length]}]`);
  });

const randomValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ minLength: 250, maxLength: 300 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '1',
    '10.00',
    '92.00',
    'EUR',
    'eur',
    'DB',
    'PA',
    'true',
    'VISA',
    '4200000000000000',
    '05',
    '2034',
    '2026-11-21',
    'https://shop.example/return',
    'Jane Jones',
    '\u0000',
    // card.holder carrying a result code makes the simulator answer it
    '000.200.000',
    '000.400.110',
    '800.100.151',
    '900.100.300',
  ),
);

const randomName = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'x', '.', '[', ']', '_', '0', '1', '%', ' '), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    '__proto__[polluted]',
    'constructor[prototype][polluted]',
    'a.__proto__.b',
    'customParameters[__proto__]',
    'cart.items[0].__proto__',
    'cart.items[n].name',
    'customParameters[*]',
    'cart.items[]',
    'cart.items[-1].name',
    'cart.items[01].name',
    '[]',
    '.',
    '..',
    'a..b',
    'hasOwnProperty',
    'toString',
  ),
);

const CARD_KEYS = Object.keys(cardPayment('0'.repeat(32)));

const request = fc.record({
  /** Which parameters of the valid card payment are kept (mostly all). */
  base: fc.oneof({ weight: 3, arbitrary: fc.constant(CARD_KEYS) }, fc.subarray(CARD_KEYS)),
  known: fc.array(fc.tuple(catalogueName, randomValue), { maxLength: 8 }),
  random: fc.array(fc.tuple(randomName, randomValue), { maxLength: 5 }),
});

// ---------------------------------------------------------------------------------------------------------------


/** 200 or 400, a full envelope, a code of the class its status says, well-formed parameterErrors, no card number. */
/**
 * An id the client sends as the path segment it is: "." and ".." stay unencoded by encodeURIComponent and every URL
 * parser resolves them away (`/v1/registrations/.` goes out as `/v1/registrations/`, a route that does not exist).
 */
function isSentAsOneSegment(id: string): boolean {
  return id !== '.' && id !== '..';
}

function expectWellFormed(response: ApiResponse, params: ReadonlyMap<string, string>, sent: string): void {
  const context = `${response.status} ${JSON.stringify(response.body)}\nsent: ${sent.slice(0, 2000)}`;
  expect([200, 400], context).toContain(response.status);
  expectEnvelope(response);

  const code: string = response.body.result.code;
  if (response.status === 200) {
    expect(SUCCESS.test(code) || SUCCESS_REVIEW.test(code) || PENDING.test(code), context).toBe(true);
  } else {
    expect(SUCCESS.test(code) || SUCCESS_REVIEW.test(code) || PENDING.test(code), context).toBe(false);
  }

  if (code === '200.300.404') {
    const errors: unknown = response.body.result.parameterErrors;
    expect(Array.isArray(errors), context).toBe(true);
    expect((errors as unknown[]).length, context).toBeGreaterThan(0);
    for (const error of errors as Record<string, unknown>[]) {
      expect(typeof error.name, context).toBe('string');
      expect(typeof error.value, context).toBe('string');
      expect(typeof error.message, context).toBe('string');
    }
  }

  // The card number never comes back in full, neither in parameterErrors nor anywhere else.
  const number = params.get('card.number');
  const sentElsewhere = [...params].some(([name, value]) => name !== 'card.number' && number !== undefined && value.includes(number));
  if (number !== undefined && number.replace(/\s/g, '').length >= 12 && !sentElsewhere) {
    expect(JSON.stringify(response.body), context).not.toContain(number);
  }
}

describe('POST /v1/payments with random parameters', () => {
  it('always answers 200 or 400 with a full envelope and a code of the matching class', async () => {
    let runs = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async ({ base, known, random }) => {
        runs++;
        const card = cardPayment(t.entityId);
        // A Map keeps names unique and never touches a prototype, whatever the name.
        const params = new Map<string, string>(base.map((name) => [name, card[name] as string]));
        for (const [name, value] of [...known, ...random]) params.set(name, value);
        const body = new URLSearchParams([...params]).toString();

        const response = await t.post('/v1/payments', body);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expectWellFormed(response, params, body);

        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        expect(({} as any).polluted).toBeUndefined();
      }),
      {
        numRuns: 150,
        interruptAfterTimeLimit: 25_000,
        // Whatever the seed, an approved and a refused payment are among the runs.
        examples: [[{ base: CARD_KEYS, known: [], random: [] }], [{ base: [], known: [], random: [] }]],
      },
    );
    expect(runs).toBeGreaterThan(20);
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(0);
  }, 60_000);

  it('leaves the gateway answering, with no unexpected error and no card number in its logs', async () => {
    const payment = await t.post('/v1/payments', cardPayment(t.entityId));
    expect(payment.status).toBe(200);
    expect(payment.body.result.code).toBe('000.100.110');
    const read = await t.get(`/v1/payments/${payment.body.id}`, { entityId: t.entityId });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(payment.body.id);

    const levels = t.logLines.map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels.filter((level) => level === 'error')).toEqual([]);
    expect(t.logLines.join('\n')).not.toContain('4200000000000000');
  });
});

/** A valid payment with each instrument other than a card (COMPAT §16), for the instruments' property test. */
const INSTRUMENT_BASES: readonly Record<string, string>[] = [
  { paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.bic': 'MARKDEF1100' },
  { paymentBrand: 'VISA', 'tokenAccount.type': 'NETWORK', 'tokenAccount.number': '4200000000000000', 'tokenAccount.expiryMonth': '05', 'tokenAccount.expiryYear': '2034', 'tokenAccount.cryptogram': 'AgAAAAAABk4DWZ4C28yUQAAAAAA=' },
  { paymentBrand: 'APPLEPAY', 'applePay.paymentToken': '{"data":"x"}', 'applePay.source': 'web' },
  { paymentBrand: 'GOOGLEPAY', 'googlePay.paymentToken': '{"paymentMethod":{"network":"MASTERCARD"}}' },
  { paymentBrand: 'SAMSUNGPAY', 'virtualAccount.paymentToken': '{"data":"y"}' },
  { paymentBrand: 'MBWAY', 'virtualAccount.accountId': '351#912345678' },
];
const INSTRUMENT_NAME = /^(bankAccount\.|tokenAccount\.|virtualAccount\.|applePay\.|googlePay\.|samsungPay\.|transactionDueDate$|paymentBrand$|paymentType$|createRegistration$|registrationId$|card\.|standingInstruction\.|threeDSecure\.eci$)/;
const instrumentValue = fc.oneof(
  randomValue,
  fc.constantFrom(
    'DIRECTDEBIT_SEPA', 'APPLEPAY', 'GOOGLEPAY', 'SAMSUNGPAY', 'MBWAY', 'PAYPAL', 'GIROPAY', 'NETWORK', 'EXTERNAL', 'MIT', 'CD',
    'DE23100000001234567890', 'DE23100000001234567891', 'de23100000001234567890', 'GB82WEST12345698765432', 'MARKDEF1100', 'TESTDETT421',
    '2025-02-30', '2999-12-31', '2020-01-01', '351#912345678', '{}', '[]', 'null', '{"testResult":"800.100.151"}',
    '{"applicationExpirationDate":"991399"}', '{"testResult":"000.200.000"}', 'AAAAAAAAAAAAAAAAAAAA', '4444444444444444',
  ),
);
const instrumentRequest = fc.record({
  base: fc.constantFrom(...INSTRUMENT_BASES),
  dropped: fc.array(fc.nat({ max: 6 }), { maxLength: 2 }),
  known: fc.array(fc.tuple(fc.constantFrom(...CATALOGUE.map((spec) => spec.name).filter((name) => INSTRUMENT_NAME.test(name))), instrumentValue), { maxLength: 5 }),
});

describe('POST /v1/payments with random instrument parameters (COMPAT §16)', () => {
  it('always answers 200 or 400 with a full envelope, never an IBAN, token or cryptogram, and logs no error', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(instrumentRequest, async ({ base, dropped, known }) => {
        const params = new Map<string, string>([['entityId', t.entityId], ['amount', '10.00'], ['currency', 'EUR'], ['paymentType', 'DB'], ...Object.entries(base)]);
        const names = Object.keys(base);
        for (const index of dropped) params.delete(names[index % names.length] as string);
        for (const [name, value] of known) params.set(name, value);
        const body = new URLSearchParams([...params]).toString();
        const response = await t.post('/v1/payments', body);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        expectWellFormed(response, params, body);
        const text = JSON.stringify(response.body);
        for (const name of ['bankAccount.iban', 'tokenAccount.number', 'tokenAccount.cryptogram', 'applePay.paymentToken', 'googlePay.paymentToken', 'virtualAccount.paymentToken']) {
          const value = params.get(name);
          if (value !== undefined && value.length >= 12 && ![...params].some(([other, sent]) => other !== name && sent.includes(value))) expect(text, body).not.toContain(value);
        }
      }),
      { numRuns: 150, interruptAfterTimeLimit: 25_000, examples: INSTRUMENT_BASES.map((base): [{ base: Record<string, string>; dropped: number[]; known: [string, string][] }] => [{ base, dropped: [], known: [] }]) },
    );
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    const levels = t.logLines.map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels.filter((level) => level === 'error')).toEqual([]);
  }, 60_000);
});

describe('the registrations API with random parameters and ids', () => {
  it('always answers 200 or 400 with a full envelope, never a card number, on every registration endpoint', async () => {
    const stored = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard() });
    expect(stored.status).toBe(200);
    const registrationKeys = Object.keys({ entityId: '', ...testCard() });
    const registrationRequest = fc.record({
      endpoint: fc.constantFrom('create', 'pay', 'update', 'delete', 'read'),
      id: fc.oneof({ weight: 3, arbitrary: fc.constant(stored.body.id as string) }, fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 })).filter(isSentAsOneSegment),
      base: fc.oneof({ weight: 3, arbitrary: fc.constant(registrationKeys) }, fc.subarray(registrationKeys)),
      known: fc.array(fc.tuple(catalogueName, randomValue), { maxLength: 8 }),
      random: fc.array(fc.tuple(randomName, randomValue), { maxLength: 5 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(registrationRequest, async ({ endpoint, id, base, known, random }) => {
        runs++;
        const valid: Record<string, string> = { entityId: t.entityId, ...testCard(), amount: '5.00', currency: 'EUR', paymentType: 'DB' };
        const params = new Map<string, string>(base.map((name) => [name, valid[name] as string]));
        if (endpoint === 'pay') for (const name of ['card.number', 'card.expiryMonth', 'card.expiryYear']) params.delete(name);
        if (endpoint === 'pay') for (const name of ['amount', 'currency', 'paymentType']) params.set(name, valid[name] as string);
        for (const [name, value] of [...known, ...random]) params.set(name, value);
        const body = new URLSearchParams([...params]).toString();
        const path = `/v1/registrations/${encodeURIComponent(id)}`;
        const response =
          endpoint === 'create'
            ? await t.post('/v1/registrations', body)
            : endpoint === 'pay'
              ? await t.post(`${path}/payments`, body)
              : endpoint === 'update'
                ? await t.post(path, body)
                : endpoint === 'delete'
                  ? await t.delete(path, Object.fromEntries(params))
                  : await t.get(path, Object.fromEntries(params));
        expectWellFormed(response, params, `${endpoint} ${path} ${body}`);
      }),
      { numRuns: 120, interruptAfterTimeLimit: 25_000 },
    );
    expect(runs).toBeGreaterThan(20);
    const levels = t.logLines.map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels.filter((level) => level === 'error')).toEqual([]);
  }, 60_000);
});

describe('the schedules API with random job definitions, parameters and ids', () => {
  it('always answers 200 or 400 with a full envelope on every schedule endpoint, whatever the cron fields say', async () => {
    const initial = await t.post('/v1/payments', {
      ...cardPayment(t.entityId, { paymentType: 'PA', createRegistration: 'true' }),
      'standingInstruction.mode': 'INITIAL',
      'standingInstruction.source': 'CIT',
      'standingInstruction.type': 'RECURRING',
    });
    expect(initial.status).toBe(200);
    const registrationId = initial.body.registrationId as string;
    // Pieces of Quartz fields, valid and not, glued together at random.
    const cronPiece = fc.constantFrom('0', '05', '7', '15', '23', '24', '31', '32', '59', '60', '1970', '2099', '2100', 'L', 'W', 'LW', 'L-3', 'L-31', '6L', '6#3', '#', '?', '*', '/', '-', ',', 'MON', 'SUN-SAT', 'FRI-MON', 'JAN', 'xyz', ' ');
    const cronField = fc.array(cronPiece, { minLength: 0, maxLength: 4 }).map((pieces) => pieces.join(''));
    const jobFields = ['job.second', 'job.minute', 'job.hour', 'job.dayOfMonth', 'job.month', 'job.dayOfWeek', 'job.year'];
    const scheduleRequest = fc.record({
      endpoint: fc.constantFrom('create', 'create', 'create', 'read', 'delete'),
      id: fc.oneof(fc.constant('0123456789abcdef0123456789abcdef'), fc.string({ minLength: 1, maxLength: 40 })).filter(isSentAsOneSegment),
      job: fc.oneof(
        fc.array(fc.tuple(fc.constantFrom(...jobFields), cronField), { maxLength: 7 }),
        fc.array(cronField, { minLength: 0, maxLength: 8 }).map((fields) => [['job.expression', fields.join(' ')] as [string, string]]),
      ),
      known: fc.array(fc.tuple(catalogueName, randomValue), { maxLength: 5 }),
      random: fc.array(fc.tuple(randomName, randomValue), { maxLength: 3 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(scheduleRequest, async ({ endpoint, id, job, known, random }) => {
        runs++;
        const params = new Map<string, string>([
          ['entityId', t.entityId],
          ['registrationId', registrationId],
          ['amount', '5.00'],
          ['currency', 'EUR'],
          ['paymentType', 'DB'],
          ...job,
          ...known,
          ...random,
        ]);
        const body = new URLSearchParams([...params]).toString();
        const path = `/scheduling/v1/schedules/${encodeURIComponent(id)}`;
        const response =
          endpoint === 'create'
            ? await t.post('/scheduling/v1/schedules', body)
            : endpoint === 'read'
              ? await t.get(path, Object.fromEntries(params))
              : await t.delete(path, Object.fromEntries(params));
        expectWellFormed(response, params, `${endpoint} ${path} ${body}`);
      }),
      { numRuns: 300, interruptAfterTimeLimit: 25_000 },
    );
    expect(runs).toBeGreaterThan(50);
    const levels = t.logLines.map((line) => (JSON.parse(line) as { level: string }).level);
    expect(levels.filter((level) => level === 'error')).toEqual([]);
  }, 60_000);
});
