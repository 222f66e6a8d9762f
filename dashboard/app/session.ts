import { prefetchFirstPaymentPage, sessionApi, type SignInCredentials } from './api.ts';
import { place } from './router.ts';
import { HOME } from './routes.ts';
import { selectedEntity, session, sessionEnded } from './state.ts';

/** Signing in and out, and finding the live session at start (the cookie is HttpOnly: only the API knows it). */

export async function restoreSession(): Promise<void> {
  try {
    session.value = (await sessionApi.read()).session;
  } catch {
    // 401 (no live session), or no answer: the sign-in page, which shows what a sign-in then answers.
    session.value = null;
  }
}

/** Signs in; an ApiError (wrong credentials, too many attempts) is the caller's to show. */
export async function signIn(credentials: SignInCredentials): Promise<void> {
  const answer = await sessionApi.signIn(credentials);
  // The payments are the first page after sign-in (routes.ts HOME): asked for before the shell is drawn.
  if (place.value.search === '' && (place.value.path === '/' || place.value.path === HOME)) prefetchFirstPaymentPage();
  sessionEnded.value = false;
  selectedEntity.value = '';
  session.value = answer.session;
}

export async function signOut(): Promise<void> {
  try {
    await sessionApi.signOut();
  } catch {
    // Gone already, or no answer: the app forgets the session either way.
  } finally {
    selectedEntity.value = '';
    session.value = null;
  }
}
