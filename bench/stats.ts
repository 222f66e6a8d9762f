/** Shared figures: every measurement (HTTP or store) is summarized by the same code. */

export interface Summary {
  /** Completed operations (responses, or committed transactions) in the measured window. */
  readonly count: number;
  /** Length of the measured window, seconds. */
  readonly seconds: number;
  /** count / seconds. */
  readonly rate: number;
  /** Latency percentiles, milliseconds. */
  readonly p50: number;
  readonly p99: number;
}

/** Nearest-rank percentile of an ascending array (milliseconds); NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(latencies: number[], count: number, seconds: number): Summary {
  const sorted = Float64Array.from(latencies).sort();
  const asArray = Array.from(sorted);
  return {
    count,
    seconds,
    rate: seconds > 0 ? count / seconds : 0,
    p50: percentile(asArray, 50),
    p99: percentile(asArray, 99),
  };
}

export function formatRate(rate: number): string {
  return Math.round(rate).toString();
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}
