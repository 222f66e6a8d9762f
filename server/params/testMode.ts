import type { GatewayEnvironment } from '../config.ts';
import { GatewayError } from '../domain/errors.ts';
import type { TestMode } from '../domain/payment.ts';
import { RESULTS } from '../domain/resultCodes.ts';

/**
 * testMode is allowed only in the test environment (spec doc 1 §5); a value other than INTERNAL or EXTERNAL is its
 * own result code (COMPAT §7), checked before the other parameters. Every operation that takes one reads it here.
 */
export function resolveTestMode(params: ReadonlyMap<string, string>, environment: GatewayEnvironment): TestMode | undefined {
  const testMode = params.get('testMode');
  if (testMode === undefined) return environment === 'test' ? 'INTERNAL' : undefined;
  if (environment === 'live') throw new GatewayError(RESULTS.testModeInLive, 400);
  if (testMode !== 'INTERNAL' && testMode !== 'EXTERNAL') throw new GatewayError(RESULTS.invalidTestMode, 400);
  return testMode;
}
