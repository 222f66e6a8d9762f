/**
 * The asynchronous payment brands of the platform's catalogue (COMPAT §7): every brand that completes away from the
 * card form. The gateway simulates each by its family; the widget renders one form per brand (COMPAT §4:
 * `wpwl-form-<form>-<BRAND>`); both read this one table.
 *
 * Families (what the shopper does, and so what the simulator does):
 * - `onlineTransfer`: approves a transfer in their online banking (provider page);
 * - `eWallet`: logs in to a wallet or payment service and approves (provider page);
 * - `invoice`: buy now, pay later: the lender checks and accepts the shopper (provider page);
 * - `voucher`: pays with the PIN of a prepaid voucher (provider page asking for the PIN);
 * - `cashVoucher`: gets a voucher (number, barcode) to pay in cash at a shop, bank or ATM: pending until the
 *   simulated funds arrive (the answer's redirect shows the printable voucher);
 * - `prepayment`: gets the merchant's bank account and a reference to transfer to: pending until the funds arrive
 *   (no redirect).
 *
 * Required parameters follow what the platform's own samples and its vendor's client send per brand
 * (research/async-brands in the issue 20 notes); `shopperResultUrl` is required for every one of them.
 */

export type AsyncFamily = 'onlineTransfer' | 'eWallet' | 'invoice' | 'voucher' | 'cashVoucher' | 'prepayment';

/** The widget's form family of a brand: its container and form classes and its onBeforeSubmit* callback. */
export type AsyncForm = 'onlineTransfer' | 'virtualAccount' | 'prepayment';

export interface AsyncBrand {
  readonly family: AsyncFamily;
  readonly form: AsyncForm;
  /** The provider's name, shown to the shopper and as the logo's text alternative. */
  readonly label: string;
  /**
   * Parameters the payment needs besides shopperResultUrl; `a|b` is satisfied by either. The merchant's server sends
   * them (on the checkout for a widget payment), except the ones the widget asks the shopper for (`shopperCountries`).
   */
  readonly requires?: readonly string[];
  /** The countries of `bankAccount.country` the brand serves; the widget offers them (one: sent as it is). */
  readonly countries?: readonly string[];
}

const NAMES = ['customer.givenName', 'customer.surname'];
const BILLING_ADDRESS = ['billing.street1', 'billing.city', 'billing.postcode', 'billing.country'];
const SHIPPING_ADDRESS = ['shipping.street1', 'shipping.city', 'shipping.postcode', 'shipping.country'];
/** Klarna, AfterPay, Ikano: the shopper's name and country, which the lender's check starts from. */
const LENDER = [...NAMES, 'billing.country'];
/** payolution's invoice, instalments and direct-debit-backed products: name, e-mail and address. */
const PAYOLUTION = [...NAMES, 'customer.email', ...BILLING_ADDRESS];
/**
 * The buy now, pay later brands of the Middle East and Central Asia, as HyperPay's OpenCart extension (a method each)
 * sends them to the platform. Tabby pre-scores the shopper by e-mail and phone (the minimum of its own checkout API:
 * buyer.email, buyer.phone) and greets them by name: the extension sends customer.givenName, surname, email and
 * mobile. ZoodPay is sent the same and the shopper's market, billing.country (the extension adds the addresses and
 * the cart, which the lender may use but does not need to start). valU signs the shopper in on its own page with the
 * mobile number registered with it: the extension always sends the e-mail, and the names; those are required here.
 */
const TABBY = [...NAMES, 'customer.email', 'customer.mobile'];
const ZOODPAY = [...TABBY, 'billing.country'];
const VALU = [...NAMES, 'customer.email'];

const SOFORT_COUNTRIES = ['AT', 'BE', 'CH', 'DE', 'ES', 'IT', 'NL', 'PL'];

function transfer(label: string, form: AsyncForm, more: Partial<AsyncBrand> = {}): AsyncBrand {
  return { family: 'onlineTransfer', form, label, ...more };
}
function wallet(label: string, more: Partial<AsyncBrand> = {}): AsyncBrand {
  return { family: 'eWallet', form: 'virtualAccount', label, ...more };
}
function invoice(label: string, requires: readonly string[]): AsyncBrand {
  return { family: 'invoice', form: 'virtualAccount', label, requires };
}
function voucher(label: string): AsyncBrand {
  return { family: 'voucher', form: 'virtualAccount', label };
}
function cash(label: string, form: AsyncForm, requires?: readonly string[]): AsyncBrand {
  return { family: 'cashVoucher', form, label, ...(requires ? { requires } : {}) };
}

export const ASYNC_BRANDS: Readonly<Record<string, AsyncBrand>> = {
  // Online bank transfer. The bank-account group of the platform renders as onlineTransfer forms.
  SOFORTUEBERWEISUNG: transfer('Sofort', 'onlineTransfer', { requires: ['bankAccount.country'], countries: SOFORT_COUNTRIES }),
  GIROPAY: transfer('giropay', 'onlineTransfer', { countries: ['DE'] }),
  IDEAL: transfer('iDEAL', 'onlineTransfer', { countries: ['NL'] }),
  EPS: transfer('eps', 'onlineTransfer', { requires: ['bankAccount.country'], countries: ['AT'] }),
  POLI: transfer('POLi', 'onlineTransfer', { requires: ['bankAccount.country'], countries: ['AU', 'NZ'] }),
  ENTERCASH: transfer('Entercash', 'onlineTransfer', { requires: ['bankAccount.country'], countries: ['AT', 'DE', 'FI', 'SE'] }),
  INTERAC_ONLINE: transfer('Interac Online', 'onlineTransfer', { countries: ['CA'] }),
  SADAD: transfer('SADAD', 'onlineTransfer', { countries: ['SA'] }),
  TRUSTPAY_VA: transfer('TrustPay', 'onlineTransfer', { requires: NAMES }),
  BITCOIN: transfer('Bitcoin', 'onlineTransfer'),
  // The virtual-account group's transfers render as virtualAccount forms.
  TRUSTLY: transfer('Trustly', 'virtualAccount', { requires: [...NAMES, 'billing.country'] }),
  PRZELEWY: transfer('Przelewy24', 'virtualAccount', { requires: [...NAMES, 'customer.email'] }),
  PAYTRAIL: transfer('Paytrail', 'virtualAccount'),
  PF_KARTE_DIRECT: transfer('PostFinance', 'virtualAccount'),
  CHINAUNIONPAY: transfer('UnionPay online banking', 'virtualAccount'),
  SHETAB: transfer('Shetab', 'virtualAccount'),
  ASTROPAY_STREAMLINE_OT: transfer('AstroPay online transfer', 'virtualAccount'),
  MONEYSAFE: transfer('Moneysafe', 'virtualAccount'),

  // E-wallets and payment services.
  PAYPAL: wallet('PayPal'),
  ALIPAY: wallet('Alipay'),
  TENPAY: wallet('Tenpay'),
  MONEYBOOKERS: wallet('Skrill'),
  QIWI: wallet('QIWI'),
  YANDEX: wallet('YooMoney'),
  MASTERPASS: wallet('Masterpass'),
  PAYDIREKT: wallet('paydirekt', { requires: [...NAMES, ...SHIPPING_ADDRESS] }),
  INICIS: wallet('KG Inicis'),
  PAYBOX: wallet('Paybox'),
  DAOPAY: wallet('DaoPay', { requires: ['billing.country'] }),
  STC_PAY: wallet('STC Pay'),

  // Invoice, instalments, buy now pay later.
  KLARNA_INVOICE: invoice('Klarna invoice', LENDER),
  KLARNA_INSTALLMENTS: invoice('Klarna instalments', LENDER),
  KLARNA_PAYMENTS_BILLPAY: invoice('Klarna', LENDER),
  KLARNA_PAYMENTS_PAYLATER: invoice('Klarna Pay later', LENDER),
  KLARNA_PAYMENTS_PAYNOW: invoice('Klarna Pay now', LENDER),
  KLARNA_PAYMENTS_SLICEIT: invoice('Klarna Slice it', LENDER),
  PAYOLUTION_INVOICE: invoice('payolution invoice', PAYOLUTION),
  PAYOLUTION_INVOICE_B2B: invoice('payolution invoice (business)', [...PAYOLUTION, 'customer.companyName']),
  PAYOLUTION_INS: invoice('payolution instalments', PAYOLUTION),
  PAYOLUTION_ELV: invoice('payolution direct debit', PAYOLUTION),
  RATENKAUF: invoice('easyCredit Ratenkauf', [...NAMES, ...BILLING_ADDRESS]),
  AFTERPAY: invoice('AfterPay', LENDER),
  IKANOOI_SE: invoice('Ikano', LENDER),
  TABBY: invoice('Tabby', TABBY),
  VALU: invoice('valU', VALU),
  ZOODPAY: invoice('ZoodPay', ZOODPAY),

  // Prepaid vouchers paid with their PIN.
  PAYSAFECARD: voucher('paysafecard'),
  UKASH: voucher('Ukash'),
  CASHU: voucher('CashU'),
  ONECARD: voucher('OneCard'),

  // Cash vouchers. BOLETO needs the payer's CPF: customer.identificationDocId (docType TAXSTATEMENT) or the older
  // Bradesco custom parameter the platform's own samples send.
  BOLETO: cash('Boleto Bancário', 'onlineTransfer', [...NAMES, ...BILLING_ADDRESS, 'customer.identificationDocId|customParameters[BRADESCO_cpfsacado]']),
  OXXO: cash('OXXO', 'onlineTransfer', NAMES),
  SIBS_MULTIBANCO: cash('Multibanco', 'virtualAccount'),
  ASTROPAY_STREAMLINE_CASH: cash('AstroPay cash', 'virtualAccount'),

  // Prepayment: the shopper transfers the amount to the merchant's account.
  PREPAYMENT: { family: 'prepayment', form: 'prepayment', label: 'Prepayment' },
};

export function isAsyncBrand(brand: string | undefined): brand is string {
  return brand !== undefined && Object.prototype.hasOwnProperty.call(ASYNC_BRANDS, brand);
}

export function asyncBrand(brand: string): AsyncBrand | undefined {
  return isAsyncBrand(brand) ? ASYNC_BRANDS[brand] : undefined;
}

/** Whether the shopper finishes on the provider's page (every family but the two that wait for funds). */
export function paysOnProviderPage(family: AsyncFamily): boolean {
  return family !== 'cashVoucher' && family !== 'prepayment';
}
