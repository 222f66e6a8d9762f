import { expect } from 'vitest';
import { valuesOf } from './dataAtRest.ts';
import { expectEnvelope } from './envelope.ts';
import { testCard, type ApiResponse } from './harness.ts';

/** What checkout tests share: the shopper's post, and the checks of what an answer to it may show. */

/** The security code the shopper types in the tests: a value nothing else in an answer contains by chance. */
export const SHOPPER_CVV = '739';

/** What the widget posts: the card from the hosted fields, the brand, the form action. */
export function shopperCard(overrides: Record<string, string> = {}): Record<string, string> {
  return testCard({ 'card.cvv': SHOPPER_CVV, shopperResultUrl: 'https://shop.example/result', ...overrides });
}

/** None of `cardNumbers` and no CVV in the answer: a CVV is never shown back, not as a field, nor as a value. */
export function expectNoCardData(response: ApiResponse, cardNumbers: readonly string[]): void {
  const text = JSON.stringify(response.body);
  for (const number of cardNumbers) expect(text).not.toContain(number);
  expect(text).not.toMatch(/"cvv"\s*:/i);
  expect(valuesOf(response.body)).not.toContain(SHOPPER_CVV);
}

/** A checkout's refusal (COMPAT §2): 400, 200.300.404, the description as given. */
export function expectRefusal(response: ApiResponse, description: string | RegExp): void {
  expectEnvelope(response);
  expect(response.status).toBe(400);
  expect(response.body.result.code).toBe('200.300.404');
  if (typeof description === 'string') expect(response.body.result.description).toBe(description);
  else expect(response.body.result.description).toMatch(description);
}
