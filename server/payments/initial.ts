import { authenticationResult, newAuthenticationIds, notEnrolledResult } from '../acquirers/threeDSecure.ts';
import { AcquirerUnreachableError, type Acquirer, type AcquirerAnswer, type AuthorizationRequest, type CardDetails } from '../acquirers/types.ts';
import { checkCard, summaryOf } from '../domain/cards.ts';
import type { CardInstrument, CreatePaymentCommand, StoredCardInstrument } from '../domain/commands.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { newNdc, newResourceId, RESOURCE_ID } from '../domain/ids.ts';
import type { PaymentRecord } from '../domain/payment.ts';
import { withResult } from '../domain/paymentState.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { withQuery } from '../domain/urls.ts';
import type { ParameterError } from '../domain/errors.ts';
import { openStored, recordRegistration, registrationOfPayment, registrationUsed, type StoredCard } from '../registrations/storedCards.ts';
import { cardAccountKey } from '../risk/accountKey.ts';
import type { HeldCard } from '../vault/cardVault.ts';
import { eraseSealed } from '../vault/repository.ts';
import type { AttemptPlan } from './attempts.ts';
import { payByBankAccount, payByStoredBankAccount, payByToken, payByVirtualAccount, payByWallet } from './accounts.ts';
import { withAnswer } from './backOffice.ts';
import { cardOnFileEcho, cardOnFileOf } from './cardOnFile.ts';
import { captureAtOnce, CAPTURE_SAFETY_NET_MS, scheduleCaptureAtOnce } from './captureAtOnce.ts';
import type { LedgerWrite } from './ledger.ts';
import { findPayment } from './repository.ts';
import { recordPending } from './pending.ts';
import { payAsynchronously } from './asynchronous.ts';
import type { PaymentServices } from './services.ts';
import { smartRetryAfter, softDeclineDetails, type FirstOutcome, type RetryableAttempt } from './smartRetry.ts';

/**
 * POST /v1/payments (and a checkout's submit): authorize, debit or credit a card (typed or stored), with 3-D Secure
 * where the issuer asks for it, or start an asynchronous method's redirect. The gateway's own checks come first (no
 * acquirer sees a card that fails them); an acquirer is asked only with its attempt committed (attempts.ts), and
 * its answer is recorded by the ledger.
 */

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
function requireRedirectData(command: CreatePaymentCommand, why: string, needsBrowser: boolean): string {
  const missing: ParameterError[] = needsBrowser
    ? BROWSER_FIELDS.filter((name) => !command.browserFields.has(name)).map((name) => ({
        name,
        value: '',
        message: 'is required for 3-D Secure when no external threeDSecure data is sent',
      }))
    : [];
  const url = command.shopperResultUrl;
  if (url === undefined) missing.push({ name: 'shopperResultUrl', value: '', message: `is required ${why}` });
  if (url === undefined || missing.length > 0) throw invalidParameters(missing);
  return url;
}

/** Where the shopper's browser goes after a redirect: a checkout's result URL, or the shopperResultUrl with the payment. */
function returnUrlOf(command: CreatePaymentCommand, paymentId: string, shopperResultUrl: string): string {
  return command.checkout?.returnUrl ?? withQuery(new URL(shopperResultUrl), { id: paymentId, resourcePath: `/v1/payments/${paymentId}` }).href;
}

/** The payment as it will be recorded, before anything decides it. */
function draftOf(services: PaymentServices, command: CreatePaymentCommand): PaymentRecord {
  return {
    id: command.paymentId ?? newResourceId(),
    entityId: command.entityId,
    parentId: null,
    paymentType: command.paymentType,
    paymentBrand: command.paymentBrand ?? null,
    amountMinor: command.amountMinor,
    currency: command.currency,
    resultCode: '',
    resultDescription: '',
    status: 'declined',
    finalInSequence: false,
    maxCaptures: command.numberOfCaptures ?? null,
    acquirer: 'gateway',
    acquirerReference: null,
    testMode: command.testMode ?? null,
    merchantTransactionId: command.merchantTransactionId ?? null,
    card: null,
    requestEcho: command.echo,
    resultDetails: null,
    threeDSecure: null,
    redirect: null,
    registrationId: null,
    source: command.source,
    checkoutId: command.checkout?.checkoutId ?? null,
    ndc: newNdc(command.entityId),
    createdAt: services.now(),
  };
}

export async function createPayment(services: PaymentServices, command: CreatePaymentCommand): Promise<PaymentRecord> {
  const draft = draftOf(services, command);
  const { instrument } = command;
  if (command.paymentBrand !== undefined) await refuseUnoffered(services, command.entityId, command.paymentBrand);
  if (command.referenceUuid !== undefined) return authorizeFollowUp(services, command, draft, command.referenceUuid);
  switch (instrument.kind) {
    case 'card':
      return payByCard(services, command, draft, instrument);
    case 'storedCard': {
      const stored = await openStored(services, command.entityId, instrument.registrationId, 'registrationId');
      if ('bankAccount' in stored) return payByStoredBankAccount(services, command, draft, stored);
      return payByCard(services, command, draft, instrument, stored);
    }
    case 'asynchronous': {
      const url = requireRedirectData(command, `for ${instrument.brand}: the shopper completes the payment with the provider`, false);
      return payAsynchronously(services, command, draft, instrument, returnUrlOf(command, draft.id, url));
    }
    case 'referenced':
      // Only a payment with referenceUuid names no instrument of its own (handled above).
      throw invalidParameters([{ name: 'card.number', value: '', message: 'is required when no other payment instrument is sent' }]);
    case 'bankAccount':
      return payByBankAccount(services, command, draft, instrument);
    case 'tokenAccount':
      return payByToken(services, command, draft, instrument);
    case 'wallet':
      return payByWallet(services, command, draft, instrument);
    case 'virtualAccount':
      return payByVirtualAccount(services, command, draft, instrument);
  }
}

/**
 * COMPAT §7: a brand the entity does not offer is refused before anything is recorded, naming paymentBrand (a card
 * paid without paymentBrand is checked with the brand its number shows).
 */
async function refuseUnoffered(services: PaymentServices, entityId: string, brand: string): Promise<void> {
  if (await services.brandOffers.offers(entityId, brand)) return;
  const message = 'is not a payment brand this entity offers';
  throw new GatewayError(withReason(RESULTS.notConfiguredForMethod, `${brand} ${message}`), 400, [{ name: 'paymentBrand', value: brand, message }]);
}

/**
 * The card a payment is made with: typed, or stored (opened here unless the caller has, with the holder sent when
 * overrideHolder fills in an empty one).
 */
async function cardFor(
  services: PaymentServices,
  command: CreatePaymentCommand,
  instrument: CardInstrument | StoredCardInstrument,
  opened?: StoredCard,
): Promise<{ readonly card: HeldCard; readonly stored: StoredCard | undefined }> {
  if (instrument.kind === 'card') {
    const { number, expiryMonth, expiryYear, holder } = instrument;
    return { card: { number, expiryMonth, expiryYear, holder, brand: '' }, stored: undefined };
  }
  const stored = opened ?? (await openStored(services, command.entityId, instrument.registrationId, 'registrationId'));
  if (!('card' in stored)) {
    throw invalidParameters([{ name: 'registrationId', value: instrument.registrationId, message: 'stores a bank account: it cannot be used for this payment' }]);
  }
  // Doc 3 §2.5: overrideHolder lets card.holder fill in the registration's empty holder, for this payment only.
  const holder = stored.card.holder || (command.overrideHolder ? instrument.holder : undefined) || undefined;
  return { card: { ...stored.card, holder }, stored };
}

async function payByCard(
  services: PaymentServices,
  command: CreatePaymentCommand,
  draft: PaymentRecord,
  instrument: CardInstrument | StoredCardInstrument,
  opened?: StoredCard,
): Promise<PaymentRecord> {
  // A stored card pays like a typed one from here on.
  const { card, stored } = await cardFor(services, command, instrument, opened);
  const echo = await cardOnFileEcho(services, command, stored?.registration);
  const requested = command.paymentBrand ?? stored?.registration.paymentBrand;
  const check = checkCard(card, instrument.cvv, requested, services.now());
  if (command.paymentBrand === undefined && check.brand !== undefined) await refuseUnoffered(services, command.entityId, check.brand);
  const base: PaymentRecord = {
    ...draft,
    paymentBrand: check.brand ?? null,
    card: summaryOf(card),
    registrationId: stored?.registration.id ?? null,
    requestEcho: echo,
  };
  const refuse = (result: Result, threeDSecure: Record<string, string> | null = null) => services.ledger.refuse({ ...base, threeDSecure }, result);
  if (check.refusal) return refuse(check.refusal);
  // COMPAT §17: the entity's risk velocity rules, before any acquirer sees the payment (risk/velocity.ts).
  const overRule = await services.risk?.check(command, base, cardAccountKey(card.number));
  if (overRule) return refuse(overRule);

  const details: CardDetails = { ...card, cvv: instrument.cvv, brand: check.brand ?? '' };
  const held: HeldCard = { ...card, brand: details.brand };
  // createRegistration=true stores the card once a payment with it is approved (doc 3 §2.5).
  const register = command.createRegistration && !stored;
  const acquirer = services.acquirers.defaultAcquirer;
  const authorize = (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) =>
    authorizeAndRecord(services, command, acquirer, { ...base, threeDSecure: shown }, { card: details }, { threeDSecure, cardToStore: register ? held : undefined, smartRetry: true });

  // Doc 3 §2.6: the merchant's own authentication goes to the acquirer as sent (and is echoed as sent).
  if (command.threeDSecure.external) return authorize(command.threeDSecure.external, null);
  // COMPAT §11: the shopper is not there to authenticate a merchant-initiated payment.
  if (command.cardOnFile?.source === 'MIT') return authorize(undefined, null);
  const flow = services.directory?.flowFor(card.number, command.threeDSecure);
  if (flow === undefined) return authorize(undefined, null);
  if (flow === 'notEnrolled') return refuse(RESULTS.notEnrolled, notEnrolledResult());

  const shopperResultUrl = requireRedirectData(command, 'for 3-D Secure: the issuer may ask the shopper to confirm the payment', true);
  const ids = newAuthenticationIds();
  switch (flow) {
    case 'technicalError':
      return refuse(RESULTS.threeDSecureTechnicalError, authenticationResult(details.brand, 'U', ids));
    case 'frictionless':
    case 'attempt': {
      const threeDSecure = authenticationResult(details.brand, flow === 'frictionless' ? 'Y' : 'A', ids);
      return authorize(threeDSecure, threeDSecure);
    }
    case 'challenge':
      return recordPending(services, { ...withResult(base, RESULTS.pending), acquirer: acquirer.name }, {
        kind: 'threeDSecure',
        // Doc 3 §2.6: the name the directory server knows the merchant by, when the merchant sends it.
        merchantName: command.threeDSecure.merchantName,
        returnUrl: returnUrlOf(command, draft.id, shopperResultUrl),
        authentication: ids,
        heldCard: held,
        createRegistration: register,
        captureAtOnce: command.captureAtOnce,
      });
  }
}

/** COMPAT §11: a follow-up whose referenceUuid names no payment of the entity. */
export function unknownOriginal(referenceUuid: string): GatewayError {
  return invalidParameters([{ name: 'referenceUuid', value: referenceUuid, message: 'is not a payment of this entity' }]);
}

/**
 * COMPAT §11: an incremental authorization or a reauthorization of an earlier PA (referenceUuid). The new PA names
 * the original (referencedId), goes to the original's acquirer, and is made with the card sent, the registration
 * named, or else the original's own authorization (no card data again).
 */
async function authorizeFollowUp(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, referenceUuid: string): Promise<PaymentRecord> {
  const original = RESOURCE_ID.test(referenceUuid) ? await findPayment(services.store, command.entityId, referenceUuid) : undefined;
  if (!original) throw unknownOriginal(referenceUuid);
  if (original.paymentType !== 'PA' || original.parentId !== null) {
    throw new GatewayError(withReason(RESULTS.referencedInappropriateType, `${original.id} is a ${original.paymentType}, not a preauthorization`), 400);
  }
  if (original.status !== 'approved') {
    throw new GatewayError(withReason(RESULTS.referencedInappropriateType, `${original.id} was not approved`), 400);
  }
  if (command.currency !== original.currency) {
    throw invalidParameters([{ name: 'currency', value: command.currency, message: `must be ${original.currency}, the currency of the referenced payment` }]);
  }
  const acquirer = services.acquirers.get(original.acquirer);
  if (!acquirer) throw new GatewayError(withReason(RESULTS.systemError, `the acquirer ${original.acquirer} of the referenced payment is not configured`), 400);
  const { instrument } = command;
  const sent = instrument.kind === 'card' || instrument.kind === 'storedCard' ? await cardFor(services, command, instrument) : undefined;
  const payment: PaymentRecord = {
    ...draft,
    parentId: original.id,
    paymentBrand: original.paymentBrand,
    card: sent ? summaryOf(sent.card) : original.card,
    registrationId: sent?.stored?.registration.id ?? original.registrationId,
    requestEcho: await cardOnFileEcho(services, command, sent?.stored?.registration),
  };
  const details: CardDetails | undefined = sent
    ? { ...sent.card, cvv: instrument.kind === 'card' || instrument.kind === 'storedCard' ? instrument.cvv : undefined, brand: original.paymentBrand ?? '' }
    : undefined;
  // A follow-up is a new authorization: the risk velocity rules count it as any other (its account, when it sends no
  // card, is the original's, which the original counted).
  const overRule = await services.risk?.check(command, payment, sent ? cardAccountKey(sent.card.number) : undefined);
  if (overRule) return services.ledger.refuse(payment, overRule);
  return authorizeAndRecord(services, command, acquirer, payment, { card: details }, { referencedReference: original.acquirerReference });
}

/** What an authorization sends of the instrument: the card, or the account of another instrument. */
export type SentInstrument = Partial<Pick<AuthorizationRequest, 'card' | 'bankAccount' | 'tokenAccount' | 'virtualAccount' | 'testResult'>>;

export interface AuthorizeOptions {
  /** The 3-D Secure authentication (the gateway's own, or the merchant's external data passed through as sent). */
  readonly threeDSecure?: Readonly<Record<string, string>>;
  /** What to seal and store as a registration when the authorization is approved (createRegistration=true). */
  readonly cardToStore?: unknown;
  /** The acquirer's reference of the PA an incremental authorization or reauthorization follows. */
  readonly referencedReference?: string | null;
  /** Whether a rejection may be retried at the entity's fallback acquirer (a new card payment's may). */
  readonly smartRetry?: boolean;
}

/**
 * Asks the acquirer to authorize, with the attempt committed first (and the card sealed with it when it is to be
 * stored), then records the answer: the acquirer's, or the fallback acquirer's after a smart retry. A PA.CP
 * approved at once is captured at once (at the acquirer that approved it).
 */
export async function authorizeAndRecord(
  services: PaymentServices,
  command: CreatePaymentCommand,
  acquirer: Acquirer,
  payment: PaymentRecord,
  sent: SentInstrument,
  options: AuthorizeOptions = {},
): Promise<PaymentRecord> {
  const { threeDSecure, cardToStore, referencedReference = null, smartRetry = false } = options;
  const attemptId = newResourceId();
  const sealedCardId = cardToStore ? newResourceId() : null;
  const plan: Extract<AttemptPlan, { kind: 'initial' }> = {
    kind: 'initial',
    payment: { ...payment, acquirer: acquirer.name },
    registerSealedCardId: sealedCardId,
    captureAtOnce: command.captureAtOnce,
  };
  await services.ledger.open(
    { id: attemptId, acquirer: acquirer.name, plan, createdAt: payment.createdAt },
    cardToStore && sealedCardId ? { id: sealedCardId, value: services.vault.seal(cardToStore) } : undefined,
  );
  const request: AuthorizationRequest = {
    attemptId,
    paymentId: payment.id,
    paymentType: command.paymentType,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    testMode: command.testMode,
    card: undefined,
    ...sent,
    threeDSecure,
    cardOnFile: cardOnFileOf(payment.requestEcho),
    storesCard: cardToStore !== undefined,
    referencedReference,
  };
  let first: FirstOutcome;
  try {
    first = { answer: await acquirer.authorize(request) };
  } catch (error) {
    if (!(smartRetry && error instanceof AcquirerUnreachableError)) throw error;
    first = { unreachable: error };
  }
  let attempt: RetryableAttempt<typeof plan> = { id: attemptId, plan };
  let answer: AcquirerAnswer;
  // Smart retry (smartRetry.ts): a soft reject, or a request that never reached the acquirer, may go once more to
  // the entity's fallback acquirer, under the same payment id.
  const retry = smartRetry ? await smartRetryAfter(services, attempt, acquirer, first) : undefined;
  if (retry?.kind === 'finishedMeanwhile') {
    const recorded = await findPayment(services.store, payment.entityId, payment.id);
    if (!recorded) throw new Error(`payment ${payment.id} was finished without a record`);
    return recorded;
  }
  if (retry) {
    attempt = retry.attempt;
    answer = await retry.fallback.authorize({ ...request, attemptId: attempt.id, retryOf: retry.retryOf });
  } else if ('answer' in first) {
    answer = first.answer;
  } else {
    throw first.unreachable;
  }
  const [recorded] = await services.ledger.record(settleInitial(services, attempt, answer));
  const authorized = recorded as PaymentRecord;
  if (attempt.plan.captureAtOnce && authorized.status === 'approved') return captureAtOnce(services, authorized);
  return authorized;
}

/**
 * What an initial payment's answer writes: the payment, and the card it stored (a registration when approved, erased
 * from the vault when not). Used by the request that asked and by the recovery of its attempt alike.
 */
export function settleInitial(
  services: PaymentServices,
  attempt: { readonly id: string; readonly plan: Extract<AttemptPlan, { kind: 'initial' }> },
  answer: AcquirerAnswer,
): LedgerWrite {
  const { plan } = attempt;
  const answered = withAnswer(plan.payment, answer);
  const payment = plan.softDeclineOf === undefined ? answered : { ...answered, resultDetails: softDeclineDetails(answered.resultDetails, plan.softDeclineOf) };
  const approved = payment.status === 'approved';
  const sealedCardId = plan.registerSealedCardId;
  const registration = approved && sealedCardId !== null ? registrationOfPayment(payment, sealedCardId, payment.createdAt) : undefined;
  return {
    payments: [registration ? { ...payment, registrationId: registration.id } : payment],
    attemptId: attempt.id,
    alongside: async (tx) => {
      if (registration) await recordRegistration(tx, services.outbox, registration);
      else if (sealedCardId !== null) await eraseSealed(tx, sealedCardId, services.now());
      await registrationUsed(services, tx, payment, services.now());
      // Should the capture below never happen (the process dies first), the job makes it.
      if (approved && plan.captureAtOnce) await scheduleCaptureAtOnce(tx, payment, services.now(), CAPTURE_SAFETY_NET_MS);
    },
  };
}
