import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { Field } from '../components/Field.tsx';
import { LanguagePicker } from '../components/LanguagePicker.tsx';
import { Page } from '../components/Page.tsx';
import { ResultMessage } from '../components/ResultMessage.tsx';
import { SecondFactor } from '../components/SecondFactor.tsx';
import { t } from '../i18n.ts';
import { signIn } from '../session.ts';
import { sessionEnded } from '../state.ts';
import type { SecondFactorStep } from '../types.ts';

type Method = 'operator' | 'merchant';

/**
 * Sign-in: an operator with name and password, or a merchant user with e-mail address and password (the choice is a
 * radio group); then, for anyone who may move money, the second factor (components/SecondFactor.tsx). What the API
 * answers to a refused sign-in (wrong credentials, too many attempts) shows above the form.
 */
export function SignInPage() {
  const method = useSignal<Method>('operator');
  const operator = useSignal('');
  const password = useSignal('');
  const email = useSignal('');
  const factor = useSignal<SecondFactorStep | undefined>(undefined);
  const missing = useSignal<readonly string[]>([]);
  const sending = useSignal(false);
  const error = useSignal<unknown>(undefined);
  const form = useRef<HTMLFormElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const name = method.value === 'operator' ? operator : email;
    const empty = [name.value.trim() ? '' : method.value, password.value ? '' : 'password'].filter(Boolean);
    missing.value = empty;
    if (empty.length > 0 || sending.value) return;
    sending.value = true;
    error.value = undefined;
    try {
      factor.value = await signIn(method.value === 'operator' ? { operator: operator.value.trim(), password: password.value } : { email: email.value.trim(), password: password.value });
      password.value = '';
    } catch (thrown) {
      error.value = thrown;
      password.value = '';
    } finally {
      sending.value = false;
    }
  };
  // The first field left empty takes the focus once it shows as invalid.
  useEffect(() => {
    if (missing.value.length > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [missing.value]);
  const required = (name: string) => (missing.value.includes(name) ? t('signIn.required') : undefined);

  return (
    <div class="sign-in">
      <div class="sign-in-bar">
        <p class="brand">{t('app.name')}</p>
        <LanguagePicker />
      </div>
      <main id="main" class="sign-in-main">
        <Page title={t('signIn.title')}>
          {sessionEnded.value && (
            <p class="message message-info" role="status">
              {t('app.sessionEnded')}
            </p>
          )}
          {factor.value ? (
            <SecondFactor step={factor.value} onRestart={() => (factor.value = undefined)} />
          ) : (
            <>
              {error.value !== undefined && <ResultMessage error={error.value} />}
              <form ref={form} class="form" onSubmit={(event) => void submit(event)} noValidate>
                <fieldset class="choice">
                  <legend>{t('signIn.as')}</legend>
                  {(['operator', 'merchant'] as const).map((value) => (
                    <label key={value} class="choice-option">
                      <input
                        type="radio"
                        name="method"
                        value={value}
                        checked={method.value === value}
                        onChange={() => {
                          method.value = value;
                          missing.value = [];
                        }}
                      />
                      {t(`signIn.${value}`)}
                    </label>
                  ))}
                </fieldset>
                {method.value === 'operator' ? (
                  <Field label={t('signIn.operatorName')} error={required('operator')}>
                    {(control) => (
                      <input {...control} name="operator" autoComplete="username" autoCapitalize="none" spellcheck={false} value={operator.value} onInput={(event) => (operator.value = event.currentTarget.value)} />
                    )}
                  </Field>
                ) : (
                  <Field label={t('signIn.email')} error={required('merchant')}>
                    {(control) => (
                      <input {...control} name="email" type="email" autoComplete="username" autoCapitalize="none" spellcheck={false} value={email.value} onInput={(event) => (email.value = event.currentTarget.value)} />
                    )}
                  </Field>
                )}
                <Field label={t('signIn.password')} error={required('password')}>
                  {(control) => <input {...control} name="password" type="password" autoComplete="current-password" value={password.value} onInput={(event) => (password.value = event.currentTarget.value)} />}
                </Field>
                <button type="submit" class="button button-primary" aria-disabled={sending.value}>
                  {sending.value ? t('signIn.submitting') : t('signIn.submit')}
                </button>
              </form>
            </>
          )}
        </Page>
      </main>
    </div>
  );
}
