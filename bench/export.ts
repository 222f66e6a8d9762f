import type { RunningGateway } from '../server/gateway.ts';
import { SESSION_COOKIE, openSession } from '../server/dashboard/sessions.ts';

/**
 * Part of V: the back office's CSV export of the payment list (GET /dashboard/api/payments/export, streamed a thousand
 * rows at a time) of every seeded payment, as an operator: rows per second, and the gateway's heap and RSS while it
 * streams (sampled every 20 ms; the gateway runs in this process) against before it started — flat, not growing with
 * the rows. The file is read and counted as it arrives, never held.
 */

export interface ExportFigures {
  readonly rows: number;
  readonly bytes: number;
  readonly seconds: number;
  /** Growth over the heap and RSS of before the export, at their peak while it ran (MB). */
  readonly peakHeapGrowthMb: number;
  readonly peakRssGrowthMb: number;
}

export async function measureExport(gateway: RunningGateway, operatorId: string, query = ''): Promise<ExportFigures> {
  const { cookieValue } = await openSession(gateway.store, { operatorId }, new Date());
  global.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
  }, 20);
  const started = performance.now();
  try {
    const response = await fetch(`${gateway.url}/dashboard/api/payments/export${query}`, { headers: { cookie: `${SESSION_COOKIE}=${cookieValue}` } });
    if (response.status !== 200 || !response.body) throw new Error(`the export answered HTTP ${response.status}`);
    let lines = 0;
    let bytes = 0;
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.length;
      for (const byte of read.value) if (byte === 10) lines++;
    }
    return {
      rows: lines - 1,
      bytes,
      seconds: (performance.now() - started) / 1000,
      peakHeapGrowthMb: (peakHeap - before.heapUsed) / 1_048_576,
      peakRssGrowthMb: (peakRss - before.rss) / 1_048_576,
    };
  } finally {
    clearInterval(sampler);
  }
}
