import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseMethod } from '../ci/playwright.ts';
import { saveClickToPaySettings } from '../server/clickToPay/settings.ts';
import { checkoutResponseOf, NETWORK_TOKEN, srcTestKeys } from '../server/testing/srcNetwork.ts';
import { useLiveMerchantSiteAndBrowser } from './support/liveSite.ts';
import { resultOf } from './support/shopper.ts';

/**
 * Click to Pay in live (issue 35 point 6) in Chromium: a live gateway in front of a provider, the merchant's page under
 * the strict CSP with the network's origin added as docs/widget.md says. The widget asks the gateway for a session,
 * loads Mastercard's SDK from the URL of the entity's settings and initialises it with the entity's DPA registration;
 * the shopper's e-mail, code and card go through the SDK; the network's checkout response (signed by the network, its
 * payload encrypted to the entity's key) goes to the gateway, which opens it, and the card is paid through the
 * provider as its network token. A card network cannot exist here: Playwright serves its SDK and its server (the SDK
 * stand-in asks the stand-in network for the checkout response, made with testing/srcNetwork.ts) — the only mock.
 */

const env = useLiveMerchantSiteAndBrowser();
const CONTAINER = 'wpwl-container-virtualAccount-CLICK_TO_PAY';
const FORM = '.wpwl-form-virtualAccount-CLICK_TO_PAY';
const NETWORK_ORIGIN = 'https://src.mastercard.com';
const SDK_URL = `${NETWORK_ORIGIN}/srci/integration/2/lib.js`;

/** Mastercard's SDK as EMVCo's SRC JavaScript API shapes it, its server calls going to the stand-in network. */
const STAND_IN_SDK = `(function () {
  function network(path, body) {
    return fetch('${NETWORK_ORIGIN}/stand-in/' + path, { method: 'POST', body: JSON.stringify(body) }).then(function (r) { return r.json(); });
  }
  window.SRCSDK_MASTERCARD = {
    init: function (input) { return network('init', input); },
    identityLookup: function (input) { return Promise.resolve({ consumerPresent: input.consumerIdentity.identityValue === 'jane.jones@example.com' }); },
    initiateIdentityValidation: function () { return Promise.resolve({ maskedValidationChannel: 'ja•••@example.com' }); },
    completeIdentityValidation: function (input) {
      return input.validationData === '654321' ? Promise.resolve({ idToken: 'id-token-1' }) : Promise.reject({ reason: 'CODE_INVALID' });
    },
    getSrcProfile: function () {
      return Promise.resolve({ profiles: [{ maskedCards: [{ srcDigitalCardId: 'mc-card-1', panLastFour: '9726', panExpirationMonth: '09', panExpirationYear: '2031', paymentCardDescriptor: 'mastercard', digitalCardData: { descriptorName: 'Mastercard World' } }] }] });
    },
    checkout: function (input) { return network('checkout', { srcDigitalCardId: input.srcDigitalCardId, idToken: input.idToken }); }
  };
})();`;

describe('Click to Pay with the networks on a live gateway', () => {
  it('initialises the network’s SDK with the entity’s registration, and pays the card its checkout response carries as a network token', async () => {
    const keys = srcTestKeys();
    const { gateway, entityId } = env.site;
    await gateway.store.transaction((tx) =>
      saveClickToPaySettings(
        tx,
        gateway.payments.vault,
        entityId,
        { dpaName: 'E2E shop', keyId: keys.merchant.keyId, privateKey: keys.merchant.privateKeyPem, networks: [{ network: 'mastercard', srcDpaId: 'dpa-mc-0001', srcInitiatorId: 'init-mc-0001', sdkUrl: SDK_URL, signingKey: keys.network.publicKeyPem }] },
        new Date(),
      ),
    );
    const page: Page = env.track(await (await env.browser.newContext()).newPage());
    const initialised: Record<string, unknown>[] = [];
    await page.route(`${NETWORK_ORIGIN}/**`, async (route: Route) => {
      const url = new URL(route.request().url());
      const cors = { 'access-control-allow-origin': '*' };
      if (url.pathname === new URL(SDK_URL).pathname) return route.fulfill({ status: 200, contentType: 'text/javascript', headers: cors, body: STAND_IN_SDK });
      const body = JSON.parse(route.request().postData() ?? '{}') as Record<string, unknown>;
      if (url.pathname === '/stand-in/init') {
        initialised.push(body);
        return route.fulfill({ status: 200, contentType: 'application/json', headers: cors, body: '{}' });
      }
      if (url.pathname === '/stand-in/checkout') {
        const srciTransactionId = String(initialised.at(-1)?.srciTransactionId);
        const checkoutResponse = await checkoutResponseOf(keys, { srciTransactionId });
        return route.fulfill({ status: 200, contentType: 'application/json', headers: cors, body: JSON.stringify({ checkoutResponse, dcfActionCode: 'COMPLETE' }) });
      }
      return route.fulfill({ status: 404, headers: cors, body: '' });
    });
    const answers: string[] = [];
    page.on('response', (response) => {
      if (/\/clickToPay\/|\/payment$/.test(response.url())) void response.text().then((text) => answers.push(text), () => undefined);
    });

    const checkoutId = await env.site.createCheckout();
    await page.goto(env.site.pageUrl('csp-click-to-pay', { checkoutId, email: 'jane.jones@example.com', sdkOrigins: NETWORK_ORIGIN }));
    await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
    await chooseMethod(page, CONTAINER);
    const form = page.locator(FORM);
    await form.locator('button.wpwl-button-clickToPay').click();
    await form.locator('input.wpwl-control-clickToPayOtp').waitFor();
    expect(await form.locator('.wpwl-group-clickToPayOtp').innerText()).toContain('ja•••@example.com');
    // The SDK was initialised with the session the gateway opened for this checkout and the entity's registration.
    expect(initialised).toEqual([
      {
        srciTransactionId: expect.stringMatching(/^[0-9a-f]{32}$/),
        srcInitiatorId: 'init-mc-0001',
        srciDpaId: 'dpa-mc-0001',
        dpaTransactionOptions: { transactionAmount: { transactionAmount: '92.00', transactionCurrencyCode: 'EUR' }, paymentOptions: [{ dynamicDataType: 'CARD_APPLICATION_CRYPTOGRAM_SHORT_FORM' }] },
        dpaData: { dpaName: 'E2E shop' },
      },
    ]);

    await form.locator('input.wpwl-control-clickToPayOtp').fill('654321');
    await form.locator('button.wpwl-button-clickToPay').click();
    const cards = form.locator('.wpwl-clickToPay-card');
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().innerText()).toMatch(/Mastercard World ••••\s9726\s+Expires 09\/31/);
    await cards.first().click();
    expect(await page.evaluate(() => [...(window as unknown as { errors: unknown[] }).errors, ...(window as unknown as { violations: unknown[] }).violations])).toEqual([]);
    await form.locator('button.wpwl-button-pay').click();
    const result = await resultOf(page);
    expect(result).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'MASTER', tokenAccount: { type: 'NETWORK', number: '518600******9726' } });
    for (const answer of answers) expect(answer).not.toContain(NETWORK_TOKEN.paymentToken);
  });
});
