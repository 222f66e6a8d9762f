/** Messages between the bench (parent) and the load-generator process (loadgen.ts). */

import type { Summary } from './stats.ts';

export interface LoadSpec {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
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
}

export interface LoadResult {
  readonly warmup: Outcome;
  readonly measured: Outcome & Summary;
}

export type LoadReply = { readonly ok: true; readonly result: LoadResult } | { readonly ok: false; readonly error: string };

export function hasFailures(outcome: Outcome): boolean {
  return outcome.non2xx > 0 || outcome.errors > 0 || outcome.timeouts > 0;
}
