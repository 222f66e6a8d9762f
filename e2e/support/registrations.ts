import { expect } from 'vitest';
import type { MerchantSite } from './merchantSite.ts';

/** Stored cards for the one-click tests, made as merchants make them: a payment with createRegistration=true. */

export interface TestCard {
  readonly number: string;
  readonly brand: string;
  readonly holder: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
  readonly cvv: string;
}

export const VISA_CARD: TestCard = { number: '4200000000000000', brand: 'VISA', holder: 'Jane Jones', expiryMonth: '05', expiryYear: '2034', cvv: '123' };
export const MASTER_CARD: TestCard = { number: '5454545454545454', brand: 'MASTER', holder: 'John Smith', expiryMonth: '12', expiryYear: '2030', cvv: '123' };
export const AMEX_CARD: TestCard = { number: '377777777777770', brand: 'AMEX', holder: 'Ann Example', expiryMonth: '08', expiryYear: '2031', cvv: '1234' };

/** Pays 1.00 EUR server to server with the card and createRegistration=true; returns the new registrationId. */
export async function storeCard(site: MerchantSite, card: TestCard): Promise<string> {
  const response = await fetch(`${site.gatewayUrl}/v1/payments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${site.token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      entityId: site.entityId,
      amount: '1.00',
      currency: 'EUR',
      paymentType: 'DB',
      paymentBrand: card.brand,
      'card.number': card.number,
      'card.holder': card.holder,
      'card.expiryMonth': card.expiryMonth,
      'card.expiryYear': card.expiryYear,
      'card.cvv': card.cvv,
      createRegistration: 'true',
    }),
  });
  const body = (await response.json()) as { registrationId?: string; result: { code: string } };
  expect(body.result.code, JSON.stringify(body)).toMatch(/^000\.100\.1/);
  expect(body.registrationId).toMatch(/^[0-9a-f]{32}$/);
  return body.registrationId as string;
}

/** The checkout parameters offering these stored cards, in this order. */
export function offering(...ids: string[]): Record<string, string> {
  return Object.fromEntries(ids.map((id, index) => [`registrations[${index}].id`, id]));
}
