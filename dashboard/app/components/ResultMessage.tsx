import type { ComponentChildren } from 'preact';
import { ApiError, isSuccessCode } from '../api.ts';
import { t } from '../i18n.ts';
import type { ResultInfo } from '../types.ts';

/**
 * The gateway's answer, as the operator needs it: its description, its result code, and each parameter error
 * (name: message). A success (000.…) is a status, anything else an alert. Give it a `result` (an answer that came
 * back 2xx) or an `error` (what the api client threw: an ApiError with the refusal, or no answer at all).
 */
export function ResultMessage(props: { readonly result?: ResultInfo | undefined; readonly error?: unknown; readonly title?: string; readonly children?: ComponentChildren }) {
  const { description, result } = shown(props.result, props.error);
  const ok = !props.error && result !== undefined && isSuccessCode(result.code);
  return (
    <div class={`message ${ok ? 'message-ok' : 'message-error'}`} role={ok ? 'status' : 'alert'}>
      {props.title && <p class="message-title">{props.title}</p>}
      <p>{description}</p>
      {result && <p class="message-code">{t('result.code', { code: result.code })}</p>}
      {result?.parameterErrors && result.parameterErrors.length > 0 && (
        <>
          <p class="message-title">{t('result.parameterErrors')}</p>
          <ul>
            {result.parameterErrors.map((error, index) => (
              <li key={`${error.name}-${index}`}>
                <code>{error.name}</code>: {error.message}
              </li>
            ))}
          </ul>
        </>
      )}
      {props.children}
    </div>
  );
}

function shown(result: ResultInfo | undefined, error: unknown): { description: string; result?: ResultInfo } {
  if (error instanceof ApiError) {
    if (error.kind === 'network') return { description: t('result.network') };
    if (error.kind === 'malformed' || !error.result) return { description: t('result.malformed', { status: error.status }) };
    return { description: error.result.description, result: error.result };
  }
  if (error !== undefined) return { description: error instanceof Error ? error.message : String(error) };
  return result ? { description: result.description, result } : { description: '' };
}
