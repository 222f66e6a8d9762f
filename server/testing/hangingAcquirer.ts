import type { Acquirer } from '../acquirers/types.ts';

/**
 * For crash tests: an acquirer whose authorization for card holder `HANG` never reaches it and never comes back, and
 * for `HANG AFTER ANSWER` reaches it (the acquirer decides and keeps its answer) but never comes back. It says on
 * stderr when such a call was made (`acquirer called for <attempt id>`), so a test can kill the process exactly while
 * a payment is being made.
 */
export function hangingAcquirer(acquirer: Acquirer): Acquirer {
  return {
    ...acquirer,
    async authorize(request) {
      const card = request.card;
      if (!card || (card.holder !== 'HANG' && card.holder !== 'HANG AFTER ANSWER')) return acquirer.authorize(request);
      if (card.holder === 'HANG AFTER ANSWER') await acquirer.authorize({ ...request, card: { ...card, holder: 'Jane Jones' } });
      process.stderr.write(`acquirer called for ${request.attemptId}\n`);
      return new Promise(() => undefined);
    },
  };
}
