import { callbackWrapper } from '../callbacks.ts';
import { jqueryLike } from './jqueryLike.ts';

/**
 * The extras chunk: what the page's options ask for beyond the forms, set up when the entry imports it — only then
 * (index.tsx EXTRA_OPTIONS), before the forms render, so a card-only page never loads it. Today: the jQuery-like
 * wrapper of callbacks' `this.$form` and `this.$iframe` (callbacks.ts), used when the page has no jQuery of its own.
 */
callbackWrapper.$ = jqueryLike;
