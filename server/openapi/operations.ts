import { CHECKOUT_RESULTS } from '../checkouts/results.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import { ADMIN_OPERATIONS } from './adminOperations.ts';
import { own, type Answer, type OperationEntry } from './entry.ts';

/**
 * What each route of the app is, for the OpenAPI document: one entry per `METHOD path` exactly as Hono lists the
 * route (app.routes), the generator (document.ts) joining this table with the app's route table and the parameter
 * catalogue. A route without an entry, or an entry without a route, fails the document's test (openapi.test.ts):
 * adding a route means saying here what it is.
 */

const SUCCESS_CODES = [RESULTS.succeeded, RESULTS.testModeInternalSuccess, RESULTS.testModeExternalSuccess];
const TEST_MODE_CODES = [RESULTS.invalidTestMode, RESULTS.testModeInLive];
const REGISTRATION_CODES = [RESULTS.invalidRegistrationId, RESULTS.registrationNotFound, RESULTS.registrationDeleted, RESULTS.registrationNotValid];
const RISK_CODES = [
  RESULTS.riskAccountCount, RESULTS.riskIpCount, RESULTS.riskEmailCount, RESULTS.riskVolume, RESULTS.riskAccountVolume, RESULTS.riskIpVolume,
  RESULTS.riskEmailVolume, RESULTS.riskChargebackRate, RESULTS.riskMerchantAccountLimit,
];
/** What a new payment may answer (a card's, a stored card's, an asynchronous brand's, another instrument's). */
const PAYMENT_CODES = [
  ...SUCCESS_CODES, RESULTS.pending, RESULTS.invalidCard, RESULTS.cardExpired, RESULTS.cardBrandMismatch, RESULTS.authenticationFailed,
  RESULTS.threeDSecureTechnicalError, RESULTS.notEnrolled, RESULTS.cancelledByUser, RESULTS.pendingTimedOut, RESULTS.onlineTransferTimedOut,
  ...REGISTRATION_CODES, RESULTS.registrationRequired, ...TEST_MODE_CODES, RESULTS.invalidRecurringData, RESULTS.referencedInappropriateType,
  RESULTS.invalidPaymentMethod, RESULTS.notConfiguredForMethod, RESULTS.notConfiguredForType, RESULTS.unsupportedPaymentMethod,
  RESULTS.invalidPaymentData, ...RISK_CODES, RESULTS.declinedUnknownReason, RESULTS.systemError, RESULTS.acquirerUnreachable, RESULTS.timeoutUncertain,
];
const DECLINE_CLASSES = ['success', 'successReview', 'pending', 'rejectedThreeDSecureOrRisk', 'rejectedByBank', 'rejectedCommunication', 'rejectedAsync', 'softDecline', 'rejectedSystem'] as const;
const BACK_OFFICE_CODES = [
  ...SUCCESS_CODES, ...TEST_MODE_CODES, RESULTS.referenceInvalidType, RESULTS.cannotCapture, RESULTS.cannotRefund, RESULTS.cannotReverse,
  RESULTS.captureWithoutPreauthorization, RESULTS.reversalWithoutPayment, RESULTS.invalidPaymentData, RESULTS.multipleChargebacks, RESULTS.chargebacked,
  RESULTS.cannotChargeback, RESULTS.chargebackInternalOnly, RESULTS.cannotReverseChargeback, RESULTS.chargebackReversalWithoutChargeback,
  RESULTS.chargebackWithoutPayment, RESULTS.referencedInappropriateType, RESULTS.systemError, RESULTS.acquirerUnreachable, RESULTS.timeoutUncertain,
];
const SCHEDULE_CODES = [
  RESULTS.succeeded, RESULTS.jobWithoutExecution, RESULTS.jobDurationUnit, RESULTS.jobNoticeUnit, RESULTS.jobMissingExecution, RESULTS.jobMissingExpression,
  RESULTS.jobNotStandard, RESULTS.jobHour, RESULTS.jobMinuteOrSecond, RESULTS.jobDayOfMonth, RESULTS.jobMonth, RESULTS.jobDayOfWeek, ...REGISTRATION_CODES,
  RESULTS.invalidRecurringData, ...TEST_MODE_CODES,
];

const payment: Answer = { description: 'The payment: approved, or pending with where to send the shopper (redirect).', schema: 'Payment' };
const paymentRefused: Answer = { description: 'The payment declined (with its decline code), or the request refused (200.300.404 with parameterErrors, ...).', schema: 'PaymentOrRefusal' };
const page = (description: string): Answer => ({ description, contentType: 'text/html' });
const SHOPPER_PAGE_ANSWERS: Readonly<Record<number, Answer>> = {
  200: page('The page.'),
  400: page('A form the page never sends, or another payment’s id.'),
  404: page('No such page.'),
  409: page('Answered already: nothing changed.'),
  410: page('Not answered in time: the payment ended.'),
};

const queryParameters = ['merchantTransactionId', 'date.from', 'date.to', 'shortId', 'paymentTypes', 'paymentMethods', 'limit', 'pageNo'];
const queryById: OperationEntry = {
  summary: 'A transaction as it was made, or with its linked transactions',
  description: 'A payment (a checkout’s id names its payment), a schedule’s SD or DS record, a registration’s RG or DR, with its original result and time. At most 2 a minute per id.',
  tag: 'Query',
  security: 'merchant',
  query: ['entityId', 'includeLinkedTransactions', 'limit', 'pageNo'],
  rules: 'query',
  answers: {
    200: { description: 'The transaction; with includeLinkedTransactions=true, it and its linked transactions as a list.', schema: 'QueryAnswer' },
    400: { description: 'Unknown (700.400.580), or a bad parameter.', schema: 'Envelope' },
  },
  codes: [RESULTS.successfulRequest, RESULTS.transactionNotFound],
  classes: ['success', 'successReview', 'pending', 'rejectedThreeDSecureOrRisk', 'rejectedByBank', 'rejectedCommunication', 'rejectedAsync', 'softDecline', 'rejectedSystem', 'rejectedFormat', 'rejectedReference', 'rejectedConfiguration', 'chargeback'],
};
const queryList: OperationEntry = {
  summary: 'The entity’s transactions by reference, span of time or short id',
  description: 'One of merchantTransactionId, date.from with date.to (at most 31 days), or shortId; in chronological order, a page at a time. One list query a second per entity.',
  tag: 'Query',
  security: 'merchant',
  query: ['entityId', ...queryParameters],
  rules: 'query',
  answers: { 200: { description: 'A page of transactions.', schema: 'QueryList' }, 400: { description: 'Nothing found (700.400.580), or a bad parameter.', schema: 'Envelope' } },
  codes: [RESULTS.successfulRequest, RESULTS.transactionNotFound],
};

const reportSummary: OperationEntry = {
  summary: 'Settlement summary: the aggregations of a span of days',
  tag: 'Settlement reports',
  security: 'merchant',
  query: [
    'entityId',
    own('date.from', 'The first day (yyyy-MM-dd; a time after it is ignored).', { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2})?$' }, true),
    own('date.to', 'The last day, at most 31 days after date.from.', { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}( [0-9]{2}:[0-9]{2}:[0-9]{2})?$' }, true),
    'currency',
    'testMode',
  ],
  answers: { 200: { description: 'The aggregations.', schema: 'SettlementSummary' } },
  codes: [RESULTS.successfulRequest, ...TEST_MODE_CODES],
};
const reportDetail = (paged: boolean): OperationEntry => ({
  summary: paged ? 'Settlement detail, 100 records a page' : 'Settlement detail: every record of an aggregation',
  tag: 'Settlement reports',
  security: 'merchant',
  query: [
    'entityId',
    'sortValue',
    'sortOrder',
    'testMode',
    ...(paged
      ? ['pageNo', own('reconciliationType', 'Only the records of this type.', { enum: ['SETTLED', 'FEE', 'CHARGEBACK', 'CHARGEBACK REVERSAL'] })]
      : []),
  ],
  answers: { 200: { description: paged ? 'A page of the records, with pages.' : 'The records, streamed.', schema: 'SettlementDetail' }, 400: { description: 'Unknown aggregation (700.400.580), or a bad parameter.', schema: 'Envelope' } },
  codes: [RESULTS.successfulRequest, RESULTS.transactionNotFound, ...TEST_MODE_CODES],
});

/** The three settlement reports under each spelling of their path (reports/routes.ts COLLECTIONS). */
function reportOperations(): Record<string, OperationEntry> {
  const entries: Record<string, OperationEntry> = {};
  for (const collection of ['reconciliations/aggregations', 'reconiliations/aggregrations', 'reconciliations/aggregrations']) {
    const alias = collection === 'reconciliations/aggregations' ? {} : { description: 'The same report under the path as the platform’s documentation spells it.' };
    entries[`GET /reports/v1/${collection}`] = { ...reportSummary, ...alias };
    entries[`GET /reports/v1/${collection}/:id`] = { ...reportDetail(false), ...alias };
    entries[`GET /reports/v2/${collection}/:id`] = { ...reportDetail(true), ...alias };
  }
  return entries;
}

const checkoutRead = (kind: 'payment' | 'registration'): OperationEntry => ({
  summary: kind === 'payment' ? 'The checkout’s payment (once)' : 'A registration-only checkout’s registration (once)',
  description: 'After a final result has been read, or after expiry, 400 200.300.404. At most 2 reads a minute per checkout.',
  tag: 'Checkouts',
  security: 'merchant',
  query: ['entityId'],
  answers: { 200: { description: 'The result, or 000.200.000 while there is none.', schema: 'CheckoutResult' }, 400: paymentRefused },
  codes: [RESULTS.pending, RESULTS.invalidParameter, ...PAYMENT_CODES],
  classes: DECLINE_CLASSES,
});
const checkoutSubmit = (kind: 'payment' | 'registration'): OperationEntry => ({
  summary: kind === 'payment' ? 'The shopper’s submit of a checkout (the widget)' : 'The shopper’s submit of a registration-only checkout',
  description:
    'From the shopper’s browser, without Authorization: the checkout id is the capability. The checkout’s parameters stand; the shopper adds the instrument, and the whole is checked as a payment’s (PaymentRequest).',
  tag: 'Checkouts',
  security: 'none',
  form: 'catalogue',
  answers: { 200: { description: 'The result, and the page to send the shopper to while pending.', schema: 'ShopperSubmit' }, 400: { description: 'Declined, or refused.', schema: 'Envelope' } },
  codes: [...PAYMENT_CODES, RESULTS.invalidParameter, RESULTS.throttled],
  classes: DECLINE_CLASSES,
});

/**
 * Click to Pay's steps (server/clickToPay/), from the widget like the submit: no Authorization, the checkout id is the
 * capability. The simulated SRC system's (lookup, validation, a card id) are refused by a live gateway (600.200.200).
 */
const clickToPayStep = (summary: string, form: OperationEntry['form']): OperationEntry => ({
  summary,
  description:
    'From the widget’s Click to Pay form. The test profiles are listed in docs/widget.md; any other e-mail is NOT_ENROLLED. The chosen card is paid by the checkout’s submit with paymentBrand=CLICK_TO_PAY and clickToPay.correlationId.',
  tag: 'Checkouts',
  security: 'none',
  form,
  answers: { 200: { description: 'The step’s outcome.', schema: 'ClickToPayStep' }, 400: { description: 'Refused: a parameter named, or the checkout closed.', schema: 'Envelope' } },
  codes: [RESULTS.successfulRequest, RESULTS.invalidParameter, RESULTS.unsupportedPaymentMethod],
});

const MERCHANT_OPERATIONS: Readonly<Record<string, OperationEntry>> = {
  'POST /v1/payments': {
    summary: 'Make a payment',
    description: 'Preauthorize (PA), debit (DB) or credit (CD) a card (with 3-D Secure where the issuer asks for it), PA.CP, an asynchronous brand, another instrument or a stored card (registrationId).',
    tag: 'Payments', security: 'merchant', form: 'payment', idempotent: true,
    answers: { 200: payment, 400: paymentRefused },
    codes: PAYMENT_CODES, classes: DECLINE_CLASSES,
  },
  'POST /v1/payments/:id': {
    summary: 'Capture, refund, reverse, charge back (test) a payment',
    description: 'CP, RF, RV; in test CB and CR. With paymentType=PA and standingInstruction.industryPractice INCREMENTAL_AUTH or REAUTHORIZATION, a follow-up authorization of the payment.',
    tag: 'Payments', security: 'merchant', form: 'backOffice', idempotent: true,
    answers: { 200: payment, 400: paymentRefused },
    codes: BACK_OFFICE_CODES, classes: ['success', 'chargeback', 'rejectedByBank', 'rejectedCommunication', 'rejectedSystem'],
  },
  'GET /v1/payments/:id': {
    summary: 'Read a payment', description: 'At most 2 reads a minute per payment.',
    tag: 'Payments', security: 'merchant', query: ['entityId'],
    answers: { 200: payment, 400: paymentRefused, 404: { description: 'No such payment of the entity (700.400.580).', schema: 'Envelope' } },
    codes: [...PAYMENT_CODES, RESULTS.transactionNotFound], classes: [...DECLINE_CLASSES, 'chargeback'],
  },
  'POST /v1/checkouts': {
    summary: 'Create a hosted checkout',
    description: 'Valid 30 minutes; integrity=true adds the SRI hash of its paymentWidgets.js.',
    tag: 'Checkouts', security: 'merchant', form: 'checkout', idempotent: true,
    answers: { 200: { description: 'Created (000.200.100).', schema: 'Checkout' } },
    codes: [CHECKOUT_RESULTS.created, ...TEST_MODE_CODES, ...REGISTRATION_CODES],
  },
  'POST /v1/checkouts/:id': {
    summary: 'Update an open checkout', tag: 'Checkouts', security: 'merchant', form: 'checkout',
    answers: { 200: { description: 'Updated (000.200.101).', schema: 'Checkout' } },
    codes: [CHECKOUT_RESULTS.updated, ...TEST_MODE_CODES],
  },
  'DELETE /v1/checkouts/:id': {
    summary: 'Delete an open checkout', description: 'It then answers as an unknown id.', tag: 'Checkouts', security: 'merchant', query: ['entityId'],
    answers: { 200: { description: 'Deleted (000.200.102).', schema: 'Checkout' } },
    codes: [CHECKOUT_RESULTS.deleted],
  },
  'POST /v1/checkouts/:id/payment': checkoutSubmit('payment'),
  'GET /v1/checkouts/:id/payment': checkoutRead('payment'),
  'POST /v1/checkouts/:id/registration': checkoutSubmit('registration'),
  'GET /v1/checkouts/:id/registration': checkoutRead('registration'),
  'POST /v1/checkouts/:id/clickToPay/session': {
    summary: 'Click to Pay with the networks: a session for their SDKs',
    description:
      'What the widget initialises the networks’ SRC SDKs with (live): the srciTransactionId, the entity’s DPA registrations and SDK URLs (PUT /admin/v1/entities/{entityId}/clickToPay), the transaction’s amount. The network’s checkout response for this session then goes to …/clickToPay/checkout. Valid 10 minutes.',
    tag: 'Checkouts',
    security: 'none',
    answers: { 200: { description: 'The session.', schema: 'ClickToPaySession' }, 400: { description: 'The checkout closed (200.300.404), or no Click to Pay settings for its entity (600.200.201).', schema: 'Envelope' } },
    codes: [RESULTS.successfulRequest, RESULTS.invalidParameter, RESULTS.notConfiguredForMethod],
  },
  'POST /v1/checkouts/:id/clickToPay/lookup': clickToPayStep(
    'Click to Pay: the shopper’s e-mail looked up in the SRC system (test)',
    [own('email', 'The shopper’s e-mail address (never echoed).', { type: 'string' }, true)],
  ),
  'POST /v1/checkouts/:id/clickToPay/validation': clickToPayStep('Click to Pay: the one-time code (123456 in the simulator), which opens the card list', [
    own('sessionId', 'The session the lookup answered.', { type: 'string', pattern: '^[0-9a-f]{32}$' }, true),
    own('otp', 'The six digits of the code (never echoed); the third wrong one locks the session.', { type: 'string', pattern: '^[0-9]{6}$' }, true),
  ]),
  'POST /v1/checkouts/:id/clickToPay/checkout': clickToPayStep('Click to Pay: the card chosen, held for the checkout’s submit (from the simulator’s card list, or a network’s checkout response)', [
    own('sessionId', 'The validated session (simulator), or the srciTransactionId of …/clickToPay/session (networks).', { type: 'string', pattern: '^[0-9a-f]{32}$' }, true),
    own('cardId', 'Simulator: a card of the card list.', { type: 'string' }),
    own('network', 'Networks: the network whose SDK answered (mastercard, visa).', { enum: ['mastercard', 'visa'] }),
    own('checkoutResponse', 'Networks: the checkoutResponse of the SDK’s checkout(): signed by the network, its payload encrypted to the entity’s key; opened by the gateway, never echoed.', { type: 'string', maxLength: 32768 }),
  ]),
  'POST /v1/registrations': {
    summary: 'Store a card or a SEPA account', tag: 'Registrations', security: 'merchant', form: 'registration', idempotent: true,
    answers: { 200: { description: 'The registration.', schema: 'Registration' }, 400: { description: 'Refused: an invalid card still answers its id and card.', schema: 'RegistrationOrRefusal' } },
    codes: [...SUCCESS_CODES, RESULTS.invalidCard, RESULTS.cardExpired, RESULTS.cardBrandMismatch, RESULTS.invalidPaymentMethod, RESULTS.notConfiguredForMethod, ...TEST_MODE_CODES],
  },
  'GET /v1/registrations/:id': {
    summary: 'Read a registration', tag: 'Registrations', security: 'merchant', query: ['entityId'],
    answers: { 200: { description: 'The registration.', schema: 'Registration' } },
    codes: [...SUCCESS_CODES, ...REGISTRATION_CODES],
  },
  'POST /v1/registrations/:id': {
    summary: 'Change a stored card’s holder or expiry', tag: 'Registrations', security: 'merchant', form: 'registrationUpdate',
    answers: { 200: { description: 'The registration.', schema: 'Registration' } },
    codes: [...SUCCESS_CODES, ...REGISTRATION_CODES, ...TEST_MODE_CODES],
  },
  'DELETE /v1/registrations/:id': {
    summary: 'Delete a registration (DR)', description: 'Its parameters in the query string or a form body. The card is erased; its schedules are cancelled.',
    tag: 'Registrations', security: 'merchant', query: ['entityId', 'testMode'],
    answers: { 200: { description: 'The deregistration: its own id, referencedId = the registration.', schema: 'RegistrationOperation' } },
    codes: [...SUCCESS_CODES, ...REGISTRATION_CODES, ...TEST_MODE_CODES],
  },
  'POST /v1/registrations/:id/extendlife': {
    summary: 'Start a registration’s expiry clock again (TE)', tag: 'Registrations', security: 'merchant', form: ['entityId', 'testMode'],
    answers: { 200: { description: 'The extension: its own id, referencedId = the registration.', schema: 'RegistrationOperation' } },
    codes: [...SUCCESS_CODES, ...REGISTRATION_CODES, ...TEST_MODE_CODES],
  },
  'POST /v1/registrations/:id/payments': {
    summary: 'Pay with a registration', description: 'PA, DB, CD or PA.CP; CP, RF and RV reference the payment (100.350.201).',
    tag: 'Registrations', security: 'merchant', form: 'payment', idempotent: true,
    answers: { 200: payment, 400: paymentRefused },
    codes: [...PAYMENT_CODES, RESULTS.registrationNotApplicable], classes: DECLINE_CLASSES,
  },
  'POST /scheduling/v1/schedules': {
    summary: 'Schedule payments on a stored card (SD)', description: 'At the fire times of a Quartz cron job (UTC).',
    tag: 'Schedules', security: 'merchant', form: 'schedule', idempotent: true,
    answers: { 200: { description: 'The schedule; job.startDate is its first execution.', schema: 'Schedule' } },
    codes: SCHEDULE_CODES,
  },
  'GET /scheduling/v1/schedules/:id': {
    summary: 'Read a schedule', tag: 'Schedules', security: 'merchant', query: ['entityId'],
    answers: { 200: { description: 'The schedule; job.startDate is its next execution.', schema: 'Schedule' }, 400: { description: 'Unknown (700.400.580).', schema: 'Envelope' } },
    codes: [RESULTS.succeeded, RESULTS.transactionNotFound],
  },
  'DELETE /scheduling/v1/schedules/:id': {
    summary: 'Cancel a schedule (DS)', tag: 'Schedules', security: 'merchant', query: ['entityId', 'testMode'],
    answers: { 200: { description: 'Cancelled: no execution after this.', schema: 'Cancelled' }, 400: { description: 'Unknown (700.400.580), or cancelled or ended already (100.350.101).', schema: 'Envelope' } },
    codes: [RESULTS.succeeded, RESULTS.transactionNotFound, RESULTS.scheduleClosed, ...TEST_MODE_CODES],
  },
  'GET /v1/redirects/:id': {
    summary: 'The page a pending payment sends the shopper to',
    description: 'The simulated issuer’s 3-D Secure challenge, an asynchronous brand’s simulated provider page, or a cash voucher. The random id is the capability.',
    tag: 'Shopper pages', security: 'none', query: [own('paymentId', 'The payment the page is for (redirect.parameters).', { type: 'string', pattern: '^[0-9a-f]{32}$' })],
    answers: SHOPPER_PAGE_ANSWERS,
  },
  'POST /v1/redirects/:id': {
    summary: 'The same page, with redirect.parameters posted', tag: 'Shopper pages', security: 'none',
    form: [own('paymentId', 'The payment the page is for (redirect.parameters).', { type: 'string', pattern: '^[0-9a-f]{32}$' })],
    answers: SHOPPER_PAGE_ANSWERS,
  },
  'POST /v1/redirects/:id/answer': {
    summary: 'The shopper’s answer on that page', tag: 'Shopper pages', security: 'none',
    form: [
      own('paymentId', 'The payment the page is for.', { type: 'string' }),
      own('action', 'What the shopper did.', { enum: ['submit', 'cancel', 'decline', 'pending'] }, true),
      own('otp', 'The challenge’s code (1234 in the simulator).', { type: 'string' }),
      own('pin', 'A provider page’s PIN.', { type: 'string' }),
    ],
    answers: SHOPPER_PAGE_ANSWERS,
  },
  'GET /v1/acquirers/:acquirer/returns/:attemptId': {
    summary: 'Where a connector’s provider sends the shopper back',
    description:
      'The return address the gateway gives a provider behind a connector (issue 33) for its 3-D Secure challenge or an asynchronous brand’s page. The gateway asks the provider what became of the payment, records it, and sends the shopper on to the merchant’s result page. Anything the provider adds is ignored; the attempt’s random id is the capability.',
    tag: 'Shopper pages', security: 'none',
    answers: { 200: page('The page that sends the shopper on.'), 404: page('No such return.') },
  },
  'POST /v1/acquirers/:acquirer/returns/:attemptId': {
    summary: 'The same, when the provider posts the shopper back', tag: 'Shopper pages', security: 'none',
    answers: { 200: page('The page that sends the shopper on.'), 404: page('No such return.') },
  },
  'POST /v1/acquirers/:acquirer/notifications': {
    summary: 'A connector’s provider’s webhook notification',
    description:
      'The provider’s encrypted notification (the hex of the AES-256-GCM ciphertext, or {"encryptedBody": hex}, with X-Initialization-Vector and X-Authentication-Tag), decrypted with the acquirer’s notificationKey (ACQUIRERS_FILE). It finishes a payment awaiting the provider, or records a chargeback the provider recorded. 404 for an acquirer without a notification key.',
    tag: 'Providers', security: 'none',
    answers: {
      200: { description: 'Read: `outcome` says what it did (test, attempt, chargeback, known, ignored).', schema: 'ProviderNotification' },
      401: { description: 'It does not decrypt with the acquirer’s key (800.900.300): nothing done.', schema: 'Envelope' },
      404: { description: 'No such acquirer, or one without a notification key.', schema: 'Envelope' },
    },
    codes: [RESULTS.successfulRequest, RESULTS.invalidAuthentication],
  },
  'GET /v1/query': queryList,
  'GET /v1/query/:id': queryById,
  'GET /v3/query': { ...queryList, description: `${queryList.description} The same as /v1/query.` },
  'GET /v3/query/:id': { ...queryById, description: `${queryById.description} The same as /v1/query/{id} (they share the count).` },
  ...reportOperations(),
  'GET /v1/paymentWidgets.js': {
    summary: 'The widget for a checkout', description: 'A small per-checkout script; the widget’s files are under /v1/static/{version}/.',
    tag: 'Widget', security: 'none',
    query: [own('checkoutId', 'The checkout, with /registration for a registration-only one.', { type: 'string', pattern: '^[0-9A-Za-z.-]{1,64}(/registration)?$' }, true)],
    answers: { 200: { description: 'The script (an unknown checkout’s tells the widget so).', contentType: 'text/javascript' } },
  },
  'GET /v1/wallets/config': {
    summary: 'What the wallet buttons are told',
    description: 'The environment (test: the simulated wallet sheet; live: Apple’s and Google’s own APIs) and the gateway’s name in Google Pay’s tokenization. Asked once per page by the widget’s wallet buttons. Public.',
    tag: 'Widget', security: 'none',
    answers: { 200: { description: 'The environment and Google Pay’s gateway name.', schema: 'WalletsConfig' } },
    codes: [RESULTS.successfulRequest],
  },
  'POST /v1/wallets/applepay/session': {
    summary: 'Apple Pay merchant validation for a checkout or a fast checkout’s page',
    description:
      'What the widget’s live Apple Pay button posts in ApplePaySession’s onvalidatemerchant: the gateway POSTs {merchantIdentifier, displayName, initiative: "web", initiativeContext: domain} to the validationUrl over mutual TLS with the checkout’s entity’s Apple Pay Merchant Identity certificate (PUT /admin/v1/entities/{entityId}/applePay) and answers Apple’s merchant session unchanged. No credentials: the checkout id is the capability. A fast checkout’s page (createCheckout, no checkout yet) gives its merchantIdentifier instead: the identity is the entity’s with that identifier and the page’s domain registered, and the validation counts against the entity’s requestsPerMinute. The validationUrl must be https on Apple’s merchant validation hosts; the domain one the entity registered, and the host of the request’s Origin when the browser sends one.',
    tag: 'Widget', security: 'none',
    json: {
      type: 'object',
      properties: {
        validationUrl: { type: 'string', description: 'The validationURL of the onvalidatemerchant event: https, on Apple’s hosts (apple-pay-gateway.apple.com, its pods, the China region, the sandboxes).' },
        domain: { type: 'string', description: 'The page’s host name (location.hostname), registered for the entity.' },
        checkoutId: { type: 'string', description: 'The checkout the sheet pays: it must be open. Empty or absent on a fast checkout’s page (then merchantIdentifier is required).' },
        displayName: { type: 'string', maxLength: 64, description: 'The shop’s name for Apple; default: the identity’s display name, else the domain.' },
        merchantIdentifier: { type: 'string', description: 'With a checkoutId, optional (when given, the entity’s own); without one, the identity asked for.' },
      },
      required: ['validationUrl', 'domain'],
    },
    answers: {
      200: { description: 'Apple’s merchant session, as Apple answered it.', schema: 'ApplePayMerchantSession' },
      400: { description: 'Refused: a field named (200.300.404 with parameterErrors: a validationUrl off Apple’s hosts, an unregistered domain, a domain other than the Origin’s, a fast checkout’s merchantIdentifier no entity has for the domain), a checkout that cannot be used (200.300.404), no Apple Pay identity for the entity (600.200.201), the entity’s request limit reached (800.120.100).', schema: 'Envelope' },
      502: { description: 'Apple refused (900.100.200, its statusMessage quoted) or could not be reached (900.100.100).', schema: 'Envelope' },
      504: { description: 'Apple did not answer in time (900.100.400).', schema: 'Envelope' },
    },
    codes: [RESULTS.invalidParameter, RESULTS.invalidRequestStructure, RESULTS.notConfiguredForMethod, RESULTS.throttled, RESULTS.acquirerUnreachable, RESULTS.connectorErrorResponse, RESULTS.connectorTimeout],
  },
  'GET /v1/wallets/sheet': {
    summary: 'The simulated wallet sheet (test environment)',
    description: 'The page the widget’s Apple Pay and Google Pay buttons open in test: the merchant, the amount and the test cards; it makes the test token and posts the payment to the checkout itself. 404 in live.',
    tag: 'Widget', security: 'none',
    query: [
      own('brand', 'APPLEPAY or GOOGLEPAY.', { type: 'string', enum: ['APPLEPAY', 'GOOGLEPAY'] }, true),
      own('amount', 'The amount shown.', { type: 'string', pattern: '^[0-9]{1,10}(\\.[0-9]{1,3})?$' }, true),
      own('currency', 'Its currency.', { type: 'string', pattern: '^[A-Z]{3}$' }, true),
      own('merchant', 'The merchant’s name shown.', { type: 'string', maxLength: 64 }, false),
      own('networks', 'The card networks the merchant accepts, comma-separated (VISA, MASTER, AMEX).', { type: 'string' }, false),
      own('authMethods', 'Google Pay’s auth methods the merchant accepts (PAN_ONLY, CRYPTOGRAM_3DS).', { type: 'string' }, false),
      own('contact', 'The shopper’s data the merchant asks the wallet for, comma-separated (email, name, phone, address).', { type: 'string' }, false),
      own('lang', 'The language (the widget’s codes).', { type: 'string' }, false),
    ],
    answers: {
      200: { description: 'The sheet.', contentType: 'text/html' },
      400: { description: 'A parameter out of its format, named.', contentType: 'text/plain' },
      404: { description: 'A live gateway: there is no simulated sheet.', contentType: 'text/plain' },
    },
  },
  'POST /v1/checkouts/:id/widgetReport': {
    summary: 'The widget’s report of the options its page set',
    description:
      'Sent by the widget (navigator.sendBeacon) once a page rendered it: the names of the wpwlOptions the page set, a JSON array of at most 60 names. They go into the merchant’s integration report (GET /admin/v1/entities/{entityId}/integrationReport), which lists the names the widget does not know. One report per checkout counts.',
    tag: 'Widget', security: 'none',
    answers: { 204: { description: 'Taken.', contentType: 'none' }, 400: { description: 'Not a JSON array of names, or no such checkout (200.300.404).', schema: 'Envelope' } },
    codes: [RESULTS.invalidParameter],
  },
  'GET /v1/bins/:bin': {
    summary: 'The card brands of a BIN',
    description: 'The brands whose ranges a card’s first 6 to 8 digits fit, most specific first (mada before the Visa it is issued on): the BIN list the widget asks with brandDetectionType: binlist. Public; cached a day.',
    tag: 'Widget', security: 'none',
    answers: { 200: { description: 'The brands (none for digits of no known brand).', schema: 'BinBrands' }, 400: { description: 'Not 6 to 8 digits (200.300.404).', schema: 'Envelope' } },
    codes: [RESULTS.successfulRequest, RESULTS.invalidParameter],
  },
};

const OPERATIONS_OF_THE_PROCESS: Readonly<Record<string, OperationEntry>> = {
  'GET /health': { summary: 'Liveness: the process answers', tag: 'Operations', security: 'none', answers: { 200: { description: 'Alive.', schema: 'Health' } } },
  'GET /ready': {
    summary: 'Readiness: store, migrations and jobs', tag: 'Operations', security: 'none',
    answers: { 200: { description: 'Ready.', schema: 'Readiness' }, 503: { description: 'Not ready (or shutting down): the failing check named.', schema: 'Readiness' } },
  },
  'GET /metrics': {
    summary: 'Prometheus metrics', description: 'With METRICS_TOKEN only (METRICS_PORT has a listener of its own).', tag: 'Operations', security: 'metrics',
    answers: { 200: { description: 'The metrics, in Prometheus’s text format.', contentType: 'text/plain' }, 401: { description: 'No bearer token.', contentType: 'text/plain' }, 403: { description: 'Not the metrics token.', contentType: 'text/plain' } },
  },
  'GET /': { summary: 'The gateway’s home page', tag: 'Documentation', security: 'none', answers: { 200: page('Links to the demo shop, the reference and the documentation.') } },
  'GET /docs': { summary: 'This reference, as a page', description: 'Rendered from /v1/openapi.json, with the documentation pages.', tag: 'Documentation', security: 'none', answers: { 200: page('The reference.') } },
  'GET /docs/': { summary: 'This reference, as a page (the same)', tag: 'Documentation', security: 'none', answers: { 200: page('The reference.') } },
  'GET /docs/:page': {
    summary: 'A documentation page (docs/*.md) as text', tag: 'Documentation', security: 'none',
    answers: { 200: { description: 'The page, in Markdown.', contentType: 'text/plain' }, 404: { description: 'No such page.', schema: 'Envelope' } },
  },
  'GET /v1/openapi.json': { summary: 'This reference, as OpenAPI 3.1', tag: 'Documentation', security: 'none', answers: { 200: { description: 'The document.', schema: 'OpenApiDocument' } } },
};

/** Every documented route, by `METHOD path` as Hono lists it. */
export const OPERATIONS: Readonly<Record<string, OperationEntry>> = { ...MERCHANT_OPERATIONS, ...ADMIN_OPERATIONS, ...OPERATIONS_OF_THE_PROCESS };
