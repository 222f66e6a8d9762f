import { isObject } from '../options.ts';

/**
 * `wpwlOptions.clickToPay` (widget/types/wpwl.d.ts), as the platform's pages set it — the attributes of the SRC
 * systems' UI components (card list, one-time-code screen, the Click to Pay mark, the "learn more" text) — each value
 * checked for its type, a missing or wrong one taking the default.
 */

export interface ClickToPayOptions {
  readonly cardList: {
    readonly displayCancelOption: boolean;
    readonly displayAddCard: boolean;
    readonly displayPreferredCard: boolean;
    readonly displaySignOut: boolean;
    readonly displayHeader: boolean;
    readonly cardSelectionType: 'gridView' | 'listView';
    /** The text of a card whose brand the page does not offer (shown, not selectable); empty: the widget's own. */
    readonly unacceptedCard: string;
  };
  readonly otpScreen: {
    readonly displayCancelOption: boolean;
    readonly displayHeader: boolean;
    readonly autoSubmit: boolean;
    readonly hideLoader: boolean;
    readonly displayRememberMe: boolean;
    readonly displayPayAnotherWay: boolean;
  };
  readonly srcMark: { readonly height: string | undefined; readonly width: string | undefined; readonly darkTheme: boolean };
  readonly learnMore: { readonly displayCloseButton: boolean; readonly displayOkButton: boolean };
}

function flag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return fallback;
}

/** A CSS length: a number of pixels (`'40'`, `40`) or a length with its unit; anything else is ignored. */
function length(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (/^\d{1,4}(\.\d+)?$/.test(text)) return `${text}px`;
  return /^\d{1,4}(\.\d+)?(px|em|rem|%)$/.test(text) ? text : undefined;
}

const part = (raw: Record<string, unknown>, name: string): Record<string, unknown> => (isObject(raw[name]) ? raw[name] : {});

export function clickToPayOptions(value: unknown): ClickToPayOptions {
  const raw = isObject(value) ? value : {};
  const cardList = part(raw, 'cardList');
  const otpScreen = part(raw, 'otpScreen');
  const srcMark = part(raw, 'srcMark');
  const learnMore = part(raw, 'learnMore');
  return {
    cardList: {
      displayCancelOption: flag(cardList.displayCancelOption, true),
      displayAddCard: flag(cardList.displayAddCard, true),
      displayPreferredCard: flag(cardList.displayPreferredCard, false),
      displaySignOut: flag(cardList.displaySignOut, true),
      displayHeader: flag(cardList.displayHeader, true),
      cardSelectionType: cardList.cardSelectionType === 'gridView' ? 'gridView' : 'listView',
      unacceptedCard: typeof cardList.unacceptedCard === 'string' ? cardList.unacceptedCard.trim() : '',
    },
    otpScreen: {
      displayCancelOption: flag(otpScreen.displayCancelOption, true),
      displayHeader: flag(otpScreen.displayHeader, true),
      autoSubmit: flag(otpScreen.autoSubmit, false),
      hideLoader: flag(otpScreen.hideLoader, false),
      displayRememberMe: flag(otpScreen.displayRememberMe, false),
      displayPayAnotherWay: flag(otpScreen.displayPayAnotherWay, true),
    },
    srcMark: { height: length(srcMark.height), width: length(srcMark.width), darkTheme: flag(srcMark.darkTheme, false) },
    learnMore: { displayCloseButton: flag(learnMore.displayCloseButton, true), displayOkButton: flag(learnMore.displayOkButton, true) },
  };
}
