import { isObject } from '../options.ts';

/**
 * The size of the widget's 3-D Secure frame, from wpwlOptions.threeDIframeSize: read by the redirect's chunk when a
 * redirect opens in the frame, so a page that never needs it does not download the parsing.
 */

/** A CSS length merchants may give threeDIframeSize: a number of pixels, or `400px`, `100%`, `30em`, `80vh`... */
function cssLength(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 && value <= 10_000 ? `${value}px` : undefined;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (/^\d{1,5}(\.\d+)?$/.test(trimmed)) return Number(trimmed) > 0 ? `${trimmed}px` : undefined;
  return /^\d{1,5}(\.\d+)?(px|%|em|rem|vw|vh|vmin|vmax|ch)$/.test(trimmed) ? trimmed : undefined;
}

export const DEFAULT_THREE_D_IFRAME_SIZE = { width: '100%', height: '580px' } as const;

/** The frame's width and height as CSS lengths (numbers are pixels); the default for what is missing or not a length. */
export function threeDIframeSize(raw: Readonly<Record<string, unknown>>): { readonly width: string; readonly height: string } {
  const size = isObject(raw.threeDIframeSize) ? raw.threeDIframeSize : {};
  return { width: cssLength(size.width) ?? DEFAULT_THREE_D_IFRAME_SIZE.width, height: cssLength(size.height) ?? DEFAULT_THREE_D_IFRAME_SIZE.height };
}
