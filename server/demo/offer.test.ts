import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYNC_BRANDS, paysOnProviderPage } from '../../widget/shared/asyncBrands.ts';
import { followsRules, passesLuhn, rulesFor } from '../../widget/shared/cards.ts';
import { RESULT_CLASSES } from '../../widget/shared/resultCodes.ts';
import { DEFAULT_DEMO_MERCHANT } from '../config.ts';
import { describeResultCode, isSuccessfulCode } from '../domain/resultCodes.ts';
import { answerRedirect, BROWSER_DATA, startTestGateway, type ApiResponse, type TestGateway } from '../testing/harness.ts';
import { cvvOf, DEMO_ASYNC_BRANDS, DEMO_CHALLENGE, DEMO_ORDER, DEMO_TEST_CARDS, type DemoTestCard } from './offer.ts';

/**
 * The demo shop tells the truth (issue 25, point 5): every row of its test-card table does what the row says, paid
 * as the widget pays it (the demo merchant, the demo's order, the browser data the widget sends) or refused by the
 * widget's own check; each asynchronous brand it offers answers as its line says; the page shows exactly these lists.
 */

const demo = DEFAULT_DEMO_MERCHANT;
const SHOPPER_RESULT_URL = 'https://shop.example/demo/result';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway('PGlite', { demoMerchant: demo });
});
afterAll(async () => {
  await t?.close();
});

const asDemo = { token: demo.accessToken };
const digitsOf = (card: DemoTestCard) => card.number.replace(/ /g, '');

/** The payment the widget submits for a test card on the demo's checkout. */
function payWith(card: DemoTestCard): Promise<ApiResponse> {
  return t.post(
    '/v1/payments',
    {
      entityId: demo.entityId,
      ...DEMO_ORDER,
      ...BROWSER_DATA,
      shopperResultUrl: SHOPPER_RESULT_URL,
      paymentBrand: card.brand,
      'card.number': digitsOf(card),
      'card.holder': card.holder ?? 'Jane Jones',
      'card.expiryMonth': '05',
      'card.expiryYear': '2034',
      'card.cvv': cvvOf(card),
    },
    asDemo,
  );
}

async function finalCode(pending: ApiResponse, answer: Record<string, string>): Promise<string> {
  await (await answerRedirect(pending, answer)).body?.cancel();
  const read = await t.get(`/v1/payments/${pending.body.id as string}`, { entityId: demo.entityId }, asDemo);
  return (read.body.result as { code: string }).code;
}

const withOutcome = (...outcomes: DemoTestCard['outcome'][]) => DEMO_TEST_CARDS.filter((card) => outcomes.includes(card.outcome)).map((card) => [card.number, card.holder ?? 'any name', card] as const);

describe("the demo shop's test cards", () => {
  it.each(withOutcome('approved', 'frictionless', 'challenge', 'declinedByBank'))('%s (holder %s) passes the payment form’s own check', (_number, _holder, card) => {
    const rules = rulesFor(card.brand, digitsOf(card));
    expect(rules && followsRules(rules, digitsOf(card))).toBe(true);
  });

  it.each(withOutcome('refusedByForm'))('%s (holder %s) is refused by the payment form: wrong check digit', (_number, _holder, card) => {
    // The hosted card-number field's own check (widget/shared/luhn.ts), and the form's rules of the brand it shows.
    expect(passesLuhn(digitsOf(card))).toBe(false);
    const rules = rulesFor(card.brand, digitsOf(card));
    expect(rules).toBeDefined();
    expect(followsRules(rules!, digitsOf(card))).toBe(false);
  });

  it.each(withOutcome('approved'))('%s (holder %s) is approved', async (_number, _holder, card) => {
    const paid = await payWith(card);
    expect(paid.status).toBe(200);
    expect(paid.body.result).toMatchObject({ code: card.code });
    expect(isSuccessfulCode(card.code!)).toBe(true);
    expect(paid.body.redirect).toBeUndefined();
  });

  it.each(withOutcome('frictionless'))('%s (holder %s) is authenticated by 3-D Secure without a challenge, and approved', async (_number, _holder, card) => {
    const paid = await payWith(card);
    expect(paid.body.result).toMatchObject({ code: card.code });
    expect(paid.body.redirect).toBeUndefined();
    expect(paid.body.threeDSecure).toMatchObject({ enrollmentStatus: 'Y', authenticationStatus: 'Y' });
  });

  it.each(withOutcome('challenge'))('%s (holder %s) asks for a 3-D Secure challenge: the code approves, another code declines', async (_number, _holder, card) => {
    const passed = await payWith(card);
    expect(passed.body.result).toMatchObject({ code: '000.200.000' });
    expect(passed.body.redirect).toBeDefined();
    expect(await finalCode(passed, { action: 'submit', otp: DEMO_CHALLENGE.otp })).toBe(card.code);

    const failed = await payWith(card);
    expect(await finalCode(failed, { action: 'submit', otp: '9999' })).toBe(DEMO_CHALLENGE.failedCode);
  });

  it.each(withOutcome('declinedByBank'))('%s (holder %s) reaches the gateway and is declined by the bank with the row’s code', async (_number, _holder, card) => {
    const paid = await payWith(card);
    expect(paid.status).toBe(400);
    expect(paid.body.result).toMatchObject({ code: card.code, description: describeResultCode(card.code!) });
    expect(RESULT_CLASSES.rejectedByBank.test(card.code!)).toBe(true);
    expect(paid.body.id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the demo shop's asynchronous brands", () => {
  it('are one of each family the gateway simulates, each of that family', () => {
    const families = [...new Set(Object.values(ASYNC_BRANDS).map((brand) => brand.family))].sort();
    expect(DEMO_ASYNC_BRANDS.map((offered) => offered.family).sort()).toEqual(families);
    for (const offered of DEMO_ASYNC_BRANDS) expect(ASYNC_BRANDS[offered.brand]?.family, offered.brand).toBe(offered.family);
  });

  /** What the widget submits for the brand on the demo's checkout (the first country it offers, where it asks). */
  function payWithBrand(brand: string): Promise<ApiResponse> {
    const country = ASYNC_BRANDS[brand]?.countries?.[0];
    return t.post(
      '/v1/payments',
      { entityId: demo.entityId, ...DEMO_ORDER, shopperResultUrl: SHOPPER_RESULT_URL, paymentBrand: brand, ...(country ? { 'bankAccount.country': country } : {}) },
      asDemo,
    );
  }

  it.each(DEMO_ASYNC_BRANDS.filter(({ family }) => paysOnProviderPage(family)).map((offered) => [offered.brand, offered] as const))(
    '%s opens the simulated provider page, where the shopper approves or declines',
    async (brand, offered) => {
      // A prepaid voucher's page asks for its PIN: any 16 digits.
      const answer: Record<string, string> = offered.family === 'voucher' ? { pin: '1234567890123456' } : {};
      const approved = await payWithBrand(brand);
      expect(approved.body.result, JSON.stringify(approved.body)).toMatchObject({ code: '000.200.000' });
      expect(approved.body.redirect).toBeDefined();
      expect(await finalCode(approved, { action: 'submit', ...answer })).toBe('000.100.110');
      const declined = await payWithBrand(brand);
      expect(await finalCode(declined, { action: 'decline', ...answer })).toMatch(RESULT_CLASSES.rejectedByBank);
    },
  );

  it('SIBS_MULTIBANCO (cash voucher) stays pending with a voucher to pay; PREPAYMENT stays pending with the bank details', async () => {
    expect(DEMO_ASYNC_BRANDS.filter(({ family }) => !paysOnProviderPage(family)).map(({ brand }) => brand)).toEqual(['SIBS_MULTIBANCO', 'PREPAYMENT']);
    const voucher = await payWithBrand('SIBS_MULTIBANCO');
    expect(voucher.body.result).toMatchObject({ code: '000.200.000' });
    expect(voucher.body.resultDetails).toMatchObject({ VoucherNumber: expect.stringMatching(/^[0-9]{14}$/), ptmntEntty: expect.any(String), pmtRef: expect.any(String) });
    const transfer = await payWithBrand('PREPAYMENT');
    expect(transfer.body.result).toMatchObject({ code: '000.200.000' });
    expect(transfer.body.redirect).toBeUndefined();
    expect(transfer.body.resultDetails).toMatchObject({ BankAccountIban: expect.any(String), TransferReference: expect.any(String) });
  });
});

describe('the demo shop page', () => {
  it('shows exactly the test cards and the asynchronous brands of its lists, and offers the brands in its widget', async () => {
    const html = await (await fetch(`${t.url}/demo`)).text();
    const rows = [...html.matchAll(/<tr data-outcome="([a-zA-Z]+)"><td><code>([0-9 ]+)<\/code><\/td><td>(?:<code>)?([^<]+)/g)].map((row) => row.slice(1));
    expect(rows).toEqual(DEMO_TEST_CARDS.map((card) => [card.outcome, card.number, card.holder ?? 'any name']));
    const brands = /data-brands="([^"]+)"/.exec(html)?.[1]?.split(' ');
    expect(brands).toEqual(['VISA', 'MASTER', 'AMEX', ...DEMO_ASYNC_BRANDS.map(({ brand }) => brand)]);
    expect([...html.matchAll(/<li data-brand="([A-Z_]+)">/g)].map((item) => item[1])).toEqual(DEMO_ASYNC_BRANDS.map(({ brand }) => brand));
  });

  it('forgets a saved card the gateway does not have, and offers the card form that saves one', async () => {
    const page = await fetch(`${t.url}/demo/account`, { headers: { cookie: 'demo_stored_card=0123456789abcdef0123456789abcdef' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toMatch(/^demo_stored_card=; Max-Age=0; Path=\/demo; HttpOnly; SameSite=Lax/);
    expect(await page.text()).toContain('Pay with a card and the shop saves it');
  });
});
