import { useSignal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { OnceShown } from '../components/OnceShown.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { selectedEntity, session } from '../state.ts';
import { tokensApi, type AccessToken } from '../tokensApi.ts';

/**
 * Access tokens, for operators: every merchant's tokens (or the picked entity's) — id, label, the entities each may
 * act for, when it was made, last used and revoked; never the token. A new token is made for the entities ticked and
 * shown once, here; a token is revoked after confirming (API calls with it are refused within TOKEN_CACHE_SECONDS,
 * its dashboard sessions end at once). A merchant never sees this page (the API refuses it anyway).
 */

export function TokensPage() {
  const operator = session.value?.principal.kind === 'operator';
  if (!operator) {
    return (
      <Page title={t('pages.tokens.title')}>
        <p class="message message-info">{t('pages.tokens.operatorsOnly')}</p>
      </Page>
    );
  }
  return <TokensList />;
}

function TokensList() {
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => tokensApi.list(entityId ? { entityId } : {}, signal), [entityId]);
  const answers = useOutcome();
  const shown = useSignal<{ readonly label: string; readonly token: string } | undefined>(undefined);
  const state = loaded.value;

  const revoke = async (token: AccessToken) => {
    const title = t('pages.tokens.revoked', { label: token.label });
    try {
      const answer = await tokensApi.revoke(token.id);
      answers.done(title, answer.result);
    } catch (error) {
      answers.failed(title, error);
    }
    reload();
  };

  const columns: Column<AccessToken>[] = [
    { key: 'label', header: t('pages.tokens.column.label'), cell: (row) => row.label },
    { key: 'id', header: t('pages.tokens.column.id'), cell: (row) => <span class="mono">{row.id}</span> },
    { key: 'entities', header: t('pages.tokens.column.entities'), cell: (row) => row.entityIds.map(entityName).join(', ') },
    { key: 'created', header: t('pages.registrations.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    { key: 'lastUsed', header: t('pages.registrations.column.lastUsed'), cell: (row) => (row.lastUsedAt ? formatDateTime(row.lastUsedAt) : t('pages.tokens.neverUsed')) },
    {
      key: 'status',
      header: t('payments.column.status'),
      cell: (row) =>
        row.revokedAt ? (
          <span class="badge badge-declined">{t('pages.tokens.revokedAt', { at: formatDateTime(row.revokedAt) })}</span>
        ) : (
          <span class="badge badge-approved">{t('pages.tokens.active')}</span>
        ),
    },
    {
      key: 'actions',
      header: t('pages.schedules.column.actions'),
      cell: (row) =>
        row.revokedAt ? (
          ''
        ) : (
          <ConfirmButton
            label={t('pages.tokens.revoke')}
            question={() => t('pages.tokens.confirmRevoke', { label: row.label, entities: row.entityIds.map(entityName).join(', ') })}
            onConfirm={() => revoke(row)}
            focusAfter="none"
          />
        ),
    },
  ];

  return (
    <Page title={t('pages.tokens.title')}>
      <p>{t('pages.tokens.intro')}</p>
      <EntityPicker allowAll />
      <OutcomeMessage outcome={answers.outcome} />
      {shown.value && (
        <OnceShown
          title={t('pages.tokens.newToken', { label: shown.value.label })}
          value={shown.value.token}
          note={t('pages.tokens.newTokenNote')}
          onHide={() => (shown.value = undefined)}
        />
      )}
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && <Table caption={t('pages.tokens.caption')} columns={columns} rows={state.data.tokens} rowKey={(row) => row.id} empty={t('pages.tokens.empty')} />}
      <Section title={t('pages.tokens.add')} id="token-add">
        <NewTokenForm
          onCreated={(title, answer) => {
            answers.done(title, answer.result);
            shown.value = { label: answer.token.label, token: answer.accessToken };
            reload();
          }}
          onFailed={answers.failed}
        />
      </Section>
    </Page>
  );
}

function NewTokenForm(props: {
  readonly onCreated: (title: string, answer: Awaited<ReturnType<typeof tokensApi.create>>) => void;
  readonly onFailed: (title: string, error: unknown) => void;
}) {
  const entities = session.value?.entities ?? [];
  const label = useSignal('');
  const chosen = useSignal<readonly string[]>(selectedEntity.value ? [selectedEntity.value] : []);
  const sending = useSignal(false);
  const toggle = (id: string, on: boolean) => {
    chosen.value = on ? entities.map((entity) => entity.id).filter((known) => known === id || chosen.value.includes(known)) : chosen.value.filter((known) => known !== id);
  };
  const create = async (event: Event) => {
    event.preventDefault();
    if (sending.value) return;
    sending.value = true;
    const title = t('pages.tokens.created', { label: label.value.trim() || 'token' });
    try {
      const answer = await tokensApi.create({ ...(label.value.trim() ? { label: label.value.trim() } : {}), entityIds: chosen.value });
      label.value = '';
      props.onCreated(title, answer);
    } catch (error) {
      props.onFailed(title, error);
    } finally {
      sending.value = false;
    }
  };
  return (
    <form class="form" onSubmit={(event) => void create(event)} noValidate>
      <Field label={t('pages.tokens.label')} hint={t('pages.tokens.labelHint')}>
        {(control) => <input {...control} type="text" name="label" maxLength={200} autoComplete="off" value={label.value} onInput={(event) => (label.value = event.currentTarget.value)} />}
      </Field>
      <fieldset class="choice">
        <legend>{t('pages.tokens.column.entities')}</legend>
        {entities.map((entity) => (
          <label key={entity.id} class="choice-option">
            <input type="checkbox" name="entityIds" value={entity.id} checked={chosen.value.includes(entity.id)} onChange={(event) => toggle(entity.id, event.currentTarget.checked)} />
            {entity.name}
          </label>
        ))}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="button button-primary" disabled={sending.value} aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('pages.tokens.create')}
        </button>
      </div>
    </form>
  );
}
