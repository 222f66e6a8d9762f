/**
 * Every request parameter of the spec (documents 2 and 3, plus the legacy and one-click names of COMPAT §1/§2),
 * described once, as data. validate.ts is the only code that reads it; cross-field rules live in rules.ts.
 *
 * Conventions used below:
 * - "up to N" means 1..N (an empty value is not a value); "0 to N" keeps min 0.
 * - "AN" without a length is capped at 255 (ANY_TEXT) so no field is unbounded.
 * - Values the spec leaves to a third party (wallet tokens, SDK blobs) are capped at BLOB.
 * - A name appears once. Where two tables define the same name differently, the entry accepts both
 *   and says so in a comment (merchantTransactionId, date.from, date.to).
 */
import { ENTITY_ID } from '../domain/ids.ts';
import { POSTCODE_PATTERN, STATE_PATTERN } from '../../widget/shared/billingAddress.ts';
import type { Operation, ParamSpec } from './types.ts';

type Options = Omit<ParamSpec, 'name'>;

const ANY_TEXT = 255;
const BLOB = 65_536;

// ---------------------------------------------------------------------------------------------------------------
// Formats

/** Doc 2 §2.1 and COMPAT §2: up to 10 digits, optionally a dot and exactly 2 decimals ("10", "10.00"). */
const AMOUNT = /^[0-9]{1,10}(\.[0-9]{2})?$/;
/** Doc 3 notation, "money": up to 10 digits, a dot and exactly 2 decimals ("10.00"). */
const MONEY = /^[0-9]{1,10}\.[0-9]{2}$/;
const DATE_SOURCE = '(19|20)[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])';
const TIME_SOURCE = '([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]';
const DATE = new RegExp(`^${DATE_SOURCE}$`);
const DATE_TIME = new RegExp(`^${DATE_SOURCE} ${TIME_SOURCE}$`);
/** date.from/date.to: a date in reporting (doc 3 §2.10), a date-time in queries (§2.16). */
const DATE_OR_DATE_TIME = new RegExp(`^${DATE_SOURCE}( ${TIME_SOURCE})?$`);
const CURRENCY = /^[A-Z]{3}$/;
const COUNTRY = /^[A-Z]{2}$/;
const MONTH = /^(0[1-9]|1[0-2])$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const HTTP_URL = /^https?:\/\/[^\s]+$/i;
/** "Letters" for shipping cities: letters of any script plus the separators city names contain. */
const CITY_LETTERS = /^[\p{L}\p{M}][\p{L}\p{M} .'-]*$/u;
/** Letters, digits and whitespace (sender and recipient names and places). */
const LETTERS_DIGITS_SPACE = /^[\p{L}\p{M}\p{N}\s]*$/u;

// ---------------------------------------------------------------------------------------------------------------
// Helpers: one ParamSpec each

function spec(name: string, options: Options = {}): ParamSpec {
  return { name, ...options };
}

function text(name: string, min: number, max: number, options: Options = {}): ParamSpec {
  return spec(name, { min, max, ...options });
}

function matching(name: string, pattern: RegExp, formatMessage: string, options: Options = {}): ParamSpec {
  return spec(name, { pattern, formatMessage, ...options });
}

function digits(name: string, min: number, max: number, options: Options = {}): ParamSpec {
  const count = min === max ? `${min}` : `${min} to ${max}`;
  return matching(name, new RegExp(`^[0-9]{${min},${max}}$`), `must be ${count} digits`, options);
}

function alnum(name: string, min: number, max: number, options: Options = {}): ParamSpec {
  const count = min === max ? `${min}` : `${min} to ${max}`;
  return matching(name, new RegExp(`^[A-Za-z0-9]{${min},${max}}$`), `must be ${count} letters or digits`, options);
}

function oneOf(name: string, values: readonly string[], options: Options = {}): ParamSpec {
  return spec(name, { values, ...options });
}

/** Booleans as the platform takes them: true/false, and 1/0 as PHP clients send them (params/values.ts reads them). */
function bool(name: string): ParamSpec {
  return oneOf(name, ['true', 'false', '1', '0']);
}

function amount(name: string, options: Options = {}): ParamSpec {
  return matching(
    name,
    AMOUNT,
    'must be an amount with up to 10 digits and optionally a dot and 2 decimals',
    options,
  );
}

function money(name: string): ParamSpec {
  return matching(name, MONEY, 'must be an amount with up to 10 digits, a dot and 2 decimals');
}

function currency(name: string, options: Options = {}): ParamSpec {
  return matching(name, CURRENCY, 'must be a currency code of 3 uppercase letters (ISO 4217)', options);
}

function country(name: string): ParamSpec {
  return matching(name, COUNTRY, 'must be a country code of 2 uppercase letters (ISO 3166-1 alpha-2)');
}

function alpha3Country(name: string): ParamSpec {
  // "0 to 3, ISO 3166-1 alpha-3": empty or a 3-letter code.
  return matching(name, /^([A-Z]{3})?$/, 'must be a country code of 3 uppercase letters (ISO 3166-1 alpha-3)');
}

function date(name: string): ParamSpec {
  return matching(name, DATE, 'must be a date yyyy-MM-dd');
}

function dateTime(name: string): ParamSpec {
  return matching(name, DATE_TIME, 'must be a date and time yyyy-MM-dd HH:mm:ss');
}

/**
 * Phone numbers are checked for length only: the spec describes a format (a plus sign or digit, then digits,
 * spaces, dots, parentheses, slashes or hyphens), but the platform accepts what real clients send, such as
 * ActiveMerchant's `(?!?)555-5555`, and so does the gateway.
 */
function phone(name: string, min: number, max: number): ParamSpec {
  return text(name, min, max);
}

function month(name: string): ParamSpec {
  return matching(name, MONTH, 'must be a month 01 to 12');
}

function base64(name: string, min: number, max: number, options: Options = {}): ParamSpec {
  return matching(name, BASE64, 'must be base64', { min, max, ...options });
}

function url(name: string, max: number): ParamSpec {
  return matching(name, HTTP_URL, 'must be an http or https URL', { min: 1, max });
}

/** Letters, digits and whitespace, min..max characters (sender, recipient). */
function plainText(name: string, min: number, max: number): ParamSpec {
  return matching(name, LETTERS_DIGITS_SPACE, 'must contain only letters, digits and spaces', { min, max });
}

function required(entry: ParamSpec, ...operations: Operation[]): ParamSpec {
  return { ...entry, requiredFor: operations };
}

/** A list of the literal codes, comma-separated without spaces (query filters). */
function codeList(name: string, what: string, codes: readonly string[]): ParamSpec {
  const code = `(${codes.join('|')})`;
  const example = codes.slice(0, 3).join(',');
  return matching(name, new RegExp(`^${code}(,${code})*$`), `must be a comma-separated list of ${what}, e.g. ${example}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Groups reused under several prefixes

/** Doc 2 §2.9 customer fields. `full` = with the device data that shipping.customer.* leaves out (§2.10). */
function customerFields(prefix: string, full: boolean): ParamSpec[] {
  const p = (field: string) => `${prefix}.${field}`;
  const fields = [
    text(p('merchantCustomerId'), 1, 255),
    text(p('givenName'), 1, 50),
    text(p('middleName'), 2, 50),
    text(p('surname'), 1, 50),
    oneOf(p('sex'), ['M', 'F']),
    date(p('birthDate')),
    phone(p('phone'), 1, 25),
    phone(p('mobile'), 1, 25),
    text(p('workPhone'), 1, 25),
    text(p('email'), 6, 128),
    text(p('companyName'), 1, 60),
    oneOf(p('identificationDocType'), ['IDCARD', 'PASSPORT', 'TAXSTATEMENT']),
    text(p('identificationDocId'), 8, 64),
    text(p('ip'), 1, 255),
    text(p('merchantReference'), 1, 255),
    oneOf(p('salutation'), ['MR', 'MRS', 'MS', 'MX']),
    matching(p('language'), /^[A-Z]{2}$/, 'must be a language code of 2 uppercase letters'),
    oneOf(p('category'), ['INDIVIDUAL', 'COMPANY']),
    oneOf(p('status'), ['NEW', 'EXISTING']),
    text(p('browser.acceptHeader'), 1, 2048),
    text(p('browser.language'), 1, 8),
    digits(p('browser.screenHeight'), 1, 6),
    digits(p('browser.screenWidth'), 1, 6),
    // Minutes between UTC and local time, e.g. "-120" (1 to 5 characters).
    matching(p('browser.timezone'), /^[+-]?[0-9]{1,4}$/, 'must be an offset in minutes, e.g. -120', { max: 5 }),
    text(p('browser.userAgent'), 1, 2048),
    bool(p('browser.javaEnabled')),
    digits(p('browser.screenColorDepth'), 1, 2),
    digits(p('browser.challengeWindow'), 1, 1),
  ];
  if (full) {
    fields.push(
      text(p('browserFingerprint.id'), 1, 255),
      text(p('browserFingerprint.value'), 1, 4096),
      text(p('browser.deviceId'), 1, 32),
      text(p('app.deviceId'), 1, 40),
    );
  }
  return fields;
}

/** The address lines shared by billing (doc 2 §2.11) and shipping (§2.13). */
function addressLines(prefix: string): ParamSpec[] {
  const p = (field: string) => `${prefix}.${field}`;
  return [
    text(p('street1'), 1, 100),
    text(p('street2'), 1, 100),
    text(p('houseNumber1'), 1, 100),
    text(p('houseNumber2'), 1, 100),
    // The widget's billing address checks the same formats (widget/shared/billingAddress.ts).
    matching(p('state'), STATE_PATTERN, 'must contain only letters, digits and dots', { min: 1, max: 50 }),
    matching(p('postcode'), POSTCODE_PATTERN, 'must be 1 to 16 letters or digits, with spaces or hyphens inside'),
    country(p('country')),
    text(p('normalized'), 1, 255),
    text(p('validationStatus'), 1, 255),
  ];
}

/** Doc 2 §2.11 billing address (also merchant.billing.*, §2.12). */
function billingFields(prefix: string): ParamSpec[] {
  // City: 1 to 80 ("48 in one listing"): the larger limit, so no valid request is refused.
  return [...addressLines(prefix), text(`${prefix}.city`, 1, 80)];
}

/** Doc 2 §2.13 shipping address without shipping.customer.* (also merchant.shipping.*). */
function shippingFields(prefix: string): ParamSpec[] {
  const p = (field: string) => `${prefix}.${field}`;
  return [
    ...addressLines(prefix),
    // "1 to 80 letters": letters plus space, hyphen, dot, apostrophe (Saint-Denis, St. Louis).
    matching(p('city'), CITY_LETTERS, 'must contain only letters, spaces, hyphens, dots or apostrophes', { min: 1, max: 80 }),
    oneOf(p('method'), [
      'CARRIER_DESIGNATED_BY_CUSTOMER',
      'ELECTRONIC_DELIVERY',
      'EXPEDITED',
      'GROUND',
      'INTERNATIONAL',
      'LOWEST_COST',
      'MILITARY',
      'NEXT_DAY_OVERNIGHT',
      'OTHER',
      'POINT_PICKUP',
      'PUDO',
      'SAME_DAY_SERVICE',
      'STORE_PICKUP',
      'THREE_DAY_SERVICE',
      'TWO_DAY_SERVICE',
    ]),
    money(p('cost')),
    text(p('comment'), 1, 160),
    date(p('expectedDate')),
    text(p('logisticsProvider'), 1, 255),
    text(p('trackingNumber'), 1, 255),
    text(p('returnTrackingNumber'), 1, 255),
    text(p('warehouse'), 1, 100),
    oneOf(p('preference'), ['GET_FROM_FILE', 'NO_SHIPPING', 'SET_PROVIDED_ADDRESS']),
    text(p('middleName'), 1, ANY_TEXT),
    text(p('companyName'), 1, 60),
    phone(p('phone'), 6, 26),
    phone(p('mobile'), 6, 26),
    text(p('workPhone'), 1, 25),
    text(p('email'), 6, 128),
    oneOf(p('type'), ['RETURN', 'SHIPMENT']),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Scheduling (doc 3 §2.13): cron fields with the values and special characters of the table.

const STEP = '(/[0-9]{1,4})?';

/** A comma list of `*`, a value or a range, each with an optional /step, plus the field's extra forms. */
function cronList(value: string, ...extras: string[]): string {
  const item = `((\\*|(${value})(-(${value}))?)${STEP}${extras.map((extra) => `|${extra}`).join('')})`;
  return `${item}(,${item})*`;
}

function cronField(name: string, source: string, message: string): ParamSpec {
  return matching(name, new RegExp(`^(${source})$`), message, { max: 256 });
}

const SECOND_OR_MINUTE = '[0-5]?[0-9]';
const HOUR = '[01]?[0-9]|2[0-3]';
const DAY_OF_MONTH = '0?[1-9]|[12][0-9]|3[01]';
const MONTH_NUMBER = '0?[1-9]|1[0-2]';
const DAY_OF_WEEK = '[1-7]|SUN|MON|TUE|WED|THU|FRI|SAT';
const YEAR = '19[7-9][0-9]|20[0-9]{2}';

function jobFields(): ParamSpec[] {
  const units = ['YEAR', 'MONTH', 'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND'];
  return [
    text('job.name', 1, 64),
    cronField('job.year', `|${cronList(YEAR)}`, 'must be empty or years 1970 to 2099 with , - * /'),
    cronField('job.month', cronList(MONTH_NUMBER), 'must be months 1 to 12 with , - * /'),
    cronField(
      'job.dayOfMonth',
      `\\?|${cronList(DAY_OF_MONTH, 'L(-[0-9]{1,2})?', 'LW', `(${DAY_OF_MONTH})W`)}`,
      'must be days 1 to 31 with , - * ? / L W',
    ),
    cronField(
      'job.dayOfWeek',
      `\\?|${cronList(DAY_OF_WEEK, 'L', `(${DAY_OF_WEEK})L`, `(${DAY_OF_WEEK})#[1-5]`)}`,
      'must be days 1 to 7 or SUN to SAT with , - * ? / L #',
    ),
    cronField('job.hour', cronList(HOUR), 'must be hours 0 to 23 with , - * /'),
    // The table lists no special characters for job.minute: a single minute 0 to 59.
    cronField('job.minute', SECOND_OR_MINUTE, 'must be a minute 0 to 59'),
    cronField('job.second', cronList(SECOND_OR_MINUTE), 'must be seconds 0 to 59 with , - * /'),
    dateTime('job.startDate'),
    dateTime('job.endDate'),
    oneOf('job.noticeUnit', units),
    digits('job.noticeNumber', 1, 16),
    oneOf('job.noticeCallable', ['ANYTIME', 'DURATION_END']),
    oneOf('job.durationUnit', units),
    digits('job.durationNumber', 1, 16),
    // 7 fields, the year may be left out: 6 or 7 fields separated by whitespace.
    matching('job.expression', /^\s*\S+(\s+\S+){5,6}\s*$/, 'must be a cron expression of 6 or 7 fields', {
      min: 1,
      max: 256,
    }),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Airline (doc 3 §2.4): all Cond, text 1 to 255 unless noted, money fields "money".

function airlineFields(): ParamSpec[] {
  // "bookingtype" is written in lower case by the spec, and kept so.
  const booking = [
    'ticketIssueAddress', 'thirdPartyBooking', 'bookingtype', 'ticketDeliveryMethod', 'bookingRefNum', 'agentName',
    'agentCode',
  ];
  const passenger = [
    'type', 'name', 'ticketRestricted', 'ticketNumber', 'status', 'phone', 'frequentFlyerNumber', 'email', 'dob',
    'checkDigit',
  ];
  const leg = [
    'ticketNumber', 'stopOverAllowed', 'restrictions', 'flightNumber', 'fareBasis', 'exchangeTicketNum',
    'departureCountry', 'departureAirport', 'airlineName', 'airlineCode', 'departureTime', 'arrivalCountry',
    'arrivalAirport', 'arrivalTime', 'couponNumber', 'classOfService', 'carrierCode',
  ];
  const P = 'airline.passengers[n]';
  const L = `${P}.legs[n]`;
  return [
    money('airline.totalTaxAmount'),
    money('airline.totalFeesAmount'),
    money('airline.totalFareAmount'),
    date('airline.ticketIssueDate'),
    ...booking.map((field) => text(`airline.${field}`, 1, 255)),
    ...passenger.map((field) => text(`${P}.${field}`, 1, 255)),
    country(`${P}.residenceCountry`),
    ...leg.map((field) => text(`${L}.${field}`, 1, 255)),
    ...['taxAmount', 'feesAmount', 'fareAmount', 'departureTaxAmount'].map((field) => money(`${L}.${field}`)),
    date(`${L}.departureDate`),
    date(`${L}.arrivalDate`),
    text(`${L}.timeToDeparture`, 1, 10),
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Cart (doc 3 §2.1, §2.2) and marketplace (§2.3)

function cartItemFields(): ParamSpec[] {
  const I = 'cart.items[n]';
  const items: ParamSpec[] = [
    text(`${I}.name`, 1, 255),
    text(`${I}.merchantItemId`, 1, 255),
    matching(
      `${I}.quantity`,
      /^[0-9]{1,12}(\.[0-9]{1,3})?$/,
      'must be a quantity with up to 12 digits and optionally up to 3 decimals',
    ),
    oneOf(`${I}.type`, ['PHYSICAL', 'DIGITAL', 'MIXED', 'ANONYMOUS_DONATION', 'AUTHORITIES_PAYMENT']),
    text(`${I}.sku`, 1, 255),
    currency(`${I}.currency`),
    text(`${I}.description`, 1, 2048),
    digits(`${I}.commodityCode`, 8, 8),
    text(`${I}.commodityDescription`, 1, 50),
    text(`${I}.originalPrice`, 1, 255),
    money(`${I}.price`),
    money(`${I}.totalAmount`),
    money(`${I}.taxAmount`),
    money(`${I}.totalTaxAmount`),
    matching(`${I}.tax`, /^(100(\.00?)?|[0-9]{1,2}(\.[0-9]{1,2})?)$/, 'must be a percentage 0 to 100 with up to 2 decimals', {
      max: 6,
    }),
    oneOf(`${I}.taxCategory`, ['AA', 'S', 'E', 'Z']),
    money(`${I}.shipping`),
    // "money-like": the decimals are not required (the amount format of doc 2).
    amount(`${I}.discount`),
    text(`${I}.giftMessage`, 1, 255),
    text(`${I}.shippingMethod`, 1, 255),
    text(`${I}.shippingInstructions`, 1, 255),
    text(`${I}.shippingTrackingNumber`, 1, 255),
    oneOf(`${I}.quantityUnit`, ['M', 'CM', 'KG', 'G', 'COUNT']),
    url(`${I}.productUrl`, 2048),
    url(`${I}.imageUrl`, 2048),
    money(`${I}.totalDiscountAmount`),
    text(`${I}.productCode`, 1, 30),
    text(`${I}.partNumber`, 1, 30),
    matching(`${I}.itemNumber`, /^[1-9][0-9]{0,2}$/, 'must be a line number 1 to 999'),
    text(`${I}.vatReferenceNumber`, 1, 30),
    text(`${I}.sellerId`, 1, 255),
    text(`${I}.recipient.salutation`, 1, 5),
    text(`${I}.recipient.firstName`, 1, 48),
    text(`${I}.recipient.lastName`, 1, 48),
    text(`${I}.recipient.middleName`, 1, 50),
    text(`${I}.recipient.apartment`, 1, 100),
    text(`${I}.recipient.street`, 1, 100),
    text(`${I}.recipient.address`, 1, 100),
    text(`${I}.recipient.city`, 1, 80),
    text(`${I}.recipient.state`, 1, 50),
    text(`${I}.recipient.postcode`, 1, 16),
    matching(`${I}.recipient.country`, /^([A-Z]{2}|[0-9]{3})$/, 'must be a country code of 2 uppercase letters or 3 digits'),
    digits(`${I}.recipient.phone`, 1, 25),
    text(`${I}.recipient.email`, 1, 128),
    date(`${I}.deliveryDate`),
  ];
  // At most 1000 cart items (doc 1 §8): indexes 0 to 999.
  return items.map((item) => ({ ...item, maxIndex: 999 }));
}

// ---------------------------------------------------------------------------------------------------------------
// Query filter codes (doc 3 §2.16)

const QUERY_PAYMENT_TYPES = [
  'CB', 'CD', 'CR', 'DB', 'CP', 'IV', 'PA', 'RB', 'RC', 'RF', 'RL', 'RV', 'AD', 'IN', 'FI', 'CL', 'CF', 'DR', 'RG', 'RR',
  'TE', 'CT', 'DS', 'RS', 'SD', 'AC', 'MD', 'EA', 'RI', '3D', 'SA', 'EN', 'ID', 'IC', 'DP', 'CG', 'TG', 'SF', 'IS', 'VD',
  'DV', 'AF', 'GK', 'RD', 'TM', 'FT', 'KT', 'AR', 'AL', 'PL', 'FN', 'FZ', 'RE', 'RX', 'FO', 'CS', 'EX', 'SE', 'AU', 'TK',
  'TF', 'ER',
];
const QUERY_PAYMENT_METHODS = ['DD', 'CT', 'CC', 'WA', 'VA', 'UA', 'OT', 'DC', 'ET', 'NT', 'IV', 'PP', 'OD', 'RM'];

const THREE_D_SECURE_SCHEMES = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'cartesbancaires'];

const GIFT_CARD_TYPES = [
  'ANNIVERSARY', 'BIRTHDAY', 'CONGRATULATIONS', 'APRIL_FOOLS_DAY', 'EASTER', 'FATHERS_DAY', 'GRADUATION', 'HOLIDAY',
  'SEASONS_GREETINGS', 'PASSOVER', 'KWANZAA', 'HALLOWEEN', 'MOTHERS_DAY', 'NEW_YEARS_DAY', 'BOSSES_DAY',
  'ST_PATRICKS_DAY', 'SWEETEST_DAY', 'CHRISTMAS', 'BABY_SHOWER', 'THANKSGIVING', 'OTHER', 'VALENTINES_DAY', 'WEDDING',
  'SECRETARYS_DAY', 'CHINESE_NEW_YEAR', 'HANUKKAH', 'CELEBRATE_FALL', 'GRANDPARENTS_DAY', 'INDEPENDENCE_DAY',
];

/** Map keys of customParameters[*] and merchant.data[*]: 3 to 64 letters, digits, dot, underscore. */
const MAP_KEY = /^[A-Za-z0-9._]{3,64}$/;

// ---------------------------------------------------------------------------------------------------------------
// The catalogue

export const CATALOGUE: readonly ParamSpec[] = [
  // Doc 2 §2.1 Basic payment
  // A reversal may omit amount and currency (it covers the whole payment): backOffice amounts are in rules.ts.
  // A checkout's amount and currency are required unless it is registration-only (rules.ts).
  required(amount('amount'), 'payment', 'schedule'),
  amount('taxAmount'),
  amount('discountAmount'),
  required(currency('currency'), 'payment', 'schedule'),
  matching('paymentBrand', /^[A-Za-z0-9_]{1,32}$/, 'must be 1 to 32 letters, digits or underscores'),
  // The whole enum; which types an operation accepts, and the checkout's createRegistration exception, are in rules.ts.
  // PA.CP: a preauthorization captured at once (payments/flows/captureAtOnce.ts).
  required(oneOf('paymentType', ['PA', 'DB', 'CD', 'CP', 'RV', 'RF', 'CB', 'CR', 'PA.CP']), 'payment', 'backOffice', 'schedule'),
  bool('integrity'),
  oneOf('overridePaymentType[*]', ['PA', 'DB', 'CD', 'CP', 'RV', 'RF'], { keyPattern: /^[A-Za-z0-9_]{1,32}$/ }),
  text('descriptor', 1, 127),
  // Payment: 8 to 255; query (doc 3 §2.16): up to 255. Accepted from 1 everywhere (COMPAT §2: shops send their
  // order number); the merchant's integration report lists the short ones (server/integration/report.ts).
  text('merchantTransactionId', 1, 255),
  text('merchantInvoiceId', 8, 255),
  text('merchantMemo', 8, 255),
  oneOf('transactionCategory', ['EC', 'MO', 'TO', 'PO', 'PM', 'MOTO']),
  // "AN", FINAL being the one documented value; other values are passed on, not refused.
  text('sequence', 1, ANY_TEXT),
  matching('numberOfCaptures', /^([1-9]|[1-8][0-9]|9[0-8])$/, 'must be a number from 1 to 98'),
  matching('promotionCode', /^[A-Za-z0-9]{0,15}$/, 'must be up to 15 letters or digits'),
  text('locale', 1, 10),
  text('transactionPurposeCode', 1, 12),
  text('integrationType', 1, 10),
  text('transactionBai', 1, 2),
  text('transactionTti', 1, 3),
  oneOf('transactionProcessingCode', ['PURCHASE', 'FUNDING', 'PAYMENT']),
  text('lifecycleId', 1, 35),
  text('referenceUuid', 1, 32),
  oneOf('testMode', ['EXTERNAL', 'INTERNAL']),

  // Doc 2 §2.2 Forex
  amount('forex.amount'),
  currency('forex.currency'),

  // Doc 2 §2.3 Authentication (not required here: the HTTP layer accepts authentication.entityId as the alias
  // and reports a missing entity itself). COMPAT §1: the legacy body credentials.
  matching('entityId', ENTITY_ID, 'must be 32 lowercase hexadecimal characters'),
  matching('authentication.entityId', ENTITY_ID, 'must be 32 lowercase hexadecimal characters'),
  // Half of a credential pair: never shown back either (http/auth.ts takes both out of the request anyway).
  text('authentication.userId', 1, 255, { sensitive: 'secret' }),
  text('authentication.password', 1, 255, { sensitive: 'secret' }),

  // Doc 2 §2.4 Card account (card.number, expiryMonth, expiryYear and cvv are conditional: rules.ts)
  text('card.holder', 3, 128),
  digits('card.number', 8, 32, { sensitive: 'pan' }),
  month('card.expiryMonth'),
  matching('card.expiryYear', /^(19|20)[0-9]{2}$/, 'must be a year of 4 digits, 19xx or 20xx'),
  digits('card.cvv', 3, 4, { sensitive: 'secret' }),
  oneOf('card.numberType', ['PAN', 'DPAN']),

  // Doc 2 §2.5 Mobile wallets (its walletA, walletB, walletC; COMPAT §16 names them). Token format is the
  // provider's: only a size cap here (instruments.ts checks it is JSON).
  text('applePay.paymentToken', 1, BLOB, { sensitive: 'secret' }),
  text('applePay.cardNetwork', 1, ANY_TEXT),
  text('applePay.cardType', 1, ANY_TEXT),
  oneOf('applePay.source', ['web', 'app']),
  text('googlePay.paymentToken', 1, BLOB, { sensitive: 'secret' }),
  oneOf('googlePay.source', ['web', 'app']),
  text('samsungPay.paymentToken', 1, BLOB, { sensitive: 'secret' }),
  oneOf('samsungPay.source', ['web', 'app']),

  // Doc 2 §2.6 Virtual account; COMPAT §16: the password some brands need, and the generic wallet token.
  text('virtualAccount.accountId', 1, 100),
  text('virtualAccount.password', 1, 255, { sensitive: 'secret' }),
  text('virtualAccount.paymentToken', 1, BLOB, { sensitive: 'secret' }),

  // Doc 2 §2.7 Bank account (number-or-iban and bankCode-or-bic: rules.ts)
  text('bankAccount.holder', 4, 128),
  text('bankAccount.bankName', 1, 255),
  alnum('bankAccount.number', 3, 64, { sensitive: 'pan' }),
  matching(
    'bankAccount.iban',
    /^[A-Za-z]{2}[0-9]{2}[A-Za-z0-9]{11,27}$/,
    'must be an IBAN: 2 letters, 2 digits, 11 to 27 letters or digits',
    { sensitive: 'pan' },
  ),
  alnum('bankAccount.bankCode', 1, 12),
  matching('bankAccount.bic', /^([A-Za-z0-9]{8}|[A-Za-z0-9]{11})$/, 'must be a BIC of 8 or 11 letters or digits'),
  country('bankAccount.country'),
  matching('bankAccount.mandate.id', /^[A-Za-z-]{0,256}$/, 'must be up to 256 letters or hyphens'),
  date('bankAccount.mandate.dateOfSignature'),
  date('transactionDueDate'),

  // Doc 2 §2.8 Token account
  digits('tokenAccount.number', 12, 19, { sensitive: 'pan' }),
  oneOf('tokenAccount.type', ['EXTERNAL', 'NETWORK']),
  month('tokenAccount.expiryMonth'),
  digits('tokenAccount.expiryYear', 4, 4),
  // COMPAT §16: any 20 to 40 characters of base64 (doc 2 says 28 to 32; real cryptograms vary by scheme).
  base64('tokenAccount.cryptogram', 20, 40, { sensitive: 'secret' }),
  digits('tokenAccount.dtvc', 3, 4, { sensitive: 'secret' }),

  // Doc 2 §2.9 Customer
  ...customerFields('customer', true),

  // Doc 2 §2.10 Shipping customer: the customer fields except browserFingerprint.*, browser.deviceId, app.deviceId
  ...customerFields('shipping.customer', false),

  // Doc 2 §2.11 Billing address
  ...billingFields('billing'),

  // Doc 2 §2.12 Merchant billing address: the billing fields plus these
  ...billingFields('merchant.billing'),
  text('merchant.billing.givenName', 1, ANY_TEXT),
  text('merchant.billing.surname', 1, ANY_TEXT),
  text('merchant.billing.middleName', 1, ANY_TEXT),
  text('merchant.billing.companyName', 1, 60),
  text('merchant.billing.phone', 1, 25),
  text('merchant.billing.workPhone', 1, 25),
  phone('merchant.billing.mobile', 6, 26),
  text('merchant.billing.email', 6, 128),

  // Doc 2 §2.13 Shipping address, and merchant.shipping.* (the same fields without shipping.customer.*)
  ...shippingFields('shipping'),
  ...shippingFields('merchant.shipping'),

  // Doc 2 §2.14 Corporate
  text('corporate.name', 1, 30),
  text('corporate.description', 1, 160),
  text('corporate.street', 1, 100),
  text('corporate.address', 1, 100),
  text('corporate.city', 1, 80),
  text('corporate.state', 1, 50),
  text('corporate.postCode', 1, 16),
  text('corporate.suite', 1, 30),
  text('corporate.postboxNumber', 1, 15),
  oneOf('corporate.purchase', ['Y', 'N']),
  digits('corporate.phone', 1, 25),
  digits('corporate.fax', 1, 25),
  text('corporate.vatId', 0, 255),

  // Doc 2 §2.15 Sender
  plainText('sender.name', 0, 100),
  plainText('sender.givenName', 0, 50),
  plainText('sender.middleName', 0, 50),
  plainText('sender.surname', 0, 50),
  date('sender.birthDate'),
  text('sender.accountNumber', 0, 32),
  text('sender.street', 0, 100),
  plainText('sender.city', 0, 50),
  plainText('sender.state', 0, 50),
  alpha3Country('sender.country'),
  text('sender.postcode', 1, 30),
  oneOf('sender.accountNumberType', ['OTHER', 'RTN_AND_BANK_ACCOUNT', 'IBAN', 'IBAN_AND_BIC', 'CARD_ACCOUNT']),
  matching('sender.sourceOfFunds', /^0[1-9]$/, 'must be a source-of-funds code 01 to 09'),

  // Doc 2 §2.16 Recipient
  plainText('recipient.givenName', 0, 48),
  plainText('recipient.middleName', 0, 48),
  plainText('recipient.surname', 0, 48),
  date('recipient.birthDate'),
  phone('recipient.phone', 8, 26),
  text('recipient.accountNumber', 0, 32),
  text('recipient.street', 0, 100),
  plainText('recipient.city', 0, 50),
  plainText('recipient.state', 0, 50),
  alpha3Country('recipient.country'),
  text('recipient.postcode', 1, 30),
  // Both listings (CARD_ACCOUNT, EMAIL come from the other one), and IBAN_AND_BIC as the sender table
  // writes what this table writes BAN_AND_BIC: a value of either spelling is accepted.
  oneOf('recipient.accountNumberType', [
    'OTHER', 'RTN_AND_BANK_ACCOUNT', 'IBAN', 'PHONE_NUMBER', 'BAN_AND_BIC', 'IBAN_AND_BIC', 'WALLET_ID',
    'SOCIAL_NETWORK_ID', 'CARD_ACCOUNT', 'EMAIL',
  ]),

  // Doc 2 §2.17 Merchant (acceptor)
  text('merchant.name', 1, 100),
  matching('merchant.mcc', /^[A-Za-z0-9]{0,4}$/, 'must be up to 4 letters or digits'),
  text('merchant.street', 1, 100),
  text('merchant.city', 1, 100),
  text('merchant.state', 1, 50),
  digits('merchant.countryCode', 3, 3),
  country('merchant.country'),
  matching('merchant.postcode', /^[A-Za-z0-9-]{1,16}$/, 'must be 1 to 16 letters, digits or hyphens'),
  matching(
    'merchant.geographicCoordinates',
    /^[+-]?[0-9]{1,3}(\.[0-9]+)?, ?[+-]?[0-9]{1,3}(\.[0-9]+)?$/,
    'must be latitude,longitude',
    { max: 20 },
  ),
  text('merchant.serviceLocationCity', 1, 100),
  text('merchant.serviceLocationState', 1, 50),
  text('merchant.serviceLocationCountryCode', 0, 3),
  text('merchant.serviceLocationPostCode', 1, 16),
  text('merchant.serviceLocationGeographicCoordinates', 1, 20),
  text('merchant.additionalContact', 1, 255),
  text('merchant.phone', 0, 25),
  text('merchant.customerContactPhone', 0, 25),
  text('merchant.websiteId', 0, 255),
  text('merchant.url', 1, 255),
  text('merchant.URL', 1, 255),
  text('merchant.partnerIdCode', 1, 60),
  text('merchant.isoId', 1, 255),
  text('merchant.payFacId', 1, 255),
  text('merchant.payFacName', 1, 255),
  text('merchant.submerchantId', 1, 100),
  text('merchant.marketplaceId', 1, 255),
  text('merchant.taxId', 1, 60),
  text('merchant.data[*]', 0, 2048, { keyPattern: MAP_KEY }),
  text('merchant.foreignRetailIndicator', 1, 25),
  text('merchant.legalName', 1, 100),
  text('merchant.app.schemeUrl', 1, 255),

  // Doc 3 §2.1 Cart items
  ...cartItemFields(),

  // Doc 3 §2.2 Cart payments
  text('cart.payments[n].name', 1, 255),
  oneOf('cart.payments[n].type', ['GIFTCARD', 'PROMOTION']),
  money('cart.payments[n].amount'),
  currency('cart.payments[n].currency'),
  oneOf('cart.payments[n].status', ['pending', 'authorized', 'captured']),
  text('cart.payments[n].brand', 1, 255),
  bool('cart.payments[n].primary'),

  // Doc 3 §2.3 Marketplace
  text('marketPlace.sellers[n].id', 1, 255),
  money('marketPlace.sellers[n].amount'),

  // Doc 3 §2.4 Airline
  ...airlineFields(),

  // Doc 3 §2.5 Tokenization and registration; registrationId (doc 1 §2.4) and registrations[n].id (COMPAT §2)
  bool('createRegistration'),
  bool('overrideHolder'),
  required(alnum('registrationId', 32, 32), 'schedule'),
  alnum('registrations[n].id', 32, 32),
  oneOf('recurringMigration.paymentType', ['DB', 'CD', 'PA']),
  matching(
    'recurringMigration.amount',
    /^[0-9]{1,8}(\.[0-9]{2})?$/,
    'must be an amount with up to 8 digits and optionally a dot and 2 decimals',
  ),
  matching(
    'recurringMigration.requestTimestamp',
    new RegExp(`^${DATE_SOURCE} ${TIME_SOURCE}(\\.[0-9]{1,3})? ?(Z|[+-][0-9]{2}:?[0-9]{2})$`),
    'must be a date and time yyyy-MM-dd HH:mm:ss with a zone offset, e.g. 2024-01-31 12:00:00+0000',
  ),
  text('recurringMigration.connectorTxId1', 1, 128),
  text('recurringMigration.connectorTxId2', 1, 128),
  text('recurringMigration.connectorTxId3', 1, 128),

  // Doc 3 §2.6 3D Secure
  matching('threeDSecure.amount', /^[0-9]{1,9}\.[0-9]{2}$/, 'must be an amount with up to 9 digits, a dot and 2 decimals'),
  currency('threeDSecure.currency'),
  matching('threeDSecure.eci', /^0[1-8]$/, 'must be 01 to 08'),
  // CAVV/AAV: hidden in parameterErrors and logs, echoed to the merchant as the platform's answers do (types.ts).
  base64('threeDSecure.verificationId', 28, 28, { sensitive: 'authenticationData' }),
  base64('threeDSecure.xid', 1, 64),
  oneOf('threeDSecure.enrollmentStatus', ['Y', 'U', 'N']),
  oneOf('threeDSecure.authenticationStatus', ['Y', 'A', 'U', 'N']),
  text('threeDSecure.deviceInfo', 1, BLOB),
  text('threeDSecure.merchant.name', 1, 100),
  text('threeDSecure.merchant.url', 0, 2048),
  matching('threeDSecure.merchant.country', /^[A-Z]{3}$/, 'must be a country code of 3 uppercase letters'),
  ...THREE_D_SECURE_SCHEMES.flatMap((scheme) => [
    text(`threeDSecure.v2.${scheme}.requestorId`, 1, 100),
    text(`threeDSecure.v2.${scheme}.requestorName`, 1, 100),
  ]),
  text('threeDSecure.dsTransactionId', 36, 36),
  text('threeDSecure.acsTransactionId', 36, 36),
  matching('threeDSecure.version', /^[12]\.[0-9]+\.[0-9]+$/, 'must be a version 1.x.x or 2.x.x, e.g. 2.2.0'),
  matching('threeDSecure.challengeIndicator', /^0[1-9]$/, 'must be 01 to 09'),
  oneOf('threeDSecure.challengeMandatedIndicator', ['Y', 'N']),
  matching('threeDSecure.authType', /^0[1-4]$/, 'must be 01 to 04'),
  matching('threeDSecure.exemptionFlag', /^0[1-4]$/, 'must be 01 to 04'),
  digits('threeDSecure.transactionStatusReason', 2, 2),
  matching('threeDSecure.channel', /^(0?[1-9]|[1-9][0-9])$/, 'must be a number 01 to 99'),
  // The spec names only "challenge"; frictionless is the other flow of COMPAT §7, accepted as well.
  oneOf('threeDSecure.flow', ['challenge', 'frictionless']),
  digits('threeDSecure.schemeData[CB-ITEMSNB]', 2, 2),
  text('threeDSecure.schemeData[CB-SCORE_MERCHANT]', 1, 20),
  digits('threeDSecure.schemeData[CB-USECASE]', 2, 2),

  // Doc 3 §2.7 Custom parameters (the SHOPPER_ prefix applies to the widget's client side only)
  text('customParameters[*]', 0, 2048, { keyPattern: MAP_KEY }),

  // Doc 3 §2.8 Asynchronous payments
  text('shopperResultUrl', 6, 2048),
  text('notificationUrl', 6, 2048),

  // Doc 3 §2.9 Point of sale (request parameters; the response fields are not accepted as input)
  digits('pos.deviceId', 1, 32),
  oneOf('pos.deviceType', ['MAKERA_SHUTTLE', 'MAKERA_M007', 'MAKERA_M010', 'MAKERB_E105', 'MAKERB_E315', 'MAKERB_E335']),
  alnum('pos.encryptedPin.data', 1, 2048, { sensitive: 'secret' }),
  alnum('pos.encryptedPin.ksn', 1, 2048),
  alnum('pos.encryptedSred.data', 1, 2048, { sensitive: 'secret' }),
  alnum('pos.encryptedSred.ksn', 1, 2048),
  oneOf('pos.entryMode', ['MANUAL', 'MAGSTRIPE', 'MAGSTRIPE_AS_FALLBACK', 'ICC', 'NFC_ICC', 'NFC_MAGSTRIPE']),
  alnum('pos.iccDataRequest', 1, 2048),
  digits('pos.location.accuracy', 1, 32),
  matching('pos.location.latitude', /^[+-]?[0-9]{1,3}(\.[0-9]{1,8})?$/, 'must be a signed decimal with up to 8 decimals'),
  matching('pos.location.longitude', /^[+-]?[0-9]{1,3}(\.[0-9]{1,8})?$/, 'must be a signed decimal with up to 8 decimals'),
  digits('pos.panSequenceNumber', 1, 32),
  oneOf('pos.pinEntryCapability', ['PIN_ENTRY_AVAILABLE', 'PIN_ENTRY_UNAVAILABLE']),
  digits('pos.terminalId', 1, 32),
  digits('pos.transactionSequenceNumber', 1, 32),
  oneOf('pos.transactionSource', ['POS']),

  // Doc 3 §2.10 Reporting and §2.16 Query: date.from/date.to are a date in reporting and a date-time in
  // queries; one entry accepts both forms (yyyy-MM-dd, optionally followed by HH:mm:ss).
  matching('date.from', DATE_OR_DATE_TIME, 'must be a date yyyy-MM-dd or a date and time yyyy-MM-dd HH:mm:ss'),
  matching('date.to', DATE_OR_DATE_TIME, 'must be a date yyyy-MM-dd or a date and time yyyy-MM-dd HH:mm:ss'),
  oneOf('sortValue', ['SettlementTxDate']),
  oneOf('sortOrder', ['ASC', 'DESC', 'asc', 'desc']),

  // Doc 3 §2.11 Gift card. "Up to 16" is not applied to the type: SEASONS_GREETINGS has 17 characters,
  // and the list of values bounds it anyway.
  text('giftCard.number', 2, 255, { sensitive: 'pan' }),
  text('giftCard.pin', 2, 255, { sensitive: 'secret' }),
  text('giftCard.holder', 2, 255),
  text('giftCard.message', 2, 160),
  oneOf('giftCard.type', GIFT_CARD_TYPES),

  // Doc 3 §2.12 Risk
  text('risk.channelId', 1, 255),
  text('risk.serviceId', 1, 255),
  money('risk.amount'),
  dateTime('risk.orderTimestamp'),
  text('risk.brand', 1, 255),
  // "name 3 to 64" with no character set given.
  text('risk.parameters[*]', 0, 2048, { keyPattern: /^.{3,64}$/u }),
  text('risk.merchantWebsite', 1, 60),
  text('risk.accountToken', 1, 64),

  // Doc 3 §2.13 Scheduling
  ...jobFields(),

  // Doc 3 §2.14 Card on file
  oneOf('standingInstruction.type', ['UNSCHEDULED', 'INSTALLMENT', 'RECURRING']),
  oneOf('standingInstruction.recurringType', ['STANDING_ORDER', 'SUBSCRIPTION']),
  // COMPAT §10-11: the legacy card-on-file flag older clients send instead of standingInstruction.mode.
  oneOf('recurringType', ['INITIAL', 'REPEATED']),
  oneOf('standingInstruction.mode', ['INITIAL', 'REPEATED']),
  oneOf('standingInstruction.source', ['CIT', 'MIT']),
  // "Format depends on acquirer".
  text('standingInstruction.initialTransactionId', 1, 255),
  oneOf('standingInstruction.industryPractice', [
    'INCREMENTAL_AUTH', 'RESUBMISSION', 'REAUTHORIZATION', 'DELAYED_CHARGES', 'NO_SHOW',
  ]),
  // A date, or 9999-12-31: the "no expiry" value the spec says the platform itself sends.
  matching('standingInstruction.expiry', new RegExp(`^(${DATE_SOURCE}|9999-12-31)$`), 'must be a date yyyy-MM-dd'),
  digits('standingInstruction.frequency', 4, 4),
  digits('standingInstruction.numberOfInstallments', 3, 3),
  // COMPAT §4: the installments a shopper picks in an input merchants add to the payment form (not in the spec).
  digits('recurring.numberOfInstallments', 1, 3),

  // Doc 3 §2.15 Chargeback
  matching('chargebackResultCode', /^000\.100\.2[0-9]{2}$/, 'must be a chargeback code 000.100.2xx'),

  // Doc 3 §2.16 Query (merchantTransactionId, date.from and date.to are above)
  matching('limit', /^(1[0-9]{2}|[2-4][0-9]{2}|500)$/, 'must be a number from 100 to 500'),
  codeList('paymentTypes', 'payment type codes', QUERY_PAYMENT_TYPES),
  codeList('paymentMethods', 'payment method codes', QUERY_PAYMENT_METHODS),
  bool('includeLinkedTransactions'),
  text('shortId', 1, 14),
  // COMPAT §14: the page of a query's (and a v2 report's) list, from 1.
  matching('pageNo', /^[1-9][0-9]{0,5}$/, 'must be a page number from 1 to 999999'),
];
