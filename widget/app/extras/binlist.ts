import type { CheckoutInfo } from '../types.ts';

/**
 * `brandDetectionType: 'binlist'`: the brands of a card's first digits as the gateway's BIN list answers them
 * (`GET /v1/bins/<bin>`, the table the gateway checks payments against), in place of the widget's own copy. Each BIN
 * is asked once per page; should the gateway not answer, the widget's table decides (undefined).
 */
const answers = new Map<string, Promise<readonly string[] | undefined>>();

export function binlist(bin: string, checkout: CheckoutInfo): Promise<readonly string[] | undefined> {
  let answer = answers.get(bin);
  if (!answer) {
    answer = fetch(`${checkout.gatewayUrl}/v1/bins/${bin}`, { credentials: 'omit' })
      .then((response) => (response.ok ? (response.json() as Promise<{ brands?: unknown }>) : undefined))
      .then((body) => (Array.isArray(body?.brands) ? body.brands.filter((brand): brand is string => typeof brand === 'string') : undefined))
      .catch(() => undefined);
    answers.set(bin, answer);
  }
  return answer;
}
