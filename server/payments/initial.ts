import { authenticationResult, newAuthenticationIds, notEnrolledResult } from '../acquirers/threeDSecure.ts';
import type { AcquirerAnswer, CardDetails } from '../acquirers/types.ts';
import { cvvLengthOf, detectBrand, isExpired, passesLuhn } from '../domain/cards.ts';
import type { CardInstrument, CreatePaymentCommand, StoredCardInstrument } from '../domain/commands.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import { newNdc, newResourceId } from '../domain/ids.ts';
import type { CardSummary, PaymentRecord } from '../domain/payment.ts';
import { withResult } from '../domain/paymentState.ts';
import { RESULTS, type Result } from '../domain/resultCodes.ts';
import { withQuery } from '../domain/urls.ts';
import type { ParameterError } from '../params/types.ts';
import { newRegistration, openStoredCard, recordRegistration } from '../registrations/service.ts';
import type { HeldCard } from '../vault/cardVault.ts';
import { eraseSealed } from '../vault/repository.ts';
import type { AttemptPlan } from './attempts.ts';
import { withAnswer } from './backOffice.ts';
import { captureAtOnce, CAPTURE_SAFETY_NET_MS, scheduleCaptureAtOnce } from './captureAtOnce.ts';
import type { LedgerWrite } from './ledger.ts';
import { recordPending } from './pending.ts';
import type { PaymentServices } from './services.ts';

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
  switch (instrument.kind) {
    case 'card':
    case 'storedCard':
      return payByCard(services, command, draft, instrument);
    case 'redirect': {
      const url = requireRedirectData(command, `for ${instrument.brand}: the shopper approves the payment on the provider's page`, false);
      const pending = { ...withResult(draft, RESULTS.pending), paymentBrand: instrument.brand, acquirer: services.acquirers.defaultAcquirer.name };
      return recordPending(services, pending, {
        kind: 'provider',
        merchantName: undefined,
        returnUrl: returnUrlOf(command, draft.id, url),
        authentication: null,
        heldCard: null,
        createRegistration: false,
        captureAtOnce: command.captureAtOnce,
      });
    }
    case 'bankAccount':
    case 'virtualAccount':
    case 'tokenAccount':
    case 'wallet':
      throw new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, `payments with a ${instrument.kind} are not processed by this gateway yet`), 400);
  }
}

interface CardCheck {
  readonly brand: string | undefined;
  readonly refusal: Result | undefined;
}

/** The gateway's own card checks, before any acquirer sees the card (COMPAT §7). */
function checkCard(card: HeldCard, cvv: string | undefined, requested: string | undefined, now: Date): CardCheck {
  const detected = detectBrand(card.number);
  const brand = requested ?? detected;
  if (!passesLuhn(card.number) || detected === undefined) return { brand, refusal: RESULTS.invalidCard };
  if (requested !== undefined && requested !== detected) return { brand, refusal: RESULTS.cardBrandMismatch };
  const cvvLength = cvvLengthOf(detected);
  if (cvv !== undefined && cvvLength !== undefined && cvv.length !== cvvLength) {
    throw invalidParameters([{ name: 'card.cvv', value: cvv, message: `must be ${cvvLength} digits for ${detected}` }]);
  }
  return { brand, refusal: isExpired(card.expiryMonth, card.expiryYear, now) ? RESULTS.cardExpired : undefined };
}

function summaryOf(card: HeldCard): CardSummary {
  return {
    bin: card.number.slice(0, 6),
    last4Digits: card.number.slice(-4),
    ...(card.holder !== undefined ? { holder: card.holder } : {}),
    expiryMonth: String(card.expiryMonth).padStart(2, '0'),
    expiryYear: String(card.expiryYear),
  };
}

async function payByCard(
  services: PaymentServices,
  command: CreatePaymentCommand,
  draft: PaymentRecord,
  instrument: CardInstrument | StoredCardInstrument,
): Promise<PaymentRecord> {
  // A stored card pays like a typed one from here on; the holder sent fills in one the card lacks.
  const stored = instrument.kind === 'storedCard' ? await openStoredCard(services.store, services.vault, command.entityId, instrument.registrationId) : undefined;
  const card: HeldCard =
    instrument.kind === 'card'
      ? { number: instrument.number, expiryMonth: instrument.expiryMonth, expiryYear: instrument.expiryYear, holder: instrument.holder, brand: '' }
      : { ...(stored as NonNullable<typeof stored>).card, holder: stored?.card.holder ?? instrument.holder };
  const requested = command.paymentBrand ?? stored?.registration.paymentBrand;
  const check = checkCard(card, instrument.cvv, requested, services.now());
  const base: PaymentRecord = {
    ...draft,
    paymentBrand: check.brand ?? null,
    card: summaryOf(card),
    registrationId: stored?.registration.id ?? null,
  };
  const refuse = async (result: Result, threeDSecure: Record<string, string> | null = null) =>
    (await services.ledger.record({ payments: [{ ...withResult(base, result), threeDSecure }] }))[0] as PaymentRecord;
  if (check.refusal) return refuse(check.refusal);

  const details: CardDetails = { ...card, cvv: instrument.cvv, brand: check.brand ?? '' };
  const held: HeldCard = { ...card, brand: details.brand };
  // createRegistration=true stores the card once a payment with it is approved (doc 3 §2.5).
  const register = command.createRegistration && !stored;
  const authorize = (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) =>
    authorizeAndRecord(services, command, { ...base, threeDSecure: shown }, details, threeDSecure, register ? held : undefined);

  // Doc 3 §2.6: the merchant's own authentication goes to the acquirer as sent (and is echoed as sent).
  if (command.threeDSecure.external) return authorize(command.threeDSecure.external, null);
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
      return recordPending(services, { ...withResult(base, RESULTS.pending), acquirer: services.acquirers.defaultAcquirer.name }, {
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

/**
 * Asks the default acquirer to authorize, with the attempt committed first (and the card sealed with it when it is
 * to be stored), then records the answer. A PA.CP approved at once is captured at once.
 */
async function authorizeAndRecord(
  services: PaymentServices,
  command: CreatePaymentCommand,
  payment: PaymentRecord,
  card: CardDetails,
  threeDSecure: Readonly<Record<string, string>> | undefined,
  cardToStore: HeldCard | undefined,
): Promise<PaymentRecord> {
  const acquirer = services.acquirers.defaultAcquirer;
  const attemptId = newResourceId();
  const sealedCardId = cardToStore ? newResourceId() : null;
  const plan: Extract<AttemptPlan, { kind: 'initial' }> = {
    kind: 'initial',
    payment: { ...payment, acquirer: acquirer.name },
    registerSealedCardId: sealedCardId,
    captureAtOnce: command.captureAtOnce,
  };
  await services.attempts.submit({
    attempt: { id: attemptId, acquirer: acquirer.name, plan, instanceId: services.store.instanceId, createdAt: payment.createdAt },
    ...(cardToStore && sealedCardId ? { sealedCard: { id: sealedCardId, value: services.vault.seal(cardToStore) } } : {}),
  });
  const answer = await acquirer.authorize({
    attemptId,
    paymentId: payment.id,
    paymentType: command.paymentType,
    amountMinor: payment.amountMinor,
    currency: payment.currency,
    testMode: command.testMode,
    card,
    threeDSecure,
  });
  const [recorded] = await services.ledger.record(settleInitial(services, { id: attemptId, plan }, answer));
  const authorized = recorded as PaymentRecord;
  if (plan.captureAtOnce && authorized.status === 'approved') return captureAtOnce(services, authorized);
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
  const payment = withAnswer(plan.payment, answer);
  const approved = payment.status === 'approved';
  const sealedCardId = plan.registerSealedCardId;
  const registration =
    approved && sealedCardId !== null && payment.card !== null
      ? newRegistration(payment.entityId, payment.card, payment.paymentBrand ?? '', sealedCardId, payment.createdAt)
      : undefined;
  return {
    payments: [registration ? { ...payment, registrationId: registration.id } : payment],
    attemptId: attempt.id,
    alongside: async (tx) => {
      if (registration) await recordRegistration(tx, services.outbox, registration);
      else if (sealedCardId !== null) await eraseSealed(tx, sealedCardId, services.now());
      // Should the capture below never happen (the process dies first), the job makes it.
      if (approved && plan.captureAtOnce) await scheduleCaptureAtOnce(tx, payment, services.now(), CAPTURE_SAFETY_NET_MS);
    },
  };
}
