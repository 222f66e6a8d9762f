import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** What the dashboard's browser tests check on every page. */

/** axe's serious and critical violations on the page, each with the elements it names. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** The text of the element that has the focus. */
export const focusedText = (page: Page): Promise<string> => page.evaluate(() => (document.activeElement as HTMLElement | null)?.textContent?.trim() ?? '');
