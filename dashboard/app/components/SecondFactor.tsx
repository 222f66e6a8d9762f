import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { t } from '../i18n.ts';
import { giveSecondFactor } from '../session.ts';
import type { SecondFactorStep } from '../types.ts';
import { Field } from './Field.tsx';
import { ResultMessage } from './ResultMessage.tsx';

/**
 * The second step of a sign-in for anyone who may move money: at the first sign-in the enrolment of an authenticator
 * app — the key as a QR code (drawn here from the otpauth:// URI; the QR library loads only then), as text to type,
 * and as the URI — confirmed by its first code; afterwards a code at each sign-in. A refused code shows the
 * gateway's answer; an expired sign-in (too many codes, ten minutes) offers to start again.
 */
export function SecondFactor(props: { readonly step: SecondFactorStep; readonly onRestart: () => void; readonly onSignedIn?: () => void }) {
  const { step } = props;
  const code = useSignal('');
  const missing = useSignal(false);
  const sending = useSignal(false);
  const error = useSignal<unknown>(undefined);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
  }, [step.challenge]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const typed = code.value.replace(/\s+/g, '');
    missing.value = typed === '';
    if (missing.value || sending.value) return;
    sending.value = true;
    error.value = undefined;
    try {
      await giveSecondFactor(step.challenge, typed);
      props.onSignedIn?.();
    } catch (thrown) {
      error.value = thrown;
      code.value = '';
      input.current?.focus();
    } finally {
      sending.value = false;
    }
  };
  const expired = error.value instanceof ApiError && /expired/.test(error.value.result?.description ?? '');

  return (
    <div class="second-factor">
      {step.step === 'enrol' && step.secret && step.uri ? <Enrolment secret={step.secret} uri={step.uri} /> : <p>{t('signIn.secondFactor.codeIntro')}</p>}
      {error.value !== undefined && <ResultMessage error={error.value} />}
      <form class="form" onSubmit={(event) => void submit(event)} noValidate>
        <Field label={t('signIn.secondFactor.code')} hint={t('signIn.secondFactor.codeHint')} error={missing.value ? t('signIn.required') : undefined}>
          {(control) => (
            <input
              {...control}
              ref={input}
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]*"
              maxLength={8}
              spellcheck={false}
              value={code.value}
              onInput={(event) => (code.value = event.currentTarget.value)}
            />
          )}
        </Field>
        <div class="buttons">
          <button type="submit" class="button button-primary" aria-disabled={sending.value}>
            {sending.value ? t('signIn.submitting') : step.step === 'enrol' ? t('signIn.secondFactor.enrol') : t('signIn.secondFactor.verify')}
          </button>
          <button type="button" class={expired ? 'button button-primary' : 'button'} onClick={props.onRestart}>
            {t('signIn.secondFactor.restart')}
          </button>
        </div>
      </form>
    </div>
  );
}

/** The new key: as a QR code, as text in groups of four, and as the URI. */
function Enrolment(props: { readonly secret: string; readonly uri: string }) {
  const modules = useSignal<boolean[][] | undefined>(undefined);
  useEffect(() => {
    let live = true;
    import('uqr')
      .then(({ encode }) => {
        if (live) modules.value = encode(props.uri, { ecc: 'M', border: 4 }).data;
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [props.uri]);
  const grid = modules.value;
  return (
    <div class="enrolment">
      <h2>{t('signIn.secondFactor.enrolTitle')}</h2>
      <p>{t('signIn.secondFactor.enrolIntro')}</p>
      {grid && (
        <svg class="qr-code" role="img" aria-label={t('signIn.secondFactor.qr')} viewBox={`0 0 ${grid.length} ${grid.length}`} width={200} height={200} shape-rendering="crispEdges">
          <rect width={grid.length} height={grid.length} fill="#fff" />
          <path fill="#000" d={grid.flatMap((row, y) => row.flatMap((dark, x) => (dark ? [`M${x} ${y}h1v1h-1z`] : []))).join('')} />
        </svg>
      )}
      <dl class="facts">
        <dt>{t('signIn.secondFactor.secret')}</dt>
        <dd>
          <code class="mono" data-secret={props.secret}>
            {props.secret.match(/.{1,4}/g)?.join(' ')}
          </code>
        </dd>
        <dt>{t('signIn.secondFactor.uri')}</dt>
        <dd>
          <code class="mono once-shown-value">{props.uri}</code>
        </dd>
      </dl>
    </div>
  );
}
