import { NO_RISK_SCORE } from '../checkouts/verification.ts';
import { COUNT_RULES, VOLUME_RULES } from '../domain/riskRules.ts';
import { RESULT_CODE_FORMAT } from '../domain/resultCodes.ts';
import type { PaymentSource } from '../domain/payment.ts';
import type { NotificationOutcome } from '../payments/providerWord.ts';
import { JOB_EXTRA, KEPT_ECHO } from '../schedules/request.ts';
import { LIMIT_NAMES } from '../throttling/limits.ts';
import { echoSchemas } from './echo.ts';
import { patternOf, type Schema } from './parameters.ts';

/**
 * The JSON Schemas of the gateway's answers (COMPAT §1, §2, §10–§14 and the admin API), OpenAPI's
 * `components.schemas`. Every object is closed (`additionalProperties: false`) but the maps (`customParameters`,
 * `resultDetails`, ...), so a client generated from the document reads every field by its type: what answers echo of
 * the request (customer, billing, cart, threeDSecure, customParameters, ...) is the parameter catalogue nested
 * (echo.ts), and each answer is one flat object with the envelope's fields, never a composition a closed schema
 * could not say. answers.test.ts validates real answers of every operation against them, closed.
 */

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string = (pattern?: string, description?: string): Schema => ({ type: 'string', ...(pattern ? { pattern } : {}), ...(description ? { description } : {}) });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const integer = (minimum = 0): Schema => ({ type: 'integer', minimum });
const dateTime: Schema = { type: 'string', format: 'date-time' };
const list = (items: Schema): Schema => ({ type: 'array', items });
const oneOf = (values: readonly string[], description?: string): Schema => ({ enum: [...values], ...(description ? { description } : {}) });
const stringMap = (description: string): Schema => ({ type: 'object', additionalProperties: { type: 'string' }, description });

/** A closed object: these properties, `required` among them, and no other. */
function object(required: readonly string[], properties: Readonly<Record<string, Schema>>, description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), ...(required.length > 0 ? { required: [...required] } : {}), properties, additionalProperties: false };
}

/** These properties of `properties`, in their order. */
function pick(properties: Readonly<Record<string, Schema>>, names: readonly string[]): Record<string, Schema> {
  return Object.fromEntries(names.map((name) => {
    const property = properties[name];
    if (!property) throw new Error(`${name} is no property here`);
    return [name, property];
  }));
}

const ID = '^[0-9a-f]{32}$';
const CHECKOUT_ID = '^[0-9A-F]{32}\\.[a-z0-9-]{1,15}$';
const AMOUNT = '^[0-9]{1,10}\\.[0-9]{2}$';
const SIGNED_AMOUNT = '^-?[0-9]{1,12}\\.[0-9]{2}$';
const CURRENCY = '^[A-Z]{3}$';
const DAY = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
/** COMPAT §1: `yyyy-MM-dd HH:mm:ss+0000`, milliseconds allowed. */
const TIMESTAMP = '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?\\+0000$';
const BUILD_NUMBER = '^[0-9a-f]{40}@[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \\+0000$';
const SHORT_ID = '^[0-9]{4}\\.[0-9]{4}\\.[0-9]{4}$';

const result: Schema = ref('Result');

/** What every JSON answer of the API carries, success or refusal. */
const ENVELOPE: Readonly<Record<string, Schema>> = {
  result,
  buildNumber: string(BUILD_NUMBER),
  timestamp: string(TIMESTAMP),
  ndc: { type: 'string', minLength: 1, description: 'A checkout call’s checkout id; otherwise `<entityId>_<32 hex>` or the request’s id.' },
};
const ENVELOPE_REQUIRED = ['result', 'buildNumber', 'timestamp', 'ndc'];

/** An answer: the envelope's fields and its own, as one closed object. */
function enveloped(required: readonly string[], properties: Readonly<Record<string, Schema>>, description?: string): Schema {
  return object([...required, ...ENVELOPE_REQUIRED], { ...properties, ...ENVELOPE }, description);
}

/** What answers echo of the request, the structures as components (`Customer`, `ThreeDSecure`, `CustomParameters`, ...). */
const ECHO = echoSchemas(ref);

/** An answer's own fields, then what it echoes of the request (its own win where both name a field). */
function echoing(own: Readonly<Record<string, Schema>>): Record<string, Schema> {
  return { ...own, ...Object.fromEntries(Object.entries(ECHO.properties).filter(([name]) => !(name in own))) };
}

const card = object(['bin', 'last4Digits'], {
  bin: string('^[0-9]{6,8}$'),
  last4Digits: string('^[0-9]{4}$'),
  holder: string(),
  expiryMonth: string('^(0[1-9]|1[0-2])$'),
  expiryYear: string('^[0-9]{4}$'),
}, 'The card as answers show it: never its number or CVV; a deleted registration keeps only its bin and last four digits.');

/** A payment's own fields (COMPAT §2, §10, §11, §13, §15), with what it echoes of its request. */
const PAYMENT: Readonly<Record<string, Schema>> = echoing({
  id: string(ID),
  referencedId: string(ID, 'The payment a back-office operation (CP, RV, RF, CB, CR) or follow-up authorization is made on.'),
  paymentType: oneOf(['PA', 'DB', 'CD', 'CP', 'RV', 'RF', 'CB', 'CR']),
  paymentBrand: string(),
  amount: string(AMOUNT),
  currency: string(CURRENCY),
  descriptor: string(undefined, 'As sent, else the payment’s short id.'),
  merchantTransactionId: string(),
  resultDetails: stringMap('What the acquirer or provider said besides the code: a prepayment’s account, a voucher’s number, the scheme’s reference of a card-on-file agreement, a smart retry’s first attempt, ...'),
  card: ref('Card'),
  redirect: ref('Redirect'),
  registrationId: string(ID, 'The registration a payment used or (createRegistration=true) made.'),
  recurringType: string(undefined, 'The standing instruction’s mode, or the legacy parameter as sent.'),
});
const PAYMENT_REQUIRED = ['id', 'paymentType', 'amount', 'currency', 'descriptor'];

const PAYMENT_METHODS: Readonly<Record<string, true>> = { CC: true, DD: true, VA: true, IV: true, OT: true, PP: true };
const SOURCES: Readonly<Record<PaymentSource, true>> = { OPPUI: true, API: true, SYSTEM: true };
const authentication = object(['entityId'], { entityId: string(ID) });

/** A payment as its notification carries it and queries show it (COMPAT §13, §14): its answer and more. */
const PAYMENT_RECORD: Readonly<Record<string, Schema>> = {
  ...PAYMENT,
  presentationAmount: string(AMOUNT),
  presentationCurrency: string(CURRENCY),
  authentication,
  merchantAccountId: string(ID),
  paymentMethod: oneOf(Object.keys(PAYMENT_METHODS)),
  shortId: string(SHORT_ID),
  source: oneOf(Object.keys(SOURCES)),
  result,
  timestamp: string(TIMESTAMP, 'When it was made (or last changed).'),
};
const RECORD_REQUIRED = ['result', 'timestamp', 'shortId', 'authentication'];

/** A registration (COMPAT §10): the stored card or account, and what it echoes of its request. */
const REGISTRATION: Readonly<Record<string, Schema>> = echoing({
  id: string(ID),
  paymentBrand: string(),
  card: ref('Card'),
  bankAccount: ref('BankAccount'),
});

/** The job of a schedule: its cron fields and expression as kept, what else of job.* it was sent, its times. */
const scheduleJob = object(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year', 'expression'], {
  ...Object.fromEntries(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year', 'expression'].map((field) => [field, string()])),
  ...Object.fromEntries(JOB_EXTRA.map((name) => [name.slice('job.'.length), string(undefined, `\`${name}\` as sent.`)])),
  startDate: { type: 'integer', description: 'The next execution, in milliseconds since 1970 (none once cancelled or ended).' },
  endDate: { type: 'integer', description: 'The end, in milliseconds since 1970.' },
});

/** A schedule (COMPAT §12): the payment it makes, what it keeps of its request, its job. */
const SCHEDULE: Readonly<Record<string, Schema>> = {
  id: string(ID),
  registrationId: string(ID),
  paymentType: oneOf(['PA', 'DB', 'CD']),
  amount: string(AMOUNT),
  currency: string(CURRENCY),
  ...pick(ECHO.properties, KEPT_ECHO),
  job: ref('ScheduleJob'),
};
const SCHEDULE_REQUIRED = ['id', 'registrationId', 'paymentType', 'amount', 'currency', 'job'];

const DEREGISTRATION: Readonly<Record<string, Schema>> = {
  id: string(ID, 'The deregistration’s own id.'),
  referencedId: string(ID, 'The registration deleted.'),
  paymentType: { const: 'DR' },
  paymentBrand: string(),
};

/** The four kinds of transactions a query answers, as a list shows them (`listed`) or the answer by id. */
function transactions(byId: boolean): Record<string, Schema> {
  const answer = (required: readonly string[], properties: Readonly<Record<string, Schema>>, description: string) =>
    byId ? object([...required, 'buildNumber', 'ndc'], { ...properties, buildNumber: ENVELOPE.buildNumber as Schema, ndc: ENVELOPE.ndc as Schema }, description) : object(required, properties, description);
  const recorded = { shortId: string(SHORT_ID), authentication, result, timestamp: string(TIMESTAMP, 'When it was made.') };
  const prefix = byId ? 'Queried' : '';
  const suffix = byId ? '' : 'Transaction';
  return {
    [`${prefix}Payment${suffix}`]: answer([...PAYMENT_REQUIRED, ...RECORD_REQUIRED], { ...PAYMENT_RECORD, ...(byId ? { ndc: ENVELOPE.ndc as Schema } : {}) }, 'A payment, as its notification carries it.'),
    [`${prefix}Schedule${suffix}`]: answer([...SCHEDULE_REQUIRED, ...RECORD_REQUIRED], { ...SCHEDULE, ...recorded, paymentType: oneOf(['SD', 'DS'], 'Its creation (SD) or cancellation (DS).') }, 'A schedule’s creation or cancellation.'),
    [`${prefix}Registration${suffix}`]: answer(['id', 'paymentBrand', 'paymentType', ...RECORD_REQUIRED], { ...REGISTRATION, ...recorded, paymentType: { const: 'RG' } }, 'A registration.'),
    [`${prefix}Deregistration${suffix}`]: answer(['id', 'referencedId', 'paymentType', ...RECORD_REQUIRED], { ...DEREGISTRATION, ...recorded }, 'A registration’s deletion.'),
  };
}
const LISTED = transactions(false);
const QUERIED = transactions(true);

/** The risk velocity rules of an entity (domain/riskRules.ts): each rule name, its settings. */
const riskRules = object([], {
  ...Object.fromEntries([...COUNT_RULES, ...VOLUME_RULES].map((name) => [name, object(['max', 'windowMinutes'], { max: integer(), windowMinutes: integer(1) })])),
  binChargebackRate: object(['maxPercent', 'minPayments', 'windowMinutes'], { maxPercent: { type: 'number', minimum: 0 }, minPayments: integer(), windowMinutes: integer(1) }),
}, 'The entity’s risk velocity rules: count rules in payments, volume rules in minor units, per window.');

const OUTCOMES: Readonly<Record<NotificationOutcome, string>> = {
  test: 'the provider’s test of its webhook',
  attempt: 'it named an attempt of ours: recorded, if it was still awaited',
  chargeback: 'a chargeback (or its reversal) the provider recorded on one of our payments, recorded now',
  known: 'one recorded before',
  ignored: 'nothing of ours',
};

const settlementRecord = object(['recordType', 'transactionType', 'settlement', 'merchantAccount', 'merchantEntityId', 'amount', 'currency', 'presentmentDate'], {
  recordType: { enum: ['SETTLED', 'FEE', 'CHARGEBACK', 'CHARGEBACK REVERSAL'] },
  transactionType: string(),
  settlement: object(['amount', 'currency'], { cashflow: string(), id: string(), amount: string(SIGNED_AMOUNT), currency: string(CURRENCY), fee: string(SIGNED_AMOUNT), fxRate: string(), date: string(DAY), status: string(), format: string() }),
  clearingInstitute: object([], { merchantId: string(), txId1: string(), txId2: string(), txId3: string(), name: string() }),
  merchantAccount: object(['id', 'name'], { id: string(ID), name: string() }),
  pspEntityId: string(),
  merchantEntityId: string(ID),
  payment: object(['id'], { id: string(ID) }),
  shortId: string(),
  merchantTransactionId: string(),
  merchantInvoiceId: string(),
  amount: string(SIGNED_AMOUNT),
  currency: string(CURRENCY),
  paymentBrand: string(),
  presentmentDate: string(TIMESTAMP),
  descriptor: string(),
  card: object([], { last4Digits: string(), holder: string() }),
  bankAccount: object([], { last4Digits: string(), bankCode: string(), holder: string() }),
  result: object(['code'], { code: string(patternOf(RESULT_CODE_FORMAT)), description: string() }),
  matchedTransactions: object(['status', 'payment'], { status: string(), payment: list(object(['id'], { id: string(ID) })) }),
  chargebackTransaction: object(['id'], { id: string(ID) }),
});

const webhook = object(['id', 'entityId', 'url', 'types', 'fields', 'wrapper', 'status', 'statusReason', 'createdAt', 'updatedAt'], {
  id: string(ID),
  entityId: string(ID),
  url: { type: 'string', format: 'uri' },
  types: list({ enum: ['PAYMENT', 'REGISTRATION', 'SCHEDULE', 'RISK'] }),
  fields: { enum: ['ALL', 'NON_CUSTOMER_DATA'] },
  wrapper: { enum: ['NONE', 'JSON'] },
  status: { enum: ['pending', 'active', 'inactive'] },
  statusReason: nullable(string()),
  createdAt: dateTime,
  updatedAt: dateTime,
}, 'A webhook as the admin API shows it: never its secret.');

const activation = object(['delivered', 'httpStatus', 'error'], { delivered: { type: 'boolean' }, httpStatus: nullable(integer(100)), error: nullable(string()) }, 'The answer to the activation message.');

const delivery = object(['id', 'eventId', 'type', 'action', 'resourceId', 'state', 'createdAt', 'deliveredAt', 'givenUpAt', 'attempts'], {
  id: string(ID),
  eventId: integer(1),
  type: string(),
  action: string(),
  resourceId: string(),
  state: { enum: ['delivered', 'given up', 'pending'] },
  createdAt: dateTime,
  deliveredAt: nullable(dateTime),
  givenUpAt: nullable(dateTime),
  attempts: list(object(['attemptedAt', 'httpStatus', 'latencyMs', 'error'], { attemptedAt: dateTime, httpStatus: nullable(integer(100)), latencyMs: nullable({ type: 'number' }), error: nullable(string()) })),
});

const settlement = object(['id', 'entityId', 'clearingInstitute', 'date', 'currency', 'settlementAmount', 'transactionCount', 'test'], {
  id: string(ID),
  entityId: string(ID),
  clearingInstitute: string(),
  date: string(DAY),
  currency: string(CURRENCY),
  settlementAmount: string(SIGNED_AMOUNT),
  transactionCount: integer(),
  test: { type: 'boolean' },
});

const reconciliationFile = object(['entityId', 'date', 'fileName', 'status', 'attempts', 'createdAt', 'updatedAt'], {
  entityId: string(ID),
  date: string(DAY),
  fileName: string('^[0-9a-f]{32}_[0-9]{8}\\.csv$'),
  status: { enum: ['pending', 'retrying', 'uploaded', 'failed'] },
  attempts: integer(),
  lastError: nullable(string()),
  nextAttemptAt: nullable(dateTime),
  sizeBytes: nullable(integer()),
  recordCount: nullable(integer()),
  remotePath: nullable(string()),
  uploadedAt: nullable(dateTime),
  createdAt: dateTime,
  updatedAt: dateTime,
});

const ftpSettings = object(['entityId', 'host', 'port', 'username', 'passwordSet', 'folder', 'explicitTls', 'passive', 'tlsCertificate'], {
  entityId: string(ID),
  host: string(),
  port: integer(1),
  username: string(),
  passwordSet: { const: true },
  folder: string(),
  explicitTls: { type: 'boolean' },
  passive: { type: 'boolean' },
  tlsCertificate: nullable(object(['subject', 'validTo', 'fingerprint256'], { subject: string(), validTo: dateTime, fingerprint256: string() })),
  createdAt: dateTime,
  updatedAt: dateTime,
}, 'The FTP settings of the reconciliation file: never the password.');

const credentials = object(['userId', 'entityIds', 'label', 'demo', 'createdAt', 'revokedAt'], {
  userId: string(ID),
  entityIds: list(string(ID)),
  label: string(),
  demo: { type: 'boolean' },
  createdAt: dateTime,
  revokedAt: nullable(dateTime),
  password: string(undefined, 'Only in the answer that issues the pair: it is kept nowhere.'),
});

/** A routing rule (issue 33): the acquirer, and the conditions a payment must all meet (one left out holds for every payment). */
const routingRule = object(['acquirer'], {
  acquirer: string(),
  brands: list(string()),
  currencies: list(string(CURRENCY)),
  minAmount: string(AMOUNT),
  maxAmount: string(AMOUNT),
});

/** An entity's credentials at a connector's provider: never the token. */
const acquirerCredentials = object(['entityId', 'acquirer', 'set', 'providerEntityId', 'updatedAt'], {
  entityId: string(ID),
  acquirer: string(),
  set: { type: 'boolean' },
  providerEntityId: nullable(string()),
  updatedAt: nullable(dateTime),
});

const entity = object(['id', 'name'], { id: string(ID), name: string(), resultUrlBase: nullable(string()) });
const token = object(['id'], {
  id: string(ID),
  accessToken: string(undefined, 'Only in the answer that creates the token: only its hash is kept.'),
  label: string(),
  entityIds: list(string(ID)),
  createdAt: dateTime,
  revokedAt: nullable(dateTime),
});

/** An entity's request limits by name (0: none). */
const limits = (description: string): Schema => object([], Object.fromEntries(LIMIT_NAMES.map((name) => [name, integer()])), description);

/** The components of the answers' structures that echo the request, with what the gateway adds to two of them. */
const ECHO_COMPONENTS: Readonly<Record<string, Schema>> = {
  ...ECHO.components,
  ThreeDSecure: {
    ...ECHO.components.ThreeDSecure,
    description:
      'The 3-D Secure data the request sent, and the outcome of the gateway’s own authentication in its place (eci, verificationId, xid, dsTransactionId, acsTransactionId, version, enrollmentStatus, authenticationStatus).',
  },
  Risk: {
    ...ECHO.components.Risk,
    properties: {
      ...(ECHO.components.Risk?.properties as Record<string, Schema>),
      ...Object.fromEntries(Object.keys(NO_RISK_SCORE).map((name) => [name, string(undefined, 'A registration-only checkout’s registration shows a risk score: 0, the gateway scores no payment.')])),
    },
  },
  StandingInstruction: {
    ...ECHO.components.StandingInstruction,
    description: 'The standing instruction as sent, with the scheme’s reference (initialTransactionId) an approved INITIAL payment got.',
  },
};

/** Every schema of the document's components, by name. */
export const ANSWER_SCHEMAS: Readonly<Record<string, Schema>> = {
  Result: object(['code', 'description'], {
    code: string(patternOf(RESULT_CODE_FORMAT), 'The result code (x-result-codes of each operation, classes in x-result-code-classes).'),
    description: { type: 'string', minLength: 1 },
    parameterErrors: list(ref('ParameterError')),
  }),
  ParameterError: object(['name', 'value', 'message'], { name: string(), value: string(undefined, 'As sent, masked: card numbers and secrets never show.'), message: string() }),
  Envelope: enveloped([], {}, 'What every JSON answer of the API carries, success or refusal; a refusal’s is just this.'),
  Card: card,
  Redirect: object(['url', 'method', 'parameters'], {
    url: { type: 'string', format: 'uri' },
    method: oneOf(['POST', 'GET'], 'POST for the gateway’s own pages (which take GET too); a provider’s page may ask for GET.'),
    parameters: list(object(['name', 'value'], { name: string(), value: string() })),
  }, 'Where a pending payment sends the shopper: a form of these parameters to the url.'),
  ...ECHO_COMPONENTS,
  Payment: enveloped(PAYMENT_REQUIRED, PAYMENT, 'A payment: approved, pending (with redirect, or resultDetails saying where to transfer to), or declined with its code.'),
  PaymentOrRefusal: { anyOf: [ref('Payment'), ref('Envelope')], description: 'A declined payment (the payment with its decline code) or a refused request.' },
  ShopperSubmit: enveloped(['id'], { id: string(ID), redirect: ref('Redirect') }, 'The shopper’s submit: the payment’s or registration’s id, and the page to send the shopper to while pending.'),
  ClickToPayStep: enveloped(
    ['clickToPay'],
    {
      clickToPay: object(
        [],
        {
          status: oneOf(['OTP_SENT', 'NOT_ENROLLED', 'OTP_CHANNEL_INVALID', 'VALIDATED', 'OTP_INVALID', 'LOCKED'], 'The step’s outcome (the e-mail’s and the code’s; a chosen card answers its correlationId alone).'),
          sessionId: string(ID, 'The session the code validates (OTP_SENT).'),
          channel: object(['type', 'masked'], { type: oneOf(['EMAIL', 'SMS']), masked: string(undefined, 'Where the code went, masked.') }),
          attemptsLeft: integer(1),
          cards: list(
            object(['id', 'brand', 'descriptor', 'last4', 'expiryMonth', 'expiryYear'], {
              id: string('^[A-Za-z0-9-]{1,64}$', 'The SRC system’s id of the card.'),
              brand: oneOf(['VISA', 'MASTER', 'AMEX']),
              descriptor: string(),
              last4: string('^[0-9]{4}$', 'The last four digits of the card’s own number.'),
              expiryMonth: string('^[0-9]{2}$'),
              expiryYear: string('^[0-9]{4}$'),
            }),
          ),
          correlationId: string(ID, 'The chosen card, for the checkout’s submit (clickToPay.correlationId): once, within 5 minutes.'),
        },
        'Click to Pay’s step with the simulated SRC system, or the card a network’s checkout response carried (correlationId).',
      ),
    },
    'A step of Click to Pay.',
  ),
  Checkout: enveloped(['id'], { id: string(CHECKOUT_ID), integrity: string('^sha384-[A-Za-z0-9+/]+={0,2}$', 'The SRI hash of the checkout’s paymentWidgets.js (integrity=true).') }),
  CheckoutResult: { anyOf: [ref('Payment'), ref('Registration'), ref('Envelope')], description: 'The payment, a registration-only checkout’s registration, or 000.200.000 while there is none yet.' },
  Registration: enveloped(['id', 'paymentBrand'], REGISTRATION, 'A stored card or account.'),
  RegistrationOrRefusal: { anyOf: [ref('Registration'), ref('Envelope')], description: 'A card refused (the answer still has the registration’s id and the card), or a refused request.' },
  RegistrationOperation: enveloped(['id', 'referencedId', 'paymentType'], { id: string(ID), referencedId: string(ID), paymentType: oneOf(['DR', 'TE']) }),
  ScheduleJob: scheduleJob,
  Schedule: enveloped(SCHEDULE_REQUIRED, SCHEDULE, 'A schedule: the payment it makes at each fire time of its job.'),
  Cancelled: enveloped(['id'], { id: string(ID) }),
  ...LISTED,
  Transaction: { anyOf: Object.keys(LISTED).map(ref), description: 'A transaction as a query lists it: a payment, a schedule’s SD or DS, a registration’s RG or DR.' },
  ...QUERIED,
  QueryRecord: { anyOf: Object.keys(QUERIED).map(ref), description: 'A transaction as it was made, with its original result and time, under this answer’s build.' },
  QueryList: enveloped(['payments', 'pages'], { payments: list(ref('Transaction')), pages: integer() }),
  QueryAnswer: { anyOf: [ref('QueryRecord'), ref('QueryList')] },
  Aggregation: object(['id', 'date', 'currency', 'clearingInstituteName', 'merchantAccountId', 'settlementAmount', 'transactionCount'], {
    id: string(ID),
    date: string(DAY),
    currency: string(CURRENCY),
    clearingInstituteName: string(),
    merchantAccountId: string(ID),
    settlementAmount: string(SIGNED_AMOUNT),
    transactionCount: integer(),
  }),
  SettlementSummary: enveloped(['aggregations'], { aggregations: list(ref('Aggregation')) }),
  SettlementRecord: settlementRecord,
  SettlementDetail: enveloped(['id', 'records'], { id: string(ID), records: list(ref('SettlementRecord')), pages: { ...integer(), description: 'The paged detail (v2) only.' } }),
  ProviderNotification: enveloped(['outcome'], {
    outcome: oneOf(Object.keys(OUTCOMES), `What the notification did: ${Object.entries(OUTCOMES).map(([name, meaning]) => `${name}, ${meaning}`).join('; ')}.`),
  }),
  WalletsConfig: enveloped(['environment', 'googlePay'], {
    environment: oneOf(['test', 'live'], 'test: the buttons open the simulated sheet; live: the wallets’ own APIs.'),
    googlePay: object(['gateway'], { gateway: string(undefined, 'The gateway’s name in Google Pay’s tokenization.') }),
  }),
  BinBrands: enveloped(['bin', 'brands'], { bin: string('^[0-9]{6,8}$', 'The digits asked.'), brands: { type: 'array', items: { type: 'string' }, description: 'Card brand codes, most specific first.' } }),
  Health: object(['status'], { status: { const: 'ok' } }),
  Readiness: object(['status', 'checks'], { status: oneOf(['ready', 'not ready']), checks: stringMap('Each check, `ok` or why not.') }),
  OpenApiDocument: object(['openapi', 'info', 'paths'], {
    openapi: string('^3\\.1\\.[0-9]+$'),
    info: { type: 'object', additionalProperties: true },
    servers: list({ type: 'object', additionalProperties: true }),
    tags: list({ type: 'object', additionalProperties: true }),
    paths: { type: 'object', additionalProperties: true },
    components: { type: 'object', additionalProperties: true },
    'x-result-code-classes': stringMap('Each class of result codes, its pattern.'),
    'x-result-codes': list(object(['code', 'description'], { code: string(), description: string() })),
  }, 'This document (its own schema is the OpenAPI 3.1 schema).'),
  Webhook: webhook,
  WebhookCreated: enveloped(['webhook', 'secret', 'activation'], { webhook: ref('Webhook'), secret: string('^[0-9a-fA-F]{64}$', 'The secret, this once.'), activation }),
  WebhookAnswer: enveloped(['webhook'], { webhook: ref('Webhook'), activation: nullable(activation) }),
  WebhookList: enveloped(['webhooks'], { webhooks: list(ref('Webhook')) }),
  WebhookDeliveries: enveloped(['deliveries'], { deliveries: list(delivery) }),
  ResendScheduled: enveloped(['deliveryId', 'resend'], { deliveryId: string(ID), resend: { const: 'scheduled' } }),
  SmartRetry: enveloped(['smartRetry'], {
    smartRetry: object(['entityId', 'enabled', 'codes', 'defaultCodes', 'standalone', 'cardOnFile', 'fallbackAcquirer', 'updatedAt', 'inEffect'], {
      entityId: string(ID),
      enabled: { type: 'boolean' },
      codes: list(string(patternOf(RESULT_CODE_FORMAT))),
      defaultCodes: { type: 'boolean' },
      standalone: { type: 'boolean' },
      cardOnFile: { type: 'boolean' },
      fallbackAcquirer: nullable(string()),
      updatedAt: nullable(dateTime),
      inEffect: { type: 'boolean' },
      notInEffectBecause: string(),
    }),
  }),
  Throttling: enveloped(['throttling'], {
    throttling: object(['entityId', 'limits', 'ownLimits', 'defaults', 'risk', 'updatedAt'], {
      entityId: string(ID),
      limits: limits('The limits in force.'),
      ownLimits: limits('The entity’s own, where it has them.'),
      defaults: limits('The gateway’s defaults.'),
      risk: riskRules,
      updatedAt: nullable(dateTime),
    }),
  }),
  OfferedBrands: enveloped(['offeredBrands'], {
    offeredBrands: object(['entityId', 'brands', 'default', 'updatedAt'], { entityId: string(ID), brands: list(string()), default: { type: 'boolean' }, updatedAt: nullable(dateTime) }),
  }),
  Routing: enveloped(['routing'], {
    routing: object(['entityId', 'rules', 'defaultAcquirer', 'acquirers', 'connectors', 'updatedAt'], {
      entityId: string(ID),
      rules: list(routingRule),
      defaultAcquirer: string(),
      acquirers: list(string()),
      connectors: list(string()),
      updatedAt: nullable(dateTime),
    }),
  }),
  AcquirerCredentials: enveloped(['acquirerCredentials'], { acquirerCredentials }),
  ApplePayIdentity: enveloped(['applePay'], {
    applePay: object(['entityId', 'set', 'merchantIdentifier', 'displayName', 'domains', 'certificate', 'updatedAt'], {
      entityId: string(ID),
      set: { type: 'boolean' },
      merchantIdentifier: nullable(string()),
      displayName: nullable(string()),
      domains: list(string()),
      certificate: nullable(object(['subject', 'expiresAt'], { subject: string(), expiresAt: dateTime }, 'The Merchant Identity certificate’s subject and expiry: renew it before then.')),
      updatedAt: nullable(dateTime),
    }, 'The entity’s Apple Pay merchant identity: never the certificate or its key.'),
  }),
  ClickToPaySettings: enveloped(['clickToPay'], {
    clickToPay: object(['entityId', 'set', 'dpaName', 'keyId', 'networks', 'updatedAt'], {
      entityId: string(ID),
      set: { type: 'boolean' },
      dpaName: nullable(string()),
      keyId: nullable(string()),
      networks: list(
        object(['network', 'srcDpaId', 'srcInitiatorId', 'sdkUrl', 'signingKey'], {
          network: oneOf(['mastercard', 'visa']),
          srcDpaId: string(),
          srcInitiatorId: string(),
          sdkUrl: string(),
          signingKey: string(undefined, 'The network’s public key, PEM.'),
        }),
      ),
      updatedAt: nullable(dateTime),
    }, 'The entity’s Click to Pay with the networks: never its private key.'),
  }),
  ClickToPaySession: enveloped(['clickToPay'], {
    clickToPay: object(['srciTransactionId', 'dpaName', 'networks', 'dpaTransactionOptions'], {
      srciTransactionId: string(ID, 'The session: the SDKs are initialised with it, and the network’s checkout response must name it.'),
      dpaName: nullable(string()),
      networks: list(
        object(['network', 'srcDpaId', 'srcInitiatorId', 'sdkUrl'], { network: oneOf(['mastercard', 'visa']), srcDpaId: string(), srcInitiatorId: string(), sdkUrl: string() }),
      ),
      dpaTransactionOptions: object(['transactionAmount', 'paymentOptions'], {
        transactionAmount: object(['transactionAmount', 'transactionCurrencyCode'], { transactionAmount: string(), transactionCurrencyCode: string() }),
        paymentOptions: list(object(['dynamicDataType'], { dynamicDataType: string() })),
      }),
    }, 'What the widget initialises the networks’ SRC SDKs with (EMVCo SRC init).'),
  }),
  ApplePayMerchantSession: { type: 'object', additionalProperties: true, description: 'Apple’s merchant session object, as Apple answered it: opaque, for ApplePaySession.completeMerchantValidation (it expires in 5 minutes).' },
  AcquirerCredentialsList: enveloped(['acquirerCredentials'], { acquirerCredentials: list(acquirerCredentials) }),
  SettledPayment: enveloped(['payment'], { payment: object([...PAYMENT_REQUIRED, 'result'], { ...PAYMENT, result }, 'The payment, with its result.') }),
  CredentialsAnswer: enveloped(['credentials'], { credentials }),
  CredentialsList: enveloped(['credentials'], { credentials: list(credentials) }),
  EntityCreated: enveloped(['entity', 'token'], { entity, token }),
  EntityList: enveloped(['entities'], { entities: list(entity) }),
  TokenCreated: enveloped(['token'], { token }),
  TokenList: enveloped(['tokens'], { tokens: list(token) }),
  TokenRevoked: enveloped(['revoked'], { revoked: string(ID) }),
  SettlementSettings: enveloped(['settlement'], {
    settlement: object(['entityId', 'currency', 'unmatchedRecords', 'duplicateRecords'], { entityId: string(ID), currency: nullable(string(CURRENCY)), unmatchedRecords: integer(), duplicateRecords: integer() }),
  }),
  SettlementRun: enveloped(['settlementRun'], {
    settlementRun: object(['date', 'cutoffAt', 'until', 'settlements'], { date: string(DAY), cutoffAt: dateTime, until: dateTime, settlements: list(settlement) }),
  }),
  SettlementList: enveloped(['settlements'], { settlements: list(settlement) }),
  FtpSettings: enveloped(['ftp'], { ftp: nullable(ftpSettings) }),
  ReconciliationFile: enveloped(['file'], { file: reconciliationFile }),
  IntegrationReportAnswer: enveloped(['report'], {
    report: object(['entityId', 'generatedAt', 'since', 'payments', 'findings', 'coverage', 'widgetOptions'], {
      entityId: string(ID),
      generatedAt: dateTime,
      since: dateTime,
      payments: integer(),
      findings: list(
        object(['id', 'severity', 'title', 'advice', 'count', 'firstSeen', 'lastSeen', 'examples'], {
          id: string(),
          severity: oneOf(['refused', 'retired', 'failing', 'untested', 'notice'], 'refused: a live provider may refuse it; retired: deprecated; failing: fails now; untested: never tried; notice: ignored.'),
          title: string(),
          advice: string(),
          count: integer(),
          firstSeen: nullable(dateTime),
          lastSeen: nullable(dateTime),
          examples: list(string()),
          details: list(object(['name', 'count'], { name: string(), count: integer() })),
        }),
      ),
      coverage: { type: 'object', additionalProperties: integer(), description: 'How often each path a shop should test was taken (approvedPayment, declinedPayment, threeDSecureChallenge …).' },
      widgetOptions: list(string()),
    }),
  }),
  ReconciliationFiles: enveloped(['files'], { from: string(DAY), to: string(DAY), date: string(DAY), files: list(reconciliationFile), next: string(ID, 'The entity to continue after (`after`), when the page is full.') }),
};
