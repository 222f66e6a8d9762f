import { formatAmount } from '../../domain/money.ts';
import type { PaymentRedirect } from '../../domain/payment.ts';
import { isPendingCode, resultClassOf, RESULT_CODE_FORMAT, RESULTS, type Result } from '../../domain/resultCodes.ts';
import type { ParameterError } from '../../domain/errors.ts';
import type { ProviderCredentials } from '../credentials.ts';
import type { AcquirerAnswer, AuthorizationRequest, BackOfficeRequest, CardOnFileRequest } from '../types.ts';
import { isJsonObject } from '../../domain/json.ts';

/**
 * The `opp` connector's translators (DESIGN principle 13, Hyperswitch's transformers.rs): pure mappings between the
 * gateway's requests and answers and the platform's server-to-server API as a provider speaks it — HyperPay, Peach
 * Payments, ACI, PayUnity, VR Payment, or another instance of this gateway. No I/O here: client.ts sends what these
 * build, connector.ts decides what to do with what they read.
 *
 * Our attempt id is the provider's merchantTransactionId: it is how an attempt whose answer was lost is found again
 * (GET /v1/query?merchantTransactionId=), and the provider's payment id is the reference later operations name.
 */

export type FormFields = [string, string][];

const pad2 = (value: number) => String(value).padStart(2, '0');

/** What the gateway resolves of a standing instruction: the provider is told these instead of what the merchant sent. */
const RESOLVED_INSTRUCTION = ['standingInstruction.source', 'standingInstruction.mode', 'standingInstruction.initialTransactionId'];

/**
 * The standing instruction as the provider is told it: the merchant's (type, recurringType, industryPractice, ...)
 * with what the gateway resolved (source, mode, the scheme reference of the agreement). A payment that stores the
 * card without one is the first of an unscheduled agreement: the provider then gives the scheme reference later MITs
 * name.
 */
function standingInstruction(request: AuthorizationRequest, forwarded: Readonly<Record<string, string>>): FormFields {
  const sent = Object.entries(forwarded).filter(([name]) => name.startsWith('standingInstruction.') && !RESOLVED_INSTRUCTION.includes(name));
  const cardOnFile: CardOnFileRequest | undefined = request.cardOnFile ?? (request.storesCard ? { source: 'CIT', mode: 'INITIAL', initialTransactionId: undefined } : undefined);
  if (!cardOnFile) return sent;
  const fields: FormFields = forwarded['standingInstruction.type'] === undefined ? [['standingInstruction.type', 'UNSCHEDULED'], ...sent] : sent;
  if (cardOnFile.source) fields.push(['standingInstruction.source', cardOnFile.source]);
  if (cardOnFile.mode) fields.push(['standingInstruction.mode', cardOnFile.mode]);
  if (cardOnFile.initialTransactionId) fields.push(['standingInstruction.initialTransactionId', cardOnFile.initialTransactionId]);
  return fields;
}

/** The instrument's fields: the card (from the vault), the bank account, the token, the wallet's token, the account. */
function instrumentFields(request: AuthorizationRequest): FormFields {
  const fields: FormFields = [];
  const { card, bankAccount, tokenAccount, virtualAccount, walletToken } = request;
  if (walletToken) {
    fields.push(['paymentBrand', walletToken.brand], [walletToken.parameter, walletToken.token]);
  } else if (card) {
    if (card.brand) fields.push(['paymentBrand', card.brand]);
    fields.push(['card.number', card.number], ['card.expiryMonth', pad2(card.expiryMonth)], ['card.expiryYear', String(card.expiryYear)]);
    if (card.holder) fields.push(['card.holder', card.holder]);
    if (card.cvv) fields.push(['card.cvv', card.cvv]);
  } else if (bankAccount) {
    fields.push(['paymentBrand', bankAccount.brand ?? 'DIRECTDEBIT_SEPA'], ['bankAccount.holder', bankAccount.holder], ['bankAccount.iban', bankAccount.iban], ['bankAccount.country', bankAccount.country]);
    if (bankAccount.bic) fields.push(['bankAccount.bic', bankAccount.bic]);
    if (bankAccount.mandateId) fields.push(['bankAccount.mandate.id', bankAccount.mandateId]);
    if (bankAccount.mandateDateOfSignature) fields.push(['bankAccount.mandate.dateOfSignature', bankAccount.mandateDateOfSignature]);
    if (bankAccount.dueDate) fields.push(['transactionDueDate', bankAccount.dueDate]);
  } else if (tokenAccount) {
    fields.push(['paymentBrand', tokenAccount.brand], ['tokenAccount.type', tokenAccount.type], ['tokenAccount.number', tokenAccount.number]);
    if (tokenAccount.expiryMonth !== undefined) fields.push(['tokenAccount.expiryMonth', pad2(tokenAccount.expiryMonth)]);
    if (tokenAccount.expiryYear !== undefined) fields.push(['tokenAccount.expiryYear', String(tokenAccount.expiryYear)]);
    if (tokenAccount.cryptogram) fields.push(['tokenAccount.cryptogram', tokenAccount.cryptogram]);
  } else if (virtualAccount) {
    fields.push(['paymentBrand', virtualAccount.brand], ['virtualAccount.accountId', virtualAccount.accountId]);
  } else if (request.asynchronous) {
    fields.push(['paymentBrand', request.asynchronous.brand], ...Object.entries(request.asynchronous.account));
  }
  return fields;
}

/** POST /v1/payments: a PA, DB or CD (an incremental authorization or reauthorization names the original's reference). */
export function authorizationForm(request: AuthorizationRequest, credentials: ProviderCredentials): FormFields {
  const forwarded = request.forwarded ?? {};
  const fields: FormFields = [
    ['entityId', credentials.entityId],
    ['amount', formatAmount(request.amountMinor)],
    ['currency', request.currency],
    ['paymentType', request.paymentType],
    ['merchantTransactionId', request.attemptId],
    ...instrumentFields(request),
  ];
  if (request.testMode) fields.push(['testMode', request.testMode]);
  // The merchant's own 3-D Secure data goes as sent (it is in what is forwarded); the provider runs its own otherwise.
  for (const [name, value] of Object.entries(forwarded)) {
    if (name.startsWith('standingInstruction.')) continue;
    fields.push([name, value]);
  }
  fields.push(...standingInstruction(request, forwarded));
  if (request.referencedReference) fields.push(['referenceUuid', request.referencedReference]);
  const shopper = request.shopper;
  if (shopper) {
    fields.push(['shopperResultUrl', shopper.returnUrl]);
    for (const [name, value] of Object.entries(shopper.browser)) if (!(name in forwarded)) fields.push([name, value]);
  }
  return fields;
}

/** POST /v1/payments/{reference}: a capture, refund, reversal (a chargeback or its reversal, in test). */
export function backOfficeForm(request: BackOfficeRequest, credentials: ProviderCredentials): FormFields {
  const fields: FormFields = [
    ['entityId', credentials.entityId],
    ['paymentType', request.paymentType],
    ['amount', formatAmount(request.amountMinor)],
    ['currency', request.currency],
    ['merchantTransactionId', request.attemptId],
  ];
  if (request.testMode) fields.push(['testMode', request.testMode]);
  if (request.chargebackResultCode) fields.push(['chargebackResultCode', request.chargebackResultCode]);
  return fields;
}

/** What a provider's answer says, as the connector acts on it. */
export type ReadAnswer =
  /** It decided (approved, declined, or pending with a redirect): the answer to record. */
  | { readonly kind: 'answer'; readonly answer: AcquirerAnswer }
  /** It refused the request as it stood (a parameter, its configuration, its credentials, its limits): nothing made. */
  | { readonly kind: 'refused'; readonly result: Result; readonly parameterErrors: readonly ParameterError[]; readonly credentials: boolean }
  /** GET /v1/query or /v1/payments/{id}: it knows no such transaction. */
  | { readonly kind: 'notFound' }
  /** Not the API's answer (not JSON, no result code, a 5xx): whatever happened cannot be told from it. */
  | { readonly kind: 'unreadable'; readonly reason: string };

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function stringsOf(value: unknown): Record<string, string> {
  if (!isJsonObject(value)) return {};
  const strings: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) if (typeof entry === 'string') strings[name] = entry;
  return strings;
}

function redirectOf(value: unknown): PaymentRedirect | undefined {
  if (!isJsonObject(value) || typeof value.url !== 'string' || !URL.canParse(value.url)) return undefined;
  const protocol = new URL(value.url).protocol;
  if (protocol !== 'https:' && protocol !== 'http:') return undefined;
  const parameters = Array.isArray(value.parameters)
    ? value.parameters.flatMap((entry) => (isJsonObject(entry) && typeof entry.name === 'string' && typeof entry.value === 'string' ? [{ name: entry.name, value: entry.value }] : []))
    : [];
  const method = text(value.method)?.toUpperCase();
  return { url: value.url, ...(method === 'GET' || method === 'POST' ? { method } : {}), parameters };
}

/** A payment object of the provider's (an answer, or an entry of a query's list) as our answer; undefined when it is none. */
export function paymentAnswerOf(payment: unknown): AcquirerAnswer | undefined {
  if (!isJsonObject(payment) || !isJsonObject(payment.result)) return undefined;
  const code = text(payment.result.code);
  const id = text(payment.id);
  if (code === undefined || !RESULT_CODE_FORMAT.test(code) || id === undefined || id === '') return undefined;
  const redirect = isPendingCode(code) ? redirectOf(payment.redirect) : undefined;
  const threeDSecure = stringsOf(payment.threeDSecure);
  return {
    code,
    description: text(payment.result.description) ?? '',
    details: stringsOf(payment.resultDetails),
    reference: id,
    ...(redirect ? { redirect } : {}),
    ...(Object.keys(threeDSecure).length > 0 ? { threeDSecure } : {}),
  };
}

function parameterErrorsOf(result: Record<string, unknown>): ParameterError[] {
  const errors = result.parameterErrors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((error) =>
    isJsonObject(error) && typeof error.name === 'string' ? [{ name: error.name, value: text(error.value) ?? '', message: text(error.message) ?? 'refused by the acquirer' }] : [],
  );
}

/**
 * The classes of refusals: the platform refused the request before making anything (a format or parameter, its
 * configuration for the merchant, its request limits, the credentials). Anything else with a payment id is a decision.
 */
function isRefusal(code: string): boolean {
  const refusal = resultClassOf(code);
  return refusal === 'rejectedFormat' || refusal === 'rejectedConfiguration' || code === RESULTS.throttled.code;
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * The answer to a payment or a back-office operation (POST), or (`inquiry`) to GET /v1/payments/{id}, where an unknown
 * id means the provider has no such transaction.
 */
export function readPaymentAnswer(status: number, body: string, inquiry = false): ReadAnswer {
  if (status >= 500) return { kind: 'unreadable', reason: `HTTP ${status}` };
  const json = parsed(body);
  if (!isJsonObject(json) || !isJsonObject(json.result) || typeof json.result.code !== 'string' || !RESULT_CODE_FORMAT.test(json.result.code)) {
    return { kind: 'unreadable', reason: `HTTP ${status} without the API's result` };
  }
  const code = json.result.code;
  const result = { code, description: text(json.result.description) ?? '' };
  // An invalid or unknown access token (the spec's 401 and 403): the operator's credentials, not the merchant's request.
  if (status === 401 || status === 403) return { kind: 'refused', result, parameterErrors: [], credentials: true };
  if (inquiry && (status === 404 || code === RESULTS.transactionNotFound.code)) return { kind: 'notFound' };
  if (isRefusal(code)) return { kind: 'refused', result, parameterErrors: parameterErrorsOf(json.result), credentials: code === RESULTS.invalidAuthentication.code };
  const answer = paymentAnswerOf(json);
  if (answer) return { kind: 'answer', answer };
  // A decline the provider made no transaction of (an operation on a payment it does not have, say): nothing moved.
  if (status === 400 || status === 404) return { kind: 'refused', result, parameterErrors: parameterErrorsOf(json.result), credentials: false };
  return { kind: 'unreadable', reason: `HTTP ${status}: a result ${code} without the payment's id` };
}

/**
 * GET /v1/query?merchantTransactionId=<attempt id>: the provider's payment of the attempt. Our attempt ids are unique,
 * so any transaction listed under one is the attempt's; of several (a provider that retried it internally), the one of
 * the attempt's type listed last is the provider's final word.
 */
export function readQueryAnswer(status: number, body: string, paymentType: string): ReadAnswer {
  if (status >= 500) return { kind: 'unreadable', reason: `HTTP ${status}` };
  const json = parsed(body);
  if (!isJsonObject(json) || !isJsonObject(json.result) || typeof json.result.code !== 'string') return { kind: 'unreadable', reason: `HTTP ${status} without the API's result` };
  const code = json.result.code;
  if (code === RESULTS.transactionNotFound.code || status === 404) return { kind: 'notFound' };
  if (status === 401 || status === 403) return { kind: 'refused', result: { code, description: text(json.result.description) ?? '' }, parameterErrors: [], credentials: true };
  if (!Array.isArray(json.payments)) return { kind: 'unreadable', reason: `HTTP ${status}: ${code} without a list of payments` };
  const listed = json.payments.filter((payment) => isJsonObject(payment) && payment.paymentType === paymentType);
  const chosen = (listed.length > 0 ? listed : json.payments).at(-1);
  const answer = paymentAnswerOf(chosen);
  return answer ? { kind: 'answer', answer } : { kind: 'notFound' };
}
