import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

/** What a control inside a Field gets: its id (the label's `for`), its description and invalid state. */
export interface ControlProps {
  readonly id: string;
  readonly 'aria-describedby'?: string;
  readonly 'aria-invalid'?: 'true';
}

/**
 * A labelled control: the label, the control (rendered by `children` with the ids that tie them), a hint and an
 * error, both tied to the control by aria-describedby. Every input of the app goes through it.
 *
 *   <Field label={t('payments.brand')} hint={...}>{(control) => <input {...control} value=... onInput=... />}</Field>
 */
export function Field(props: {
  readonly label: string;
  readonly hint?: string | undefined;
  readonly error?: string | undefined;
  readonly class?: string;
  readonly children: (control: ControlProps) => ComponentChildren;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [props.error ? errorId : '', props.hint ? hintId : ''].filter(Boolean).join(' ');
  const control: ControlProps = {
    id,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(props.error ? { 'aria-invalid': 'true' as const } : {}),
  };
  return (
    <div class={`field${props.error ? ' field-invalid' : ''}${props.class ? ` ${props.class}` : ''}`}>
      <label for={id}>{props.label}</label>
      {props.children(control)}
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}
