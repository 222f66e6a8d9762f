import type { RunningGateway } from '../server/gateway.ts';
import { SESSION_COOKIE, openSession } from '../server/dashboard/sessions.ts';
import { sampleMemory, type MemoryGrowth } from './memory.ts';

/**
 * Part of V: the back office's CSV export of the payment list (GET /dashboard/api/payments/export, streamed a thousand
 * rows at a time) of every seeded payment, as an operator: rows per second, and the gateway's memory while it streams
 * (memory.ts; the gateway runs in this process): a live heap that does not grow with the rows. The file is read and
 * counted as it arrives, never held.
 */

export interface ExportFigures {
  readonly rows: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly growth: MemoryGrowth;
}

export async function measureExport(gateway: RunningGateway, operatorId: string, query = ''): Promise<ExportFigures> {
  const { cookieValue } = await openSession(gateway.store, { operatorId }, new Date());
  const stopSampling = sampleMemory();
  const started = performance.now();
  let lines = 0;
  let bytes = 0;
  let growth: MemoryGrowth;
  try {
    const response = await fetch(`${gateway.url}/dashboard/api/payments/export${query}`, { headers: { cookie: `${SESSION_COOKIE}=${cookieValue}` } });
    if (response.status !== 200 || !response.body) throw new Error(`the export answered HTTP ${response.status}`);
    const reader = response.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.length;
      for (let index = read.value.indexOf(10); index !== -1; index = read.value.indexOf(10, index + 1)) lines++;
    }
  } finally {
    growth = stopSampling();
  }
  return { rows: lines - 1, bytes, seconds: (performance.now() - started) / 1000, growth };
}
