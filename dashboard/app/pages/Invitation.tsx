import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { invitationApi } from '../api.ts';
import { Field } from '../components/Field.tsx';
import { LanguagePicker } from '../components/LanguagePicker.tsx';
import { Loading, Page } from '../components/Page.tsx';
import { ResultMessage } from '../components/ResultMessage.tsx';
import { SecondFactor } from '../components/SecondFactor.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { href, navigate } from '../router.ts';
import { HOME } from '../routes.ts';
import { settle } from '../session.ts';
import type { Role, SecondFactorStep } from '../types.ts';

/**
 * An invitation's page (/dashboard/invitation#<code>, the link an operator or a merchant's admin handed over): whom
 * it invites, to which merchant, with which role and until when; the password chosen twice; then, for a role that
 * may move money, the second factor's enrolment (components/SecondFactor.tsx), and the back office. The code is in
 * the address's fragment, which the browser never sends: it reaches the gateway only in the requests made here.
 */

interface Invited {
  readonly email: string;
  readonly merchant: string;
  readonly role: Role;
  readonly expiresAt: string;
}

export function InvitationPage() {
  const code = location.hash.replace(/^#/, '');
  const invited = useSignal<Invited | undefined>(undefined);
  const lookup = useSignal<unknown>(undefined);
  const password = useSignal('');
  const repeated = useSignal('');
  const problems = useSignal<Readonly<Record<string, string>>>({});
  const sending = useSignal(false);
  const error = useSignal<unknown>(undefined);
  const factor = useSignal<SecondFactorStep | undefined>(undefined);

  useEffect(() => {
    invitationApi.show(code).then(
      (answer) => (invited.value = answer.invitation),
      (thrown: unknown) => (lookup.value = thrown),
    );
  }, [code]);

  const signedIn = () => navigate(href(HOME), { replace: true });
  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (password.value.length < 12) found.password = t('invitation.tooShort');
    if (repeated.value !== password.value) found.repeated = t('invitation.different');
    problems.value = found;
    if (Object.keys(found).length > 0 || sending.value) return;
    sending.value = true;
    error.value = undefined;
    try {
      const step = settle(await invitationApi.accept(code, password.value));
      if (step) factor.value = step;
      else signedIn();
    } catch (thrown) {
      error.value = thrown;
    } finally {
      sending.value = false;
    }
  };

  return (
    <div class="sign-in">
      <div class="sign-in-bar">
        <p class="brand">{t('app.name')}</p>
        <LanguagePicker />
      </div>
      <main id="main" class="sign-in-main">
        <Page title={t('invitation.title')}>
          {lookup.value !== undefined ? (
            <ResultMessage error={lookup.value} title={t('invitation.unknown')} />
          ) : !invited.value ? (
            <Loading />
          ) : factor.value ? (
            <>
              <p>{t('invitation.passwordSet')}</p>
              <SecondFactor step={factor.value} onRestart={() => navigate(href('/'), { replace: true })} onSignedIn={signedIn} />
            </>
          ) : (
            <>
              <p>{t('invitation.intro', { email: invited.value.email, merchant: invited.value.merchant, role: t(`users.role.${invited.value.role}`), expires: formatDateTime(invited.value.expiresAt) })}</p>
              {error.value !== undefined && <ResultMessage error={error.value} />}
              <form class="form" onSubmit={(event) => void submit(event)} noValidate>
                <input type="email" name="email" autoComplete="username" value={invited.value.email} readOnly hidden />
                <Field label={t('invitation.password')} hint={t('invitation.passwordHint')} error={problems.value.password}>
                  {(control) => <input {...control} name="password" type="password" autoComplete="new-password" value={password.value} onInput={(event) => (password.value = event.currentTarget.value)} />}
                </Field>
                <Field label={t('invitation.repeat')} error={problems.value.repeated}>
                  {(control) => <input {...control} name="repeated" type="password" autoComplete="new-password" value={repeated.value} onInput={(event) => (repeated.value = event.currentTarget.value)} />}
                </Field>
                <button type="submit" class="button button-primary" aria-disabled={sending.value}>
                  {sending.value ? t('signIn.submitting') : t('invitation.accept')}
                </button>
              </form>
            </>
          )}
        </Page>
      </main>
    </div>
  );
}
