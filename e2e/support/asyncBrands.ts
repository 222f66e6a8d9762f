/**
 * What a merchant's server puts on the checkout for the asynchronous brands that need the shopper's data (COMPAT §7):
 * the name and country a lender checks (KLARNA_INVOICE), the billing address and the payer's CPF a boleto needs. The
 * widget asks the shopper for none of it.
 */
export const ASYNC_CHECKOUT_DATA: Readonly<Record<string, string>> = {
  'customer.givenName': 'Jane',
  'customer.surname': 'Jones',
  'billing.street1': 'Rua Augusta 10',
  'billing.city': 'São Paulo',
  'billing.postcode': '01305-000',
  'billing.country': 'BR',
  'customer.identificationDocType': 'TAXSTATEMENT',
  'customer.identificationDocId': '11111111111',
};
