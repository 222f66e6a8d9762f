import { useSignal } from '@preact/signals';
import { useEffect, useId, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';

/**
 * A button for something that cannot be undone (a capture, a refund, a reversal): pressing it asks `question`
 * first, with Confirm and Cancel; Confirm runs `onConfirm` (the button says it is sending meanwhile). `check` runs
 * before asking and may refuse (an invalid amount): then nothing is asked. Focus goes to Confirm when asking, and
 * back to the button after Cancel and, unless `focusAfter` is 'none', when done.
 */
export function ConfirmButton(props: {
  readonly label: string;
  readonly question: () => string;
  readonly onConfirm: () => Promise<unknown>;
  readonly check?: () => boolean;
  readonly disabled?: boolean;
  /** Where the focus goes when `onConfirm` is done: back to the button (default), or nowhere (the caller moves it, e.g. to the answer). */
  readonly focusAfter?: 'button' | 'none';
}) {
  const phase = useSignal<'idle' | 'asking' | 'sending'>('idle');
  const button = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  const question = useSignal('');
  const refocus = useSignal(false);

  useEffect(() => {
    if (phase.value === 'asking') confirm.current?.focus();
    if (phase.value === 'idle' && refocus.peek()) {
      refocus.value = false;
      button.current?.focus();
    }
  }, [phase.value]);

  const ask = () => {
    if (props.check && !props.check()) return;
    question.value = props.question();
    phase.value = 'asking';
  };
  const cancel = () => {
    refocus.value = true;
    phase.value = 'idle';
  };
  const run = async () => {
    phase.value = 'sending';
    try {
      await props.onConfirm();
    } finally {
      refocus.value = props.focusAfter !== 'none';
      phase.value = 'idle';
    }
  };

  if (phase.value === 'idle') {
    return (
      <button type="button" class="button" ref={button} onClick={ask} disabled={props.disabled}>
        {props.label}
      </button>
    );
  }
  const sending = phase.value === 'sending';
  return (
    <div class="confirm" role="group" aria-labelledby={questionId}>
      <p id={questionId} class="confirm-question">
        {question.value}
      </p>
      <button type="button" class="button button-primary" ref={confirm} onClick={() => void run()} disabled={sending} aria-disabled={sending}>
        {sending ? t('actions.sending') : t('actions.confirm')}
      </button>
      <button type="button" class="button" onClick={cancel} disabled={sending}>
        {t('actions.cancel')}
      </button>
    </div>
  );
}
