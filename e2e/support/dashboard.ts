import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import type { Role } from '../../server/dashboard/users.ts';
import { findTokenAccess } from '../../server/merchants/repository.ts';
import type { Queryable } from '../../server/store/index.ts';
import { merchantUser } from '../../server/testing/dashboardClient.ts';

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

/**
 * Signs in on the sign-in page (already shown) as a merchant user — the admin unless `role` says — of the entity
 * `token` acts for: the user `<role>@<entity id>.test`, made the first time (server/testing/dashboardClient.ts).
 * The test gateway asks for no second factor.
 */
export async function signInAsMerchant(page: Page, store: Queryable, token: string, role: Role = 'admin'): Promise<void> {
  const access = await findTokenAccess(store, token);
  const entityId = access.known ? [...access.entityIds][0] : undefined;
  if (!entityId) throw new Error('not a live token of an entity');
  const { email, password } = await merchantUser(store, entityId, role);
  await page.getByLabel('Merchant user').check();
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
