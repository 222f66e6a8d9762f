import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf } from '../events/outbox.ts';
import {
  CIT_INITIAL,
  createTestClock,
  MIT_REPEATED,
  startTestGateway,
  STORE_KINDS,
  testCard,
  warnIfPostgresSkipped,
  type TestClock,
  type TestGateway,
} from '../testing/harness.ts';
import { startNodeReceiver } from '../testing/webhookReceivers.ts';
import { createWebhook } from '../webhooks/service.ts';
import { findExecutions } from './repository.ts';

warnIfPostgresSkipped('schedules/schedules.test.ts');

/**
 * Schedules (COMPAT §12) through the API with a controllable clock: the subscription flow of spec doc 1 §4 (a card
 * stored by a cardholder-initiated INITIAL payment, then a schedule that charges it), executions at their fire times
 * exactly once, declines, cancellations (by the merchant, by the registration's deletion or expiry), the catch-up of
 * fire times missed while no gateway ran, and the job's end.
 */

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const NDC = /^[0-9a-f]{32}_[0-9a-f]{32}$/;


describe.each(STORE_KINDS)('schedules on %s', (kind) => {
  let t: TestGateway;
  let clock: TestClock;
  beforeAll(async () => {
    // A Monday, 09:30 UTC.
    clock = createTestClock(new Date('2026-06-01T09:30:00Z'));
    t = await startTestGateway(kind, {}, { now: clock.now });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Step 1 of the subscription flow: an approved CIT INITIAL payment that stores the card. */
  const storedCard = async (card: Record<string, string> = {}): Promise<string> => {
    const initial = await t.post('/v1/payments', { entityId: t.entityId, amount: '9.99', currency: 'EUR', paymentType: 'PA', createRegistration: 'true', ...testCard(card), ...CIT_INITIAL });
    expect(initial.status).toBe(200);
    return initial.body.registrationId as string;
  };
  const schedule = (registrationId: string, overrides: Record<string, string> = {}) =>
    t.post('/scheduling/v1/schedules', { entityId: t.entityId, registrationId, amount: '12.50', currency: 'EUR', paymentType: 'DB', ...MIT_REPEATED, ...overrides });
  const scheduled = async (registrationId: string, overrides: Record<string, string> = {}): Promise<Record<string, any>> => {
    const answer = await schedule(registrationId, overrides);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  /** The gateway at `at`: fire times taken, their payments made. */
  const runAt = async (at: string | number | Date) => {
    const target = new Date(at).getTime();
    clock.advance(target - clock.now().getTime());
    await t.gateway.schedules.scheduler.takeDueFires();
    while ((await t.gateway.schedules.executions.runDueJobs()) > 0);
    // The payments' own jobs (webhooks, notifications) are not what these tests look at.
  };
  const paymentsOf = async (registrationId: string) =>
    (
      await t.gateway.store.query<{ id: string; payment_type: string; amount_minor: string; source: string; status: string; result_code: string; request_echo: Record<string, any>; created_at: Date }>(
        "SELECT id, payment_type, amount_minor::text AS amount_minor, source, status, result_code, request_echo, created_at FROM payments WHERE registration_id = $1 AND source = 'SYSTEM' ORDER BY created_at",
        [registrationId],
      )
    ).rows;

  it('creates a schedule (SD) in the shape of COMPAT §12 and makes its payment at each fire time, once', async () => {
    const registrationId = await storedCard();
    const created = await scheduled(registrationId, {
      'job.second': '0',
      'job.minute': '0',
      'job.hour': '10',
      'job.dayOfMonth': '1',
      'job.month': '*',
      descriptor: 'Gym membership',
      merchantTransactionId: 'sub-0042-monthly',
      'customParameters[SHOP_plan]': 'gold',
      'job.name': 'monthly',
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      registrationId,
      paymentType: 'DB',
      amount: '12.50',
      currency: 'EUR',
      descriptor: 'Gym membership',
      merchantTransactionId: 'sub-0042-monthly',
      customParameters: { SHOP_plan: 'gold' },
      standingInstruction: { type: 'RECURRING', mode: 'REPEATED', source: 'MIT', recurringType: 'SUBSCRIPTION' },
      job: {
        name: 'monthly',
        second: '0',
        minute: '0',
        hour: '10',
        dayOfMonth: '1',
        month: '*',
        dayOfWeek: '?',
        year: '*',
        expression: '0 0 10 1 * ? *',
        startDate: Date.parse('2026-06-01T10:00:00Z'),
      },
      result: { code: '000.000.000', description: 'Transaction succeeded' },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: expect.stringMatching(NDC),
    });
    const [event] = await eventsOf(t.gateway.store, created.id);
    expect(event).toMatchObject({ type: 'SCHEDULE', action: 'CREATED', payload: { id: created.id, paymentType: 'SD', registrationId, job: { expression: '0 0 10 1 * ? *' } } });

    // A second before the fire time: nothing.
    await runAt('2026-06-01T09:59:59Z');
    expect(await paymentsOf(registrationId)).toHaveLength(0);
    await runAt('2026-06-01T10:00:00Z');
    // Taken again (another instance, a retried job): still one payment.
    await runAt('2026-06-01T10:00:30Z');
    const [payment, ...more] = await paymentsOf(registrationId);
    expect(more).toHaveLength(0);
    expect(payment).toMatchObject({ payment_type: 'DB', amount_minor: '1250', source: 'SYSTEM', status: 'approved' });
    expect(payment?.request_echo).toMatchObject({ descriptor: 'Gym membership', merchantTransactionId: 'sub-0042-monthly', customParameters: { SHOP_plan: 'gold' } });
    expect(payment?.request_echo.standingInstruction).toMatchObject({ source: 'MIT', mode: 'REPEATED', type: 'RECURRING', initialTransactionId: expect.stringMatching(/^[0-9]{15}$/) });
    const notified = (await eventsOf(t.gateway.store, payment!.id))[0];
    expect(notified).toMatchObject({ type: 'PAYMENT', payload: { id: payment!.id, source: 'SYSTEM', registrationId, paymentType: 'DB', amount: '12.50' } });
    const [execution] = await findExecutions(t.gateway.store, created.id);
    expect(execution).toMatchObject({ fireAt: new Date('2026-06-01T10:00:00Z'), paymentId: payment!.id, outcome: 'paid', resultCode: payment!.result_code, missed: 0 });

    // GET shows the next execution; the next month's fire time pays again.
    const read = await t.get(`/scheduling/v1/schedules/${created.id}`, { entityId: t.entityId });
    expect(read.body.job.startDate).toBe(Date.parse('2026-07-01T10:00:00Z'));
    await runAt('2026-07-01T10:00:00Z');
    expect(await paymentsOf(registrationId)).toHaveLength(2);
  });

  it('keeps a schedule whose payment was declined, and pays at the next fire time', async () => {
    const registrationId = await storedCard();
    // The simulated acquirer declines a card whose holder is a result code (COMPAT §7).
    expect((await t.post(`/v1/registrations/${registrationId}`, { entityId: t.entityId, 'card.holder': '800.100.203' })).status).toBe(200);
    const created = await scheduled(registrationId, { 'job.expression': '0 0 8 * * ?' });
    const day = new Date(created.job.startDate as number);
    await runAt(day);
    expect(await paymentsOf(registrationId)).toMatchObject([{ status: 'declined', result_code: '800.100.203' }]);
    expect((await findExecutions(t.gateway.store, created.id))[0]).toMatchObject({ outcome: 'declined', resultCode: '800.100.203' });
    expect((await t.post(`/v1/registrations/${registrationId}`, { entityId: t.entityId, 'card.holder': 'Jane Jones' })).status).toBe(200);
    await runAt(new Date(day.getTime() + DAY_MS));
    expect((await paymentsOf(registrationId)).map((payment) => payment.status)).toEqual(['declined', 'approved']);
  });

  it('debits a registered SEPA account at each fire time under the mandate it was registered with', async () => {
    const registered = await t.post('/v1/registrations', { entityId: t.entityId, paymentBrand: 'DIRECTDEBIT_SEPA', 'bankAccount.holder': 'Jane Jones', 'bankAccount.iban': 'DE23100000001234567890', 'bankAccount.mandate.id': 'MANDATE-GYM' });
    expect(registered.status).toBe(200);
    // The mandate is the agreement: no card-on-file reference is asked for; a credit is no direct debit.
    const refused = await schedule(registered.body.id, { paymentType: 'CD', 'job.expression': '0 0 8 1 * ?' });
    expect(refused.body.result.parameterErrors).toEqual([expect.objectContaining({ name: 'paymentType' })]);
    const created = await scheduled(registered.body.id, { 'job.expression': '0 0 8 1 * ?' });
    await runAt(created.job.startDate as number);
    const [payment] = await paymentsOf(registered.body.id);
    expect(payment).toMatchObject({ payment_type: 'DB', status: 'approved', amount_minor: '1250', request_echo: { bankAccount: { iban: 'DE2310************7890', mandate: { id: 'MANDATE-GYM' } } } });
    expect((await paymentsOf(registered.body.id)).length).toBe(1);
  });

  it('is cancelled by DELETE (DS), once; unknown and foreign schedules are not found', async () => {
    const registrationId = await storedCard();
    const created = await scheduled(registrationId, { 'job.expression': '0 0 * * * ?' });
    const other = await t.newMerchant();
    const foreign = await t.delete(`/scheduling/v1/schedules/${created.id}`, { entityId: other.entityId }, { token: other.token });
    expect(foreign).toMatchObject({ status: 400, body: { result: { code: '700.400.580' } } });
    expect((await t.get(`/scheduling/v1/schedules/${created.id}`, { entityId: other.entityId }, { token: other.token })).body.result.code).toBe('700.400.580');
    expect((await t.delete('/scheduling/v1/schedules/0123456789abcdef0123456789abcdef', { entityId: t.entityId })).body.result.code).toBe('700.400.580');
    expect((await t.delete('/scheduling/v1/schedules/not-an-id', { entityId: t.entityId })).body.result.code).toBe('700.400.580');

    const cancelled = await t.delete(`/scheduling/v1/schedules/${created.id}`, { entityId: t.entityId, testMode: 'EXTERNAL' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({
      id: created.id,
      result: { code: '000.000.000', description: 'Transaction succeeded' },
      buildNumber: expect.any(String),
      timestamp: expect.any(String),
      ndc: expect.stringMatching(NDC),
    });
    const again = await t.delete(`/scheduling/v1/schedules/${created.id}`, { entityId: t.entityId });
    expect(again).toMatchObject({ status: 400, body: { result: { code: '100.350.101' } } });
    const events = await eventsOf(t.gateway.store, created.id);
    expect(events.map((event) => [event.action, event.payload.paymentType])).toEqual([['CREATED', 'SD'], ['DELETED', 'DS']]);
    await runAt(new Date(clock.now().getTime() + 3 * HOUR_MS));
    expect(await paymentsOf(registrationId)).toHaveLength(0);
  });

  it('is cancelled (DS) when its registration is deleted', async () => {
    const deletedCard = await storedCard();
    const first = await scheduled(deletedCard, { 'job.expression': '0 0 * * * ?' });
    const second = await scheduled(deletedCard, { 'job.expression': '0 30 * * * ?' });
    expect((await t.delete(`/v1/registrations/${deletedCard}`, { entityId: t.entityId })).status).toBe(200);
    for (const id of [first.id, second.id]) {
      expect((await eventsOf(t.gateway.store, id)).map((event) => event.action)).toEqual(['CREATED', 'DELETED']);
      expect((await t.delete(`/scheduling/v1/schedules/${id}`, { entityId: t.entityId })).body.result.code).toBe('100.350.101');
    }
    // A schedule on it is refused now.
    expect((await schedule(deletedCard, { 'job.expression': '0 0 * * * ?' })).body.result.code).toBe('100.150.202');

  });

  it('leaves its registration undeleted when its cancellation fails: the deletion and the cancellations commit together', async () => {
    const registrationId = await storedCard();
    const hourly = await scheduled(registrationId, { 'job.expression': '0 0 * * * ?' });
    // The store refuses to cancel this one schedule, in the middle of the deletion's transaction.
    await t.gateway.store.query("CREATE FUNCTION refuse_cancellation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'cancellation refused'; END $$");
    await t.gateway.store.query(
      `CREATE TRIGGER refuse_cancellation BEFORE UPDATE ON schedules FOR EACH ROW WHEN (OLD.id = '${hourly.id}' AND NEW.status = 'cancelled') EXECUTE FUNCTION refuse_cancellation()`,
    );
    try {
      expect((await t.delete(`/v1/registrations/${registrationId}`, { entityId: t.entityId })).status).toBe(500);
    } finally {
      await t.gateway.store.query('DROP TRIGGER refuse_cancellation ON schedules');
      await t.gateway.store.query('DROP FUNCTION refuse_cancellation()');
    }
    expect((await eventsOf(t.gateway.store, registrationId)).map((event) => event.action)).not.toContain('DELETED');
    expect((await t.get(`/v1/registrations/${registrationId}`, { entityId: t.entityId })).status).toBe(200);
    expect((await eventsOf(t.gateway.store, hourly.id)).map((event) => event.action)).toEqual(['CREATED']);
    // The schedule still pays with the card, which was not erased.
    await runAt(hourly.job.startDate);
    expect((await paymentsOf(registrationId)).map((payment) => payment.status)).toEqual(['approved']);

    // Once the cancellation succeeds, the deletion commits with it.
    expect((await t.delete(`/v1/registrations/${registrationId}`, { entityId: t.entityId })).status).toBe(200);
    expect((await eventsOf(t.gateway.store, hourly.id)).map((event) => event.action)).toEqual(['CREATED', 'DELETED']);
  });

  it('runs the fire times missed while no gateway ran once, within the catch-up window, and skips older ones', async () => {
    const registrationId = await storedCard();
    const hourly = await scheduled(registrationId, { 'job.expression': '0 15 * * * ?' });
    const firstFire = hourly.job.startDate as number;
    // Down for five hours: back at 40 minutes past, the missed 5 fire times make one payment, for the latest.
    await runAt(new Date(firstFire + 4 * HOUR_MS + 25 * 60_000));
    expect(await paymentsOf(registrationId)).toHaveLength(1);
    const [caughtUp] = await findExecutions(t.gateway.store, hourly.id);
    expect(caughtUp).toMatchObject({ fireAt: new Date(firstFire + 4 * HOUR_MS), missed: 4, outcome: 'paid' });
    const read = await t.get(`/scheduling/v1/schedules/${hourly.id}`, { entityId: t.entityId });
    expect(read.body.job.startDate).toBe(firstFire + 5 * HOUR_MS);

    // Down for four days (beyond the 72-hour window): the first day's fire times are skipped, the latest is run.
    const daily = await scheduled(registrationId, { 'job.expression': '0 0 6 * * ?' });
    const dailyFire = daily.job.startDate as number;
    await runAt(new Date(dailyFire + 4 * DAY_MS + HOUR_MS));
    const executions = await findExecutions(t.gateway.store, daily.id);
    expect(executions).toMatchObject([{ fireAt: new Date(dailyFire + 4 * DAY_MS), missed: 2, outcome: 'paid' }]);
  });

  it('ends after its last fire time before job.endDate, or the end of its duration', async () => {
    const registrationId = await storedCard();
    const now = clock.now();
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const format = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');
    const twice = await scheduled(registrationId, {
      'job.expression': '0 0 7 * * ?',
      'job.startDate': format(start),
      'job.endDate': format(new Date(start.getTime() + DAY_MS + 8 * HOUR_MS)),
    });
    expect(twice.job).toMatchObject({ startDate: start.getTime() + 7 * HOUR_MS, endDate: start.getTime() + DAY_MS + 8 * HOUR_MS });
    await runAt(new Date(start.getTime() + 7 * HOUR_MS));
    await runAt(new Date(start.getTime() + DAY_MS + 7 * HOUR_MS));
    await runAt(new Date(start.getTime() + 2 * DAY_MS + 7 * HOUR_MS));
    expect(await findExecutions(t.gateway.store, twice.id)).toHaveLength(2);
    expect((await t.delete(`/scheduling/v1/schedules/${twice.id}`, { entityId: t.entityId })).body.result).toMatchObject({ code: '100.350.101', description: expect.stringContaining('ended') });

    // A start in the past: the first execution is the next fire time from now, none before the schedule existed.
    const past = await scheduled(registrationId, { 'job.expression': '0 0 7 * * ?', 'job.startDate': '2020-01-01 00:00:00' });
    const today7 = new Date(clock.now().getTime());
    today7.setUTCHours(7, 0, 0, 0);
    expect(past.job.startDate).toBe(today7.getTime() >= clock.now().getTime() ? today7.getTime() : today7.getTime() + DAY_MS);

    const threeDays = await scheduled(registrationId, { 'job.expression': '0 0 7 * * ?', 'job.durationUnit': 'DAY', 'job.durationNumber': '3' });
    expect(threeDays.job).toMatchObject({ durationUnit: 'DAY', durationNumber: '3', endDate: clock.now().getTime() + 3 * DAY_MS });
  });

  it('announces its end (active → ended) at its last fire time with one SCHEDULE UPDATED event', async () => {
    const registrationId = await storedCard();
    const now = clock.now();
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const endDate = start + DAY_MS + 8 * HOUR_MS;
    const format = (at: number) => new Date(at).toISOString().slice(0, 19).replace('T', ' ');
    const twice = await scheduled(registrationId, { 'job.expression': '0 0 7 * * ?', 'job.startDate': format(start), 'job.endDate': format(endDate) });
    const events = () => eventsOf(t.gateway.store, twice.id);
    await runAt(start + 7 * HOUR_MS);
    expect((await events()).map((event) => event.action)).toEqual(['CREATED']);

    // The last fire time before the end is taken: the schedule ends with it.
    const lastFire = start + DAY_MS + 7 * HOUR_MS;
    await runAt(lastFire);
    const [created, ended, ...more] = await events();
    expect(more).toEqual([]);
    expect(created?.action).toBe('CREATED');
    expect(ended).toMatchObject({ type: 'SCHEDULE', action: 'UPDATED', entityId: t.entityId, createdAt: new Date(lastFire) });
    expect(ended?.payload).toMatchObject({ id: twice.id, registrationId, paymentType: 'DB', job: { endDate }, result: { code: '000.000.000' } });
    expect(ended?.payload.job).not.toHaveProperty('startDate');
    await runAt(start + 2 * DAY_MS + 7 * HOUR_MS);
    expect((await events()).map((event) => event.action)).toEqual(['CREATED', 'UPDATED']);
  });

  it('answers the §12 codes for refused requests, naming the parameter, and stores nothing', async () => {
    const registrationId = await storedCard();
    const count = async () => (await t.gateway.store.query<{ n: number }>('SELECT count(*)::int AS n FROM schedules')).rows[0]?.n;
    const before = await count();
    const cases: [Record<string, string>, string, string | undefined][] = [
      [{ 'job.hour': '24' }, '100.250.121', 'job.hour'],
      [{ 'job.minute': '60' }, '100.250.122', 'job.minute'],
      [{ 'job.second': '5-61' }, '100.250.122', 'job.second'],
      [{ 'job.dayOfMonth': '32' }, '100.250.123', 'job.dayOfMonth'],
      [{ 'job.month': '13' }, '100.250.124', 'job.month'],
      [{ 'job.dayOfMonth': '?', 'job.dayOfWeek': '8' }, '100.250.125', 'job.dayOfWeek'],
      [{ 'job.dayOfMonth': '1', 'job.dayOfWeek': 'MON' }, '100.250.120', 'job.dayOfMonth'],
      [{ 'job.dayOfMonth': '?', 'job.dayOfWeek': '?' }, '100.250.120', 'job.dayOfMonth'],
      [{ 'job.hour': 'L' }, '100.250.121', 'job.hour'],
      [{ 'job.year': '2100' }, '200.300.404', 'job.year'],
      [{ 'job.expression': '0 0 12 * *' }, '100.250.120', 'job.expression'],
      [{ 'job.expression': '0 0 25 * * ?' }, '100.250.121', 'job.expression'],
      [{ 'job.expression': '0 0 12 30 2 ?' }, '100.250.100', 'job.expression'],
      [{ 'job.expression': '0 0 12 * * ? 2020' }, '100.250.100', 'job.expression'],
      [{ 'job.expression': '0 0 12 * * ?', 'job.startDate': '2026-08-01 00:00:00', 'job.endDate': '2026-07-01 00:00:00' }, '200.300.404', 'job.endDate'],
      [{ 'job.expression': '0 0 12 * * ?', 'job.startDate': '2026-08-01' }, '200.300.404', 'job.startDate'],
      [{ 'job.expression': '0 0 12 * * ?', 'job.durationNumber': '3' }, '100.250.106', 'job.durationUnit'],
      [{ 'job.expression': '0 0 12 * * ?', 'job.noticeNumber': '3' }, '100.250.107', 'job.noticeUnit'],
      [{}, '100.250.110', 'job.expression'],
      [{ 'job.expression': '0 0 12 * * ?', amount: '12,50' }, '200.300.404', 'amount'],
      [{ 'job.expression': '0 0 12 * * ?', currency: 'euro' }, '200.300.404', 'currency'],
      [{ 'job.expression': '0 0 12 * * ?', paymentType: 'RF' }, '200.300.404', 'paymentType'],
      [{ 'job.expression': '0 0 12 * * ?', 'standingInstruction.source': 'CIT' }, '200.300.404', 'standingInstruction.source'],
      [{ 'job.expression': '0 0 12 * * ?', registrationId: 'abc' }, '200.300.404', 'registrationId'],
      [{ 'job.expression': '0 0 12 * * ?', registrationId: '0123456789abcdef0123456789abcdef' }, '100.150.200', 'registrationId'],
      [{ 'job.expression': '0 0 12 * * ?', testMode: 'SOMETIMES' }, '100.300.101', undefined],
    ];
    for (const [overrides, code, parameter] of cases) {
      const answer = await schedule(registrationId, overrides);
      expect([answer.status, answer.body.result.code, JSON.stringify(overrides)]).toEqual([400, code, JSON.stringify(overrides)]);
      if (parameter) expect(answer.body.result.parameterErrors?.map((error: { name: string }) => error.name), JSON.stringify(overrides)).toContain(parameter);
    }
    // Another entity's registration is unknown; a registration migrated without its agreement (no connectorTxId1) is refused.
    const other = await t.newMerchant();
    const foreign = await t.post('/scheduling/v1/schedules', { entityId: other.entityId, registrationId, amount: '1.00', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 12 * * ?' }, { token: other.token });
    expect(foreign.body.result.code).toBe('100.150.200');
    const plain = await t.post('/v1/registrations', { entityId: t.entityId, ...testCard(), 'recurringMigration.paymentType': 'DB' });
    expect((await schedule(plain.body.id, { 'job.expression': '0 0 12 * * ?' })).body.result.code).toBe('600.200.501');
    expect((await schedule(plain.body.id, { 'job.expression': '0 0 12 * * ?', 'standingInstruction.initialTransactionId': '123456789012345' })).status).toBe(200);
    expect(await count()).toBe((before ?? 0) + 1);
  });

  it('applies the §12 defaults to the job fields and accepts leading zeros and names', async () => {
    const registrationId = await storedCard();
    const onlyHour = await scheduled(registrationId, { 'job.hour': '05' });
    expect(onlyHour.job).toMatchObject({ second: '0', minute: '0', hour: '05', dayOfMonth: '1', month: '1', dayOfWeek: '?', year: '*' });
    // Month 1 and day 1 by default: the next 1 January, 05:00.
    expect(onlyHour.job.startDate).toBe(Date.UTC(clock.now().getUTCFullYear() + 1, 0, 1, 5));
    const weekly = await scheduled(registrationId, { 'job.dayOfWeek': 'MON', 'job.month': '*', 'job.hour': '8' });
    expect(weekly.job).toMatchObject({ dayOfMonth: '?', dayOfWeek: 'MON' });
    expect(new Date(weekly.job.startDate as number).getUTCDay()).toBe(1);
  });

  it('notifies a webhook of the schedule (SD), each execution’s payment (source SYSTEM) and the cancellation (DS)', async () => {
    const secret = 'AB'.repeat(32);
    const receiver = await startNodeReceiver(secret);
    try {
      const registrationId = await storedCard();
      const { webhook } = await createWebhook(t.gateway.webhooks.services, t.entityId, { url: receiver.url, secret, types: ['SCHEDULE', 'PAYMENT'] });
      expect(webhook.status).toBe('active');
      const created = await scheduled(registrationId, { 'job.expression': '0 45 * * * ?' });
      await runAt(created.job.startDate as number);
      expect((await t.delete(`/scheduling/v1/schedules/${created.id}`, { entityId: t.entityId })).status).toBe(200);
      while ((await t.gateway.webhooks.deliveries.runDueJobs()) > 0);
      const notifications = receiver.received.map((request) => request.json as { type: string; action: string; payload: Record<string, any> });
      // Delivery order is not guaranteed (COMPAT §13).
      // Other tests' schedules of this merchant fire too: only this registration's notifications count.
      const find = (type: string, action: string) =>
        notifications.filter((notification) => notification.type === type && notification.action === action && notification.payload.registrationId === registrationId);
      const [sd, payment, ds] = [find('SCHEDULE', 'CREATED'), find('PAYMENT', 'CREATED'), find('SCHEDULE', 'DELETED')].map((found) => {
        expect(found).toHaveLength(1);
        return found[0];
      });
      expect(sd).toMatchObject({ type: 'SCHEDULE', action: 'CREATED', payload: { id: created.id, paymentType: 'SD', registrationId, amount: '12.50', job: { expression: '0 45 * * * ? *' }, result: { code: '000.000.000' } } });
      expect(payment).toMatchObject({ type: 'PAYMENT', payload: { registrationId, paymentType: 'DB', source: 'SYSTEM', amount: '12.50', standingInstruction: { source: 'MIT', mode: 'REPEATED' } } });
      expect(ds).toMatchObject({ type: 'SCHEDULE', action: 'DELETED', payload: { id: created.id, paymentType: 'DS' } });
    } finally {
      await receiver.close();
    }
  });

  it('answers the first request again for a repeated Idempotency-Key, with one schedule', async () => {
    const registrationId = await storedCard();
    const params = { entityId: t.entityId, registrationId, amount: '5.00', currency: 'EUR', paymentType: 'DB', 'job.expression': '0 0 3 * * ?' };
    const headers = { 'Idempotency-Key': `schedule-${kind}` };
    const first = await t.post('/scheduling/v1/schedules', params, { headers });
    const second = await t.post('/scheduling/v1/schedules', params, { headers });
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });
  // Last: it moves the clock years ahead.
  it('is cancelled (DS) when its registration has expired at a fire time', async () => {
    // A registration expires 13 months after its last use: a schedule that next fires two years later finds it expired.
    const expiring = await storedCard();
    const year = clock.now().getUTCFullYear() + 1;
    const yearly = await scheduled(expiring, { 'job.expression': `0 0 12 1 1 ? ${year},${year + 2},${year + 3}` });
    const fire = new Date(yearly.job.startDate as number);
    expect(fire.toISOString()).toBe(`${year}-01-01T12:00:00.000Z`);
    await runAt(fire);
    expect(await paymentsOf(expiring)).toHaveLength(1);
    await runAt(`${year + 2}-01-01T12:00:00Z`);
    expect(await paymentsOf(expiring)).toHaveLength(1);
    const executions = await findExecutions(t.gateway.store, yearly.id);
    expect(executions.map((execution) => [execution.outcome, execution.resultCode])).toEqual([['paid', expect.any(String)], ['skipped', '100.150.203']]);
    expect((await eventsOf(t.gateway.store, yearly.id)).map((event) => [event.action, event.payload.paymentType])).toEqual([['CREATED', 'SD'], ['DELETED', 'DS']]);
    const read = await t.get(`/scheduling/v1/schedules/${yearly.id}`, { entityId: t.entityId });
    expect(read.body.job.startDate).toBeUndefined();
  });
});
