import { invoke } from '../callbacks.ts';
import { randomChannel } from '../random.ts';
import type { Texts } from '../messages.ts';
import type { WidgetOptions } from '../options.ts';
import type { Redirect } from '../payment/answer.ts';
import type { CheckoutInfo, PaymentState } from '../types.ts';
import { isRedirectComplete } from '../../shared/protocol.ts';
import { threeDIframeSize } from './frameSize.ts';
import { ThreeDSecureFrame } from './ThreeDSecureFrame.tsx';

/**
 * Following a pending payment's redirect (3-D Secure challenge, a redirect brand's provider page): its
 * parameters are sent as a form to its URL (POST, or GET when the redirect asks for it), in `paymentTarget`:
 *   - unset: the widget's own frame (ThreeDSecureFrame) inside the form's container, the form hidden;
 *   - `_top` (also `_self`, `_parent`): that window leaves the merchant page; the gateway's completion page
 *     then goes to the result URL itself;
 *   - any other name: the merchant's iframe of that name (COMPAT §5: a frame name).
 * When the shopper is done, the gateway's completion page, framed, posts REDIRECT_COMPLETE (shared/protocol.ts)
 * to its parent; the widget accepts it only from the gateway's origin and from the
 * window the redirect was opened in, then goes to the result URL in shopperResultTarget. (A window of that
 * name, at the top, goes to the result URL itself.)
 *
 * A chunk of its own (with ThreeDSecureFrame): payment/flow.ts loads it when an answer carries a redirect, so a
 * page downloads it only when a payment needs it.
 */

export interface RedirectContext {
  readonly options: WidgetOptions;
  readonly texts: Texts;
  readonly checkout: CheckoutInfo;
  readonly state: PaymentState;
}


/** Sends the redirect's parameters to its URL in `target`, as a form (one hidden input each, in order) by its method. */
function postRedirectForm(state: PaymentState, redirect: Redirect, target: string): void {
  const form = document.createElement('form');
  form.method = redirect.method;
  form.action = redirect.url;
  form.target = target;
  form.acceptCharset = 'UTF-8';
  form.className = 'wpwl-redirect-form';
  form.hidden = true;
  for (const parameter of redirect.parameters) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = parameter.name;
    input.value = parameter.value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  const remove = () => {
    form.remove();
    state.cleanups.delete(remove);
  };
  state.cleanups.add(remove);
  // The prototype's submit: a parameter named "submit" would shadow form.submit.
  HTMLFormElement.prototype.submit.call(form);
}

/** Waits for the completion message from `source` (looked up when a message arrives), then calls `done` once. */
function awaitCompletion(context: RedirectContext, source: () => Window | null | undefined, done: () => void): void {
  const base = context.checkout.gatewayUrl || context.checkout.staticBaseUrl;
  const gatewayOrigin = new URL(base, location.href).origin;
  const onMessage = (event: MessageEvent) => {
    const expected = source();
    if (!expected || event.source !== expected || event.origin !== gatewayOrigin || !isRedirectComplete(event.data)) return;
    context.state.dispose();
    done();
  };
  const stop = () => {
    window.removeEventListener('message', onMessage);
    context.state.cleanups.delete(stop);
  };
  window.addEventListener('message', onMessage);
  context.state.cleanups.add(stop);
}

/** The merchant's iframe of that name, if the page has one. */
function namedFrame(name: string): HTMLIFrameElement | undefined {
  return Array.from(document.getElementsByName(name)).find((element): element is HTMLIFrameElement => element instanceof HTMLIFrameElement);
}

export function openRedirect(context: RedirectContext, redirect: Redirect, done: () => void): void {
  const { options, state } = context;
  const target = options.paymentTarget;
  if (target === undefined) {
    let submitted = false;
    let loadReported = false;
    const size = threeDIframeSize(options.raw);
    state.update({ frame: {
      name: `wpwl-threeDSecure-${randomChannel().slice(0, 16)}`,
      width: size.width,
      height: size.height,
      title: context.texts.label('threeDSecureFrameTitle'),
      Frame: ThreeDSecureFrame,
      mounted(iframe) {
        awaitCompletion(context, () => iframe.contentWindow, done);
        postRedirectForm(state, redirect, iframe.name);
        submitted = true;
      },
      loaded(iframe) {
        // The empty frame's own load (before the redirect was posted) is not the challenge page.
        if (!submitted || loadReported) return;
        loadReported = true;
        invoke(options, 'onLoadThreeDIframe', iframe);
      },
    } });
    return;
  }
  if (target === '_top' || target === '_self' || target === '_parent') {
    postRedirectForm(state, redirect, target);
    return;
  }
  // A new window gets a name of its own, so the widget can recognise its messages.
  const name = target === '_blank' ? `wpwl-window-${randomChannel().slice(0, 16)}` : target;
  const frame = namedFrame(name);
  postRedirectForm(state, redirect, name);
  // The submit has created (or found) the window of that name: window.open with an empty URL only looks it
  // up, it does not navigate it.
  const opened = frame ? undefined : window.open('', name);
  awaitCompletion(context, () => frame?.contentWindow ?? opened, done);
}
