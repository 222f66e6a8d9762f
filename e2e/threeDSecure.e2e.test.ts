import type { FrameLocator, Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { completeChallenge } from '../ci/playwright.ts';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * 3-D Secure in the widget and server to server (issue 5, points 2–4 and 6): the simulated issuer's
 * challenge in the widget's own frame, in `_top` and in a merchant frame, its outcomes as the merchant's
 * server reads them, an abandoned challenge timing out, and a server-to-server payment's redirect.
 */

const env = useMerchantSiteAndBrowser();

const CHALLENGE_CARD = '4200000000000042';
const FRICTIONLESS_CARD = '4200000000000091';
const SUCCESS = /^(000\.000\.|000\.100\.1|000\.[36]|000\.400\.[1][12]0)/;
const BROWSER_FIELDS = [
  'customer.browser.language',
  'customer.browser.screenHeight',
  'customer.browser.screenWidth',
  'customer.browser.timezone',
  'customer.browser.javaEnabled',
  'customer.browser.screenColorDepth',
  'customer.browser.userAgent',
];

interface Opened {
  readonly page: Page;
  /** Bodies of the payment submits the page (or its hosted fields) sent. */
  readonly submits: URLSearchParams[];
  readonly redirectRequests: string[];
}

async function open(pageName: string, options?: Record<string, unknown>, viewport?: { width: number; height: number }): Promise<Opened> {
  const page = env.track(await env.browser.newPage(viewport ? { viewport } : {}));
  const submits: URLSearchParams[] = [];
  const redirectRequests: string[] = [];
  page.on('pageerror', (error) => {
    throw error;
  });
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && /\/v1\/checkouts\/[^/]+\/payment$/.test(request.url())) submits.push(new URLSearchParams(request.postData() ?? ''));
    if (request.url().includes('/v1/redirects/')) redirectRequests.push(request.url());
  });
  if (options) {
    await page.addInitScript((value) => {
      (window as unknown as { wpwlOptions: unknown }).wpwlOptions = value;
    }, options);
  }
  await page.goto(env.site.pageUrl(pageName));
  await page.locator('.wpwl-form-card').first().waitFor();
  return { page, submits, redirectRequests };
}

/** Records onLoadThreeDIframe calls (and what `this` was) in window.threeDLoads; functions cannot pass through addInitScript's argument. */
async function recordThreeDLoads(page: Page, extra: Record<string, unknown> = {}): Promise<void> {
  await page.addInitScript((options) => {
    const recorded: string[] = [];
    (window as unknown as { threeDLoads: string[] }).threeDLoads = recorded;
    (window as unknown as { wpwlOptions: unknown }).wpwlOptions = {
      ...options,
      onLoadThreeDIframe(this: unknown) {
        recorded.push(this instanceof HTMLIFrameElement ? `${this.tagName} ${this.className}` : String(this));
      },
    };
  }, extra);
}

const widgetFrame = (page: Page) => page.locator('.wpwl-container-card > .wpwl-group-threeDSecure > iframe.wpwl-target');
const challenge = (page: Page): FrameLocator => page.frameLocator('.wpwl-container-card iframe.wpwl-target');

async function payWithCard(page: Page, number: string): Promise<void> {
  await fillCard(page, { number });
  await page.locator('button.wpwl-button-pay').click();
}

describe('3-D Secure in the widget', () => {
  it('pays a frictionless card at once, with the browser data 3-D Secure needs and the authentication in the result', async () => {
    const { page, submits, redirectRequests } = await open('plain');
    await payWithCard(page, FRICTIONLESS_CARD);
    const result = await resultOf(page);
    expect(result.result.code).toMatch(SUCCESS);
    expect(result.threeDSecure).toMatchObject({ eci: '05' });
    expect(redirectRequests).toEqual([]);
    // The browser fields travel with the payment (from the number frame), not as inputs of the page's form.
    expect(submits).toHaveLength(1);
    const sent = submits[0] as URLSearchParams;
    for (const name of BROWSER_FIELDS) expect(sent.get(name), name).toBeTruthy();
    expect(sent.get('customer.browser.javaEnabled')).toBe('false');
    expect(sent.get('customer.browser.userAgent')).toContain('Chrome');
    expect(sent.get('customer.browser.timezone')).toMatch(/^-?\d+$/);
  });

  it('opens the challenge in its own frame in the form container, and pays with the right code', async () => {
    const page = env.track(await env.browser.newPage());
    await recordThreeDLoads(page);
    await page.goto(env.site.pageUrl('plain'));
    await page.locator('.wpwl-form-card').waitFor();
    await payWithCard(page, CHALLENGE_CARD);

    const frame = widgetFrame(page);
    await frame.waitFor();
    await challenge(page).locator('input#otp').waitFor();
    // The form stays in the DOM, hidden; the frame is in its container with a name and an accessible title.
    expect(await page.locator('form.wpwl-form-card').count()).toBe(1);
    expect(await page.locator('form.wpwl-form-card').isVisible()).toBe(false);
    expect(await frame.getAttribute('name')).toMatch(/^wpwl-threeDSecure-[0-9a-f]{16}$/);
    expect(await frame.getAttribute('title')).toBe('Card authentication by your bank');
    const box = await frame.boundingBox();
    const containerWidth = await page.locator('.wpwl-container-card').evaluate((element) => element.clientWidth);
    expect(box?.width).toBe(containerWidth);
    expect(box?.height).toBe(580);
    // The challenge page shows what is being paid.
    expect(await challenge(page).locator('body').innerText()).toContain('92.00 EUR');
    await expect.poll(() => page.evaluate(() => (window as unknown as { threeDLoads: string[] }).threeDLoads)).toEqual(['IFRAME wpwl-target']);

    await completeChallenge(page, '1234');
    const result = await resultOf(page);
    expect(result.result.code).toMatch(SUCCESS);
    expect(result.threeDSecure).toMatchObject({
      eci: expect.stringMatching(/^0[125]$/),
      verificationId: expect.any(String),
      xid: expect.any(String),
      dsTransactionId: expect.any(String),
      version: expect.stringMatching(/^2\./),
      authenticationStatus: 'Y',
    });
    expect(page.url()).toMatch(/\/result\?id=[0-9A-F]{32}\.[a-z0-9-]+&resourcePath=%2Fv1%2Fcheckouts%2F/);
  });

  it.each([
    ['a wrong code', 'submit', '9999', '100.380.401'],
    ['Cancel', 'cancel', '', '100.396.101'],
  ])('ends on the merchant result page with a failed payment after %s', async (_case, button, code, expected) => {
    const { page } = await open('plain');
    await payWithCard(page, CHALLENGE_CARD);
    await completeChallenge(page, button === 'cancel' ? 'cancel' : code);
    const result = await resultOf(page);
    expect(result.result.code).toBe(expected);
  });

  it('forces a challenge with customParameters[3DS2_flow]=challenge (MASTER card, Cancel)', async () => {
    const checkoutId = await env.site.createCheckout({ 'customParameters[3DS2_flow]': 'challenge' });
    const page = env.track(await env.browser.newPage());
    await page.goto(env.site.pageUrl('plain', { checkoutId }));
    await payWithCard(page, '5454545454545454');
    await challenge(page).locator('input#otp').waitFor();
    await challenge(page).locator('button#cancel').click();
    expect((await resultOf(page)).result.code).toBe('100.396.101');
  });

  it('calls onLoadThreeDIframe once, however often the challenge frame loads', async () => {
    const page = env.track(await env.browser.newPage());
    await recordThreeDLoads(page);
    await page.goto(env.site.pageUrl('plain'));
    await page.locator('.wpwl-form-card').waitFor();
    await payWithCard(page, CHALLENGE_CARD);
    await challenge(page).locator('input#otp').waitFor();
    const frame = page.frames().find((candidate) => candidate.url().includes('/v1/redirects/'));
    expect(frame).toBeDefined();
    await frame?.goto(frame.url());
    await challenge(page).locator('input#otp').waitFor();
    await page.waitForTimeout(200);
    expect(await page.evaluate(() => (window as unknown as { threeDLoads: string[] }).threeDLoads)).toEqual(['IFRAME wpwl-target']);
  });

  it('sizes its frame by threeDIframeSize (numbers and CSS lengths)', async () => {
    const { page } = await open('plain', { threeDIframeSize: { width: 360, height: '450px' } });
    await payWithCard(page, CHALLENGE_CARD);
    await widgetFrame(page).waitFor();
    const box = await widgetFrame(page).boundingBox();
    expect(box).toMatchObject({ width: 360, height: 450 });
  });

  it.each([
    ['the default size', {}],
    ['a threeDIframeSize wider than the screen', { threeDIframeSize: { width: 600, height: 580 } }],
  ])('fits a 320px wide screen with %s: no horizontal scrolling, in the page or the frame', async (_case, options) => {
    const { page } = await open('plain', options, { width: 320, height: 640 });
    await payWithCard(page, CHALLENGE_CARD);
    await challenge(page).locator('input#otp').waitFor();
    const box = await widgetFrame(page).boundingBox();
    expect(box?.x).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(320);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const inFrame = await challenge(page)
      .locator('html')
      .evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
    expect(inFrame.scroll).toBeLessThanOrEqual(inFrame.client);
    // The shopper can still see and use the code input and both buttons.
    for (const selector of ['input#otp', 'button#submit', 'button#cancel']) {
      const control = await challenge(page).locator(selector).boundingBox();
      expect((control?.x ?? 0) + (control?.width ?? 0), selector).toBeLessThanOrEqual(box?.width ?? 0);
    }
  });

  it('ignores a completion message that does not come from the gateway frame it opened', async () => {
    const { page } = await open('plain');
    await payWithCard(page, CHALLENGE_CARD);
    await challenge(page).locator('input#otp').waitFor();
    const forged = { source: 'wpwl-gateway', type: 'redirect-complete' };
    // From the merchant page itself (wrong origin)...
    await page.evaluate((message) => window.postMessage(message, '*'), forged);
    // ...and from another gateway frame (right origin, wrong window): the card number field.
    const numberFrame = page.frames().find((frame) => frame.url().includes('/fields.html'));
    expect(numberFrame).toBeDefined();
    await numberFrame?.evaluate((message) => window.parent.postMessage(message, '*'), forged);
    await page.waitForTimeout(500);
    expect(page.url()).not.toContain('/result');
    expect(await widgetFrame(page).isVisible()).toBe(true);
    // The real one still completes the payment.
    await challenge(page).locator('input#otp').fill('1234');
    await challenge(page).locator('button#submit').click();
    expect((await resultOf(page)).result.code).toMatch(SUCCESS);
  });

  it('removes the challenge frame on wpwl.unload() and gives the merchant form back', async () => {
    const { page } = await open('plain');
    await payWithCard(page, CHALLENGE_CARD);
    await widgetFrame(page).waitFor();
    await page.evaluate(() => (window as unknown as { wpwl: { unload: () => void } }).wpwl.unload());
    expect(await page.locator('iframe.wpwl-target').count()).toBe(0);
    expect(await page.locator('.wpwl-container').count()).toBe(0);
    expect(await page.locator('form.paymentWidgets').getAttribute('class')).not.toContain('wpwl-hidden');
  });

  it("runs the challenge in the whole window with paymentTarget '_top'", async () => {
    const { page } = await open('plain', { paymentTarget: '_top' });
    await payWithCard(page, CHALLENGE_CARD);
    await page.waitForURL(`${env.site.gatewayUrl}/v1/redirects/**`);
    expect(await page.locator('form#challenge').count()).toBe(1);
    await page.locator('input#otp').fill('1234');
    await page.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(SUCCESS);
    expect(page.url()).toContain(`${env.site.merchantUrl}/result?id=`);
  });

  it("runs the challenge in the merchant's named frame, then goes to the result page", async () => {
    const { page, redirectRequests } = await open('named-frame');
    await payWithCard(page, CHALLENGE_CARD);
    const merchantFrame = page.frameLocator('iframe[name="merchant3ds"]');
    await merchantFrame.locator('input#otp').waitFor();
    expect(redirectRequests.length).toBeGreaterThan(0);
    // The widget opened no frame of its own; its form stays, busy.
    expect(await page.locator('iframe.wpwl-target').count()).toBe(0);
    expect(await page.locator('button.wpwl-button-pay').isDisabled()).toBe(true);
    await merchantFrame.locator('input#otp').fill('1234');
    await merchantFrame.locator('button#submit').click();
    const result = await resultOf(page);
    expect(result.result.code).toMatch(SUCCESS);
  });

  it('ends a challenge abandoned for more than 10 minutes as failed, and a late answer changes nothing', async () => {
    const { page } = await open('plain');
    await payWithCard(page, CHALLENGE_CARD);
    await challenge(page).locator('input#otp').waitFor();
    env.site.advanceClock(11 * 60_000);
    await env.site.gateway.jobs.runDueJobs();
    // The shopper comes back and answers correctly: too late, the gateway says so and nothing changes.
    await challenge(page).locator('input#otp').fill('1234');
    const answered = page.waitForResponse((response) => response.url().includes('/answer'));
    await challenge(page).locator('button#submit').click();
    expect((await answered).status()).toBe(410);
    const result = await resultOf(page);
    expect(result.result.code).toBe('100.396.103');
  });
});

describe('3-D Secure server to server', () => {
  it('answers an enrolled card with a redirect; after the challenge the shopper lands on shopperResultUrl with the payment', async () => {
    const { gatewayUrl, merchantUrl, token, entityId } = env.site;
    const response = await fetch(`${gatewayUrl}/v1/payments`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        entityId,
        amount: '92.00',
        currency: 'EUR',
        paymentType: 'DB',
        paymentBrand: 'VISA',
        'card.number': CHALLENGE_CARD,
        'card.holder': 'Jane Jones',
        'card.expiryMonth': '05',
        'card.expiryYear': '2034',
        'card.cvv': '123',
        shopperResultUrl: `${merchantUrl}/result`,
        'customer.browser.acceptHeader': 'text/html',
        'customer.browser.language': 'en-GB',
        'customer.browser.screenHeight': '720',
        'customer.browser.screenWidth': '1280',
        'customer.browser.timezone': '-60',
        'customer.browser.javaEnabled': 'false',
        'customer.browser.screenColorDepth': '24',
        'customer.browser.userAgent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
      }),
    });
    const pending = (await response.json()) as { id: string; result: { code: string }; redirect: { url: string; parameters: { name: string; value: string }[] } };
    expect(response.status).toBe(200);
    expect(pending.result.code).toBe('000.200.000');
    expect(pending.redirect.url).toMatch(new RegExp(`^${gatewayUrl}/v1/redirects/[0-9a-f]{32}$`));

    const page = env.track(await env.browser.newPage());
    await page.goto(env.site.pageUrl('merchant-redirect', { checkoutId: 'none' }));
    await page.evaluate((redirect) => (window as unknown as { followRedirect: (r: unknown) => void }).followRedirect(redirect), pending.redirect);
    await page.locator('input#otp').fill('1234');
    await page.locator('button#submit').click();
    const result = await resultOf(page);
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(`${merchantUrl}/result`);
    expect(landed.searchParams.get('id')).toBe(pending.id);
    expect(landed.searchParams.get('resourcePath')).toBe(`/v1/payments/${pending.id}`);
    expect(result).toMatchObject({ id: pending.id, amount: '92.00', currency: 'EUR', threeDSecure: { authenticationStatus: 'Y' } });
    expect(result.result.code).toMatch(SUCCESS);
  });
});
