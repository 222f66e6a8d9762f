import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Result } from '../domain/resultCodes.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import type { ParameterError } from '../domain/errors.ts';
import { packagePath } from '../paths.ts';

/**
 * The JSON envelope every response carries (COMPAT §1): result, buildNumber, timestamp, ndc.
 */

function sourceRevision(): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    // Not a git checkout (e.g. an unpacked release): identify the build by its package manifest.
    const manifest = readFileSync(packagePath('package.json'));
    return createHash('sha1').update(manifest).digest('hex');
  }
}

let buildNumber: string | undefined;

/**
 * `<40 hex>@<yyyy-MM-dd HH:mm:ss +0000>`: the source revision and the time it was first asked for. Found once, on
 * first use (the gateway asks at start-up, so no request waits for git), never at import.
 */
export function currentBuildNumber(): string {
  if (buildNumber === undefined) {
    const revision = sourceRevision();
    const started = formatTimestamp(new Date()).slice(0, 19);
    buildNumber = `${/^[0-9a-f]{40}$/.test(revision) ? revision : createHash('sha1').update(revision).digest('hex')}@${started} +0000`;
  }
  return buildNumber;
}

export interface EnvelopeResult extends Result {
  readonly parameterErrors?: readonly ParameterError[];
}

/**
 * Marks an answer whose `timestamp` is the time it is answered (not a record's own time, as a query's records carry):
 * a gateway on a clock of its own gives that clock's time instead (respond.ts). A symbol: never serialized.
 */
export const ANSWERED_AT = Symbol('timestamp: the time of the answer');

export function envelope(result: EnvelopeResult, ndc: string, body: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...body, result, buildNumber: currentBuildNumber(), timestamp: formatTimestamp(new Date()), ndc, [ANSWERED_AT]: true };
}
