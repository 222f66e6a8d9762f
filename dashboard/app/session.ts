import { prefetchFirstPaymentPage, sessionApi, type SignInCredentials } from './api.ts';
import type { SecondFactorStep, SignInAnswer } from './types.ts';
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

/**
 * Signs in with a password: the session, or the second factor still to give (returned, for the page to ask). An
 * ApiError (wrong credentials, too many attempts) is the caller's to show.
 */
export async function signIn(credentials: SignInCredentials): Promise<SecondFactorStep | undefined> {
  return settle(await sessionApi.signIn(credentials));
}

/** Gives the second factor's code; the session follows (an ApiError: a wrong or used code, an expired sign-in). */
export async function giveSecondFactor(challenge: string, code: string): Promise<void> {
  settle(await sessionApi.secondFactor(challenge, code));
}

/** What a sign-in step answered: the session taken, or the second factor asked. */
export function settle(answer: SignInAnswer): SecondFactorStep | undefined {
  if ('secondFactor' in answer) return answer.secondFactor;
  // The payments are the first page after sign-in (routes.ts HOME): asked for before the shell is drawn.
  if (place.value.search === '' && (place.value.path === '/' || place.value.path === HOME)) prefetchFirstPaymentPage();
  sessionEnded.value = false;
  selectedEntity.value = '';
  session.value = answer.session;
  return undefined;
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
