/**
 * What every form family's chunk shares (hooks, the form state and shell, random ids): the entry (index.tsx)
 * imports it, so the bundler keeps it in static.min.js, which every page loads anyway, and the chunks import it
 * from there (under short names: the entry itself exports nothing). A family's chunk holds only that family's code,
 * and a page's forms cost one request per family, not a waterfall of shared chunks. The submit path (flow.ts, answer.ts, browser.ts) is not here: it is a chunk
 * of its own, loaded after the forms are shown (state.ts).
 */
export { useEffect, useMemo, useRef } from 'preact/hooks';
export * from './parts.tsx';
export * from './state.ts';
export { randomChannel } from '../random.ts';
// What the page's options ask for beyond the forms (the extras chunk sets it, the forms read it): one object for all.
export { features } from '../features.ts';
// The hosted fields' message schema (card, stored cards) and the redirect's completion message (3-D Secure frame).
export { isEnvelope, isRedirectComplete, PROTOCOL_VERSION } from '../../shared/protocol.ts';
