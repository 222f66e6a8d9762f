import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fillCard, resultOf, useMerchantSiteAndBrowser } from './support/shopper.ts';

/**
 * The options of issue 35's point 7 on a merchant page as the platform documents them: `numberFormatting: false`,
 * `brandDetectionType: 'binlist'` (the gateway's BIN list decides, `brandDetectionPriority` honoured as with the brand
 * table), and `inlineFlow` (an inline brand's provider page stays in its form while `paymentTarget` sends the others'
 * to the whole window).
 */

const env = useMerchantSiteAndBrowser();

interface Detection {
  brands: string[];
  activeBrand: string;
}

async function open(options: Record<string, unknown> = {}, brands?: string, checkout: Record<string, string> = {}): Promise<Page> {
  const page = env.track(await env.browser.newPage());
  await page.addInitScript(([preset, presetBrands]) => Object.assign(window, { presetOptions: preset, presetBrands }), [options, brands] as const);
  await page.goto(env.site.pageUrl('widget-options', checkout));
  await page.locator('.wpwl-form').first().waitFor();
  return page;
}

const numberField = (page: Page) => page.frameLocator('iframe.wpwl-control-cardNumber').locator('input.wpwl-field');
const detections = (page: Page) => page.evaluate(() => (window as unknown as { detections?: Detection[] }).detections ?? []);
/** The requests the page made to the gateway's BIN list. */
function binRequests(page: Page): string[] {
  const asked: string[] = [];
  page.on('request', (request) => {
    const bin = /\/v1\/bins\/(\d+)$/.exec(request.url())?.[1];
    if (bin) asked.push(bin);
  });
  return asked;
}

describe('numberFormatting', () => {
  it('shows the number in groups by default, and as the digits alone with numberFormatting: false, which pays the same', async () => {
    const grouped = await open();
    await numberField(grouped).fill('4200000000000000');
    expect(await numberField(grouped).inputValue()).toBe('4200 0000 0000 0000');
    const plain = await open({ numberFormatting: false });
    await numberField(plain).fill('4200000000000000');
    expect(await numberField(plain).inputValue()).toBe('4200000000000000');
    await numberField(plain).pressSequentially('1');
    expect(await numberField(plain).inputValue()).toBe('42000000000000001');
    await numberField(plain).fill('377777777777770');
    expect(await numberField(plain).inputValue()).toBe('377777777777770');
    await fillCard(plain, { number: '4200000000000000' });
    await plain.locator('button.wpwl-button-pay').click();
    expect(await resultOf(plain)).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'VISA', card: { bin: '420000', last4Digits: '0000' } });
  });

  it("takes the platform's string form too: numberFormatting: 'false'", async () => {
    const page = await open({ numberFormatting: 'false' });
    await numberField(page).fill('5454545454545454');
    expect(await numberField(page).inputValue()).toBe('5454545454545454');
  });
});

describe("brandDetectionType: 'binlist'", () => {
  it('asks the gateway for the first six digits once, and detects the co-badged mada card as MADA then VISA, MADA active', async () => {
    const page = await open({ brandDetectionType: 'binlist' });
    const asked = binRequests(page);
    await numberField(page).fill('4464040000000007');
    await expect.poll(async () => (await detections(page)).at(-1)).toEqual({ brands: ['MADA', 'VISA'], activeBrand: 'MADA' });
    expect(asked).toEqual(['446404']);
    expect(await page.locator('select.wpwl-control-brand').inputValue()).toBe('MADA');
  });

  it('honours brandDetectionPriority in binlist mode as with the brand table', async () => {
    for (const brandDetectionType of ['binlist', 'regex']) {
      const page = await open({ brandDetectionType, brandDetectionPriority: ['VISA', 'MADA'] });
      await numberField(page).fill('4464040000000007');
      await expect.poll(async () => (await detections(page)).at(-1), { message: brandDetectionType }).toEqual({ brands: ['VISA', 'MADA'], activeBrand: 'VISA' });
    }
  });

  it("follows the gateway's answer, not the widget's own table, and falls back to the table when the gateway does not answer", async () => {
    const told = await open({ brandDetectionType: 'binlist' });
    // A BIN list that knows this BIN as Visa only (as a gateway whose list was updated would say).
    await told.route('**/v1/bins/446404', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ bin: '446404', brands: ['VISA'] }) }));
    await numberField(told).fill('4464040000000007');
    await expect.poll(async () => (await detections(told)).at(-1)).toEqual({ brands: ['VISA'], activeBrand: 'VISA' });

    const silent = await open({ brandDetectionType: 'binlist' });
    await silent.route('**/v1/bins/**', (route) => route.abort());
    await numberField(silent).fill('4464040000000007');
    await expect.poll(async () => (await detections(silent)).at(-1)).toEqual({ brands: ['MADA', 'VISA'], activeBrand: 'MADA' });
  });

  it('pays the card as the brand detected from the BIN list', async () => {
    const page = await open({ brandDetectionType: 'binlist' });
    await fillCard(page, { number: '4464040000000007' });
    await expect.poll(async () => (await detections(page)).at(-1)?.activeBrand).toBe('MADA');
    await page.locator('button.wpwl-button-pay').click();
    expect(await resultOf(page)).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'MADA', card: { bin: '446404' } });
  });
});

describe('inlineFlow', () => {
  const brands = 'PAYPAL GIROPAY';

  it("keeps an inline brand's provider page in its form while paymentTarget '_top' sends another brand's to the whole window", async () => {
    const options = { paymentTarget: '_top', inlineFlow: ['PAYPAL'] };
    const inline = await open(options, brands);
    const pageUrl = inline.url();
    await inline.locator('.wpwl-form-virtualAccount-PAYPAL button.wpwl-button-pay').click();
    const provider = inline.frameLocator('.wpwl-container-virtualAccount-PAYPAL iframe.wpwl-target');
    await provider.locator('button#submit').click();
    expect(await resultOf(inline)).toMatchObject({ result: { code: '000.100.110' }, paymentBrand: 'PAYPAL' });
    expect(pageUrl).not.toBe(inline.url());

    const top = await open(options, brands);
    await top.locator('.wpwl-form-onlineTransfer-GIROPAY button.wpwl-button-pay').click();
    await top.waitForURL(/\/v1\/redirects\//);
    expect(await top.locator('button#submit').count()).toBe(1);
    expect(await top.locator('iframe.wpwl-target').count()).toBe(0);
  });
});
