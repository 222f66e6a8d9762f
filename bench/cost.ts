import type { StatementCounts } from '../server/store/statementCount.ts';
import { measureHttp } from './http-load.ts';
import type { LoadResult, LoadSpec } from './load-protocol.ts';

/**
 * What each answer of a measured window cost the gateway's process (this one: the gateway and its embedded store run
 * here, the load generator is a process of its own). CPU time comes from the process's own usage, not from wall
 * time, so a machine other work shares hardly moves it; statements from the store's counter, when it is counted.
 * Both are taken when the load generator says its measured run starts and when it replies: answers in flight at
 * either edge make the per-answer figures off by a few of the thousands in the window.
 */
export interface HttpCost {
  readonly result: LoadResult;
  /** CPU time (user + system) of this process per answer in the measured window, in milliseconds. */
  readonly cpuMsPerAnswer: number;
  /** The store's statements, transactions and round trips per answer in the measured window. */
  readonly perAnswer: StatementCounts | undefined;
}

/** `onMeasuring`: called too when the measured run starts (after this process's figures are taken), e.g. to take another process's. */
export async function measureHttpCost(spec: LoadSpec, counts?: () => StatementCounts, onMeasuring?: () => void): Promise<HttpCost> {
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let countsAtStart: StatementCounts | undefined;
  const result = await measureHttp(spec, () => {
    countsAtStart = counts?.();
    cpuAtStart = process.cpuUsage();
    onMeasuring?.();
  });
  const cpu = process.cpuUsage(cpuAtStart);
  const countsAtEnd = counts?.();
  const answers = Math.max(1, result.measured.responses);
  const per = (end: number, start: number) => (end - start) / answers;
  return {
    result,
    cpuMsPerAnswer: (cpu.user + cpu.system) / 1000 / answers,
    perAnswer:
      countsAtEnd && countsAtStart
        ? {
            statements: per(countsAtEnd.statements, countsAtStart.statements),
            transactions: per(countsAtEnd.transactions, countsAtStart.transactions),
            roundTrips: per(countsAtEnd.roundTrips, countsAtStart.roundTrips),
          }
        : undefined,
  };
}
