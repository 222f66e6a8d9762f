import type { Acquirer } from '../acquirers/types.ts';

/**
 * For crash tests: an acquirer whose authorization for card holder `HANG` never reaches it and never comes back, and
 * for `HANG AFTER ANSWER` reaches it (the acquirer decides and keeps its answer) but never comes back. It says on
 * stderr when such a call was made (`acquirer called for <attempt id>`), so a test can kill the process exactly while
 * a payment is being made.
 *
 * For smart retry (COMPAT §15), a result code before the hang: `<code> HANG AFTER ANSWER` is decided as `<code>` by
 * the first acquirer, which keeps it and never comes back; `<code> THEN HANG` and `<code> THEN HANG AFTER ANSWER` are
 * answered `<code>` by the first acquirer (a soft reject), and the smart retry's call at the fallback hangs as above
 * (deciding as the simulator's fallback does: it approves).
 */
const STAGED = /^(\d{3}\.\d{3}\.\d{3}) (THEN )?(HANG|HANG AFTER ANSWER)$/;

export function hangingAcquirer(acquirer: Acquirer): Acquirer {
  return {
    ...acquirer,
    async authorize(request) {
      const card = request.card;
      const staged = STAGED.exec(card?.holder ?? '');
      const hang = staged ? staged[3] : card?.holder;
      if (!card || (hang !== 'HANG' && hang !== 'HANG AFTER ANSWER')) return acquirer.authorize(request);
      // The holder the acquirer decides by: a result code it answers, or a name it approves.
      const decided = { ...request, card: { ...card, holder: staged ? staged[1] : 'Jane Jones' } };
      if (staged?.[2] && request.retryOf === undefined) return acquirer.authorize(decided);
      if (hang === 'HANG AFTER ANSWER') await acquirer.authorize(decided);
      process.stderr.write(`acquirer called for ${request.attemptId}\n`);
      return new Promise(() => undefined);
    },
  };
}
