import { describe, expect, it } from 'vitest';
import { loadWidgetBuild } from '../../server/widget/build.ts';
import { catalogueBrands } from '../logos.ts';

/** The brand logos the build wrote (widget/logos.ts), checked on the build the suite made (globalSetup). */
describe('brand logos', () => {
  let build: ReturnType<typeof loadWidgetBuild>;
  const files = () => {
    build ??= loadWidgetBuild();
    if (!build) throw new Error('the widget build is missing');
    return build.files;
  };
  const logo = (brand: string) => new TextDecoder().decode(files().get(`img/brands/${brand}.svg`)?.bytes);

  it('has an SVG image for every brand of the catalogue, cards and asynchronous ones, on the versioned static path', () => {
    const brands = catalogueBrands();
    expect(brands.length).toBeGreaterThan(90);
    for (const [brand] of brands) {
      expect(files().get(`img/brands/${brand}.svg`)?.contentType, brand).toBe('image/svg+xml');
      expect(logo(brand), brand).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="40" height="26" viewBox="0 0 40 26">.*<\/svg>\n$/s);
    }
  });

  it("draws a brand's own logo in its colour where the icon set has one, and its kind's neutral icon otherwise", () => {
    expect(logo('VISA')).toContain('fill="#1A1F71"');
    expect(logo('VISADEBIT')).toBe(logo('VISA'));
    expect(logo('KLARNA_PAYMENTS_PAYLATER')).toBe(logo('KLARNA_INVOICE'));
    // No logo of their own: the neutral card, bank, wallet and ticket icons, drawn in grey.
    expect(logo('DANKORT')).toBe(logo('MAESTRO'));
    expect(logo('GIROPAY')).toBe(logo('PREPAYMENT'));
    expect(new Set([logo('DANKORT'), logo('GIROPAY'), logo('TENPAY'), logo('PAYSAFECARD')]).size).toBe(4);
    for (const brand of ['DANKORT', 'GIROPAY', 'TENPAY', 'PAYSAFECARD']) expect(logo(brand), brand).toContain('stroke="#4b5563"');
    // The local brands of HyperPay's OpenCart extension have none in the icon set: mada is drawn as a card, STC Pay as
    // a wallet, the buy now, pay later lenders (Tabby, valU, ZoodPay) with the invoice icon, as RATENKAUF.
    expect(logo('MADA')).toBe(logo('DANKORT'));
    expect(logo('STC_PAY')).toBe(logo('TENPAY'));
    for (const brand of ['TABBY', 'VALU', 'ZOODPAY']) expect(logo(brand), brand).toBe(logo('RATENKAUF'));
    expect(new Set([logo('RATENKAUF'), logo('DANKORT'), logo('TENPAY'), logo('GIROPAY'), logo('PAYSAFECARD')]).size).toBe(5);
    // Images only: nothing in them runs.
    for (const [brand] of catalogueBrands()) expect(logo(brand), brand).not.toMatch(/<script|on\w+=|href=/i);
  });
});
