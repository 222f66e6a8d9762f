import { authenticationResult, newAuthenticationIds, notEnrolledResult } from '../../acquirers/threeDSecure.ts';
import type { Acquirer, CardDetails } from '../../acquirers/types.ts';
import { checkCard, summaryOf } from '../../domain/cards.ts';
import type { CardInstrument, CreatePaymentCommand, StoredCardInstrument } from '../../domain/commands.ts';
import { invalidParameters } from '../../domain/errors.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { withResult } from '../../domain/paymentState.ts';
import { RESULTS, type Result } from '../../domain/resultCodes.ts';
import { openStored, type StoredCard } from '../../registrations/storedCards.ts';
import { cardAccountKey } from '../../risk/accountKey.ts';
import type { HeldCard } from '../../vault/cardVault.ts';
import { acquirerFor } from '../acquirerChoice.ts';
import { authorizeAndRecord, refuseUnoffered } from '../authorize.ts';
import type { PaymentServices } from '../services.ts';
import { resolveCardOnFile } from './cardOnFile.ts';
import { returnUrlOf } from '../shopperReturn.ts';
import { recordPending, requireRedirectData } from './pending.ts';

/**
 * A card payment (typed, or stored: registrationId), with 3-D Secure where the issuer asks for it. The gateway's own
 * checks come first (no acquirer sees a card that fails them), then the entity's risk rules; then the authorization
 * (authorize.ts), at once or after the shopper's challenge (pending.ts).
 */

/**
 * The card a payment is made with: typed, or stored (opened here unless the caller has, with the holder sent when
 * overrideHolder fills in an empty one).
 */
export async function cardFor(
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

/** A typed or stored card's payment: `opened` when the caller has opened the stored card already. */
export async function payByCard(
  services: PaymentServices,
  command: CreatePaymentCommand,
  draft: PaymentRecord,
  instrument: CardInstrument | StoredCardInstrument,
  opened?: StoredCard,
): Promise<PaymentRecord> {
  // A stored card pays like a typed one from here on.
  const { card, stored } = await cardFor(services, command, instrument, opened);
  const { echo, cardOnFile } = await resolveCardOnFile(services, command, stored?.registration);
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
  const acquirer = await acquirerFor(services, command.entityId, { brand: check.brand ?? null, currency: command.currency, amountMinor: command.amountMinor });
  // COMPAT §17: the entity's risk velocity rules, before any acquirer sees the payment (risk/velocity.ts).
  const overRule = await services.risk?.check(command, { ...base, acquirer: acquirer.name }, cardAccountKey(card.number));
  if (overRule) return refuse(overRule);

  const details: CardDetails = { ...card, cvv: instrument.cvv, brand: check.brand ?? '' };
  const held: HeldCard = { ...card, brand: details.brand };
  // createRegistration=true stores the card once a payment with it is approved (doc 3 §2.5).
  const register = command.createRegistration && !stored;
  const authorize = (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) =>
    authorizeAndRecord(services, command, acquirer, { ...base, threeDSecure: shown }, { card: details }, { cardOnFile, threeDSecure, cardToStore: register ? held : undefined, smartRetry: true });

  return authenticateThenAuthorize(services, command, acquirer, base, { card: details, held, register }, authorize);
}

/**
 * 3-D Secure where the issuer asks for it, then the authorization (`authorize`, with the authentication to send and to
 * show): a typed or stored card, and a Google Pay card saved in the shopper's account (PAN_ONLY, accounts.ts), which the
 * platform authenticates as a typed card.
 */
export async function authenticateThenAuthorize(
  services: PaymentServices,
  command: CreatePaymentCommand,
  acquirer: Acquirer,
  base: PaymentRecord,
  { card: details, held, register }: { readonly card: CardDetails; readonly held: HeldCard; readonly register: boolean },
  authorize: (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) => Promise<PaymentRecord>,
): Promise<PaymentRecord> {
  const refuse = (result: Result, threeDSecure: Record<string, string> | null = null) => services.ledger.refuse({ ...base, threeDSecure }, result);
  // Doc 3 §2.6: the merchant's own authentication goes to the acquirer as sent (and is echoed as sent).
  if (command.threeDSecure.external) return authorize(command.threeDSecure.external, null);
  // COMPAT §11: the shopper is not there to authenticate a merchant-initiated payment.
  if (command.cardOnFile?.source === 'MIT') return authorize(undefined, null);
  // A provider behind a connector authenticates the shopper itself (its redirect is followed): the simulated directory
  // stands in only for a simulated acquirer.
  const flow = acquirer.simulated ? services.directory?.flowFor(held.number, command.threeDSecure) : undefined;
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
        returnUrl: returnUrlOf(command, base.id, shopperResultUrl),
        authentication: ids,
        heldCard: held,
        createRegistration: register,
        captureAtOnce: command.captureAtOnce,
      });
  }
}
