import { useEffect } from 'preact/hooks';
import { t } from './i18n.ts';
import { lazyPage } from './lazy.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { Shell } from './pages/Shell.tsx';
import { place, startRouter } from './router.ts';
import { restoreSession } from './session.ts';
import { session } from './state.ts';

/** An invitation's page (/dashboard/invitation#<code>): for whoever opens the link, signed in or not. */
const InvitationPage = lazyPage(() => import('./pages/Invitation.tsx').then((module) => module.InvitationPage));

/**
 * The app: while it asks for the live session, a status; an invitation's link, its page; without a session, the
 * sign-in page; with one, the shell.
 */
export function App() {
  useEffect(() => {
    startRouter();
    void restoreSession();
  }, []);
  if (session.value === undefined) {
    return (
      <p class="loading loading-app" role="status">
        {t('app.loading')}
      </p>
    );
  }
  if (place.value.path === '/invitation') return <InvitationPage params={{}} />;
  return session.value === null ? <SignInPage /> : <Shell />;
}
