import { describe, expect, it } from 'vitest';
import { loadWidgetBuild } from '../../server/widget/build.ts';
import { BUDGETS, measureWidgetSizes, type WidgetSizes } from '../sizes.ts';

/** Size budgets of issues 3 and 4, checked on the build the suite made (globalSetup). Figures: npm run bench. */
describe('widget size budgets', () => {
  const sizes = (): WidgetSizes => {
    const build = loadWidgetBuild();
    if (!build) throw new Error('the widget build is missing');
    return measureWidgetSizes(build);
  };

  it('keeps the bootstrap (paymentWidgets.js) within 2 KB gzip', () => {
    expect(sizes().bootstrap).toBeLessThanOrEqual(BUDGETS.bootstrap);
  });

  it('keeps the widget JavaScript and CSS for English within 30 KB gzip', () => {
    expect(sizes().widget).toBeLessThanOrEqual(BUDGETS.widget);
  });

  it('keeps the hosted-field page within 6 KB gzip', () => {
    expect(sizes().hostedFields).toBeLessThanOrEqual(BUDGETS.hostedFields);
  });

  it('ships all 24 other languages, each within 2 KB gzip', () => {
    const languages = sizes().languages;
    expect(languages.size).toBe(24);
    for (const [code, bytes] of languages) expect(bytes, code).toBeLessThanOrEqual(BUDGETS.language);
  });
});
