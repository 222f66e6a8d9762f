import { setTimeout as delay } from 'node:timers/promises';
import type { OppConnectorSettings } from '../../acquirerConfig.ts';
import { GatewayError, withReason } from '../../domain/errors.ts';
import { RESULTS } from '../../domain/resultCodes.ts';
import type { Logger } from '../../logger.ts';
import type { CredentialsLookup, ProviderCredentials } from '../credentials.ts';
import {
  AcquirerOutcomeUnknownError,
  AcquirerUnreachableError,
  type Acquirer,
  type AcquirerAnswer,
  type InquiredAttempt,
  type ProviderSettlementBatch,
  type ProviderSettlementRecord,
} from '../types.ts';
import { createOppClient, type CallResult, type OppClient } from './client.ts';
import { readNotification } from './notifications.ts';
import { readAggregations, readRecordPage } from './settlements.ts';
import { authorizationForm, backOfficeForm, readPaymentAnswer, readQueryAnswer, type FormFields, type ReadAnswer } from './translate.ts';

/**
 * The `opp` connector (issue 33, DESIGN principle 13): an acquirer that sends each operation to a provider speaking the
 * platform's server-to-server API, with the merchant entity's credentials there (credentials.ts). Only the HTTP calls
 * per flow live here (authorize, back office, inquire, the settlement reports); translate.ts maps requests and
 * answers (notifications.ts and settlements.ts read what the provider sends otherwise), client.ts tells a request that
 * never left from one whose answer was lost.
 *
 * An answer lost after the request was sent is never repaired by sending again: the provider is asked what it did
 * (GET /v1/query?merchantTransactionId=<attempt id>) — once at once when the answer was cut off or unreadable, and
 * then by the gateway's recovery until it knows. "No such transaction" counts as never received only once
 * `neverReceivedAfterMs` have passed since the request was sent: a slow provider may still be making it.
 */

/** How long the inquiry made at once, within the merchant's request, may take. */
const IMMEDIATE_INQUIRY_TIMEOUT_MS = 5000;
/** A settlement report the provider throttles is asked again this much later, this many times at most. */
const REPORT_RETRY_MS = 1100;
const REPORT_ATTEMPTS = 5;

export interface OppConnectorDeps {
  readonly credentials: CredentialsLookup;
  readonly now: () => Date;
  readonly logger: Logger;
}

export interface OppConnector extends Acquirer {
  /** Closes its connections to the provider. */
  close(): void;
}

/** The entity's credentials, or the refusal of a payment routed to an acquirer it has none at: nothing is sent. */
async function credentialsOf(deps: OppConnectorDeps, name: string, entityId: string): Promise<ProviderCredentials> {
  const found = await deps.credentials.get(entityId, name);
  if (found) return found;
  throw new GatewayError(withReason(RESULTS.merchantConnectorNotSetUp, `this entity has no credentials at the acquirer ${name}: the operator sets them`), 400);
}

export function createOppConnector(name: string, settings: OppConnectorSettings, deps: OppConnectorDeps, client: OppClient = createOppClient(settings)): OppConnector {
  const { logger } = deps;

  /** The provider's refusal, as the merchant is answered: its result, with its own parameter errors. */
  const refusal = (read: Extract<ReadAnswer, { kind: 'refused' }>, entityId: string): GatewayError => {
    if (read.credentials) {
      logger.error('the acquirer refused the entity’s credentials: set them again (PUT /admin/v1/entities/{entityId}/acquirers/{name})', { acquirer: name, entityId, code: read.result.code });
      return new GatewayError(withReason(RESULTS.merchantConnectorRefused, `the acquirer ${name} refused this entity's credentials: the operator sets them`), 400);
    }
    return new GatewayError(read.result, 400, read.parameterErrors.length > 0 ? read.parameterErrors : undefined);
  };

  /** Asks the provider about an attempt; the answer, 'notFound', or why it cannot tell. */
  async function ask(attempt: InquiredAttempt, credentials: ProviderCredentials, timeoutMs?: number): Promise<AcquirerAnswer | 'notFound' | { readonly unknown: string }> {
    const byReference = attempt.reference !== null;
    const called = byReference
      ? await client.get(`/v1/payments/${encodeURIComponent(attempt.reference as string)}`, { entityId: credentials.entityId }, credentials.accessToken, timeoutMs)
      : await client.get('/v1/query', { entityId: credentials.entityId, merchantTransactionId: attempt.attemptId }, credentials.accessToken, timeoutMs);
    if (called.kind !== 'response') return { unknown: called.reason };
    const read = byReference ? readPaymentAnswer(called.status, called.body, true) : readQueryAnswer(called.status, called.body, attempt.paymentType);
    switch (read.kind) {
      case 'answer':
        return read.answer;
      case 'notFound':
        return 'notFound';
      case 'refused':
        if (read.credentials) logger.error('the acquirer refused the entity’s credentials to an inquiry', { acquirer: name, entityId: attempt.entityId, code: read.result.code });
        return { unknown: `the inquiry was refused: ${read.result.code} ${read.result.description}` };
      case 'unreadable':
        return { unknown: read.reason };
    }
  }

  /**
   * Sends an operation once and reads what came back. A request that may have reached the provider without an answer
   * that can be read is asked about at once (unless it timed out: a provider that slow is asked later, by the recovery).
   */
  async function operate(attemptId: string, entityId: string, paymentType: string, path: string, form: FormFields, credentials: ProviderCredentials): Promise<AcquirerAnswer> {
    const called: CallResult = await client.post(path, form, credentials.accessToken);
    if (called.kind === 'notSent') throw new AcquirerUnreachableError(name, called.reason);
    let lost: string;
    if (called.kind === 'response') {
      const read = readPaymentAnswer(called.status, called.body);
      if (read.kind === 'answer') return read.answer;
      if (read.kind === 'refused') throw refusal(read, entityId);
      lost = read.kind === 'unreadable' ? read.reason : 'an answer that named no transaction';
    } else {
      lost = called.reason;
      if (called.timedOut) throw new AcquirerOutcomeUnknownError(name, lost);
    }
    const asked = await ask({ attemptId, entityId, paymentType, reference: null, sentAt: deps.now() }, credentials, IMMEDIATE_INQUIRY_TIMEOUT_MS);
    if (typeof asked === 'object' && 'code' in asked) return asked;
    throw new AcquirerOutcomeUnknownError(name, `${lost}; asked at once: ${asked === 'notFound' ? 'not found yet' : asked.unknown}`);
  }

  return {
    name,
    simulated: false,
    async authorize(request) {
      const credentials = await credentialsOf(deps, name, request.entityId);
      return operate(request.attemptId, request.entityId, request.paymentType, '/v1/payments', authorizationForm(request, credentials), credentials);
    },
    async confirmRedirectPayment() {
      // The provider runs its own pages and decides on them: the gateway's simulated provider pages never serve its payments.
      throw new Error(`the acquirer ${name} confirms its redirect payments itself`);
    },
    async backOffice(request) {
      const credentials = await credentialsOf(deps, name, request.entityId);
      if (request.referencedReference === null) {
        throw new GatewayError(withReason(RESULTS.systemError, `the acquirer ${name} gave no reference for the payment operated on`), 400);
      }
      const path = `/v1/payments/${encodeURIComponent(request.referencedReference)}`;
      return operate(request.attemptId, request.entityId, request.paymentType, path, backOfficeForm(request, credentials), credentials);
    },
    async inquire(attempt) {
      const credentials = await deps.credentials.get(attempt.entityId, name);
      if (!credentials) throw new AcquirerOutcomeUnknownError(name, 'the entity has no credentials at this acquirer any more: the outcome cannot be asked');
      const asked = await ask(attempt, credentials);
      if (asked === 'notFound') {
        // A transaction the provider gave its reference for exists: not finding it by that reference is its trouble.
        if (attempt.reference !== null) throw new AcquirerOutcomeUnknownError(name, `the acquirer does not find its own transaction ${attempt.reference}`);
        // Only once the request cannot still be under way at the provider is "not found" proof that it never arrived.
        if (deps.now().getTime() - attempt.sentAt.getTime() >= settings.neverReceivedAfterMs) return undefined;
        throw new AcquirerOutcomeUnknownError(name, 'not found at the acquirer yet');
      }
      if ('unknown' in asked) throw new AcquirerOutcomeUnknownError(name, asked.unknown);
      return asked;
    },
    async settlementsOf(entityId, date) {
      const credentials = await deps.credentials.get(entityId, name);
      if (!credentials) return [];
      const report = async (path: string, query: Record<string, string>): Promise<string> => {
        // Reports are list queries, which providers limit per entity (one a second here): a throttled one waits its turn.
        for (let attempt = 1; ; attempt++) {
          const called = await client.get(path, { entityId: credentials.entityId, ...query }, credentials.accessToken);
          if (called.kind !== 'response') throw new Error(`the acquirer ${name}'s settlement report could not be read: ${called.reason}`);
          if (called.status === 200) return called.body;
          const throttled = called.body.includes(RESULTS.throttled.code);
          if (!throttled || attempt >= REPORT_ATTEMPTS) throw new Error(`the acquirer ${name}'s settlement report answered HTTP ${called.status}`);
          await delay(REPORT_RETRY_MS);
        }
      };
      const aggregations = readAggregations(await report('/reports/v1/reconciliations/aggregations', { 'date.from': date, 'date.to': date }));
      if (!aggregations) throw new Error(`the acquirer ${name}'s settlement summary is not the API's`);
      const batches: ProviderSettlementBatch[] = [];
      for (const aggregation of aggregations) {
        const records: ProviderSettlementRecord[] = [];
        for (let pageNo = 1, pages = 1; pageNo <= pages; pageNo++) {
          const page = readRecordPage(await report(`/reports/v2/reconciliations/aggregations/${encodeURIComponent(aggregation.id)}`, { pageNo: String(pageNo) }));
          if (!page) throw new Error(`the acquirer ${name}'s settlement records are not the API's`);
          records.push(...page.records);
          pages = page.pages;
        }
        batches.push({ id: aggregation.id, clearingInstitute: aggregation.clearingInstitute, settlementCurrency: aggregation.currency, records });
      }
      return batches;
    },
    ...(settings.notificationKey !== undefined ? { readNotification: (body: string, header: (name: string) => string | undefined) => readNotification(body, header, settings.notificationKey as string) } : {}),
    close: () => client.close(),
  };
}
