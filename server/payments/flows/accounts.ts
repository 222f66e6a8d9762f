import { checkCard, checkNumber, isExpired, summaryOf } from '../../domain/cards.ts';
import type { BankAccountInstrument, CreatePaymentCommand, Instrument, TokenAccountInstrument, VirtualAccountInstrument, WalletInstrument } from '../../domain/commands.ts';
import { invalidParameters } from '../../domain/errors.ts';
import { bankAccountEcho, mandatedAccount, TEST_WALLET_DPAN } from '../../domain/instruments.ts';
import type { PaymentRecord } from '../../domain/payment.ts';
import { RESULT_CODE_FORMAT, RESULTS } from '../../domain/resultCodes.ts';
import type { StoredBankAccount } from '../../registrations/storedCards.ts';
import { accountKeyOf } from '../../risk/accountKey.ts';
import type { Acquirer } from '../../acquirers/types.ts';
import { acquirerFor } from '../acquirerChoice.ts';
import { authorizeAndRecord, type AuthorizeOptions, type SentInstrument } from '../authorize.ts';
import type { PaymentServices } from '../services.ts';
import { authenticateThenAuthorize } from './card.ts';
import { cardOnFileRequest, resolveCardOnFile } from './cardOnFile.ts';

/**
 * Payments with the instruments other than cards (COMPAT §16): a SEPA direct debit, a network or external token, a
 * mobile wallet, a virtual account paid without a redirect. Each is checked by the gateway first, then authorized
 * like a card (attempt committed, acquirer asked, answer recorded by the ledger); none runs 3-D Secure (a wallet's
 * and a network token's cryptogram authenticate the shopper, a direct debit has a mandate) but a Google Pay card saved
 * in the shopper's account (PAN_ONLY), authenticated as a typed card. Responses show the
 * instrument masked as card numbers are (its echo), never a whole IBAN or token.
 */

/** The acquirer the entity's routing rules send the payment to (the default else). */
function routed(services: PaymentServices, command: CreatePaymentCommand, payment: PaymentRecord): Promise<Acquirer> {
  return acquirerFor(services, command.entityId, { brand: payment.paymentBrand, currency: command.currency, amountMinor: command.amountMinor });
}

/**
 * The entity's risk velocity rules (COMPAT §17) first, as for cards, then the authorization at `acquirer` (routed when
 * not given): a payment over a rule is recorded declined with its code and never reaches the acquirer.
 */
async function authorizeWithinRules(
  services: PaymentServices,
  command: CreatePaymentCommand,
  instrument: Instrument,
  payment: PaymentRecord,
  sent: SentInstrument,
  options: AuthorizeOptions,
  chosen?: Acquirer,
): Promise<PaymentRecord> {
  const acquirer = chosen ?? (await routed(services, command, payment));
  const overRule = await services.risk?.check(command, { ...payment, acquirer: acquirer.name }, accountKeyOf(instrument));
  if (overRule) return services.ledger.refuse(payment, overRule);
  return authorizeAndRecord(services, command, acquirer, payment, sent, options);
}

/** Which instruments a registration can keep (createRegistration=true): cards and SEPA bank accounts. */
function refuseRegistration(command: CreatePaymentCommand, what: string): void {
  if (!command.createRegistration) return;
  throw invalidParameters([{ name: 'createRegistration', value: 'true', message: `cannot register ${what}: only cards and SEPA bank accounts are stored` }]);
}

/** A SEPA direct debit (DB, or PA captured later): synchronous at the simulator, refundable, reversible, charged back as a return. */
export async function payByBankAccount(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, instrument: BankAccountInstrument): Promise<PaymentRecord> {
  if (command.paymentType === 'CD') {
    throw invalidParameters([{ name: 'paymentType', value: 'CD', message: `must be DB or PA for ${instrument.brand}: a direct debit collects money` }]);
  }
  const account = mandatedAccount(instrument, draft.id, services.now());
  const payment: PaymentRecord = {
    ...draft,
    paymentBrand: instrument.brand,
    requestEcho: { ...command.echo, bankAccount: bankAccountEcho(account, command.echo.bankAccount, instrument.bankName) },
  };
  return authorizeWithinRules(services, command, instrument, payment, { bankAccount: { ...account, brand: instrument.brand } }, {
    cardOnFile: cardOnFileRequest(command.cardOnFile),
    cardToStore: command.createRegistration ? account : undefined,
  });
}

/** A direct debit from a registered SEPA account (registrationId), under the mandate it was registered with. */
export function payByStoredBankAccount(
  services: PaymentServices,
  command: CreatePaymentCommand,
  draft: PaymentRecord,
  stored: StoredBankAccount,
  dueDate: string | undefined,
): Promise<PaymentRecord> {
  if (command.createRegistration) {
    throw invalidParameters([{ name: 'createRegistration', value: 'true', message: 'cannot register an account already registered (registrationId)' }]);
  }
  const { bankAccount, registration } = stored;
  const instrument: BankAccountInstrument = {
    kind: 'bankAccount',
    brand: registration.paymentBrand,
    holder: bankAccount.holder,
    iban: bankAccount.iban,
    bic: bankAccount.bic,
    country: bankAccount.country,
    bankName: (registration.bankAccount?.bankName as string | undefined) ?? undefined,
    mandateId: bankAccount.mandateId,
    mandateDateOfSignature: bankAccount.mandateDateOfSignature,
    dueDate,
  };
  return payByBankAccount(services, command, { ...draft, registrationId: registration.id }, instrument);
}

/**
 * A network token (the scheme's DPAN with the device's cryptogram: 3-D Secure is already done) or an external
 * provider's token. A NETWORK token is checked like a card number; every test card works as a DPAN (COMPAT §16).
 */
export async function payByToken(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, instrument: TokenAccountInstrument): Promise<PaymentRecord> {
  refuseRegistration(command, 'a token');
  const number = checkNumber(instrument.number, command.paymentBrand);
  const brand = number.brand;
  if (brand === undefined) {
    throw invalidParameters([{ name: 'paymentBrand', value: '', message: 'is required: the token number shows no card brand' }]);
  }
  const { echo, cardOnFile } = await resolveCardOnFile(services, command, undefined);
  const payment: PaymentRecord = { ...draft, paymentBrand: brand, requestEcho: echo };
  if (instrument.type === 'NETWORK' && number.refusal) return services.ledger.refuse(payment, number.refusal);
  if (instrument.expiryMonth !== undefined && instrument.expiryYear !== undefined && isExpired(instrument.expiryMonth, instrument.expiryYear, services.now())) {
    return services.ledger.refuse(payment, RESULTS.cardExpired);
  }
  const { kind: _kind, ...token } = instrument;
  return authorizeWithinRules(services, command, instrument, payment, { tokenAccount: { ...token, brand } }, { cardOnFile, threeDSecure: command.threeDSecure.external });
}

/** Card brands by the names wallets give networks (Apple Pay's paymentMethod.network, applePay.cardNetwork). */
const WALLET_NETWORKS: Readonly<Record<string, string>> = {
  VISA: 'VISA',
  MASTERCARD: 'MASTER',
  MASTER: 'MASTER',
  AMEX: 'AMEX',
  AMERICANEXPRESS: 'AMEX',
  DISCOVER: 'DISCOVER',
  JCB: 'JCB',
  MAESTRO: 'MAESTRO',
};

function networkOf(named: unknown): string | undefined {
  return typeof named === 'string' ? WALLET_NETWORKS[named.toUpperCase().replace(/[^A-Z]/g, '')] : undefined;
}

/** A test token's card number in clear (the simulated wallet sheet's, shared/walletSheet.ts), when it is one. */
function clearNumber(value: unknown): string | undefined {
  return typeof value === 'string' && /^[0-9]{12,19}$/.test(value) ? value : undefined;
}

/**
 * What a test wallet token stands for (COMPAT §16): test entities do not decrypt, so any JSON token is the DPAN
 * 4200 0000 0000 0000 of the network the request or the token names (VISA else), expiring at the end of the month
 * its applicationExpirationDate (YYMMDD) gives or in three years; `"testResult":"<code>"` anywhere in it is the answer.
 * A token may carry in clear what the real one encrypts (the gateway's simulated wallet sheet makes such tokens):
 * Apple's `applicationPrimaryAccountNumber`, Google's `paymentMethodDetails` {`pan`, `expirationMonth`,
 * `expirationYear`, `authMethod`}; Google Pay's PAN_ONLY is a card saved in the shopper's account, not a device token.
 */
function testWalletCard(token: string, parsed: Readonly<Record<string, unknown>>, cardNetwork: string | undefined, now: Date) {
  const method = parsed.paymentMethod as Record<string, unknown> | undefined;
  const google = (parsed.paymentMethodDetails ?? {}) as Record<string, unknown>;
  const number = clearNumber(parsed.applicationPrimaryAccountNumber) ?? clearNumber(google.pan);
  const network = networkOf(cardNetwork) ?? networkOf(typeof method === 'object' ? method?.network : undefined) ?? (number && checkNumber(number, undefined).brand) ?? 'VISA';
  const expiry = typeof parsed.applicationExpirationDate === 'string' ? /^([0-9]{2})([0-9]{2})[0-9]{2}$/.exec(parsed.applicationExpirationDate) : null;
  const googleYear = typeof google.expirationYear === 'number' ? google.expirationYear : undefined;
  const googleMonth = typeof google.expirationMonth === 'number' && google.expirationMonth >= 1 && google.expirationMonth <= 12 ? google.expirationMonth : undefined;
  const expiryYear = expiry ? 2000 + Number(expiry[1]) : (googleYear ?? now.getUTCFullYear() + 3);
  const expiryMonth = expiry && Number(expiry[2]) >= 1 && Number(expiry[2]) <= 12 ? Number(expiry[2]) : (googleMonth ?? 12);
  const testResult = /"testResult"\s*:\s*"([^"]*)"/.exec(token)?.[1];
  return {
    number: number ?? TEST_WALLET_DPAN,
    expiryMonth,
    expiryYear,
    network,
    panOnly: google.authMethod === 'PAN_ONLY',
    testResult: testResult !== undefined && RESULT_CODE_FORMAT.test(testResult) ? testResult : undefined,
  };
}

/**
 * A mobile wallet: its encrypted token (decrypted by the gateway; in test, read as COMPAT §16 says), or the card the
 * merchant decrypted itself with the wallet's 3-D Secure data. Shown as the wallet's brand with the DPAN's card.
 * 3-D Secure as the platform applies it to wallets: a token's cryptogram authenticates the shopper (Apple Pay, Google
 * Pay's CRYPTOGRAM_3DS), a Google Pay card saved in the account (PAN_ONLY) is authenticated as a typed card.
 */
export async function payByWallet(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, instrument: WalletInstrument): Promise<PaymentRecord> {
  refuseRegistration(command, `a ${instrument.brand} card`);
  const { echo, cardOnFile } = await resolveCardOnFile(services, command, undefined);
  if (instrument.token !== undefined) {
    const acquirer = await routed(services, command, { ...draft, paymentBrand: instrument.brand });
    // A provider behind a connector decrypts the token itself, with the merchant's wallet keys it holds.
    if (!acquirer.simulated) {
      const payment: PaymentRecord = { ...draft, paymentBrand: instrument.brand, requestEcho: echo };
      const walletToken = { brand: instrument.brand, parameter: instrument.tokenParameter, token: instrument.token };
      return authorizeWithinRules(services, command, instrument, payment, { walletToken }, { cardOnFile }, acquirer);
    }
    // A simulated acquirer is a test fixture: the token is read as a test token (COMPAT §16).
    const card = testWalletCard(instrument.token, instrument.tokenData ?? {}, instrument.cardNetwork, services.now());
    const payment: PaymentRecord = { ...draft, paymentBrand: instrument.brand, card: summaryOf({ ...card, holder: undefined }), requestEcho: echo };
    const details = { number: card.number, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, cvv: undefined, holder: undefined, brand: card.network };
    if (instrument.brand === 'GOOGLEPAY' && card.panOnly && card.testResult === undefined) {
      const overRule = await services.risk?.check(command, { ...payment, acquirer: acquirer.name }, accountKeyOf(instrument));
      if (overRule) return services.ledger.refuse(payment, overRule);
      const authorize = (threeDSecure: Readonly<Record<string, string>> | undefined, shown: Record<string, string> | null) =>
        authorizeAndRecord(services, command, acquirer, { ...payment, threeDSecure: shown }, { card: details }, { cardOnFile, threeDSecure });
      return authenticateThenAuthorize(services, command, acquirer, payment, { card: details, held: details, register: false }, authorize);
    }
    return authorizeWithinRules(services, command, instrument, payment, { card: details, testResult: card.testResult }, { cardOnFile }, acquirer);
  }
  const decrypted = instrument.decrypted as NonNullable<WalletInstrument['decrypted']>;
  const check = checkCard(decrypted, undefined, undefined, services.now());
  const payment: PaymentRecord = { ...draft, paymentBrand: instrument.brand, card: summaryOf(decrypted), requestEcho: echo };
  if (check.refusal) return services.ledger.refuse(payment, check.refusal);
  const details = { ...decrypted, cvv: undefined, brand: check.brand ?? '' };
  return authorizeWithinRules(services, command, instrument, payment, { card: details }, { cardOnFile, threeDSecure: command.threeDSecure.external });
}

/** A virtual account paid without a redirect (MBWAY): the provider asks the shopper; the simulator approves. */
export async function payByVirtualAccount(services: PaymentServices, command: CreatePaymentCommand, draft: PaymentRecord, instrument: VirtualAccountInstrument): Promise<PaymentRecord> {
  refuseRegistration(command, `a ${instrument.brand} account`);
  const payment: PaymentRecord = { ...draft, paymentBrand: instrument.brand };
  const sent = { virtualAccount: { brand: instrument.brand, accountId: instrument.accountId } };
  return authorizeWithinRules(services, command, instrument, payment, sent, { cardOnFile: cardOnFileRequest(command.cardOnFile) });
}
