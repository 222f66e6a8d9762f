import type { GatewayEnvironment } from '../config.ts';
import type { CardInstrument } from '../domain/commands.ts';
import { invalidParameters } from '../domain/errors.ts';
import { requestEcho } from '../params/echo.ts';
import { bankAccountOf, cardOf, namesBankAccount } from '../params/instruments.ts';
import { resolveTestMode } from '../params/testMode.ts';
import type { ParameterError } from '../domain/errors.ts';
import { validateParameters } from '../params/validate.ts';
import { brandCode } from '../params/values.ts';
import type { CreateRegistrationCommand, RegistrationUpdate } from './api.ts';

/** The edge of the registration use-cases: the wire's parameters validated once and turned into commands. */

type Params = ReadonlyMap<string, string>;

/** COMPAT §10: a registration has no amount, currency or type; if a client sends them, they are ignored. */
const IGNORED = ['amount', 'currency', 'paymentType'];

const CARD_FIELDS = ['card.number', 'card.expiryMonth', 'card.expiryYear'];

/**
 * COMPAT §11: a registration the shopper makes is the agreement's cardholder-initiated step; one migrated from
 * elsewhere (recurringMigration.*) had its shopper step there, and only connectorTxId1 names it.
 */
function agreementOf(params: Params): CreateRegistrationCommand['agreement'] {
  if (![...params.keys()].some((name) => name.startsWith('recurringMigration.'))) return { kind: 'shopper' };
  return { kind: 'migrated', initialTransactionId: params.get('recurringMigration.connectorTxId1') };
}

/** POST /v1/registrations: a card or a SEPA bank account to store. */
export function registrationCommand(
  params: Params,
  context: { readonly entityId: string; readonly environment: GatewayEnvironment; readonly registrationId: string; readonly checkoutId?: string },
): CreateRegistrationCommand {
  const testMode = resolveTestMode(params, context.environment);
  const relevant = new Map([...params].filter(([name]) => !IGNORED.includes(name)));
  const errors = validateParameters(relevant, 'registration');
  const common = {
    entityId: context.entityId,
    registrationId: context.registrationId,
    paymentBrand: brandCode(relevant.get('paymentBrand')),
    testMode: testMode ?? null,
    echo: requestEcho(relevant),
    agreement: agreementOf(relevant),
    checkoutId: context.checkoutId,
  };
  // COMPAT §16: a SEPA bank account is registered with its mandate (made by the gateway when none is sent).
  if (namesBankAccount(relevant)) {
    const stray = CARD_FIELDS.filter((name) => relevant.has(name));
    errors.push(...stray.map((name) => ({ name, value: relevant.get(name) ?? '', message: 'cannot be sent with a bank account: register one or the other' })));
    if (errors.length > 0) throw invalidParameters(errors);
    return { ...common, instrument: bankAccountOf(relevant) };
  }
  // A card is the one instrument a registration stores here: its number and expiry are required.
  for (const name of CARD_FIELDS) if (!relevant.has(name)) errors.push({ name, value: '', message: 'is required to register a card' });
  if (errors.length > 0) throw invalidParameters(errors);
  return { ...common, instrument: cardOf(relevant) as CardInstrument };
}

/** POST /v1/registrations/{id}: the new holder or expiry; the number of a stored card never changes. */
export function registrationUpdateOf(params: Params): RegistrationUpdate {
  const errors: ParameterError[] = validateParameters(params, 'registrationUpdate');
  const unchangeable = ['card.number', 'card.cvv', 'paymentBrand'].filter((name) => params.has(name));
  errors.push(...unchangeable.map((name) => ({ name, value: params.get(name) ?? '', message: 'cannot be changed: register the card anew' })));
  const fields = ['card.holder', 'card.expiryMonth', 'card.expiryYear'];
  if (errors.length === 0 && !fields.some((name) => params.has(name))) {
    errors.push({ name: 'card.expiryYear', value: '', message: 'card.holder, card.expiryMonth or card.expiryYear is required' });
  }
  if (errors.length > 0) throw invalidParameters(errors);
  const month = params.get('card.expiryMonth');
  const year = params.get('card.expiryYear');
  return {
    holder: params.get('card.holder'),
    expiryMonth: month === undefined ? undefined : Number(month),
    expiryYear: year === undefined ? undefined : Number(year),
  };
}
