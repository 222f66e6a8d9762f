import { useSignal, type Signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import type { ResultInfo } from '../types.ts';
import { ResultMessage } from './ResultMessage.tsx';

/**
 * The answer to the last thing asked on a part of a page (a setting saved, a file sent again): the gateway's result
 * when it came back 2xx, else what the api client threw (a refusal with its parameterErrors, no answer). Shown by
 * <OutcomeMessage>, which takes the focus each time a new answer comes, so a keyboard or screen-reader user hears it.
 */
export interface Outcome {
  readonly title: string;
  readonly result?: ResultInfo | undefined;
  readonly error?: unknown;
  /** Counts answers: the same answer twice is shown (and focused) again. */
  readonly serial: number;
}

export function useOutcome(): { readonly outcome: Signal<Outcome | undefined>; done(title: string, result: ResultInfo): void; failed(title: string, error: unknown): void } {
  const outcome = useSignal<Outcome | undefined>(undefined);
  const next = () => (outcome.peek()?.serial ?? 0) + 1;
  return {
    outcome,
    done: (title, result) => {
      outcome.value = { title, result, serial: next() };
    },
    failed: (title, error) => {
      outcome.value = { title, error, serial: next() };
    },
  };
}

/** What a form asks of the gateway with, and where each answer goes (the part of the page around it: useOutcome). */
export interface Answered<A> {
  readonly onSaved: (answer: A, title: string) => void;
  readonly onFailed: (title: string, error: unknown) => void;
}

/**
 * A settings form's requests: each answer handed to `onSaved`, each refusal (or no answer) to `onFailed`, under the
 * title of what was asked. `submit` is the form's own, one at a time (`sending` meanwhile; a second submit is
 * ignored); `ask` any other (a removal). Both tell whether the gateway took it.
 */
export function useSaving<A>(answered: Answered<A>): {
  readonly sending: Signal<boolean>;
  submit(title: string, request: () => Promise<A>): Promise<boolean>;
  ask(title: string, request: () => Promise<A>): Promise<boolean>;
} {
  const sending = useSignal(false);
  const ask = async (title: string, request: () => Promise<A>): Promise<boolean> => {
    try {
      answered.onSaved(await request(), title);
      return true;
    } catch (error) {
      answered.onFailed(title, error);
      return false;
    }
  };
  return {
    sending,
    async submit(title, request) {
      if (sending.value) return false;
      sending.value = true;
      try {
        return await ask(title, request);
      } finally {
        sending.value = false;
      }
    },
    ask,
  };
}

/** An answer's title: what was asked ("Answer of the gateway: Save the brands"). */
export const answerTitle = (asked: string): string => `${t('actions.answer')}: ${asked}`;

export function OutcomeMessage(props: { readonly outcome: Signal<Outcome | undefined> }) {
  const box = useRef<HTMLDivElement>(null);
  const shown = props.outcome.value;
  useEffect(() => {
    if (shown) box.current?.focus();
  }, [shown?.serial]);
  if (!shown) return null;
  return (
    <div ref={box} tabIndex={-1} class="outcome">
      <ResultMessage title={shown.title} result={shown.result} error={shown.error} />
    </div>
  );
}
