import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * This process's memory while a streamed output runs (the gateway runs in the bench's process), against a baseline
 * taken after a full garbage collection: the live heap (what is left after a full collection, forced every 2 s: what
 * a stream that kept its rows would grow), the peak heap (garbage included: what the collector lets pile up between
 * collections, which is no leak) and the peak RSS (the embedded store's own memory included), sampled every 20 ms.
 */

export const MB = 2 ** 20;
/** Live heap growth a streamed output stays under, whatever its size; a million rows kept would be hundreds of MiB. */
export const FLAT_LIVE_HEAP = 64 * MB;

setFlagsFromString('--expose-gc');
/** A full garbage collection, for baselines that hold no garbage. */
const collectGarbage = runInNewContext('gc') as () => void;

export interface MemoryGrowth {
  /** In bytes, over the baseline. */
  readonly liveHeap: number;
  readonly peakHeap: number;
  readonly peakRss: number;
}

/** Samples memory until the returned function is called, which gives the growth. */
export function sampleMemory(): () => MemoryGrowth {
  collectGarbage();
  const baseline = process.memoryUsage();
  let peakHeap = baseline.heapUsed;
  let peakRss = baseline.rss;
  let peakLive = baseline.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
  }, 20);
  const collector = setInterval(() => {
    collectGarbage();
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  }, 2000);
  return () => {
    clearInterval(sampler);
    clearInterval(collector);
    return { liveHeap: peakLive - baseline.heapUsed, peakHeap: peakHeap - baseline.heapUsed, peakRss: peakRss - baseline.rss };
  };
}

/** The growth as the bench reports it: live heap, peak heap, peak RSS, in MiB. */
export function formatGrowth(growth: MemoryGrowth): string {
  const mb = (bytes: number) => (bytes / MB).toFixed(1);
  return `live heap ${mb(growth.liveHeap)} MiB, peak heap ${mb(growth.peakHeap)} MiB, peak RSS ${mb(growth.peakRss)} MiB`;
}

/** Whether an output's live heap stayed flat. */
export const staysFlat = (growth: MemoryGrowth): boolean => growth.liveHeap < FLAT_LIVE_HEAP;
