import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sheetCards, testWalletToken, WALLET_TEST_CARDS, walletTokenFields, type WalletBrand } from '../../widget/shared/walletSheet.ts';
import { expectEnvelope } from '../testing/envelope.ts';
import { answerRedirect, BROWSER_DATA, startTestGateway, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { mergeShopperSubmit } from './parameters.ts';

/**
 * The wallet buttons' submit (issue 35): the checkout takes a wallet's token from the payment page with that wallet's
 * paymentBrand only, and the tokens of the gateway's simulated wallet sheet pay through the existing wallet path with
 * the platform's 3-D Secure rules for wallets.
 */

const stored = new Map([
  ['amount', '92.00'],
  ['currency', 'EUR'],
  ['paymentType', 'DB'],
]);
const page = (fields: Record<string, string>) => new Map(Object.entries({ shopperResultUrl: 'https://shop.example/result', ...fields }));
const card = (id: string) => WALLET_TEST_CARDS.find((candidate) => candidate.id === id)!;
const tokenOf = (brand: WalletBrand, id: string) => testWalletToken(brand, card(id), new Date());

describe('a wallet submit from the payment page', () => {
  it("takes each wallet's token and source with that wallet's paymentBrand", () => {
    for (const brand of ['APPLEPAY', 'GOOGLEPAY'] as const) {
      const fields = Object.fromEntries(walletTokenFields(brand, tokenOf(brand, 'visa')));
      const { merged, errors } = mergeShopperSubmit(stored, 'entity', page({ paymentBrand: brand, ...fields }));
      expect(errors, brand).toEqual([]);
      for (const [name, value] of Object.entries(fields)) expect(merged.get(name), name).toBe(value);
    }
  });

  it('refuses a wallet token with a card brand, a redirect brand or the other wallet, naming it', () => {
    const apple = Object.fromEntries(walletTokenFields('APPLEPAY', tokenOf('APPLEPAY', 'visa')));
    for (const paymentBrand of ['VISA', 'PAYPAL', 'GOOGLEPAY']) {
      const { errors } = mergeShopperSubmit(stored, 'entity', page({ paymentBrand, ...apple }));
      expect(errors.map((error) => [error.name, error.message]), paymentBrand).toEqual([
        ['applePay.paymentToken', 'can be sent from the payment page only with paymentBrand APPLEPAY'],
        ['applePay.source', 'can be sent from the payment page only with paymentBrand APPLEPAY'],
      ]);
    }
  });

  it("offers Google Pay's saved cards (PAN_ONLY) only where the merchant allows them, and each wallet only its cards", () => {
    expect(sheetCards('APPLEPAY', [], []).every((offered) => offered.wallets.includes('APPLEPAY') && offered.authMethod !== 'PAN_ONLY')).toBe(true);
    expect(sheetCards('GOOGLEPAY', [], ['CRYPTOGRAM_3DS']).some((offered) => offered.authMethod === 'PAN_ONLY')).toBe(false);
    expect(sheetCards('GOOGLEPAY', ['MASTER'], []).map((offered) => offered.id)).toEqual(['master', 'panMaster']);
  });
});

describe('wallet tokens of the simulated sheet paid through a checkout', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway('PGlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const checkout = async () => {
    const created = await t.post('/v1/checkouts', { entityId: t.entityId, amount: '92.00', currency: 'EUR', paymentType: 'DB' });
    expect(created.status).toBe(200);
    return created.body.id as string;
  };
  /** The sheet's post: the page's fields and the token, without credentials. */
  const submit = async (id: string, brand: WalletBrand, cardId: string, extra: Record<string, string> = {}): Promise<ApiResponse> => {
    const response = await t.post(
      `/v1/checkouts/${id}/payment`,
      { paymentBrand: brand, shopperResultUrl: 'https://shop.example/result', ...Object.fromEntries(walletTokenFields(brand, tokenOf(brand, cardId))), ...extra },
      { token: null },
    );
    expectEnvelope(response);
    // Neither the token nor the card it stands for comes back to the page.
    expect(JSON.stringify(response.body)).not.toContain(card(cardId).number);
    expect(JSON.stringify(response.body)).not.toContain('paymentToken');
    return response;
  };
  const paymentOf = async (submitted: ApiResponse) => (await t.get(`/v1/payments/${submitted.body.id}`, { entityId: t.entityId })).body;

  it('approves an Apple Pay card without 3-D Secure, shown as APPLEPAY with the chosen card', async () => {
    const paid = await paymentOf(await submit(await checkout(), 'APPLEPAY', 'master'));
    expect([paid.paymentBrand, paid.result.code, paid.card.bin, paid.card.last4Digits, paid.threeDSecure]).toEqual(['APPLEPAY', '000.100.110', '545454', '5454', undefined]);
  });

  it("declines the sheet's declined card with its test result", async () => {
    const declined = await submit(await checkout(), 'APPLEPAY', 'declined');
    expect((await paymentOf(declined)).result.code).toBe('800.100.203');
  });

  it("never challenges Apple Pay or a Google Pay device token (CRYPTOGRAM_3DS), even of a card enrolled for a challenge", async () => {
    const enrolled = { ...card('panChallenge'), authMethod: 'CRYPTOGRAM_3DS' as const };
    for (const brand of ['APPLEPAY', 'GOOGLEPAY'] as const) {
      const id = await checkout();
      const answer = await t.post(
        `/v1/checkouts/${id}/payment`,
        { paymentBrand: brand, shopperResultUrl: 'https://shop.example/result', ...BROWSER_DATA, ...Object.fromEntries(walletTokenFields(brand, testWalletToken(brand, enrolled, new Date()))) },
        { token: null },
      );
      const paid = await paymentOf(answer);
      expect([paid.paymentBrand, paid.result.code, paid.card.last4Digits], brand).toEqual([brand, '000.100.110', '0042']);
    }
  });

  it('authenticates a Google Pay card saved in the account (PAN_ONLY) as a typed card: a challenge for an enrolled one, frictionless for another', async () => {
    // The widget sends the shopper's browser with every payment (payment/browser.ts): 3-D Secure needs it.
    const challenged = await submit(await checkout(), 'GOOGLEPAY', 'panChallenge', BROWSER_DATA);
    expect([challenged.status, challenged.body.result.code]).toEqual([200, '000.200.000']);
    expect(challenged.body.redirect.url).toMatch(/\/v1\/redirects\//);
    await answerRedirect(challenged);
    const afterChallenge = await paymentOf(challenged);
    expect([afterChallenge.paymentBrand, afterChallenge.result.code, afterChallenge.card.bin]).toEqual(['GOOGLEPAY', '000.100.110', '420000']);
    const frictionless = await paymentOf(await submit(await checkout(), 'GOOGLEPAY', 'panFrictionless', BROWSER_DATA));
    expect([frictionless.paymentBrand, frictionless.result.code, frictionless.threeDSecure?.eci]).toEqual(['GOOGLEPAY', '000.100.110', '05']);
  });

  it('refuses a wallet token sent with a card brand, paying nothing', async () => {
    const id = await checkout();
    const refused = await t.post(
      `/v1/checkouts/${id}/payment`,
      { paymentBrand: 'VISA', shopperResultUrl: 'https://shop.example/result', ...Object.fromEntries(walletTokenFields('GOOGLEPAY', tokenOf('GOOGLEPAY', 'visa'))) },
      { token: null },
    );
    expect([refused.status, refused.body.result.code]).toEqual([400, '200.300.404']);
    expect(refused.body.result.parameterErrors.map((error: { name: string }) => error.name).sort()).toEqual(['googlePay.paymentToken', 'googlePay.source']);
    expect(JSON.stringify(refused.body)).not.toContain('4200000000000000');
  });
});
