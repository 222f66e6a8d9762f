import type { AcquirerAnswer } from '../acquirers/types.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { isCheckoutId, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { formatAmount, parseAmount } from '../domain/money.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { statusOfResult } from '../domain/paymentState.ts';
import { describeResultCode, RESULTS } from '../domain/resultCodes.ts';
import { adminNotFound } from '../http/admin.ts';
import { processBackOffice } from '../payments/flows/backOffice.ts';
import type { SettlementOutcome } from '../payments/flows/asynchronous.ts';
import { settlePayment } from '../payments/settlementRoutes.ts';
import { openAttemptsOfPayments } from '../payments/store/attempts.ts';
import { providerNotified } from '../payments/providerWord.ts';
import { backOfficeCommand } from '../payments/request.ts';
import type { PaymentServices } from '../payments/services.ts';
import { findLatestChild, findPaymentsById } from '../payments/store/payments.ts';
import { paymentBody, resultOf } from '../payments/view.ts';
import { dayFile } from '../reconciliation/dayFile.ts';
import { fileJson, resendFile, ResendRefused } from '../reconciliation/files.ts';
import { findFtpSettings } from '../reconciliation/repository.ts';
import { runSettlement, settlementDateProblem, type SettlementRunDeps } from '../reports/settlementRun.ts';
import { expiryOf } from '../registrations/storedCards.ts';
import type { Store } from '../store/index.ts';
import { resendDelivery, WebhookConfigError } from '../webhooks/service.ts';

/**
 * The events a CI test makes happen when it wants them (issue 36), each on the shop's own objects, through the control
 * API (`POST /test/v1/triggers/{name}`), the command line (`trigger <name>`) and the Playwright fixture
 * (`gateway.trigger`). A trigger does what the gateway itself does when the event comes — the same flows, the same
 * rules, the same events and webhooks — only now: a chargeback through the back-office flow, a provider's word through
 * the asynchronous flow, an expiry by moving the object's own deadline to the gateway's clock and running what falls
 * due. It answers with what it caused: the objects (ids) and the events appended meanwhile.
 */

export interface TriggerDependencies {
  readonly payments: PaymentServices;
  readonly store: Store;
  /** Runs what is due now until nothing more is (the control API's rounds). */
  readonly runUntilQuiet: () => Promise<number>;
  /** The daily settlement's dependencies (test environment: the simulated acquirers settle). */
  readonly settlement: Omit<SettlementRunDeps, 'store' | 'now'>;
  /** PspId of the reconciliation files. */
  readonly pspId: string;
}

/** What a trigger did: the objects it made or changed, under names a test reads (`chargebackId`, `paymentId` …). */
export interface Caused {
  readonly caused: Readonly<Record<string, unknown>>;
  /** 200, or 409 when the gateway's own rules refused it (a chargeback of more than was paid): `caused` says what. */
  readonly status?: 200 | 409;
}

/** A trigger's parameters, as the control API reads a form or a query string. */
type Params = ReadonlyMap<string, string>;

type Trigger = (deps: TriggerDependencies, params: Params) => Promise<Caused>;

/** An id parameter, checked as the API checks them: absent or malformed is the caller's mistake, named. */
function idParam(params: Params, name: string, valid: (id: string) => boolean = (id) => RESOURCE_ID.test(id)): string {
  const value = params.get(name) ?? '';
  if (!valid(value)) throw invalidParameters([{ name, value, message: 'must be an id the gateway answered' }]);
  return value;
}

async function paymentOf(deps: TriggerDependencies, id: string, what = 'payment'): Promise<PaymentRecord> {
  const [payment] = await findPaymentsById(deps.store, [id]);
  if (!payment) throw adminNotFound(what, id);
  return payment;
}

/** A payment as the API answers it, with the result it ended with. */
const shown = (payment: PaymentRecord) => ({ ...paymentBody(payment), result: resultOf(payment) });
/** Approved or pending is what was asked for; a decline is the gateway's rules refusing it. */
const statusOf = (payment: PaymentRecord): 200 | 409 => (statusOfResult(payment.resultCode) === 'declined' ? 409 : 200);

/** A chargeback (CB) or its reversal (CR) through the back-office flow, as the acquirer's dispute feed would record it. */
async function backOffice(deps: TriggerDependencies, params: Params, type: 'CB' | 'CR', referenced: PaymentRecord): Promise<PaymentRecord> {
  const request = new Map<string, string>([
    ['paymentType', type],
    ['amount', params.get('amount') ?? formatAmount(referenced.amountMinor)],
    ['currency', referenced.currency],
  ]);
  const reason = params.get('reasonCode');
  if (reason !== undefined) request.set('chargebackResultCode', reason);
  const command = backOfficeCommand(request, { entityId: referenced.entityId, referencedId: referenced.id, environment: deps.payments.environment, paymentId: newResourceId() });
  const made = await processBackOffice(deps.payments, command);
  if (!made) throw new Error('a chargeback was skipped');
  return made;
}

/** The provider's word on a payment that waits (a voucher paid, a transfer confirmed or refused, a deadline passed). */
function providerWord(outcome: SettlementOutcome): Trigger {
  return async (deps, params) => ({ caused: { payment: shown(await settlePayment(deps.payments, idParam(params, 'paymentId'), outcome)) } });
}

/** A registration's last use that makes it expire at `now` (its lifetime runs from its last successful use). */
export function lastUseExpiringAt(now: Date, lifetimeMonths: number): Date {
  const used = new Date(now.getTime());
  used.setUTCMonth(used.getUTCMonth() - lifetimeMonths);
  // A month without the day (31 March less one month) rolls over: step back until the expiry is not after now.
  while (expiryOf({ lastUsedAt: used }, lifetimeMonths).getTime() > now.getTime()) used.setUTCDate(used.getUTCDate() - 1);
  return used;
}

export const TRIGGERS: Readonly<Record<string, Trigger>> = {
  /** `paymentId`, `amount` (default: the whole payment), `reasonCode` (000.100.2xx, default 000.100.200). */
  async chargeback(deps, params) {
    const payment = await paymentOf(deps, idParam(params, 'paymentId'));
    const chargeback = await backOffice(deps, params, 'CB', payment);
    return { caused: { chargeback: shown(chargeback) }, status: statusOf(chargeback) };
  },
  /** `chargebackId` (or `paymentId`: its latest chargeback), `amount` (default: the chargeback's). */
  async 'chargeback-reversal'(deps, params) {
    const chargeback = params.has('chargebackId')
      ? await paymentOf(deps, idParam(params, 'chargebackId'), 'chargeback')
      : await findLatestChild(deps.store, (await paymentOf(deps, idParam(params, 'paymentId'))).id, 'CB');
    if (!chargeback || chargeback.paymentType !== 'CB') throw adminNotFound('chargeback', params.get('chargebackId') ?? `of payment ${params.get('paymentId') ?? ''}`);
    const reversal = await backOffice(deps, params, 'CR', chargeback);
    return { caused: { reversal: shown(reversal) }, status: statusOf(reversal) };
  },
  'async-approval': providerWord('approved'),
  'async-decline': providerWord('declined'),
  'async-expiry': providerWord('expired'),
  /** `deliveryId`, or `paymentId`: the latest delivery of an event of that payment. */
  async 'webhook-resend'(deps, params) {
    let deliveryId: string;
    if (params.has('deliveryId')) {
      deliveryId = idParam(params, 'deliveryId');
    } else {
      const paymentId = idParam(params, 'paymentId');
      const found = await deps.store.query<{ id: string }>(
        'SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.resource_id = $1 ORDER BY d.created_at DESC, e.id DESC LIMIT 1',
        [paymentId],
      );
      const latest = found.rows[0];
      if (!latest) throw adminNotFound('webhook delivery for payment', paymentId);
      deliveryId = latest.id;
    }
    try {
      await resendDelivery(deps.payments, deliveryId);
    } catch (error) {
      // The one refusal a re-send has: no such delivery.
      if (error instanceof WebhookConfigError) throw adminNotFound('webhook delivery', deliveryId);
      throw error;
    }
    return { caused: { deliveryId } };
  },
  /** `checkoutId`: it expires now, and what waits for its expiry runs (a summary page's saved payment data is dropped). */
  async 'checkout-expiry'(deps, params) {
    const id = idParam(params, 'checkoutId', isCheckoutId);
    const now = deps.payments.now();
    const changed = await deps.store.transaction(async (tx) => {
      const found = await tx.query<{ expires_at: Date }>(
        'UPDATE checkouts SET expires_at = least(expires_at, $2::timestamptz) WHERE id = $1 AND deleted_at IS NULL RETURNING expires_at',
        [id, now.toISOString()],
      );
      if (found.rows.length === 0) return undefined;
      // The jobs that wait for this checkout's expiry (or come after it) are due now: they find it expired.
      await tx.query("UPDATE jobs SET run_at = $2::timestamptz WHERE payload->>'checkoutId' = $1 AND done_at IS NULL AND failed_at IS NULL AND run_at > $2::timestamptz", [
        id,
        now.toISOString(),
      ]);
      return new Date(found.rows[0]?.expires_at as Date);
    });
    if (!changed) throw adminNotFound('checkout', id);
    return { caused: { checkoutId: id, expiredAt: changed.toISOString() } };
  },
  /** `scheduleId`: its next fire time is now (the following ones stay as its expression says). */
  async 'schedule-fire'(deps, params) {
    const id = idParam(params, 'scheduleId');
    const now = deps.payments.now();
    const found = await deps.store.query<{ status: string }>('SELECT status FROM schedules WHERE id = $1', [id]);
    const status = found.rows[0]?.status;
    if (status === undefined) throw adminNotFound('schedule', id);
    if (status !== 'active') throw new GatewayError(withReason(RESULTS.invalidParameter, `schedule ${id} is ${status}: it fires no more`), 409);
    await deps.store.query("UPDATE schedules SET next_fire_at = $2::timestamptz WHERE id = $1 AND status = 'active'", [id, now.toISOString()]);
    return { caused: { scheduleId: id, firedAt: now.toISOString() } };
  },
  /** `registrationId`: its lifetime ends now (it answers 100.150.203 from now on, until a new registration replaces it). */
  async 'registration-expiry'(deps, params) {
    const id = idParam(params, 'registrationId');
    const now = deps.payments.now();
    const lastUse = lastUseExpiringAt(now, deps.payments.registrationLifetimeMonths);
    const updated = await deps.store.query<{ last_used_at: Date }>(
      'UPDATE registrations SET last_used_at = least(last_used_at, $2::timestamptz) WHERE id = $1 AND deleted_at IS NULL RETURNING last_used_at',
      [id, lastUse.toISOString()],
    );
    const row = updated.rows[0];
    if (!row) throw adminNotFound('registration', id);
    return { caused: { registrationId: id, expiredAt: expiryOf({ lastUsedAt: new Date(row.last_used_at) }, deps.payments.registrationLifetimeMonths).toISOString() } };
  },
  /**
   * `date` (yyyy-MM-dd, default today on the gateway's clock), `entityId` (default: every entity the run settled):
   * the simulated acquirers' settlement run of the day, then each entity's reconciliation file of the day — its
   * content in the answer, and sent to the entity's FTP server when it has one and the day is over.
   */
  async settlement(deps, params) {
    const now = deps.payments.now();
    const date = params.get('date') ?? now.toISOString().slice(0, 10);
    const problem = settlementDateProblem(date, now);
    if (problem) throw invalidParameters([{ name: 'date', value: date, message: problem }]);
    const entityId = params.has('entityId') ? idParam(params, 'entityId') : undefined;
    const run = await runSettlement({ ...deps.settlement, store: deps.store, now: deps.payments.now }, date);
    const batches = run.batches.filter((batch) => entityId === undefined || batch.entityId === entityId);
    const entities = entityId !== undefined ? [entityId] : [...new Set(batches.map((batch) => batch.entityId))];
    const files = [];
    for (const entity of entities) {
      const file = await dayFile(deps.store, entity, date, deps.pspId);
      if (!file) throw adminNotFound('entity', entity);
      let content = '';
      for await (const chunk of file.chunks) content += chunk.toString('utf8');
      let upload: unknown = 'no FTP settings';
      if (await findFtpSettings(deps.store, entity)) {
        try {
          upload = fileJson(await resendFile(deps.store, entity, date, now));
        } catch (error) {
          if (!(error instanceof ResendRefused)) throw error;
          upload = error.message;
        }
      }
      files.push({ entityId: entity, name: file.name, records: file.counted.records, content, upload });
    }
    return {
      caused: {
        date,
        until: run.until.toISOString(),
        batches: batches.map((batch) => ({ ...batch, settlementAmount: formatAmount(batch.settlementAmountMinor) })),
        files,
      },
    };
  },
  /**
   * `paymentId` of a payment made through a connector, `resultCode` (default: approved), `paymentType` (default the
   * payment's own; CB or CR: a chargeback the provider recorded on it): what the provider's notification would say,
   * read as the gateway reads an authentic one.
   */
  async 'upstream-notification'(deps, params) {
    const payment = await paymentOf(deps, idParam(params, 'paymentId'));
    const acquirer = deps.payments.acquirers.get(payment.acquirer);
    if (!acquirer?.readNotification) {
      throw new GatewayError(withReason(RESULTS.invalidParameter, `payment ${payment.id} went through ${payment.acquirer}, not a connector with notifications`), 409);
    }
    const paymentType = params.get('paymentType') ?? payment.paymentType;
    if (!/^[A-Z]{2}$/.test(paymentType)) throw invalidParameters([{ name: 'paymentType', value: paymentType, message: 'must be a payment type (DB, PA, CB, CR …)' }]);
    const code = params.get('resultCode') ?? RESULTS.successfulRequest.code;
    if (!/^\d{3}\.\d{3}\.\d{3}$/.test(code)) throw invalidParameters([{ name: 'resultCode', value: code, message: 'must be a result code (000.000.000)' }]);
    const amount = params.get('amount');
    const amountMinor = amount === undefined ? payment.amountMinor : parseAmount(amount);
    if (amountMinor === undefined) throw invalidParameters([{ name: 'amount', value: amount ?? '', message: 'must be an amount like 10.00' }]);
    const chargeback = paymentType === 'CB' || paymentType === 'CR';
    // A payment has one open attempt at most: the one the provider's word on the payment answers.
    const attemptId = chargeback ? undefined : (await openAttemptsOfPayments(deps.store, [payment.id]))[0]?.id;
    const answer: AcquirerAnswer = { code, description: describeResultCode(code), details: {}, reference: chargeback ? `UPSTREAM-${newResourceId()}` : (payment.acquirerReference ?? '') };
    const outcome = await providerNotified(deps.payments, acquirer, {
      kind: 'payment',
      merchantTransactionId: attemptId,
      paymentType,
      referencedReference: chargeback ? (payment.acquirerReference ?? undefined) : undefined,
      amountMinor,
      currency: payment.currency,
      answer,
    });
    return { caused: { paymentId: payment.id, outcome } };
  },
};

export const TRIGGER_NAMES = Object.keys(TRIGGERS);

/** The events appended since `afterId` (what a trigger, and what fell due after it, caused), at most 200. */
export async function eventsSince(store: Store, afterId: number): Promise<{ id: number; type: string; action: string; resourceId: string; createdAt: string }[]> {
  const found = await store.query<{ id: string; type: string; action: string; resource_id: string; created_at: Date }>(
    'SELECT id, type, action, resource_id, created_at FROM events WHERE id > $1 ORDER BY id LIMIT 200',
    [afterId],
  );
  return found.rows.map((row) => ({ id: Number(row.id), type: row.type, action: row.action, resourceId: row.resource_id, createdAt: new Date(row.created_at).toISOString() }));
}

export async function lastEventId(store: Store): Promise<number> {
  const found = await store.query<{ last: string | null }>('SELECT max(id)::text AS last FROM events');
  return Number(found.rows[0]?.last ?? 0);
}

/** Runs a trigger, then what fell due, and answers what it caused with the events appended meanwhile. */
export async function runTrigger(deps: TriggerDependencies, name: string, params: Params): Promise<Caused & { readonly events: Awaited<ReturnType<typeof eventsSince>>; readonly ran: number }> {
  const trigger = Object.hasOwn(TRIGGERS, name) ? TRIGGERS[name] : undefined;
  if (!trigger) throw new GatewayError(withReason(RESULTS.invalidRequestStructure, `no trigger ${name.slice(0, 64)}: one of ${TRIGGER_NAMES.join(', ')}`), 404);
  const before = await lastEventId(deps.store);
  const done = await trigger(deps, params);
  const ran = await deps.runUntilQuiet();
  return { ...done, events: await eventsSince(deps.store, before), ran };
}
