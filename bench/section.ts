import type { GatewayConfig } from '../server/config.ts';
import type { LoadResult, LoadSpec } from './load-protocol.ts';
import type { Summary } from './stats.ts';

/** What run.ts lends a section that lives in a file of its own (R, T): its knobs, its clean-up scopes and its report. */
export interface BenchSectionContext {
  readonly load: Pick<LoadSpec, 'connections' | 'warmupSeconds' | 'durationSeconds'>;
  /** A gateway on a bench store location, configured as the other sections' gateways. */
  gatewayConfig(location: { readonly dataDir: string; readonly databaseUrl: string | undefined }): GatewayConfig;
  withScope<T>(work: (scope: { defer(label: string, close: () => Promise<void>): void }) => Promise<T>): Promise<T>;
  /** Checks an HTTP measurement (only 200s, no errors), records failures; returns the table's check text. */
  checkHttp(label: string, result: LoadResult): string;
  row(label: string, summary: Summary | undefined, check: string): void;
  ratio(text: string): void;
  fail(failure: string): void;
}
