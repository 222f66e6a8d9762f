import { RESOURCE_ID } from '../domain/ids.ts';
import { scheduleJob } from '../jobs/repository.ts';
import { REDIRECT_SETTLEMENT_JOB } from '../payments/flows/pending.ts';
import { findRedirect } from '../payments/store/paymentRedirects.ts';
import type { Store } from '../store/index.ts';
import type { Usage } from './command.ts';

/** `npm run gateway -- payments settle ...`: the operator speaking for a simulated provider. */

export const PAYMENTS_USAGE = `  payments settle PAYMENT_ID approved|declined
                                             in test, the simulated provider's word on a waiting
                                             asynchronous payment (a cash voucher or prepayment paid, a
                                             transfer left pending confirmed or refused); a running
                                             gateway settles it
`;

/**
 * Runs `payments settle PAYMENT_ID approved|declined`: the word is a job a running gateway runs at once (the
 * approval goes through the acquirer, which only a gateway process holds), so it waits until one runs.
 */
export async function paymentsCommand(
  action: string | undefined,
  positionals: readonly string[],
  store: Store,
  environment: 'test' | 'live',
  now: () => Date,
  usage: Usage,
): Promise<string> {
  if (action !== 'settle') throw usage(`unknown command: payments ${action ?? ''}`.trim());
  const [paymentId, outcome] = positionals;
  if (!paymentId || !RESOURCE_ID.test(paymentId) || (outcome !== 'approved' && outcome !== 'declined')) {
    throw usage('payments settle needs the PAYMENT_ID and approved or declined');
  }
  if (environment === 'live') throw usage('a live gateway has no simulated provider: its providers settle their payments themselves');
  const waiting = await findRedirect(store, paymentId, { byPayment: true });
  if (!waiting || waiting.kind === 'threeDSecure') throw usage(`no waiting asynchronous payment ${paymentId}`);
  if (waiting.outcome !== null) return `payment ${paymentId} is final already; nothing was changed`;
  const at = now();
  await scheduleJob(
    store,
    { kind: REDIRECT_SETTLEMENT_JOB, uniqueKey: `${REDIRECT_SETTLEMENT_JOB}:${waiting.id}:operator:${at.getTime()}`, runAt: at, payload: { redirectId: waiting.id, outcome } },
    at,
  );
  return `payment ${paymentId} will be ${outcome} by the next running gateway (it notifies the merchant as usual)`;
}
