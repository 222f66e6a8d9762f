import { RESULT_CODE_FORMAT } from '../domain/resultCodes.ts';
import { patternOf, type Schema } from './parameters.ts';

/**
 * The JSON Schemas of the gateway's answers (COMPAT §1, §2, §10–§14 and the admin API), OpenAPI's
 * `components.schemas`. They say what every answer of a kind has, and the shape of what it may have; answers echo
 * the request's structures (customer, billing, cart, customParameters, ...), so objects stay open to other properties.
 * openapi.test.ts validates answers the gateway really gave against them, and a broken one against them too.
 */

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string = (pattern?: string, description?: string): Schema => ({ type: 'string', ...(pattern ? { pattern } : {}), ...(description ? { description } : {}) });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const integer = (minimum = 0): Schema => ({ type: 'integer', minimum });
const dateTime: Schema = { type: 'string', format: 'date-time' };
const list = (items: Schema): Schema => ({ type: 'array', items });

function object(required: readonly string[], properties: Readonly<Record<string, Schema>>, description?: string): Schema {
  return { type: 'object', ...(description ? { description } : {}), ...(required.length > 0 ? { required: [...required] } : {}), properties };
}

/** The envelope around `body`: what every JSON answer of the API has, and this answer's own fields. */
function enveloped(body: Schema): Schema {
  return { allOf: [ref('Envelope'), body] };
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

const card = object(['bin', 'last4Digits', 'expiryMonth', 'expiryYear'], {
  bin: string('^[0-9]{6,8}$'),
  last4Digits: string('^[0-9]{4}$'),
  holder: string(),
  expiryMonth: string('^(0[1-9]|1[0-2])$'),
  expiryYear: string('^[0-9]{4}$'),
}, 'The card as answers show it: never its number or CVV.');

/** A payment's own fields (COMPAT §2, §10, §11, §13, §15), with what it echoes of its request. */
const paymentFields = object(['id', 'paymentType', 'amount', 'currency', 'descriptor'], {
  id: string(ID),
  referencedId: string(ID, 'The payment a back-office operation (CP, RV, RF, CB, CR) or follow-up authorization is made on.'),
  paymentType: string(),
  paymentBrand: string(),
  amount: string(AMOUNT),
  currency: string(CURRENCY),
  descriptor: string(),
  merchantTransactionId: string(),
  resultDetails: { type: 'object', additionalProperties: { type: 'string' } },
  card: ref('Card'),
  redirect: ref('Redirect'),
  registrationId: string(ID, 'The registration a payment used or (createRegistration=true) made.'),
  threeDSecure: { type: 'object' },
  standingInstruction: { type: 'object' },
  recurringType: string(),
  customParameters: { type: 'object' },
  customer: { type: 'object' },
  billing: { type: 'object' },
  shipping: { type: 'object' },
  risk: { type: 'object' },
});

/** A transaction as the query API and notifications show it: a payment, a schedule's SD/DS, a registration's RG/DR. */
const transaction = object(['id', 'paymentType', 'result', 'timestamp'], {
  id: string(ID),
  paymentType: string(),
  referencedId: string(ID),
  amount: string(AMOUNT),
  currency: string(CURRENCY),
  shortId: string('^[0-9]{4}\\.[0-9]{4}\\.[0-9]{4}$'),
  paymentMethod: string(),
  source: string(),
  result: ref('Result'),
  timestamp: string(TIMESTAMP),
  authentication: object(['entityId'], { entityId: string(ID) }),
});

const registrationFields = object(['id', 'paymentBrand'], {
  id: string(ID),
  paymentBrand: string(),
  card: ref('Card'),
  bankAccount: { type: 'object' },
});

const job = object(['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek', 'year', 'expression'], {
  second: string(),
  minute: string(),
  hour: string(),
  dayOfMonth: string(),
  month: string(),
  dayOfWeek: string(),
  year: string(),
  expression: string(),
  startDate: { type: 'integer', description: 'The next execution, in milliseconds since 1970 (none once cancelled or ended).' },
  endDate: { type: 'integer', description: 'The end, in milliseconds since 1970.' },
});

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

/** Every schema of the document's components, by name. */
export const ANSWER_SCHEMAS: Readonly<Record<string, Schema>> = {
  Result: object(['code', 'description'], {
    code: string(patternOf(RESULT_CODE_FORMAT), 'The result code (x-result-codes of each operation, classes in x-result-code-classes).'),
    description: { type: 'string', minLength: 1 },
    parameterErrors: list(ref('ParameterError')),
  }),
  ParameterError: {
    ...object(['name', 'value', 'message'], { name: string(), value: string(undefined, 'As sent, masked: card numbers and secrets never show.'), message: string() }),
    additionalProperties: false,
  },
  Envelope: object(['result', 'buildNumber', 'timestamp', 'ndc'], {
    result: ref('Result'),
    buildNumber: string(BUILD_NUMBER),
    timestamp: string(TIMESTAMP),
    ndc: { type: 'string', minLength: 1, description: 'A checkout call’s checkout id; otherwise `<entityId>_<32 hex>` or the request’s id.' },
  }, 'What every JSON answer of the API carries (COMPAT §1), success or refusal; a refusal’s is just this.'),
  Card: card,
  Redirect: object(['url', 'method', 'parameters'], {
    url: { type: 'string', format: 'uri' },
    method: { const: 'POST' },
    parameters: list(object(['name', 'value'], { name: string(), value: string() })),
  }, 'Where a pending payment sends the shopper (the page takes GET too).'),
  PaymentFields: paymentFields,
  Payment: enveloped(ref('PaymentFields')),
  PaymentOrRefusal: { anyOf: [ref('Payment'), ref('Envelope')], description: 'A declined payment (the payment with its decline code) or a refused request.' },
  ShopperSubmit: enveloped(object(['id'], { id: string(ID), redirect: ref('Redirect') })),
  Checkout: enveloped(object(['id'], { id: string(CHECKOUT_ID), integrity: string('^sha384-[A-Za-z0-9+/]+={0,2}$') })),
  CheckoutResult: { anyOf: [ref('Payment'), ref('Registration'), ref('Envelope')], description: 'The payment, a registration-only checkout’s registration, or 000.200.000 while there is none yet.' },
  RegistrationFields: registrationFields,
  Registration: enveloped(ref('RegistrationFields')),
  RegistrationOperation: enveloped(object(['id', 'referencedId', 'paymentType'], { id: string(ID), referencedId: string(ID), paymentType: { enum: ['DR', 'TE'] } })),
  Schedule: enveloped(object(['id', 'registrationId', 'paymentType', 'amount', 'currency', 'job'], {
    id: string(ID),
    registrationId: string(ID),
    paymentType: string(),
    amount: string(AMOUNT),
    currency: string(CURRENCY),
    standingInstruction: { type: 'object' },
    job,
  })),
  Cancelled: enveloped(object(['id'], { id: string(ID) })),
  Transaction: transaction,
  QueryRecord: enveloped(ref('Transaction')),
  QueryAnswer: { anyOf: [ref('QueryRecord'), ref('QueryList')] },
  QueryList: enveloped(object(['payments', 'pages'], { payments: list(ref('Transaction')), pages: integer() })),
  Aggregation: object(['id', 'date', 'currency', 'clearingInstituteName', 'merchantAccountId', 'settlementAmount', 'transactionCount'], {
    id: string(ID),
    date: string(DAY),
    currency: string(CURRENCY),
    clearingInstituteName: string(),
    merchantAccountId: string(ID),
    settlementAmount: string(SIGNED_AMOUNT),
    transactionCount: integer(),
  }),
  SettlementSummary: enveloped(object(['aggregations'], { aggregations: list(ref('Aggregation')) })),
  SettlementRecord: settlementRecord,
  SettlementDetail: enveloped(object(['id', 'records'], { id: string(ID), records: list(ref('SettlementRecord')), pages: { ...integer(), description: 'The paged detail (v2) only.' } })),
  Health: { ...object(['status'], { status: { const: 'ok' } }), additionalProperties: false },
  Readiness: object(['status', 'checks'], { status: { enum: ['ready', 'not ready'] }, checks: { type: 'object', additionalProperties: { type: 'string' } } }),
  OpenApiDocument: object(['openapi', 'info', 'paths'], { openapi: string('^3\\.1\\.[0-9]+$'), info: { type: 'object' }, paths: { type: 'object' } }),
  Webhook: webhook,
  WebhookCreated: enveloped(object(['webhook', 'secret', 'activation'], { webhook: ref('Webhook'), secret: string('^[0-9a-fA-F]{64}$', 'The secret, this once.'), activation })),
  WebhookAnswer: enveloped(object(['webhook'], { webhook: ref('Webhook'), activation: nullable(activation) })),
  WebhookList: enveloped(object(['webhooks'], { webhooks: list(ref('Webhook')) })),
  WebhookDeliveries: enveloped(object(['deliveries'], { deliveries: list(delivery) })),
  ResendScheduled: enveloped(object(['deliveryId', 'resend'], { deliveryId: string(ID), resend: { const: 'scheduled' } })),
  SmartRetry: enveloped(object(['smartRetry'], {
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
  })),
  Throttling: enveloped(object(['throttling'], {
    throttling: object(['entityId', 'limits', 'ownLimits', 'defaults', 'risk', 'updatedAt'], {
      entityId: string(ID),
      limits: { type: 'object', additionalProperties: integer() },
      ownLimits: { type: 'object', additionalProperties: integer() },
      defaults: { type: 'object', additionalProperties: integer() },
      risk: { type: 'object' },
      updatedAt: nullable(dateTime),
    }),
  })),
  OfferedBrands: enveloped(object(['offeredBrands'], {
    offeredBrands: object(['entityId', 'brands', 'default', 'updatedAt'], { entityId: string(ID), brands: list(string()), default: { type: 'boolean' }, updatedAt: nullable(dateTime) }),
  })),
  Routing: enveloped(object(['routing'], {
    routing: object(['entityId', 'rules', 'defaultAcquirer', 'acquirers', 'connectors', 'updatedAt'], {
      entityId: string(ID),
      rules: list(routingRule),
      defaultAcquirer: string(),
      acquirers: list(string()),
      connectors: list(string()),
      updatedAt: nullable(dateTime),
    }),
  })),
  AcquirerCredentials: enveloped(object(['acquirerCredentials'], { acquirerCredentials: acquirerCredentials })),
  AcquirerCredentialsList: enveloped(object(['acquirerCredentials'], { acquirerCredentials: list(acquirerCredentials) })),
  SettledPayment: enveloped(object(['payment'], { payment: { allOf: [ref('PaymentFields'), object(['result'], { result: ref('Result') })] } })),
  CredentialsAnswer: enveloped(object(['credentials'], { credentials: credentials })),
  CredentialsList: enveloped(object(['credentials'], { credentials: list(credentials) })),
  EntityCreated: enveloped(object(['entity', 'token'], { entity, token })),
  EntityList: enveloped(object(['entities'], { entities: list(entity) })),
  TokenCreated: enveloped(object(['token'], { token })),
  TokenList: enveloped(object(['tokens'], { tokens: list(token) })),
  TokenRevoked: enveloped(object(['revoked'], { revoked: string(ID) })),
  SettlementSettings: enveloped(object(['settlement'], {
    settlement: object(['entityId', 'currency', 'unmatchedRecords', 'duplicateRecords'], { entityId: string(ID), currency: nullable(string(CURRENCY)), unmatchedRecords: integer(), duplicateRecords: integer() }),
  })),
  SettlementRun: enveloped(object(['settlementRun'], {
    settlementRun: object(['date', 'cutoffAt', 'until', 'settlements'], { date: string(DAY), cutoffAt: dateTime, until: dateTime, settlements: list(settlement) }),
  })),
  SettlementList: enveloped(object(['settlements'], { settlements: list(settlement) })),
  FtpSettings: enveloped(object(['ftp'], { ftp: nullable(ftpSettings) })),
  ReconciliationFile: enveloped(object(['file'], { file: reconciliationFile })),
  ReconciliationFiles: enveloped(object(['files'], { from: string(DAY), to: string(DAY), date: string(DAY), files: list(reconciliationFile), next: string(ID, 'The entity to continue after (`after`), when the page is full.') })),
};
