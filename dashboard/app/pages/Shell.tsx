import { useLayoutEffect } from 'preact/hooks';
import { LanguagePicker } from '../components/LanguagePicker.tsx';
import { Link } from '../components/Link.tsx';
import { t } from '../i18n.ts';
import { href, matchRoute, navigate, place } from '../router.ts';
import { mayDo } from '../roles.ts';
import { ADMIN_NAV, HOME, NAV, OPERATOR_NAV, ROUTES } from '../routes.ts';
import { signOut } from '../session.ts';
import { session } from '../state.ts';
import { NotFoundPage } from './NotFound.tsx';

/**
 * The signed-in app: a header (who is signed in, the language, sign-out), the navigation, and the page of the
 * address in <main>. A page is mounted afresh for each address (path and query), so its heading takes the focus.
 */
export function Shell() {
  const { path: address, search } = place.value;
  const principal = session.value?.principal;
  // /dashboard itself shows the home page at once, and its address becomes the home page's (the same page stays).
  const path = address === '/' ? HOME : address;
  useLayoutEffect(() => {
    if (address === '/') navigate(href(HOME), { replace: true });
  }, [address]);
  const match = matchRoute(path, ROUTES);
  const route = match && ROUTES.find((candidate) => candidate.name === match.name);
  const PageComponent = route?.page;

  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skipToContent')}
      </a>
      <header class="topbar">
        <p class="brand">{t('app.name')}</p>
        {principal && (
          <p class="who">
            {t('app.signedInAs', {
              name: principal.name,
              kind: principal.role ? t('app.principal.user', { role: t(`users.role.${principal.role}`), merchant: principal.merchant ?? '' }) : t(`app.principal.${principal.kind}`),
            })}
          </p>
        )}
        <LanguagePicker />
        <button type="button" class="button" onClick={() => void signOut()}>
          {t('app.signOut')}
        </button>
      </header>
      <div class="layout">
        <nav class="nav" aria-label={t('app.navigation')}>
          <ul>
            {NAV.filter((entry) => (principal?.kind === 'operator' || !OPERATOR_NAV.has(entry)) && (!ADMIN_NAV.has(entry) || mayDo('admin'))).map((entry) => (
              <li key={entry}>
                <Link href={href(`/${entry}`)} aria-current={route?.nav === entry ? 'page' : undefined}>
                  {t(`nav.${entry}`)}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" class="main" tabIndex={-1}>
          {PageComponent && match ? <PageComponent key={`${path}?${search}`} params={match.params} /> : <NotFoundPage key={path} />}
        </main>
      </div>
    </>
  );
}
