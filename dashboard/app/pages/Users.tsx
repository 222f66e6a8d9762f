import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EntityPicker } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { mayDo } from '../roles.ts';
import { selectedEntity, session } from '../state.ts';
import type { Role } from '../types.ts';
import { usersApi, type InvitationAnswer, type MerchantUser } from '../usersApi.ts';

/**
 * The merchant users, for an operator (every merchant's, or the picked entity's) and a merchant's admin (theirs):
 * who, with which role, whether they accepted their invitation (until when it is open) and enrolled a second factor.
 * An invitation's link is shown once, here, to hand over; a role is changed in place; a user is removed after
 * confirming (their sessions end); an operator resets a lost second factor. Nobody changes or removes themselves.
 */

const ROLES: readonly Role[] = ['viewer', 'refunds', 'admin'];

export function UsersPage() {
  if (!mayDo('admin')) {
    return (
      <Page title={t('users.title')}>
        <p class="message message-info">{t('users.adminsOnly')}</p>
      </Page>
    );
  }
  return <UsersList />;
}

function UsersList() {
  const operator = mayDo('operator');
  const me = session.value?.principal.name;
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => usersApi.list(entityId ? { entityId } : {}, signal), [entityId]);
  const answers = useOutcome();
  const link = useSignal<{ readonly email: string; readonly link: string; readonly expiresAt: string } | undefined>(undefined);
  const state = loaded.value;

  const act = async (title: string, work: () => Promise<{ result: Parameters<typeof answers.done>[1] }>) => {
    try {
      answers.done(title, (await work()).result);
    } catch (error) {
      answers.failed(title, error);
    }
    reload();
  };
  const invited = (answer: InvitationAnswer) => (link.value = { email: answer.user.email, link: answer.invitation.link, expiresAt: answer.invitation.expiresAt });

  const columns: Column<MerchantUser>[] = [
    { key: 'email', header: t('users.column.email'), cell: (row) => row.email },
    ...(operator ? [{ key: 'merchant', header: t('users.column.merchant'), cell: (row: MerchantUser) => row.merchant }] : []),
    {
      key: 'role',
      header: t('users.column.role'),
      cell: (row) =>
        row.email === me ? (
          t(`users.role.${row.role}`)
        ) : (
          <select
            aria-label={t('users.roleOf', { email: row.email })}
            value={row.role}
            onChange={(event) => {
              const role = event.currentTarget.value as Role;
              void act(t('users.roleChanged', { email: row.email, role: t(`users.role.${role}`) }), () => usersApi.setRole(row.id, role));
            }}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {t(`users.role.${role}`)}
              </option>
            ))}
          </select>
        ),
    },
    {
      key: 'status',
      header: t('payments.column.status'),
      cell: (row) =>
        row.status === 'active' ? (
          <span class="badge badge-approved">{row.secondFactor ? t('users.activeWithFactor') : t('users.active')}</span>
        ) : (
          <span class="badge badge-pending">{row.invitationExpiresAt ? t('users.invitedUntil', { at: formatDateTime(row.invitationExpiresAt) }) : t('users.invitationExpired')}</span>
        ),
    },
    { key: 'invitedBy', header: t('users.column.invitedBy'), cell: (row) => row.invitedBy },
    {
      key: 'actions',
      header: t('pages.schedules.column.actions'),
      cell: (row) =>
        row.email === me ? (
          ''
        ) : (
          <div class="buttons">
            {row.status === 'invited' && (
              <button type="button" class="button" onClick={() => void act(t('users.reinvited', { email: row.email }), async () => {
                const answer = await usersApi.reinvite(row.id);
                invited(answer);
                return answer;
              })}>
                {t('users.reinvite')}
              </button>
            )}
            {operator && row.secondFactor && (
              <ConfirmButton
                label={t('users.resetFactor')}
                question={() => t('users.confirmResetFactor', { email: row.email })}
                onConfirm={() => act(t('users.factorReset', { email: row.email }), () => usersApi.resetSecondFactor(row.id))}
                focusAfter="none"
              />
            )}
            <ConfirmButton
              label={t('users.remove')}
              question={() => t('users.confirmRemove', { email: row.email })}
              onConfirm={() => act(t('users.removed', { email: row.email }), () => usersApi.remove(row.id))}
              focusAfter="none"
            />
          </div>
        ),
    },
  ];

  return (
    <Page title={t('users.title')}>
      <p>{t('users.intro')}</p>
      {operator && <EntityPicker allowAll />}
      <OutcomeMessage outcome={answers.outcome} />
      {link.value && (
        <LinkShown
          title={t('users.invitationLink', { email: link.value.email })}
          link={link.value.link}
          note={t('users.invitationNote', { expires: formatDateTime(link.value.expiresAt) })}
          onHide={() => (link.value = undefined)}
        />
      )}
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && <Table caption={t('users.caption')} columns={columns} rows={state.data.users} rowKey={(row) => row.id} empty={t('users.empty')} />}
      <Section title={t('users.invite')} id="user-invite">
        <InviteForm
          onInvited={(title, answer) => {
            answers.done(title, answer.result);
            invited(answer);
            reload();
          }}
          onFailed={answers.failed}
        />
      </Section>
    </Page>
  );
}

function InviteForm(props: { readonly onInvited: (title: string, answer: InvitationAnswer) => void; readonly onFailed: (title: string, error: unknown) => void }) {
  const entities = session.value?.entities ?? [];
  const operator = mayDo('operator');
  const email = useSignal('');
  const role = useSignal<Role>('viewer');
  const entityId = useSignal(selectedEntity.value || entities[0]?.id || '');
  const sending = useSignal(false);
  const invite = async (event: Event) => {
    event.preventDefault();
    if (sending.value) return;
    sending.value = true;
    const title = t('users.invited', { email: email.value.trim() });
    try {
      const answer = await usersApi.invite({ ...(operator ? { entityId: entityId.value } : {}), email: email.value.trim(), role: role.value });
      email.value = '';
      props.onInvited(title, answer);
    } catch (error) {
      props.onFailed(title, error);
    } finally {
      sending.value = false;
    }
  };
  return (
    <form class="form" onSubmit={(event) => void invite(event)} noValidate>
      {operator && (
        <Field label={t('entity.label')}>
          {(control) => (
            <select {...control} name="entityId" value={entityId.value} onChange={(event) => (entityId.value = event.currentTarget.value)}>
              {entities.map((entity) => (
                <option key={entity.id} value={entity.id}>
                  {entity.name} ({entity.id.slice(0, 8)}…)
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <Field label={t('users.email')}>
        {(control) => <input {...control} type="email" name="email" autoComplete="off" value={email.value} onInput={(event) => (email.value = event.currentTarget.value)} />}
      </Field>
      <fieldset class="choice">
        <legend>{t('users.column.role')}</legend>
        {ROLES.map((value) => (
          <label key={value} class="choice-option">
            <input type="radio" name="role" value={value} checked={role.value === value} onChange={() => (role.value = value)} />
            {t(`users.role.${value}`)} — {t(`users.roleHint.${value}`)}
          </label>
        ))}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="button button-primary" disabled={sending.value} aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('users.send')}
        </button>
      </div>
    </form>
  );
}

/** An invitation's link, answered once: shown in full, selectable, until hidden; it takes the focus when it appears. */
function LinkShown(props: { readonly title: string; readonly link: string; readonly note: string; readonly onHide: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    box.current?.focus();
  }, [props.link]);
  return (
    <div ref={box} tabIndex={-1} class="message message-info once-shown" role="group" aria-label={props.title}>
      <p class="message-title">{props.title}</p>
      <p>
        <code class="mono once-shown-value">{props.link}</code>
      </p>
      <p>{props.note}</p>
      <div class="buttons">
        <button type="button" class="button" onClick={props.onHide}>
          {t('users.hideLink')}
        </button>
      </div>
    </div>
  );
}
