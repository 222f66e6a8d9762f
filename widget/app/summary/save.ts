import { invoke } from '../callbacks.ts';
import type { WidgetOptions } from '../options.ts';

/**
 * The summary page (`wpwlOptions.useSummaryPage`, server/checkouts/summary.ts): the card form's submit saved the card
 * for the checkout (`000.200.101`, the checkout updated) instead of paying it. `onSaveTransactionData(data)` gets the
 * gateway's answer — the brand, the card's bin, last four digits, holder and expiry, the billing address — for the
 * merchant's page to go to its summary page, where its server executes the payment (POST /v1/checkouts/{id}/payment
 * with its credentials). A refused save (an invalid card, an expired checkout) is answered 400 and shown as a payment's.
 */
export function saveTransactionData(answer: unknown, options: WidgetOptions): boolean {
  if ((answer as { result?: { code?: unknown } } | undefined)?.result?.code !== '000.200.101') return false;
  invoke(options, 'onSaveTransactionData', undefined, answer);
  return true;
}
