import { RESULTS, describeResultCode, RESULT_CODE_FORMAT } from '../domain/resultCodes.ts';
import type { Acquirer, AcquirerAnswer, AuthorizationRequest, BackOfficeRequest, RedirectPaymentRequest, TestMode } from './types.ts';

/** Cards the simulator declines whatever else the request says (COMPAT §7). */
const DECLINED_CARDS: ReadonlyMap<string, string> = new Map([['4444444444444444', RESULTS.invalidCard.code]]);

function success(testMode: TestMode | undefined): AcquirerAnswer {
  const result =
    testMode === 'EXTERNAL'
      ? RESULTS.testModeExternalSuccess
      : testMode === 'INTERNAL'
        ? RESULTS.testModeInternalSuccess
        : RESULTS.succeeded;
  return answer(result.code, result.description);
}

function answer(code: string, description = describeResultCode(code)): AcquirerAnswer {
  return { code, description, details: { AcquirerResponse: code.replace(/\./g, ''), ConnectorTxID1: 'SIMULATOR' } };
}

/**
 * The test-mode acquirer. Deterministic: the card number and `card.holder` decide the answer, so
 * merchants can test declines by sending a result code as the holder name (COMPAT §7).
 */
export function createSimulatedAcquirer(name = 'simulator'): Acquirer {
  return {
    name,
    async authorize(request: AuthorizationRequest): Promise<AcquirerAnswer> {
      const holder = request.card.holder?.trim();
      if (holder && RESULT_CODE_FORMAT.test(holder)) return answer(holder);
      const declined = DECLINED_CARDS.get(request.card.number);
      if (declined) return answer(declined);
      return success(request.testMode);
    },
    async confirmRedirectPayment(request: RedirectPaymentRequest): Promise<AcquirerAnswer> {
      return success(request.testMode);
    },
    async backOffice(request: BackOfficeRequest): Promise<AcquirerAnswer> {
      return success(request.testMode);
    },
  };
}
