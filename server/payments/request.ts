import type { GatewayEnvironment } from '../config.ts';
import type { BackOfficeCommand, CardOnFile, CheckoutContext, CreatePaymentCommand, ThreeDSecureRequest } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import { parseAmount } from '../domain/money.ts';
import type { BackOfficeType, InitialPaymentType, PaymentSource } from '../domain/payment.ts';
import { requestEcho } from '../params/echo.ts';
import { instrumentOf } from '../params/instruments.ts';
import { resolveTestMode } from '../params/testMode.ts';
import type { Operation } from '../params/types.ts';
import { findSpec, validateParameters } from '../params/validate.ts';
import { brandCode, isTrue } from '../params/values.ts';

/**
 * The edge of the payment use-cases: a request's parameters (the wire's name=value map) are validated once, here,
 * and turned into a typed command (domain/commands.ts), with what the request's caller says besides them (the
 * payment or registration its path names, a checkout's card verification) carried in the command's own fields.
 * Nothing after this reads the wire map.
 */

type Params = ReadonlyMap<string, string>;

function validate(params: Params, operation: Operation, supplied?: ReadonlySet<string>): void {
  const errors = validateParameters(params, operation, supplied);
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

/** Doc 3 §2.14 and the legacy recurringType (COMPAT §11): any of them sent makes the payment card on file. */
function isCardOnFileParameter(name: string): boolean {
  return (name.startsWith('standingInstruction.') || name === 'recurringType') && findSpec(name) !== undefined;
}

/** The standing instruction the payment is part of, or undefined when the payment is not card on file. */
function cardOnFileOf(params: Params): CardOnFile | undefined {
  if (![...params.keys()].some(isCardOnFileParameter)) return undefined;
  return {
    source: params.get('standingInstruction.source') as CardOnFile['source'],
    mode: (params.get('standingInstruction.mode') ?? params.get('recurringType')) as CardOnFile['mode'],
    industryPractice: params.get('standingInstruction.industryPractice'),
    initialTransactionId: params.get('standingInstruction.initialTransactionId'),
  };
}

/** Industry practices that make a new PA for an earlier one (COMPAT §11), named by referenceUuid. */
const REFERENCING_PRACTICES = ['INCREMENTAL_AUTH', 'REAUTHORIZATION'];

/**
 * referenceUuid names the PA an incremental authorization or a reauthorization follows (sent, or `named` by the
 * request's path); nothing else takes one.
 */
function referenceUuidOf(params: Params, paymentType: string, named: string | undefined): string | undefined {
  const referenceUuid = named ?? params.get('referenceUuid');
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

/**
 * A registration-only checkout's submit (COMPAT §10): an account verification, a zero-amount PA that stores the card,
 * whatever the checkout's and the page's parameters say of type, amount and registration.
 */
export interface CardVerification {
  /** The checkout's currency, or the one a verification takes when the checkout names none. */
  readonly currency: string;
  /** customParameters the verification carries (by key), unless the request sent its own of that key. */
  readonly customParameters: Readonly<Record<string, string>>;
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
  /** `paymentId` was made for this request and no one else knows it (CreatePaymentCommand.freshPaymentId). */
  readonly freshPaymentId?: boolean;
  /** The PA a follow-up sent to its path (POST /v1/payments/{id}) is made on: its referenceUuid. */
  readonly referenceUuid?: string;
  /** The registration a payment sent to its path (POST /v1/registrations/{id}/payments) is made with. */
  readonly registrationId?: string;
  /** A registration-only checkout's submit: the card verification the payment is (its type, amount, currency). */
  readonly verification?: CardVerification;
  /** A card the shopper saved on a checkout's summary page (checkouts/summary.ts): paid without the CVV, never kept. */
  readonly withoutCvv?: boolean;
}

/** What a card verification fixes whatever the parameters say: a zero-amount PA that stores the card. */
const VERIFICATION_FIXES = ['paymentType', 'amount', 'currency', 'createRegistration'];

/** The parameters whose values the context gives instead (validateParameters `supplied`). */
function suppliedBy(context: PaymentRequestContext): Set<string> {
  const supplied = new Set<string>(context.verification ? VERIFICATION_FIXES : []);
  if (context.referenceUuid !== undefined) supplied.add('referenceUuid');
  if (context.registrationId !== undefined) supplied.add('registrationId');
  if (context.withoutCvv) supplied.add('card.cvv');
  return supplied;
}

/**
 * The request structures the payment echoes: the parameters', with what the context says in their place (the path's
 * referenceUuid; a verification's createRegistration and its custom parameters, unless the request sent its own).
 */
function echoOf(params: Params, context: PaymentRequestContext): Record<string, unknown> {
  const echo = requestEcho(params);
  if (context.referenceUuid !== undefined) echo.referenceUuid = context.referenceUuid;
  const { verification } = context;
  if (verification) {
    echo.createRegistration = 'true';
    for (const [key, value] of Object.entries(verification.customParameters)) {
      if (params.has(`customParameters[${key}]`)) continue;
      // As requestEcho nests them: an object without a prototype.
      const customParameters = (echo.customParameters ??= Object.create(null)) as Record<string, unknown>;
      customParameters[key] = value;
    }
  }
  return echo;
}

/**
 * POST /v1/payments (and a checkout's submit, a payment on a registration's path, a follow-up on its PA's path): the
 * command, or a GatewayError naming what is wrong.
 */
export function createPaymentCommand(params: Params, context: PaymentRequestContext): CreatePaymentCommand {
  const testMode = resolveTestMode(params, context.environment);
  validate(params, 'payment', suppliedBy(context));
  const { verification } = context;
  const requestedType = verification ? 'PA' : (params.get('paymentType') as InitialPaymentType | 'PA.CP');
  const paymentType: InitialPaymentType = requestedType === 'PA.CP' ? 'PA' : requestedType;
  const numberOfCaptures = params.get('numberOfCaptures');
  const browser: Record<string, string> = Object.create(null);
  for (const [name, value] of context.browserHeaders ?? []) browser[name] = value;
  for (const [name, value] of params) if (BROWSER_FIELD.test(name)) browser[name] = value;
  return {
    paymentId: context.paymentId,
    freshPaymentId: context.freshPaymentId === true,
    entityId: context.entityId,
    paymentType,
    captureAtOnce: requestedType === 'PA.CP',
    amountMinor: verification ? 0 : amountOf(params),
    currency: verification ? verification.currency : (params.get('currency') as string),
    paymentBrand: brandCode(params.get('paymentBrand')),
    instrument: instrumentOf(params, { registrationId: context.registrationId, referenced: context.referenceUuid !== undefined }),
    testMode,
    merchantTransactionId: params.get('merchantTransactionId'),
    numberOfCaptures: paymentType === 'PA' && numberOfCaptures !== undefined ? Number(numberOfCaptures) : undefined,
    createRegistration: verification !== undefined || isTrue(params.get('createRegistration')),
    overrideHolder: isTrue(params.get('overrideHolder')),
    cardOnFile: cardOnFileOf(params),
    referenceUuid: referenceUuidOf(params, requestedType, context.referenceUuid),
    shopperResultUrl: params.get('shopperResultUrl'),
    browser,
    threeDSecure: threeDSecureRequest(params),
    echo: echoOf(params, context),
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
