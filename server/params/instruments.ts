import type { AsynchronousInstrument, BankAccountInstrument, CardInstrument, Instrument, TokenAccountInstrument, VirtualAccountInstrument, WalletInstrument } from '../domain/commands.ts';
import { GatewayError, invalidParameters, withReason } from '../domain/errors.ts';
import {
  GENERIC_WALLET_TOKEN,
  ibanCountry,
  isValidBic,
  isValidIban,
  isWalletBrand,
  SEPA_BRAND,
  VIRTUAL_ACCOUNT_BRANDS,
  WALLET_TOKEN_PARAMETERS,
  walletTokenParameter,
  WALLETS,
} from '../domain/instruments.ts';
import { RESULTS } from '../domain/resultCodes.ts';
import type { ParameterError } from '../domain/errors.ts';
import { maskedParameterError } from './validate.ts';
import { anyWithPrefix } from './values.ts';
import { ASYNC_BRANDS, isAsyncBrand } from '../../widget/shared/asyncBrands.ts';
import { isKnownBrand } from '../domain/brands.ts';
import { normalizeIban } from '../../widget/shared/iban.ts';

/**
 * Which instrument a payment request names, read from its parameters once the validator has checked their formats
 * (COMPAT §16, doc 2 §2.4–2.8): the instrument's own rules (an IBAN's checksum, a wallet token being JSON, a
 * cryptogram for a cardholder-initiated token payment) are checked here, and a request naming one wrongly is refused
 * before anything is recorded.
 */

type Params = ReadonlyMap<string, string>;

/** The card the request carries (card.*), once the validator has checked its fields are all there. */
export function cardOf(params: Params): CardInstrument | undefined {
  const number = params.get('card.number');
  if (number === undefined) return undefined;
  return {
    kind: 'card',
    number,
    expiryMonth: Number(params.get('card.expiryMonth')),
    expiryYear: Number(params.get('card.expiryYear')),
    cvv: params.get('card.cvv'),
    holder: params.get('card.holder'),
  };
}

/** COMPAT §16: an account number that fails its own check answers 100.100.101, naming the parameter. */
function invalidAccount(name: string, value: string, message: string): GatewayError {
  return new GatewayError(withReason(RESULTS.invalidCard, `${name} ${message}`), 400, [maskedParameterError({ name, value, message })]);
}

function unsupported(reason: string): GatewayError {
  return new GatewayError(withReason(RESULTS.unsupportedPaymentMethod, reason), 400);
}

/** A JSON object's fields, or undefined for text that is not one (every wallet's token is one). */
function jsonObjectOf(text: string): Readonly<Record<string, unknown>> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The wallet named by paymentBrand, with its token or the card the merchant decrypted. */
function walletOf(params: Params, brand: WalletInstrument['brand']): WalletInstrument {
  const prefix = WALLETS[brand].prefix;
  const own = walletTokenParameter(brand);
  // A token sent under another wallet's name is a mistake worth naming.
  const foreign = WALLET_TOKEN_PARAMETERS.filter((name) => name !== own && params.has(name));
  if (foreign.length > 0) throw invalidParameters(foreign.map((name) => ({ name, value: params.get(name) ?? '', message: `is not the token of ${brand}` })));
  const tokenParameter = params.has(own) ? own : GENERIC_WALLET_TOKEN;
  const token = params.get(tokenParameter);
  const cardNetwork = brand === 'APPLEPAY' ? params.get('applePay.cardNetwork') : undefined;
  if (token !== undefined) {
    if (params.has('card.number')) {
      throw invalidParameters([{ name: 'card.number', value: params.get('card.number') ?? '', message: `cannot be sent with ${tokenParameter}: send the token or the decrypted card` }]);
    }
    const tokenData = jsonObjectOf(token);
    if (!tokenData) throw invalidAccount(tokenParameter, token, 'must be the wallet token as JSON');
    return { kind: 'wallet', brand, token, tokenData, tokenParameter, decrypted: undefined, cardNetwork };
  }
  const decrypted = cardOf(params);
  if (decrypted === undefined) {
    throw invalidParameters([{ name: own, value: '', message: `is required for ${brand} (or the decrypted card.* with ${prefix}.source)` }]);
  }
  // Doc 2 §2.5: decrypted data comes with the wallet's source.
  const sourceName = `${prefix}.source`;
  if (!params.has(sourceName)) throw invalidParameters([{ name: sourceName, value: '', message: `is required with the decrypted card of ${brand}` }]);
  return { kind: 'wallet', brand, token: undefined, tokenData: undefined, tokenParameter: own, decrypted, cardNetwork };
}

function tokenAccountOf(params: Params): TokenAccountInstrument {
  const type = params.get('tokenAccount.type') as TokenAccountInstrument['type'];
  const cryptogram = params.get('tokenAccount.cryptogram');
  // COMPAT §16: the cryptogram proves the device was there; a merchant-initiated payment has none to send.
  if (type === 'NETWORK' && cryptogram === undefined && params.get('standingInstruction.source') !== 'MIT') {
    throw invalidParameters([{ name: 'tokenAccount.cryptogram', value: '', message: 'is required for a NETWORK token unless the payment is merchant initiated (standingInstruction.source=MIT)' }]);
  }
  const month = params.get('tokenAccount.expiryMonth');
  const year = params.get('tokenAccount.expiryYear');
  const errors: ParameterError[] = [];
  if (month !== undefined && year === undefined) errors.push({ name: 'tokenAccount.expiryYear', value: '', message: 'is required with tokenAccount.expiryMonth' });
  if (year !== undefined && month === undefined) errors.push({ name: 'tokenAccount.expiryMonth', value: '', message: 'is required with tokenAccount.expiryYear' });
  if (errors.length > 0) throw invalidParameters(errors);
  return {
    kind: 'tokenAccount',
    type,
    number: params.get('tokenAccount.number') as string,
    expiryMonth: month === undefined ? undefined : Number(month),
    expiryYear: year === undefined ? undefined : Number(year),
    cryptogram,
  };
}

/** Whether the parameters name a bank account: the SEPA brand, or any bankAccount.* (payments and registrations). */
export function namesBankAccount(params: Params): boolean {
  return params.get('paymentBrand') === SEPA_BRAND || anyWithPrefix(params, 'bankAccount.');
}

/** A SEPA bank account (COMPAT §16): the IBAN's checksum, the BIC's form, the IBAN's country as the account's. */
export function bankAccountOf(params: Params): BankAccountInstrument {
  const brand = params.get('paymentBrand') ?? SEPA_BRAND;
  if (brand !== SEPA_BRAND) throw unsupported(`bank accounts are debited by ${SEPA_BRAND} only, not ${brand}`);
  const sentIban = params.get('bankAccount.iban');
  if (sentIban === undefined) {
    throw invalidParameters([{ name: 'bankAccount.iban', value: '', message: `is required for ${SEPA_BRAND} (a bank account number and bank code are not enough)` }]);
  }
  const iban = normalizeIban(sentIban);
  if (!isValidIban(iban)) throw invalidAccount('bankAccount.iban', sentIban, 'is not a valid IBAN (its length or checksum is wrong)');
  const country = ibanCountry(iban) as string;
  const errors: ParameterError[] = [];
  const bic = params.get('bankAccount.bic')?.toUpperCase();
  if (bic !== undefined && !isValidBic(bic)) {
    errors.push({ name: 'bankAccount.bic', value: bic, message: 'is not a BIC: 4 letters of the bank, 2 of its country, 2 letters or digits, and an optional branch of 3' });
  }
  const sentCountry = params.get('bankAccount.country');
  if (sentCountry !== undefined && sentCountry !== country) {
    errors.push({ name: 'bankAccount.country', value: sentCountry, message: `must be ${country}, the country of the IBAN` });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  return {
    kind: 'bankAccount',
    brand,
    holder: params.get('bankAccount.holder') as string,
    iban,
    bic,
    country,
    bankName: params.get('bankAccount.bankName'),
    mandateId: params.get('bankAccount.mandate.id'),
    mandateDateOfSignature: params.get('bankAccount.mandate.dateOfSignature'),
    dueDate: params.get('transactionDueDate'),
  };
}

function virtualAccountOf(params: Params): VirtualAccountInstrument {
  const brand = params.get('paymentBrand');
  const accountId = params.get('virtualAccount.accountId');
  if (brand === undefined) throw invalidParameters([{ name: 'paymentBrand', value: '', message: 'is required with virtualAccount.*: it names the provider' }]);
  const rules = VIRTUAL_ACCOUNT_BRANDS[brand];
  if (!rules) throw unsupported(`virtual accounts of ${brand} are not processed by this gateway`);
  const errors: ParameterError[] = [];
  if (accountId === undefined) errors.push({ name: 'virtualAccount.accountId', value: '', message: `is required for ${brand}` });
  else if (!rules.accountId.test(accountId)) errors.push({ name: 'virtualAccount.accountId', value: accountId, message: `must be ${rules.format}` });
  if (rules.password && !params.has('virtualAccount.password')) errors.push({ name: 'virtualAccount.password', value: '', message: `is required for ${brand}` });
  if (errors.length > 0) throw invalidParameters(errors);
  return { kind: 'virtualAccount', brand, accountId: accountId as string };
}

/**
 * An asynchronous brand's payment (COMPAT §7): what its family asks for (asyncBrands.ts `requires`, `a|b` for either),
 * and a bank account country among those the brand serves.
 */
function asynchronousOf(params: Params, brand: string): AsynchronousInstrument {
  const rules = ASYNC_BRANDS[brand];
  const errors: ParameterError[] = [];
  for (const requirement of rules?.requires ?? []) {
    const names = requirement.split('|');
    if (!names.some((name) => params.has(name))) {
      errors.push({ name: names[0] as string, value: '', message: `is required for ${brand}${names.length > 1 ? ` (or ${names.slice(1).join(', ')})` : ''}` });
    }
  }
  const country = params.get('bankAccount.country');
  if (country !== undefined && rules?.countries && !rules.countries.includes(country)) {
    errors.push({ name: 'bankAccount.country', value: country, message: `must be one of ${rules.countries.join(', ')}: the countries ${brand} serves` });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  // The account the shopper's provider needs (a country, a bank, a phone number), as sent: a provider behind a
  // connector is sent it (responses show it masked, from the request echo).
  const account: Record<string, string> = {};
  for (const [name, value] of params) if (ACCOUNT_PARAMETER.test(name)) account[name] = value;
  return { kind: 'asynchronous', brand, account };
}

/** The account fields of an asynchronous brand's payment. */
const ACCOUNT_PARAMETER = /^(bankAccount|virtualAccount)\.[A-Za-z.]+$/;

/** An instrument the request's path names instead of its parameters: the registration paid with, or the PA followed. */
export interface NamedInstrument {
  readonly registrationId?: string;
  readonly referenced?: boolean;
}

/** The instrument a payment is made with, from the parameters the validator has checked (and what its path names). */
export function instrumentOf(params: Params, byPath: NamedInstrument = {}): Instrument {
  const brand = params.get('paymentBrand');
  if (isWalletBrand(brand)) return walletOf(params, brand);
  const card = cardOf(params);
  if (card) return card;
  const registrationId = byPath.registrationId ?? params.get('registrationId');
  if (registrationId !== undefined) {
    return { kind: 'storedCard', registrationId, cvv: params.get('card.cvv'), holder: params.get('card.holder'), dueDate: params.get('transactionDueDate') };
  }
  // An incremental authorization or reauthorization without card data is made with the original's card.
  if (byPath.referenced || params.has('referenceUuid')) return { kind: 'referenced' };
  // An asynchronous brand's instrument is the shopper's account at the provider, chosen on its page, or money the
  // shopper sends later.
  if (isAsyncBrand(brand)) return asynchronousOf(params, brand);
  // COMPAT §7: a brand that is no payment method at all is named as such, never answered with a demand for card data.
  if (brand !== undefined && !isKnownBrand(brand)) {
    throw new GatewayError(withReason(RESULTS.invalidPaymentMethod, `${brand} is not a payment brand of this gateway`), 400, [
      maskedParameterError({ name: 'paymentBrand', value: brand, message: 'is not a payment brand of this gateway' }),
    ]);
  }
  if (anyWithPrefix(params, 'tokenAccount.')) return tokenAccountOf(params);
  if (namesBankAccount(params)) return bankAccountOf(params);
  if (anyWithPrefix(params, 'virtualAccount.') || (brand !== undefined && brand in VIRTUAL_ACCOUNT_BRANDS)) return virtualAccountOf(params);
  const token = WALLET_TOKEN_PARAMETERS.find((name) => params.has(name));
  if (token) throw invalidParameters([{ name: 'paymentBrand', value: brand ?? '', message: `must name the wallet whose token ${token} is` }]);
  // The validator requires card data when no other instrument is named; what is left names one this gateway has not.
  const named = ['giftCard.number', 'pos.encryptedSred.data'].find((name) => params.has(name)) ?? 'card.number';
  throw invalidParameters([{ name: named, value: params.get(named) ?? '', message: 'names a payment instrument this gateway does not process' }]);
}
