import type { CardBrandCode } from './cardBrandCodes.ts';

/**
 * Card numbers the simulator approves under each brand of cards.ts (COMPAT §7), the platform's own first. Kept apart
 * from the brand table so the widget, which never needs them, does not ship them; the gateway's tests and docs/widget.md
 * ("Card brands") list them. Sources, as in the research for issue 20 (card-brands.md), every number Luhn-checked:
 *   [OPP]  the platform's vendor: PAY.ON's Python SDK (OpenPaymentPlatform/python tests/test_data_utils.py, the
 *          numbers its "sync" brand tests send) and its server-to-server samples (PAYON-AG/servertoserver-*); COMPAT §7
 *   [REF]  a scheme's or another processor's published test card (named per line)
 *   [GEN]  a published issuer BIN completed with a check digit (no test card is published for the brand)
 * Numbers of a network a brand lives on (cards.ts `networks`) are approved under it too: the platform's SDK pays
 * AXESS and WORLD with its Visa number, CARTEBLEUE with a Mastercard one.
 */
export const CARD_TEST_NUMBERS: Readonly<Record<CardBrandCode, readonly string[]>> = {
  AIRPLUS: ['122000000000003', '135410014004955'], // [REF] UATP reserved test number (AWS list); Adyen UATP
  ALIA: ['4200000000000000'], // [OPP] the Visa number: no ALIA range is published
  ALIADEBIT: ['4200000000000000'], // [OPP] as ALIA
  AMEX: ['377777777777770'], // [OPP] CVV of 4 digits
  ARGENCARD: ['5011050000000001'], // [REF] PayU Latam, Argentina
  ASYACARD: ['4022751585445574'], // [OPP]
  AXESS: ['4200000000000000', '4355084355084358', '5571135571135575'], // [OPP]; [REF] Paynet (Akbank Visa, Mastercard)
  BCMC: ['6703444444444449', '6703000000000000003', '4871049999999910', '5127880999999990'], // [REF] Adyen (19 digits; on Visa, on Mastercard)
  BONUS: ['4090700500869563', '4282209004348015', '4729150000000005', '375622005485014'], // [OPP]; [REF] Paynet (Garanti Visa, Amex), iyzico (Denizbank)
  CABAL: ['5896570000000008', '6035220000000000'], // [REF] PayU Latam; [GEN] BIN 603522
  CARDFINANS: ['4022774022774026', '5456165456165454'], // [REF] Paynet
  CARNET: ['5062210000000009'], // [REF] Cybersource test cards
  CARTEBANCAIRE: ['4360000001000005', '4035501000000008', '4970101000001002'], // [REF] Adyen; Lyra/Sogecommerce
  CARTEBLEUE: ['5555555555554444', '4970101000001002'], // [OPP] a Mastercard number; [REF] Lyra's CB Visa
  CENCOSUD: ['6034930000000005', '5197670000000002'], // [REF] PayU Latam
  DANKORT: ['5019717010103742', '5019555544445555', '4571000000000001', '4571994000062336'], // [OPP]; [REF] Adyen, Adyen Visa/Dankort, Billwerk Visa/Dankort
  DINERS: ['36961903000009', '36006666333344', '30569309025904'], // [OPP]; [REF] Adyen; scheme list
  DISCOVER: ['6011587918359498', '6011601160116611', '6445644564456445'], // [OPP]; [REF] Adyen
  ELO: ['5066991111111118', '5067310000000002', '6362970000457013'], // [REF] Adyen, PayU Brazil, credit-card-type
  FACILYPAY_3X: ['4200000000000000', '4970101000001002'], // [OPP] Visa; [REF] Lyra's CB card: Oney finances an ordinary card
  FACILYPAY_3XSANSFRAIS: ['4200000000000000'], // [OPP]
  FACILYPAY_4X: ['4200000000000000'], // [OPP]
  FACILYPAY_4XSANSFRAIS: ['5454545454545454'], // [OPP] Mastercard
  HIPERCARD: ['6062825624254001', '6062828888666688'], // [OPP]; [REF] Adyen
  JCB: ['3541599999092431', '3569990010095841', '3530111333300000'], // [OPP]; [REF] Adyen; scheme list
  MADA: ['4464040000000007', '5297412542005689'], // [REF] MyFatoorah (mada on Visa, on Mastercard)
  MAESTRO: ['6799851000000032', '6771798021000008', '5000550000000029'], // [OPP]; [REF] Adyen (the last without CVV)
  MASTER: ['5454545454545454'], // [OPP]
  MASTERDEBIT: ['5200828282828210', '5170410000000004'], // [REF] Stripe; iyzico
  MAXIMUM: ['4508034508034509', '5406675406675403'], // [REF] Paynet
  MERCADOLIVRE: ['5454545454545454'], // [OPP] a Mastercard number: Mercado Livre cards are Mastercards
  MIR: ['2200000000000004'], // [GEN] BIN 220000
  NARANJA: ['5895620000000002'], // [REF] PayU Latam
  NATIVA: ['5200530000000003', '5465530000000003', '4870170000000000'], // [GEN] Mercado Pago's BINs
  SERVIRED: ['4548812049400004'], // [REF] Redsys/ServiRed sandbox card
  TARJETASHOPPING: ['6034880000000051', '2799500000000'], // [REF] PayU Latam; [GEN] the 13-digit kind (no Luhn, no CVV)
  TCARD: ['4200000000000000'], // [OPP] the Visa number: no TCARD range is published
  TCARDDEBIT: ['4200000000000000'], // [OPP] as TCARD
  UNIONPAY: ['6243030000000001', '6250946000000016', '8171999927660000', '8171999900000000021'], // [REF] Adyen
  VISA: ['4200000000000000'], // [OPP]
  VISADEBIT: ['4000056655665556'], // [REF] Stripe
  VISAELECTRON: ['4917300800000000', '4917480000000008', '4026111111111115', '4001020000000009'], // [OPP]; [REF] Paysafe, Billwerk, Adyen
  VPAY: ['4822000000000000003', '4013250000000000006'], // [OPP] 19 digits; [REF] Adyen
  WORLD: ['4200000000000000', '4506347011448053'], // [OPP]; [REF] Paynet (Yapı Kredi Visa)
};
