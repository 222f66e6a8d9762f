import {
  authenticationResult,
  hasExternalAuthentication,
  issuerFlow,
  newAuthenticationIds,
  notEnrolledResult,
} from '../acquirers/threeDSecure.ts';
import type { Acquirer, CardDetails, TestMode } from '../acquirers/types.ts';
import type { GatewayEnvironment } from '../config.ts';
import { checkBackOffice, type BackOfficeType, type InitialPaymentType } from '../domain/backOffice.ts';
import { cvvLengthOf, detectBrand, isExpired, passesLuhn } from '../domain/cards.ts';
import { newNdc, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import { parseAmount } from '../domain/money.ts';
import { isRedirectBrand } from '../../widget/shared/redirectBrands.ts';
import { isSuccessfulCode, RESULTS, type Result } from '../domain/resultCodes.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { toNested } from '../http/form.ts';
import { echoedValue, findSpec, validateParameters } from '../params/validate.ts';
import type { Operation, ParameterError } from '../params/types.ts';
import { withQuery } from '../domain/urls.ts';
import { findEntityName } from '../merchants/repository.ts';
import type { NewRedirect } from '../redirects/repository.ts';
import { recordRedirect, redirectUrl } from '../redirects/service.ts';
import type { Store } from '../store/index.ts';
import type { CardVault, HeldCard } from '../vault/cardVault.ts';
import { keepSealed } from '../vault/repository.ts';
import { insertRegistration } from '../registrations/repository.ts';
import { newRegistration, withRegisteredCard } from '../registrations/service.ts';
import type { PaymentWriter } from './paymentWriter.ts';
import { childTotals, findPayment, insertPayments, lockPayment, type CardSummary, type PaymentRecord } from './repository.ts';

/**
 * Payment use-cases: initial payments (PA, DB, CD) with a card, back-office operations (CP, RV, RF)
 * on a referenced payment, and reading a payment. HTTP-free: they take parameters and return records.
 */

export interface PaymentContext {
  readonly store: Store;
  /** Commits new payments, grouped with concurrent ones. */
  readonly writer: PaymentWriter;
  readonly acquirer: Acquirer;
  readonly environment: GatewayEnvironment;
  readonly now: () => Date;
  /** The gateway's public base URL: redirects point at its own pages. */
  readonly publicUrl: string;
  /** Seals a card that waits for its 3-D Secure challenge. */
  readonly vault: CardVault;
}

/** Parameters the response shows in its own fields (or never: card data, credentials). */
const NOT_ECHOED = /^(entityId|authentication\.|card\.|testMode$|amount$|currency$|paymentType$|paymentBrand$|integrity$|sequence$|registrationId$)/;

/**
 * The request structures a payment response echoes (and the payment row keeps): every known parameter but those
 * above, nested, with account numbers masked and secrets left out (echoedValue).
 */
function requestEcho(params: ReadonlyMap<string, string>): Record<string, unknown> {
  const echoed: [string, string][] = [];
  const templates = new Map<string, string>();
  for (const [name, value] of params) {
    const match = NOT_ECHOED.test(name) ? undefined : findSpec(name);
    const shown = match ? echoedValue(match.spec, value) : undefined;
    if (!match || shown === undefined) continue;
    echoed.push([name, shown]);
    templates.set(name, match.spec.name);
  }
  return toNested(echoed, (name) => templates.get(name));
}

/**
 * testMode is allowed only in the test environment (spec doc 1 §5); a value other than INTERNAL or
 * EXTERNAL is its own result code (COMPAT §7), checked before the other parameters.
 */
export function resolveTestMode(params: ReadonlyMap<string, string>, environment: GatewayEnvironment): TestMode | undefined {
  const testMode = params.get('testMode');
  if (testMode === undefined) return environment === 'test' ? 'INTERNAL' : undefined;
  if (environment === 'live') throw new GatewayError(RESULTS.testModeInLive, 400);
  if (testMode !== 'INTERNAL' && testMode !== 'EXTERNAL') throw new GatewayError(RESULTS.invalidTestMode, 400);
  return testMode;
}

function validate(params: ReadonlyMap<string, string>, operation: Operation): void {
  const errors = validateParameters(params, operation);
  if (errors.length > 0) throw invalidParameters(errors);
}

function required(params: ReadonlyMap<string, string>, name: string): string {
  const value = params.get(name);
  // The validator has already reported missing required parameters; this guards the type only.
  if (value === undefined) throw invalidParameters([{ name, value: '', message: 'is required' }]);
  return value;
}

function amountOf(params: ReadonlyMap<string, string>): number {
  const amountMinor = parseAmount(required(params, 'amount'));
  if (amountMinor === undefined) throw invalidParameters([{ name: 'amount', value: params.get('amount') ?? '', message: 'is not an amount' }]);
  return amountMinor;
}

interface CardCheck {
  readonly brand: string | undefined;
  readonly refusal: Result | undefined;
  readonly parameterError: ParameterError | undefined;
}

/** The gateway's own card checks, before any acquirer sees the card (COMPAT §7). */
function checkCard(params: ReadonlyMap<string, string>, now: Date): CardCheck {
  const number = required(params, 'card.number');
  const detected = detectBrand(number);
  const requested = params.get('paymentBrand');
  const brand = requested ?? detected;
  if (!passesLuhn(number) || detected === undefined) return { brand, refusal: RESULTS.invalidCard, parameterError: undefined };
  if (requested !== undefined && requested !== detected) {
    return { brand, refusal: RESULTS.cardBrandMismatch, parameterError: undefined };
  }
  const cvv = params.get('card.cvv');
  const cvvLength = cvvLengthOf(detected);
  if (cvv !== undefined && cvvLength !== undefined && cvv.length !== cvvLength) {
    return {
      brand,
      refusal: undefined,
      parameterError: { name: 'card.cvv', value: cvv, message: `must be ${cvvLength} digits for ${detected}` },
    };
  }
  const expired = isExpired(Number(params.get('card.expiryMonth')), Number(params.get('card.expiryYear')), now);
  return { brand, refusal: expired ? RESULTS.cardExpired : undefined, parameterError: undefined };
}

function cardSummary(params: ReadonlyMap<string, string>): CardSummary {
  const number = required(params, 'card.number');
  const holder = params.get('card.holder');
  return {
    bin: number.slice(0, 6),
    last4Digits: number.slice(-4),
    ...(holder !== undefined ? { holder } : {}),
    expiryMonth: required(params, 'card.expiryMonth'),
    expiryYear: required(params, 'card.expiryYear'),
  };
}

/** Doc 2 §2.9: the browser data 3-D Secure 2 needs (marked "Mandatory for 3D Secure v2"). */
const BROWSER_FIELDS = [
  'customer.browser.acceptHeader',
  'customer.browser.language',
  'customer.browser.screenHeight',
  'customer.browser.screenWidth',
  'customer.browser.timezone',
  'customer.browser.userAgent',
  'customer.browser.javaEnabled',
];

/**
 * A payment that sends the shopper to a page needs somewhere to bring them back to (doc 3 §2.8); an issuer
 * authenticates the shopper's browser, so 3-D Secure also needs the browser fields (doc 2 §2.9). Everything
 * missing is reported at once. Returns the shopperResultUrl.
 */
function requireRedirectData(
  params: ReadonlyMap<string, string>,
  why: string,
  browser: { readonly headers: ReadonlyMap<string, string> } | undefined,
): string {
  const missing: ParameterError[] = browser
    ? BROWSER_FIELDS.filter((name) => !params.has(name) && !browser.headers.has(name)).map((name) => ({
        name,
        value: '',
        message: 'is required for 3-D Secure when no external threeDSecure data is sent',
      }))
    : [];
  const url = params.get('shopperResultUrl');
  if (url === undefined) missing.push({ name: 'shopperResultUrl', value: '', message: `is required ${why}` });
  if (url === undefined || missing.length > 0) throw invalidParameters(missing);
  return url;
}

export interface CreatePaymentOptions {
  /** The id a checkout reserved for the payment, so its attempt is linked before the payment is made. */
  readonly paymentId?: string;
  /**
   * Where the shopper's browser goes after a redirect (a checkout's own result URL); by default the
   * shopperResultUrl with `id` and `resourcePath` of the payment.
   */
  readonly returnUrl?: string;
  /**
   * customer.browser.* values the gateway read from the shopper's own request headers (a checkout submit comes
   * from the browser): they count as sent, without being echoed as if the merchant had sent them.
   */
  readonly browserHeaders?: ReadonlyMap<string, string>;
}

type Answer = { code: string; description: string; details: Readonly<Record<string, string>> | null; acquirer: string };

/**
 * POST /v1/payments: authorize, debit or credit a card, with 3-D Secure where the issuer asks for it, or start
 * an asynchronous payment method's redirect.
 */
export async function createPayment(
  context: PaymentContext,
  entityId: string,
  sent: ReadonlyMap<string, string>,
  options: CreatePaymentOptions = {},
): Promise<PaymentRecord> {
  const testMode = resolveTestMode(sent, context.environment);
  validate(sent, 'payment');
  // A stored card pays like a typed one from here on (its number never leaves this function's parameters).
  const paidWithRegistration = sent.has('registrationId') && !sent.has('card.number');
  const params = paidWithRegistration ? await withRegisteredCard(context.store, context.vault, entityId, sent) : sent;
  const paymentType = required(params, 'paymentType') as InitialPaymentType;
  const amountMinor = amountOf(params);
  const currency = required(params, 'currency');
  const id = options.paymentId ?? newResourceId();
  const returnUrl = (shopperResultUrl: string) =>
    options.returnUrl ?? withQuery(new URL(shopperResultUrl), { id, resourcePath: `/v1/payments/${id}` }).href;
  const numberOfCaptures = params.get('numberOfCaptures');
  const record = (answer: Answer, extra: Partial<PaymentRecord> = {}): PaymentRecord => ({
    id,
    entityId,
    parentId: null,
    paymentType,
    paymentBrand: params.get('paymentBrand') ?? null,
    amountMinor,
    currency,
    resultCode: answer.code,
    resultDescription: answer.description,
    approved: isSuccessfulCode(answer.code),
    finalInSequence: false,
    maxCaptures: paymentType === 'PA' && numberOfCaptures !== undefined ? Number(numberOfCaptures) : null,
    acquirer: answer.acquirer,
    testMode: testMode ?? null,
    merchantTransactionId: params.get('merchantTransactionId') ?? null,
    card: null,
    requestEcho: requestEcho(params),
    resultDetails: answer.details ? { ...answer.details } : null,
    threeDSecure: null,
    redirect: null,
    registrationId: params.get('registrationId') ?? null,
    ndc: newNdc(entityId),
    createdAt: context.now(),
    ...extra,
  });
  const pending: Answer = { ...RESULTS.pending, details: null, acquirer: context.acquirer.name };

  const brand = params.get('paymentBrand');
  if (isRedirectBrand(brand) && !params.has('card.number')) {
    const shopperResultUrl = requireRedirectData(params, `for ${brand}: the shopper approves the payment on the provider's page`, undefined);
    return recordPending(context, record(pending), {
      kind: 'provider',
      merchantName: undefined,
      returnUrl: returnUrl(shopperResultUrl),
      authentication: null,
      heldCard: null,
    });
  }

  const card = checkCard(params, context.now());
  if (card.parameterError) throw invalidParameters([card.parameterError]);
  const cardFields = { paymentBrand: card.brand ?? null, card: cardSummary(params) };
  const refuse = (result: Result, threeDSecure: Record<string, string> | null = null) =>
    write(context, record({ ...result, details: null, acquirer: 'gateway' }, { ...cardFields, threeDSecure }));
  if (card.refusal) return refuse(card.refusal);

  const details: CardDetails = {
    number: required(params, 'card.number'),
    expiryMonth: Number(params.get('card.expiryMonth')),
    expiryYear: Number(params.get('card.expiryYear')),
    cvv: params.get('card.cvv'),
    holder: params.get('card.holder'),
    brand: card.brand ?? '',
  };
  const held: HeldCard = { number: details.number, expiryMonth: details.expiryMonth, expiryYear: details.expiryYear, holder: details.holder, brand: details.brand };
  // createRegistration=true stores the card once a payment with it is approved (doc 3 §2.5).
  const register = params.get('createRegistration') === 'true' && !paidWithRegistration;
  /** Authorizes and records the payment, with its new registration when one is due. */
  const authorizeAndWrite = async (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) => {
    const answer = await context.acquirer.authorize({ paymentId: id, paymentType, amountMinor, currency, testMode, card: details, threeDSecure });
    const payment = record({ ...answer, acquirer: context.acquirer.name }, { ...cardFields, threeDSecure: shown });
    if (!register || !payment.approved) return write(context, payment);
    return writeWithRegistration(context, payment, held);
  };

  if (hasExternalAuthentication(params)) {
    // Doc 3 §2.6: the merchant's own authentication goes to the acquirer as sent (and is echoed as sent).
    return authorizeAndWrite(threeDSecureParameters(params), null);
  }
  const flow = issuerFlow(details.number, params);
  if (flow === undefined) return authorizeAndWrite(undefined, null);
  if (flow === 'notEnrolled') return refuse(RESULTS.notEnrolled, notEnrolledResult());

  const shopperResultUrl = requireRedirectData(params, 'for 3-D Secure: the issuer may ask the shopper to confirm the payment', {
    headers: options.browserHeaders ?? new Map(),
  });
  const ids = newAuthenticationIds();
  switch (flow) {
    case 'technicalError':
      return refuse(RESULTS.threeDSecureTechnicalError, authenticationResult(details.brand, 'U', ids));
    case 'frictionless':
    case 'attempt': {
      const threeDSecure = authenticationResult(details.brand, flow === 'frictionless' ? 'Y' : 'A', ids);
      return authorizeAndWrite(threeDSecure, threeDSecure);
    }
    case 'challenge':
      // A registration asked for is stored when the challenge succeeds (the redirect knows from the echo).
      return recordPending(context, record(pending, cardFields), {
        kind: 'threeDSecure',
        // Doc 3 §2.6: the name the directory server knows the merchant by, when the merchant sends it.
        merchantName: params.get('threeDSecure.merchant.name'),
        returnUrl: returnUrl(shopperResultUrl),
        authentication: ids,
        heldCard: held,
      });
  }
}

/** The merchant's threeDSecure.* parameters, by their own names (eci, verificationId, ...). */
function threeDSecureParameters(params: ReadonlyMap<string, string>): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [name, value] of params) if (name.startsWith('threeDSecure.')) passed[name.slice('threeDSecure.'.length)] = value;
  return passed;
}

async function write(context: PaymentContext, payment: PaymentRecord): Promise<PaymentRecord> {
  await context.writer.write(payment);
  return payment;
}

/** An approved payment and the registration it created, in one transaction: neither exists without the other. */
async function writeWithRegistration(context: PaymentContext, payment: PaymentRecord, card: HeldCard): Promise<PaymentRecord> {
  return context.store.transaction(async (tx) => {
    const sealedCardId = await keepSealed(tx, context.vault.seal(card), payment.createdAt);
    const registration = newRegistration(payment.entityId, payment.card as CardSummary, payment.paymentBrand ?? '', sealedCardId, payment.createdAt);
    const registered: PaymentRecord = { ...payment, registrationId: registration.id };
    await insertRegistration(tx, registration);
    await insertPayments(tx, [registered]);
    return registered;
  });
}

/** A pending payment and its redirect, in one transaction: a redirect never points at a payment that was not recorded. */
async function recordPending(
  context: PaymentContext,
  payment: PaymentRecord,
  redirect: Pick<NewRedirect, 'kind' | 'returnUrl' | 'authentication'> & {
    /** What the page calls the merchant; the entity's name unless given. */
    readonly merchantName: string | undefined;
    /** The card the authorization after a challenge needs: kept sealed while the shopper answers. */
    readonly heldCard: HeldCard | null;
  },
): Promise<PaymentRecord> {
  const redirectId = newResourceId();
  const withRedirect: PaymentRecord = { ...payment, redirect: redirectUrl(context.publicUrl, redirectId, payment.id) };
  const { heldCard, ...page } = redirect;
  await context.store.transaction(async (tx) => {
    const merchantName = redirect.merchantName ?? (await findEntityName(tx, payment.entityId)) ?? payment.entityId;
    const sealedCardId = heldCard ? await keepSealed(tx, context.vault.seal(heldCard), payment.createdAt) : null;
    await insertPayments(tx, [withRedirect]);
    await recordRedirect(tx, { ...page, merchantName, sealedCardId, id: redirectId, paymentId: payment.id, createdAt: payment.createdAt });
  });
  return withRedirect;
}

function notFound(): GatewayError {
  return new GatewayError(RESULTS.transactionNotFound, 404);
}

/**
 * POST /v1/payments/{id}: capture, refund or reverse. The parent row is locked for the whole check,
 * acquirer call and insert, so concurrent requests on one payment are decided one after another and
 * the totals can never be exceeded.
 */
export async function processBackOffice(
  context: PaymentContext,
  entityId: string,
  referencedId: string,
  params: ReadonlyMap<string, string>,
): Promise<PaymentRecord> {
  const testMode = resolveTestMode(params, context.environment);
  validate(params, 'backOffice');
  if (!RESOURCE_ID.test(referencedId)) throw notFound();
  const paymentType = required(params, 'paymentType') as BackOfficeType;
  const finalInSequence = params.get('sequence') === 'FINAL';

  return context.store.transaction(async (tx) => {
    const parent = await lockPayment(tx, entityId, referencedId);
    if (!parent) throw notFound();
    // A reversal may omit the amount: it always covers the whole payment.
    const amountMinor = params.has('amount') ? amountOf(params) : parent.amountMinor;
    const currency = params.get('currency') ?? parent.currency;
    if (currency !== parent.currency) {
      throw invalidParameters([
        { name: 'currency', value: currency, message: `must be ${parent.currency}, the currency of the referenced payment` },
      ]);
    }
    if (amountMinor === 0 && paymentType !== 'RV') {
      throw invalidParameters([{ name: 'amount', value: params.get('amount') ?? '', message: 'must be greater than 0.00' }]);
    }
    const refusal = checkBackOffice(paymentType, amountMinor, parent, await childTotals(tx, parent.id));
    const id = newResourceId();
    let answer: { code: string; description: string; details: Readonly<Record<string, string>> | null };
    if (refusal) {
      answer = { ...withReason(refusal.result, refusal.reason), details: null };
    } else {
      answer = await context.acquirer.backOffice({
        paymentId: id,
        paymentType,
        amountMinor,
        currency,
        referencedPaymentId: parent.id,
        testMode,
      });
    }
    const payment: PaymentRecord = {
      id,
      entityId,
      parentId: parent.id,
      paymentType,
      paymentBrand: parent.paymentBrand,
      amountMinor,
      currency,
      resultCode: answer.code,
      resultDescription: answer.description,
      approved: !refusal && isSuccessfulCode(answer.code),
      finalInSequence,
      maxCaptures: null,
      acquirer: refusal ? 'gateway' : parent.acquirer,
      testMode: testMode ?? null,
      merchantTransactionId: params.get('merchantTransactionId') ?? null,
      card: parent.card,
      requestEcho: requestEcho(params),
      resultDetails: answer.details ? { ...answer.details } : null,
      threeDSecure: null,
      redirect: null,
      registrationId: null,
      ndc: newNdc(entityId),
      createdAt: context.now(),
    };
    await insertPayments(tx, [payment]);
    return payment;
  });
}

/** GET /v1/payments/{id}: only the entity's own payments exist for it. */
export async function getPayment(context: PaymentContext, entityId: string, id: string): Promise<PaymentRecord> {
  if (!RESOURCE_ID.test(id)) throw notFound();
  const payment = await findPayment(context.store, entityId, id);
  if (!payment) throw notFound();
  return payment;
}
