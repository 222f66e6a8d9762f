import { signal } from '@preact/signals';
import type { Session } from './types.ts';

/**
 * The app's shared state, as signals: a component that reads `.value` while it renders is rendered again when the
 * value changes. Page-local state (a list, a form) lives in the page with useSignal.
 */

/** The live session: undefined while the app asks whether there is one, null when signed out. */
export const session = signal<Session | null | undefined>(undefined);

/** Set when an answer said the session is gone (401) while the app thought it was live: the sign-in page says so. */
export const sessionEnded = signal(false);

/** The entity the pages show (an id of session.entities), or '' for all of the principal's entities. */
export const selectedEntity = signal('');
