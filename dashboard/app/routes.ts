import type { ComponentType } from 'preact';
import { lazyPage } from './lazy.tsx';
import type { PageProps } from './router.ts';
import { PaymentDetailPage } from './pages/PaymentDetail.tsx';
import { PaymentsPage } from './pages/Payments.tsx';

/**
 * The app's pages by address (below /dashboard) and the navigation. A page is a component in pages/, given the
 * parameters of its pattern; `nav` is the navigation entry it belongs to (marked as the current one). Add a page
 * here and, when it is a navigation entry, to NAV. Sign-in and the payments are in the entry (the first page); the
 * others load on demand (lazyPage): add a page that way, so the first page's script stays small.
 */

/** The pages reached after the first: each a chunk of its own, loaded when first shown (lazy.tsx). */
const IntegrationPage = lazyPage(() => import('./pages/Integration.tsx').then((module) => module.IntegrationPage));
const ChargebacksPage = lazyPage(() => import('./pages/Chargebacks.tsx').then((module) => module.ChargebacksPage));
const OverviewPage = lazyPage(() => import('./pages/Overview.tsx').then((module) => module.OverviewPage));
const RegistrationsPage = lazyPage(() => import('./pages/Registrations.tsx').then((module) => module.RegistrationsPage));
const SchedulesPage = lazyPage(() => import('./pages/Schedules.tsx').then((module) => module.SchedulesPage));
const SettingsPage = lazyPage(() => import('./pages/Settings.tsx').then((module) => module.SettingsPage));
const SettlementsPage = lazyPage(() => import('./pages/Settlements.tsx').then((module) => module.SettlementsPage));
const TokensPage = lazyPage(() => import('./pages/Tokens.tsx').then((module) => module.TokensPage));
const UsersPage = lazyPage(() => import('./pages/Users.tsx').then((module) => module.UsersPage));
const WebhookDetailPage = lazyPage(() => import('./pages/WebhookDetail.tsx').then((module) => module.WebhookDetailPage));
const WebhooksPage = lazyPage(() => import('./pages/Webhooks.tsx').then((module) => module.WebhooksPage));

export const NAV = ['overview', 'payments', 'chargebacks', 'registrations', 'schedules', 'webhooks', 'settings', 'settlements', 'integration', 'users', 'tokens'] as const;
export type NavEntry = (typeof NAV)[number];

/** Navigation entries only an operator is shown (the API refuses anyone else). */
export const OPERATOR_NAV: ReadonlySet<NavEntry> = new Set<NavEntry>(['tokens']);

/** Navigation entries an operator and a merchant's admin are shown (roles.ts mayDo('admin')). */
export const ADMIN_NAV: ReadonlySet<NavEntry> = new Set<NavEntry>(['users']);

export interface AppRoute {
  readonly name: string;
  readonly pattern: string;
  readonly page: ComponentType<PageProps>;
  readonly nav: NavEntry;
}

export const ROUTES: readonly AppRoute[] = [
  { name: 'overview', pattern: '/overview', page: OverviewPage, nav: 'overview' },
  { name: 'payments', pattern: '/payments', page: PaymentsPage, nav: 'payments' },
  { name: 'chargebacks', pattern: '/chargebacks', page: ChargebacksPage, nav: 'chargebacks' },
  { name: 'payment', pattern: '/payments/:id', page: PaymentDetailPage, nav: 'payments' },
  { name: 'registrations', pattern: '/registrations', page: RegistrationsPage, nav: 'registrations' },
  { name: 'schedules', pattern: '/schedules', page: SchedulesPage, nav: 'schedules' },
  { name: 'webhooks', pattern: '/webhooks', page: WebhooksPage, nav: 'webhooks' },
  { name: 'webhook', pattern: '/webhooks/:id', page: WebhookDetailPage, nav: 'webhooks' },
  { name: 'settings', pattern: '/settings', page: SettingsPage, nav: 'settings' },
  { name: 'settlements', pattern: '/settlements', page: SettlementsPage, nav: 'settlements' },
  { name: 'integration', pattern: '/integration', page: IntegrationPage, nav: 'integration' },
  { name: 'users', pattern: '/users', page: UsersPage, nav: 'users' },
  { name: 'tokens', pattern: '/tokens', page: TokensPage, nav: 'tokens' },
];

/** Where /dashboard itself leads. */
export const HOME = '/payments';
