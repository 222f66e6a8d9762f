/**
 * `window.wpwlOptions`, read when the widget renders (merchants often assign it after the script tag).
 * Merchant pages put anything in there; every value is checked for its type, and what does not fit is
 * ignored, so garbage never breaks rendering.
 */

export type Style = 'card' | 'plain' | 'none';

export interface WidgetOptions {
  readonly locale: string;
  readonly style: Style;
  readonly labels: Readonly<Record<string, string>>;
  readonly errorMessages: Readonly<Record<string, string>>;
  readonly showLabels: boolean;
  readonly showPlaceholders: boolean;
  readonly showCVVHint: boolean;
  readonly autofocus: string | undefined;
  readonly brandDetection: boolean;
  readonly brandDetectionPriority: readonly string[];
  readonly requireCvv: boolean;
  readonly allowEmptyCvv: boolean;
  readonly maskCvv: boolean;
  readonly allowEmptyCardHolderName: boolean;
  readonly disableCardExpiryDateValidation: boolean;
  readonly validation: boolean;
  readonly disableSubmitOnEnter: boolean;
  /** The card number shown in groups as it is typed. */
  readonly numberFormatting: boolean;
  readonly iframeStyles: Readonly<Record<string, unknown>>;
  readonly shopperResultTarget: string | undefined;
  /**
   * Where a payment's redirect (3-D Secure challenge, provider page) opens: undefined = the widget's own
   * frame, `_top`, or the name of a frame or window.
   */
  readonly paymentTarget: string | undefined;
  /**
   * The one-click form of stored cards: `requireCvv` asks the selected card's CVV (in a hosted field);
   * `hideInitialPaymentForms` hides the other forms until the shopper asks for them. Both default to false.
   */
  readonly registrations: { readonly requireCvv: boolean; readonly hideInitialPaymentForms: boolean };
  /** Shown while a payment is being sent; `spinner: false` turns it off, `spinner.color` colours it. */
  readonly spinner: { readonly enabled: boolean; readonly color: string | undefined };
  /** The raw object, for callbacks (looked up at call time: merchants may replace them late). */
  readonly raw: Record<string, unknown>;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Booleans, also as the strings "true"/"false" that some pages use. */
function flag(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fallback;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** An object's string values, by key (anything else left out): merchant texts, and the styles sent to a hosted field. */
export function stringValues(value: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (!isObject(value)) return result;
  for (const [key, item] of Object.entries(value)) if (typeof item === 'string') result[key] = item;
  return result;
}

export function readOptions(): WidgetOptions {
  const candidate = (window as { wpwlOptions?: unknown }).wpwlOptions;
  const raw = isObject(candidate) ? candidate : {};
  const style = raw.style === 'plain' || raw.style === 'none' || raw.style === 'card' ? raw.style : 'card';
  return {
    locale: text(raw.locale) ?? 'en',
    style,
    labels: stringValues(raw.labels),
    errorMessages: stringValues(raw.errorMessages),
    showLabels: flag(raw.showLabels, true),
    showPlaceholders: flag(raw.showPlaceholders, true),
    showCVVHint: flag(raw.showCVVHint, false),
    autofocus: text(raw.autofocus),
    brandDetection: flag(raw.brandDetection, true),
    brandDetectionPriority: Array.isArray(raw.brandDetectionPriority)
      ? raw.brandDetectionPriority.filter((brand): brand is string => typeof brand === 'string')
      : [],
    requireCvv: flag(raw.requireCvv, true),
    allowEmptyCvv: flag(raw.allowEmptyCvv, false),
    maskCvv: flag(raw.maskCvv, false),
    allowEmptyCardHolderName: flag(raw.allowEmptyCardHolderName, false),
    disableCardExpiryDateValidation: flag(raw.disableCardExpiryDateValidation, false),
    validation: flag(raw.validation, true),
    disableSubmitOnEnter: flag(raw.disableSubmitOnEnter, false),
    numberFormatting: flag(raw.numberFormatting, true),
    iframeStyles: isObject(raw.iframeStyles) ? raw.iframeStyles : {},
    shopperResultTarget: text(raw.shopperResultTarget),
    paymentTarget: text(raw.paymentTarget)?.trim(),
    registrations: {
      requireCvv: isObject(raw.registrations) && flag(raw.registrations.requireCvv, false),
      hideInitialPaymentForms: isObject(raw.registrations) && flag(raw.registrations.hideInitialPaymentForms, false),
    },
    spinner: {
      enabled: raw.spinner !== false && raw.spinner !== 'false',
      color: isObject(raw.spinner) && typeof raw.spinner.color === 'string' && /^[#a-zA-Z0-9(),.\s%]{1,40}$/.test(raw.spinner.color)
        ? raw.spinner.color
        : undefined,
    },
    raw,
  };
}
