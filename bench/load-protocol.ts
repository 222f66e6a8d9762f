/** Messages between the bench (parent) and the load-generator process (loadgen.ts). */

import type { Summary } from './stats.ts';

/** One of the requests a connection sends in turn, and what its answer must (not) contain. */
export interface LoadRequest {
  readonly body: string;
  /** Text every answer to this request must contain (a 200 or not, the answer is checked). */
  readonly answerIncludes?: string;
  /** Text no answer to this request may contain. */
  readonly answerExcludes?: string;
}

export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Instead of `body`: each connection sends these one after the other, over and over (a mix of requests). */
  readonly requests?: readonly LoadRequest[];
  /**
   * Instead of `url`'s path: each request, whichever connection sends it, goes to the next of these paths, each used
   * once over warm-up and measured window (a checkout is paid once). Past the last one, the last is sent again.
   */
  readonly paths?: readonly string[];
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly durationSeconds: number;
}

export interface Outcome {
  readonly responses: number;
  readonly non2xx: number;
  /** Connection errors, timeouts included. */
  readonly errors: number;
  readonly timeouts: number;
  /** Responses per HTTP status code. */
  readonly statusCodes: Record<string, number>;
  /** With `requests`: answers per request of the mix (by index), and those whose text was not as the request says. */
  readonly answersByRequest?: readonly number[];
  readonly answerMismatches?: number;
  /** The first mismatching answer, for the report. */
  readonly firstMismatch?: string;
}

export interface LoadResult {
  readonly warmup: Outcome;
  readonly measured: Outcome & Summary;
}

export type LoadReply = { readonly ok: true; readonly result: LoadResult } | { readonly ok: false; readonly error: string };

/** Sent by the load generator when the warm-up is over and the measured window starts (before its reply). */
export interface LoadMeasuring {
  readonly measuring: true;
}

export function hasFailures(outcome: Outcome): boolean {
  return outcome.non2xx > 0 || outcome.errors > 0 || outcome.timeouts > 0;
}
