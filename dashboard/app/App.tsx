import { useEffect } from 'preact/hooks';
import { t } from './i18n.ts';
import { SignInPage } from './pages/SignIn.tsx';
import { Shell } from './pages/Shell.tsx';
import { startRouter } from './router.ts';
import { restoreSession } from './session.ts';
import { session } from './state.ts';

/** The app: while it asks for the live session, a status; without one, the sign-in page; with one, the shell. */
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
  return session.value === null ? <SignInPage /> : <Shell />;
}
