import { isPendingCode, isSuccessfulCode, RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';

/**
 * Result codes the gateway answers with. Codes and their classes (widget/shared/resultCodes.ts) follow COMPAT §8,
 * so merchant code that classifies results with the published patterns keeps working.
 */

export interface Result {
  readonly code: string;
  readonly description: string;
}

function result(code: string, description: string): Result {
  return { code, description };
}

export const RESULTS = {
  succeeded: result('000.000.000', 'Transaction succeeded'),
  successfulRequest: result('000.000.100', 'successful request'),
  testModeInternalSuccess: result('000.100.110', "Request successfully processed in 'Merchant in Integrator Test Mode'"),
  testModeExternalSuccess: result('000.100.112', "Request successfully processed in 'Merchant in Connector Test Mode'"),
  pending: result('000.200.000', 'transaction pending'),
  invalidCard: result('100.100.101', 'invalid creditcard, bank account number or bank name'),
  cardExpired: result('100.100.303', 'card expired'),
  cardBrandMismatch: result('100.100.700', 'invalid cc number/brand combination'),
  authenticationFailed: result('100.380.401', 'User Authentication Failed'),
  threeDSecureTechnicalError: result('100.390.112', 'Technical Error in 3D system'),
  cancelledByUser: result('100.396.101', 'Cancelled by user'),
  pendingTimedOut: result('100.396.103', 'Previously pending transaction timed out'),
  onlineTransferTimedOut: result('100.395.501', 'Previously pending online transfer transaction timed out'),
  notEnrolled: result('000.400.109', 'Card not enrolled for 3DS version 2'),
  invalidRegistrationId: result('100.150.101', 'invalid format for specified registration id (must be uuid format)'),
  registrationNotFound: result('100.150.200', 'registration does not exist'),
  registrationDeleted: result('100.150.202', 'registration is already deregistered'),
  registrationNotValid: result('100.150.203', 'registration is not valid, probably initially rejected'),
  registrationRequired: result('100.150.300', 'payment only allowed with valid initial registration'),
  registrationNotApplicable: result('100.350.201', 'referencing a registration through reference id is not applicable for this payment type'),
  // Schedules (COMPAT §12): the job definition, and a schedule that can no longer be cancelled.
  jobWithoutExecution: result('100.250.100', 'job contains no execution information'),
  jobDurationUnit: result('100.250.106', 'invalid or missing duration unit'),
  jobNoticeUnit: result('100.250.107', 'invalid or missing notice unit'),
  jobMissingExecution: result('100.250.110', 'missing job execution'),
  jobMissingExpression: result('100.250.111', 'missing job expression'),
  jobNotStandard: result('100.250.120', 'invalid execution parameters, combination does not conform to standard'),
  jobHour: result('100.250.121', 'invalid execution parameters, hour must be between 0 and 23'),
  jobMinuteOrSecond: result('100.250.122', 'invalid execution parameters, minute and seconds must be between 0 and 59'),
  jobDayOfMonth: result('100.250.123', 'invalid execution parameters, Day of month must be between 1 and 31'),
  jobMonth: result('100.250.124', 'invalid execution parameters, month must be between 1 and 12'),
  jobDayOfWeek: result('100.250.125', 'invalid execution parameters, Day of week must be between 1 and 7'),
  scheduleClosed: result('100.350.101', 'referenced session is CLOSED (no action possible)'),
  invalidTestMode: result('100.300.101', 'invalid test mode (please use INTERNAL or EXTERNAL)'),
  invalidRequestStructure: result('200.100.103', 'invalid Request Message. The request contains structural errors'),
  invalidParameter: result('200.300.404', 'invalid or missing parameter'),
  invalidRecurringData: result(
    '600.200.501',
    'Invalid payment data for Recurring transaction. Merchant or transaction data has wrong recurring configuration.',
  ),
  testModeInLive: result('600.200.701', 'testMode not allowed in live environment'),
  referencedInappropriateType: result('700.100.700', 'referenced transaction is of inappropriate type'),
  referenceInvalidType: result('700.300.100', 'referenced tx can not be refunded, captured or reversed (invalid type)'),
  cannotCapture: result('700.400.100', 'cannot capture (PA value exceeded, PA reverted or invalid workflow?)'),
  cannotRefund: result('700.400.200', 'cannot refund (refund volume exceeded or tx reversed or invalid workflow?)'),
  cannotReverse: result('700.400.300', 'cannot reverse (already refunded|reversed, invalid workflow or amount exceeded)'),
  transactionNotFound: result('700.400.580', 'cannot find transaction'),
  // Chargebacks (COMPAT §15).
  multipleChargebacks: result('700.300.500', 'chargeback error (multiple chargebacks)'),
  chargebacked: result('700.300.600', 'referenced tx can not be refunded or reversed (was chargebacked)'),
  cannotChargeback: result('700.400.400', 'cannot chargeback (already chargebacked or invalid workflow?)'),
  chargebackInternalOnly: result('700.400.402', 'chargeback can only be generated internally by the payment system'),
  cannotReverseChargeback: result('700.400.410', 'cannot reversal chargeback (chargeback is already reversaled or invalid workflow?)'),
  chargebackReversalWithoutChargeback: result('700.400.420', 'cannot reversal chargeback (no chargeback existing or invalid workflow?)'),
  chargebackWithoutPayment: result('700.400.550', 'chargeback needs at least one successful transaction of type (CP or DB or RB)'),
  // A back-office operation on a payment the gateway does not find, worded as the platform words it.
  captureWithoutPreauthorization: result('700.400.510', 'capture needs at least one successful transaction of type (PA)'),
  reversalWithoutPayment: result('700.400.530', 'reversal needs at least one successful transaction of type (CP or DB or RB or PA)'),
  // A connector's provider (issue 33): the entity has no credentials there, or the provider refused them.
  merchantConnectorNotSetUp: result('500.100.302', 'Merchant-Connector is new (no processing possible yet)'),
  merchantConnectorRefused: result('500.100.301', 'Merchant-Connector is disabled (no processing possible)'),
  invalidPaymentData: result('600.200.500', 'Invalid payment data. You are not configured for this currency or sub type (country or brand)'),
  // COMPAT §7: a brand that is no payment method, one the entity does not offer, a payment type a brand does not take.
  invalidPaymentMethod: result('600.200.100', 'invalid Payment Method'),
  notConfiguredForMethod: result('600.200.201', 'Channel/Merchant not configured for this payment method'),
  notConfiguredForType: result('600.200.202', 'Channel/Merchant not configured for this payment type'),
  unsupportedPaymentMethod: result('600.200.200', 'Unsupported payment method'),
  systemError: result('800.800.800', 'The payment system is currently unavailable, please contact support in case this happens again.'),
  acquirerUnreachable: result('900.100.100', 'unexpected communication error with connector/acquirer'),
  // A party the gateway calls besides the acquirers (Apple Pay's merchant validation) refused, or did not answer in time.
  connectorErrorResponse: result('900.100.200', 'error response from connector/acquirer'),
  connectorTimeout: result('900.100.400', 'timeout at connectors/acquirer side'),
  declinedUnknownReason: result('800.100.100', 'transaction declined for unknown reason'),
  // COMPAT §17's description, with spec doc 1 §7's "try again later" (throttledResult adds a reason between them).
  throttled: result('800.120.100', 'Rejected by Throttling. Please try again later.'),
  // Risk velocity rules (COMPAT §17, domain/riskRules.ts): declines, not request limits.
  riskAccountCount: result('800.120.101', 'maximum number of transactions per account already exceeded'),
  riskIpCount: result('800.120.102', 'maximum number of transactions per ip already exceeded'),
  riskEmailCount: result('800.120.103', 'maximum number of transactions per email already exceeded'),
  riskVolume: result('800.120.200', 'maximum volume of transactions already exceeded'),
  riskAccountVolume: result('800.120.201', 'maximum volume of transactions for account already exceeded'),
  riskIpVolume: result('800.120.202', 'maximum volume of transactions for ip already exceeded'),
  riskEmailVolume: result('800.120.203', 'maximum volume of transactions for email already exceeded'),
  riskChargebackRate: result('800.120.300', 'chargeback rate per bin exceeded'),
  riskMerchantAccountLimit: result('800.120.401', 'Transaction limit for merchant account (MID/CI) exceeded'),
  invalidAuthentication: result('800.900.300', 'invalid authentication information'),
  timeoutUncertain: result('900.100.300', 'timeout, uncertain result'),
  unexpectedError: result('999.999.999', 'An unexpected error occurred; the request was not processed'),
} as const;

/** Descriptions of codes a simulated acquirer may be asked to answer (card.holder carrying a code). */
const KNOWN_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '800.100.151': 'transaction declined (invalid card)',
  '800.100.152': 'transaction declined by authorization system',
  '800.100.153': 'transaction declined (invalid CVV)',
  '800.100.155': 'transaction declined (amount exceeds credit)',
  '800.100.156': 'transaction declined (format error)',
  '800.100.157': 'transaction declined (wrong expiry date)',
  '800.100.159': 'transaction declined (stolen card)',
  '800.100.162': 'transaction declined (limit exceeded)',
  '800.100.171': 'transaction declined (pick up card)',
  '800.100.190': 'transaction declined (invalid configuration data)',
  '800.100.202': 'account closed',
  '800.100.203': 'insufficient funds',
  '800.100.402': 'cc/bank account holder not valid',
  '800.800.102': 'Invalid street',
  '800.800.202': 'Invalid zip',
  '900.100.100': 'unexpected communication error with connector/acquirer',
  '900.100.200': 'error response from connector/acquirer',
  '900.100.300': 'timeout, uncertain result',
  '900.100.400': 'timeout at connectors/acquirer side',
  '300.100.100': 'Transaction declined (additional customer authentication required)',
};

/** The success a request answers with in its mode (COMPAT §7): the simulator (INTERNAL), the connector's test system, live. */
export function successResultOf(testMode: string | null | undefined): Result {
  return testMode === 'EXTERNAL' ? RESULTS.testModeExternalSuccess : testMode === 'INTERNAL' ? RESULTS.testModeInternalSuccess : RESULTS.succeeded;
}

export function describeResultCode(code: string): string {
  const known =
    KNOWN_DESCRIPTIONS[code] ?? Object.values(RESULTS).find((candidate) => candidate.code === code)?.description;
  if (known) return known;
  if (isSuccessfulCode(code)) return 'Request successfully processed';
  if (isPendingCode(code)) return 'transaction pending';
  return 'transaction declined';
}

export { isPendingCode, isSuccessfulCode, RESULT_CODE_FORMAT } from '../../widget/shared/resultCodes.ts';

/** The class of a result code (COMPAT §8: the first of RESULT_CLASSES that matches), `other` when none does. */
export function resultClassOf(code: string): keyof typeof RESULT_CLASSES | 'other' {
  for (const [name, pattern] of Object.entries(RESULT_CLASSES)) if (pattern.test(code)) return name as keyof typeof RESULT_CLASSES;
  return 'other';
}
