import type { GatewayEnvironment } from '../config.ts';
import type { BackOfficeCommand, CardOnFile, CheckoutContext, CreatePaymentCommand, ThreeDSecureRequest } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import { parseAmount } from '../domain/money.ts';
import type { BackOfficeType, InitialPaymentType, PaymentSource } from '../domain/payment.ts';
import { requestEcho } from '../params/echo.ts';
import { instrumentOf } from '../params/instruments.ts';
import { resolveTestMode } from '../params/testMode.ts';
import type { Operation } from '../params/types.ts';
import { validateParameters } from '../params/validate.ts';
import { brandCode, isTrue } from '../params/values.ts';

/**
 * The edge of the payment use-cases: a request's parameters (the wire's name=value map) are validated once, here,
 * and turned into a typed command (domain/commands.ts). Nothing after this reads the wire map.
 */

type Params = ReadonlyMap<string, string>;

function validate(params: Params, operation: Operation): void {
  const errors = validateParameters(params, operation);
  if (errors.length > 0) throw invalidParameters(errors);
}

/** The merchant's threeDSecure.* parameters, by their own names (eci, verificationId, ...). */
function threeDSecureParameters(params: Params): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of params) if (name.startsWith('threeDSecure.')) passed[name.slice('threeDSecure.'.length)] = value;
  return passed;
}

function threeDSecureRequest(params: Params): ThreeDSecureRequest {
  // Doc 3 §2.6: with eci and verificationId the merchant authenticated the shopper itself.
  const external = params.has('threeDSecure.eci') && params.has('threeDSecure.verificationId') ? threeDSecureParameters(params) : undefined;
  return {
    external,
    challengeIndicator: params.get('threeDSecure.challengeIndicator'),
    merchantName: params.get('threeDSecure.merchant.name'),
    testEnrolled: isTrue(params.get('customParameters[3DS2_enrolled]')),
    testFlow: params.get('customParameters[3DS2_flow]'),
  };
}

const BROWSER_FIELD = /^customer\.browser\./;

/** Doc 3 §2.14 and the legacy recurringType (COMPAT §11), or undefined when the payment is not card on file. */
function cardOnFileOf(params: Params): CardOnFile | undefined {
  const names = ['standingInstruction.source', 'standingInstruction.mode', 'standingInstruction.type', 'standingInstruction.industryPractice', 'recurringType'];
  if (!names.some((name) => params.has(name)) && !params.has('standingInstruction.initialTransactionId')) return undefined;
  return {
    source: params.get('standingInstruction.source') as CardOnFile['source'],
    mode: (params.get('standingInstruction.mode') ?? params.get('recurringType')) as CardOnFile['mode'],
    industryPractice: params.get('standingInstruction.industryPractice'),
    initialTransactionId: params.get('standingInstruction.initialTransactionId'),
  };
}

/** Industry practices that make a new PA for an earlier one (COMPAT §11), named by referenceUuid. */
const REFERENCING_PRACTICES = ['INCREMENTAL_AUTH', 'REAUTHORIZATION'];

/** referenceUuid names the PA an incremental authorization or a reauthorization follows; nothing else takes one. */
function referenceUuidOf(params: Params, paymentType: string): string | undefined {
  const referenceUuid = params.get('referenceUuid');
  if (referenceUuid === undefined) return undefined;
  const practice = params.get('standingInstruction.industryPractice');
  const errors = [];
  if (practice === undefined || !REFERENCING_PRACTICES.includes(practice)) {
    errors.push({ name: 'referenceUuid', value: referenceUuid, message: `requires standingInstruction.industryPractice ${REFERENCING_PRACTICES.join(' or ')}` });
  }
  if (paymentType !== 'PA') errors.push({ name: 'paymentType', value: paymentType, message: 'must be PA with referenceUuid' });
  if (errors.length > 0) throw invalidParameters(errors);
  return referenceUuid;
}

function amountOf(params: Params): number {
  const amount = params.get('amount') ?? '';
  const minor = parseAmount(amount);
  // The validator has checked the amount; this guards the type only.
  if (minor === undefined) throw invalidParameters([{ name: 'amount', value: amount, message: 'is not an amount' }]);
  return minor;
}

export interface PaymentRequestContext {
  readonly entityId: string;
  readonly environment: GatewayEnvironment;
  readonly source: PaymentSource;
  /** customer.browser.* the gateway read from the shopper's own request headers (a checkout submit). */
  readonly browserHeaders?: ReadonlyMap<string, string>;
  readonly checkout?: CheckoutContext;
  /** The id chosen for the payment before it exists (a checkout's attempt, an idempotency key). */
  readonly paymentId?: string;
}

/** POST /v1/payments (and a checkout's submit): the command, or a GatewayError naming what is wrong. */
export function createPaymentCommand(params: Params, context: PaymentRequestContext): CreatePaymentCommand {
  const testMode = resolveTestMode(params, context.environment);
  validate(params, 'payment');
  const requestedType = params.get('paymentType') as InitialPaymentType | 'PA.CP';
  const paymentType: InitialPaymentType = requestedType === 'PA.CP' ? 'PA' : requestedType;
  const numberOfCaptures = params.get('numberOfCaptures');
  const browserFields = new Set([...params.keys()].filter((name) => BROWSER_FIELD.test(name)));
  for (const name of context.browserHeaders?.keys() ?? []) browserFields.add(name);
  return {
    paymentId: context.paymentId,
    entityId: context.entityId,
    paymentType,
    captureAtOnce: requestedType === 'PA.CP',
    amountMinor: amountOf(params),
    currency: params.get('currency') as string,
    paymentBrand: brandCode(params.get('paymentBrand')),
    instrument: instrumentOf(params),
    testMode,
    merchantTransactionId: params.get('merchantTransactionId'),
    numberOfCaptures: paymentType === 'PA' && numberOfCaptures !== undefined ? Number(numberOfCaptures) : undefined,
    createRegistration: isTrue(params.get('createRegistration')),
    overrideHolder: isTrue(params.get('overrideHolder')),
    cardOnFile: cardOnFileOf(params),
    referenceUuid: referenceUuidOf(params, requestedType),
    shopperResultUrl: params.get('shopperResultUrl'),
    browserFields,
    threeDSecure: threeDSecureRequest(params),
    echo: requestEcho(params),
    source: context.source,
    checkout: context.checkout,
  };
}

/** COMPAT §15: the reason of a chargeback sent without one ("reason not specified"). */
const DEFAULT_CHARGEBACK_CODE = '000.100.200';

/** POST /v1/payments/{id}: capture, refund, reverse, charge back (in test) or reverse a chargeback. */
export function backOfficeCommand(
  params: Params,
  context: { entityId: string; referencedId: string; environment: GatewayEnvironment; paymentId?: string },
): BackOfficeCommand {
  const testMode = resolveTestMode(params, context.environment);
  validate(params, 'backOffice');
  const chargebackResultCode = params.get('chargebackResultCode');
  if (chargebackResultCode !== undefined && params.get('paymentType') !== 'CB') {
    throw invalidParameters([{ name: 'chargebackResultCode', value: chargebackResultCode, message: 'is the reason of a chargeback: only with paymentType=CB' }]);
  }
  return {
    paymentId: context.paymentId,
    entityId: context.entityId,
    referencedId: context.referencedId,
    paymentType: params.get('paymentType') as BackOfficeType,
    // A reversal may omit the amount: it always covers the whole payment.
    amountMinor: params.has('amount') ? amountOf(params) : undefined,
    currency: params.get('currency'),
    finalInSequence: params.get('sequence') === 'FINAL',
    chargebackResultCode: params.get('paymentType') === 'CB' ? (chargebackResultCode ?? DEFAULT_CHARGEBACK_CODE) : undefined,
    testMode,
    merchantTransactionId: params.get('merchantTransactionId'),
    echo: requestEcho(params),
  };
}
