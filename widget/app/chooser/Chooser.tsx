import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { asyncBrand } from '../../shared/asyncBrands.ts';
import { isWallet } from '../../shared/walletSheet.ts';
import type { Texts } from '../messages.ts';
import { BrandLogo, cx } from '../payment/parts.tsx';
import { randomChannel } from '../random.ts';
import type { CheckoutInfo } from '../types.ts';

/**
 * Several payment methods in one `form.paymentWidgets` (cards, PayPal, Sofort...) as one chooser, in the card style
 * (index.tsx; `plain` and `none` keep the forms one after the other):
 *
 *   div.wpwl-chooser
 *     div.wpwl-chooser-options[role=radiogroup] > label.wpwl-chooser-option.wpwl-chooser-option-<family>[.wpwl-selected]
 *         > input[type=radio], span.wpwl-chooser-logos > img.wpwl-brand-logo..., span.wpwl-chooser-name
 *     div.wpwl-chooser-method[hidden] > (the method's own div.wpwl-container-..., unchanged)
 *
 * Wallet buttons (APPLEPAY, GOOGLEPAY) are no radio options: as on the shops shoppers know, they are express buttons
 * above the choice (div.wpwl-chooser-express > their containers), one press each; the other methods are chosen below
 * them, and a single other method (the card form) shows without a choice.
 *
 * Native radios: Tab reaches the group, the arrow keys move the choice. Only the chosen method's form shows, so the page
 * has one pay button; the others stay in the DOM, so merchant CSS, callbacks and wpwl.executePayment keep working.
 * It comes in the other families' chunk (otherMethods.ts) with its stylesheet (CSSOM, allowed under a strict CSP): a
 * card-only page loads neither.
 */

export interface ChooserMethod {
  /** The method's family (methods.ts BrandFamily: not imported, methods.ts names this chunk's chooser). */
  readonly family: 'card' | 'asynchronous' | 'directDebit';
  readonly brands: readonly string[];
  readonly container: string;
}

/** A method's name: an asynchronous brand's own, the cards' and direct debit's from the texts. */
function nameOf(method: ChooserMethod, texts: Texts): string {
  if (method.family === 'asynchronous') return asyncBrand(method.brands[0] ?? '')?.label ?? method.brands[0] ?? '';
  return texts.label(method.family === 'card' ? 'card' : 'directDebit');
}

const STYLES = `.wpwl-chooser-options{display:grid;gap:8px;margin-bottom:12px}
.wpwl-chooser-option{display:flex;align-items:center;gap:10px;min-height:44px;padding:8px 12px;border:1px solid #9ca3af;border-radius:6px;background:#fff;cursor:pointer}
.wpwl-chooser-option.wpwl-selected{border-color:#1d4ed8;box-shadow:0 0 0 1px #1d4ed8}
.wpwl-chooser-option:focus-within{outline:2px solid #2563eb;outline-offset:1px}
.wpwl-chooser-option input{width:18px;height:18px;margin:0;accent-color:#1d4ed8}
.wpwl-chooser-logos{display:flex;flex-wrap:wrap;gap:4px}
.wpwl-chooser-name{font-weight:600}
.wpwl-chooser-express{margin-bottom:12px}`;

let styled = false;

/** What a method shows when it is paid: its frame (3-D Secure, provider page) or its form's message. */
const SHOWING = 'iframe.wpwl-target, .wpwl-message';

function addStyles(): void {
  if (styled) return;
  styled = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(STYLES);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** A wallet's button, shown above the choice. */
const isExpress = (method: ChooserMethod) => method.family === 'asynchronous' && isWallet(method.brands[0] ?? '');

export function Chooser({ methods, texts, checkout, children }: { methods: readonly ChooserMethod[]; texts: Texts; checkout: CheckoutInfo; children: ComponentChildren[] }) {
  addStyles();
  const express = methods.flatMap((method, index) => (isExpress(method) ? [index] : []));
  const choices = methods.flatMap((method, index) => (isExpress(method) ? [] : [index]));
  const chosen = useSignal(choices[0] ?? 0);
  const name = useMemo(() => `wpwl-method-${randomChannel().slice(0, 8)}`, []);
  const root = useRef<HTMLDivElement>(null);
  // A method paid without the chooser (wpwl.executePayment) shows itself: the one whose frame (3-D Secure, provider
  // page) or message appears is chosen.
  useEffect(() => {
    const methods = root.current;
    if (!methods) return;
    const watcher = new MutationObserver((changes) => {
      for (const change of changes) {
        for (const added of change.addedNodes) {
          const shows = added instanceof Element && (added.matches(SHOWING) || added.querySelector(SHOWING) !== null);
          const wrapper = shows ? added.closest<HTMLElement>('.wpwl-chooser-method') : null;
          if (wrapper) chosen.value = Number(wrapper.dataset.method);
        }
      }
    });
    watcher.observe(methods, { childList: true, subtree: true });
    return () => watcher.disconnect();
  }, []);
  return (
    <div class="wpwl-chooser" ref={root}>
      {express.length > 0 && <div class="wpwl-chooser-express">{express.map((index) => children[index])}</div>}
      {choices.length > 1 && (
        <div class="wpwl-chooser-options" role="radiogroup" aria-label={texts.label('paymentMethod')}>
          {choices.map((index) => {
            const method = methods[index]!;
            return (
              <label key={method.container} class={cx('wpwl-chooser-option', `wpwl-chooser-option-${method.family}`, index === chosen.value && 'wpwl-selected')}>
                <input type="radio" name={name} value={method.container} checked={index === chosen.value} onChange={() => (chosen.value = index)} />
                <span class="wpwl-chooser-logos">
                  {method.brands.map((brand) => (
                    <BrandLogo key={brand} checkout={checkout} brand={brand} label="" />
                  ))}
                </span>
                <span class="wpwl-chooser-name">{nameOf(method, texts)}</span>
              </label>
            );
          })}
        </div>
      )}
      {choices.map((index) => (
        <div key={methods[index]?.container} class="wpwl-chooser-method" data-method={index} hidden={index !== chosen.value}>
          {children[index]}
        </div>
      ))}
    </div>
  );
}
