import { useSignal, type Signal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { currentEntityId, EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { OnceShown } from '../components/OnceShown.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { NOTIFICATION_TYPES, webhooksApi, type Activation, type NewWebhookAnswer, type Webhook } from '../recordsApi.ts';
import { href } from '../router.ts';
import { selectedEntity, session } from '../state.ts';
import type { ResultInfo } from '../types.ts';
import { mayDo } from '../roles.ts';

/**
 * Webhooks: the entity's (or all the principal's) webhooks — address, types, status — each with a test message, a
 * switch off (asked first: what happens while it is off is never sent to it) and on, and its page (/webhooks/:id:
 * its settings changed, deleted, its deliveries); and a form to add one. The form takes a secret the merchant chose
 * (write-only), or leaves the gateway to generate one, shown here once and never again.
 */

const BADGES: Readonly<Record<string, string>> = { active: 'approved', pending: 'pending', inactive: 'declined' };

export function WebhookStatus(props: { readonly webhook: Webhook }) {
  const { status, statusReason } = props.webhook;
  return (
    <>
      <span class={`badge badge-${BADGES[status] ?? 'other'}`}>{t(`pages.webhooks.status.${status}`, { defaultValue: status })}</span>
      {statusReason && (
        <>
          <br />
          {statusReason}
        </>
      )}
    </>
  );
}

/** What a test (activation) message gave, in words. */
export function activationText(activation: Activation): string {
  if (activation.delivered) return t('pages.webhooks.delivered', { status: activation.httpStatus ?? '' });
  if (activation.httpStatus !== null) return t('pages.webhooks.notDeliveredStatus', { status: activation.httpStatus });
  return t('pages.webhooks.notDelivered', { error: activation.error ?? '' });
}

export function WebhooksPage() {
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => webhooksApi.list(entityId ? { entityId } : {}, signal), [entityId]);
  const answers = useOutcome();
  const state = loaded.value;
  const several = (session.value?.entities.length ?? 0) > 1;

  const shownSecret = useSignal<{ readonly url: string; readonly secret: string } | undefined>(undefined);

  const test = async (webhook: Webhook) => {
    const title = t('pages.webhooks.tested', { url: webhook.url });
    try {
      const answer = await webhooksApi.test(webhook.id);
      answers.done(`${title} ${activationText(answer.activation)}`, answer.result);
    } catch (error) {
      answers.failed(title, error);
    }
    reload();
  };
  const switchOver = async (webhook: Webhook, active: boolean) => {
    await switchWebhook(webhook, active, answers);
    reload();
  };

  const columns: (Column<Webhook> | false)[] = [
    { key: 'url', header: t('pages.webhooks.column.url'), cell: (row) => <span class="mono">{row.url}</span> },
    several && { key: 'entity', header: t('payments.column.entity'), cell: (row) => entityName(row.entityId) },
    { key: 'types', header: t('pages.webhooks.column.types'), cell: (row) => row.types.join(', ') },
    { key: 'format', header: t('pages.webhooks.column.format'), cell: (row) => `${row.fields}, ${row.wrapper}` },
    { key: 'status', header: t('payments.column.status'), cell: (row) => <WebhookStatus webhook={row} /> },
    { key: 'created', header: t('pages.registrations.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    mayDo('admin') && {
      key: 'actions',
      header: t('pages.schedules.column.actions'),
      cell: (row) => (
        <div class="buttons">
          <button type="button" class="button" onClick={() => void test(row)}>
            {t('pages.webhooks.test')}
          </button>
          <SwitchButton webhook={row} onSwitch={(active) => switchOver(row, active)} />
          <Link href={href(`/webhooks/${encodeURIComponent(row.id)}`)} class="button">
            {t('pages.webhooks.manage')}
          </Link>
        </div>
      ),
    },
  ];

  return (
    <Page title={t('pages.webhooks.title')}>
      <p>{t('pages.webhooks.intro')}</p>
      <EntityPicker allowAll />
      <OutcomeMessage outcome={answers.outcome} />
      {shownSecret.value && (
        <OnceShown
          title={t('pages.webhooks.newSecret', { url: shownSecret.value.url })}
          value={shownSecret.value.secret}
          note={t('pages.webhooks.newSecretNote')}
          onHide={() => (shownSecret.value = undefined)}
        />
      )}
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <Table
          caption={t('pages.webhooks.caption')}
          columns={columns.filter((column): column is Column<Webhook> => column !== false)}
          rows={state.data.webhooks}
          rowKey={(row) => row.id}
          empty={t('pages.webhooks.empty')}
        />
      )}
      {mayDo('admin') && <Section title={t('pages.webhooks.add')} id="webhook-add">
        <p class="message message-info" role="note">
          {t('pages.webhooks.secretNote')}
        </p>
        <NewWebhookForm
          onCreated={(title, answer, created) => {
            answers.done(title, answer);
            shownSecret.value = created.secret ? { url: created.webhook.url, secret: created.secret } : undefined;
            reload();
          }}
          onFailed={answers.failed}
        />
      </Section>}
    </Page>
  );
}

/** Switches the webhook off (false) or on again (true: pending until its activation message gets a 2xx), the answer shown. */
export async function switchWebhook(webhook: Webhook, active: boolean, answers: ReturnType<typeof useOutcome>): Promise<boolean> {
  const title = t(active ? 'pages.webhooks.switchedOn' : 'pages.webhooks.switchedOff', { url: webhook.url });
  try {
    const answer = await webhooksApi.change(webhook.id, { active });
    const status = t(`pages.webhooks.status.${answer.webhook.status}`, { defaultValue: answer.webhook.status });
    answers.done(`${title} ${status}.${answer.activation ? ` ${activationText(answer.activation)}` : ''}`, answer.result);
    return true;
  } catch (error) {
    answers.failed(title, error);
    return false;
  }
}

/** Switch off (asked first: events while it is off are never sent to it), or on again. */
export function SwitchButton(props: { readonly webhook: Webhook; readonly onSwitch: (active: boolean) => Promise<unknown> }) {
  const { webhook } = props;
  if (webhook.status === 'inactive') {
    return (
      <button type="button" class="button" onClick={() => void props.onSwitch(true)}>
        {t('pages.webhooks.switchOn')}
      </button>
    );
  }
  return (
    <ConfirmButton
      label={t('pages.webhooks.switchOff')}
      question={() => t('pages.webhooks.confirmSwitchOff', { url: webhook.url })}
      onConfirm={() => props.onSwitch(false)}
      focusAfter="none"
    />
  );
}

/** The settings a webhook is made with and changed to (the form's signals are the caller's). */
export interface WebhookSettingsState {
  readonly url: Signal<string>;
  readonly types: Signal<readonly string[]>;
  readonly fields: Signal<string>;
  readonly wrapper: Signal<string>;
}

export function useWebhookSettings(initial?: Webhook): WebhookSettingsState {
  return {
    url: useSignal(initial?.url ?? ''),
    types: useSignal<readonly string[]>(initial ? [...initial.types] : [...NOTIFICATION_TYPES]),
    fields: useSignal<string>(initial?.fields ?? 'ALL'),
    wrapper: useSignal<string>(initial?.wrapper ?? 'NONE'),
  };
}

/** The address, the notification types, the data and the wrapper: the fields of both forms. */
export function WebhookSettingsFields(props: { readonly settings: WebhookSettingsState }) {
  const { url, types, fields, wrapper } = props.settings;
  const toggle = (type: string, on: boolean) => {
    types.value = on ? NOTIFICATION_TYPES.filter((known) => known === type || types.value.includes(known)) : types.value.filter((known) => known !== type);
  };
  return (
    <>
      <Field label={t('pages.webhooks.url')} hint={t('pages.webhooks.urlHint')}>
        {(control) => <input {...control} type="url" name="url" required autoComplete="off" value={url.value} onInput={(event) => (url.value = event.currentTarget.value)} />}
      </Field>
      <fieldset class="choice">
        <legend>{t('pages.webhooks.column.types')}</legend>
        {NOTIFICATION_TYPES.map((type) => (
          <label key={type} class="choice-option">
            <input type="checkbox" name="types" value={type} checked={types.value.includes(type)} onChange={(event) => toggle(type, event.currentTarget.checked)} />
            {t(`pages.webhooks.type.${type}`)}
          </label>
        ))}
      </fieldset>
      <Field label={t('pages.webhooks.fields')}>
        {(control) => (
          <select {...control} name="fields" value={fields.value} onChange={(event) => (fields.value = event.currentTarget.value)}>
            <option value="ALL">{t('pages.webhooks.fieldsAll')}</option>
            <option value="NON_CUSTOMER_DATA">{t('pages.webhooks.fieldsNonCustomer')}</option>
          </select>
        )}
      </Field>
      <Field label={t('pages.webhooks.wrapper')}>
        {(control) => (
          <select {...control} name="wrapper" value={wrapper.value} onChange={(event) => (wrapper.value = event.currentTarget.value)}>
            <option value="NONE">{t('pages.webhooks.wrapperNone')}</option>
            <option value="JSON">{t('pages.webhooks.wrapperJson')}</option>
          </select>
        )}
      </Field>
    </>
  );
}

function NewWebhookForm(props: {
  readonly onCreated: (title: string, result: ResultInfo, answer: NewWebhookAnswer) => void;
  readonly onFailed: (title: string, error: unknown) => void;
}) {
  const entities = session.value?.entities ?? [];
  const entityId = useSignal(currentEntityId() ?? '');
  const settings = useWebhookSettings();
  const { url, types, fields, wrapper } = settings;
  const secret = useSignal('');
  const sending = useSignal(false);

  const create = async (event: Event) => {
    event.preventDefault();
    if (sending.value) return;
    sending.value = true;
    const title = t('pages.webhooks.created', { url: url.value.trim() });
    try {
      const answer = await webhooksApi.create({
        entityId: entityId.value,
        url: url.value.trim(),
        types: types.value,
        fields: fields.value,
        wrapper: wrapper.value,
        ...(secret.value.trim() ? { secret: secret.value.trim() } : {}),
      });
      secret.value = '';
      url.value = '';
      props.onCreated(`${title} ${t(`pages.webhooks.status.${answer.webhook.status}`)}. ${activationText(answer.activation)}`, answer.result, answer);
    } catch (error) {
      props.onFailed(title, error);
    } finally {
      sending.value = false;
    }
  };

  return (
    <form class="form" onSubmit={(event) => void create(event)} noValidate>
      {entities.length > 1 && (
        <Field label={t('entity.label')}>
          {(control) => (
            <select {...control} name="entityId" value={entityId.value} onChange={(event) => (entityId.value = event.currentTarget.value)}>
              {entities.map((entity) => (
                <option key={entity.id} value={entity.id}>
                  {entity.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <WebhookSettingsFields settings={settings} />
      <Field label={t('pages.webhooks.secret')} hint={t('pages.webhooks.secretHint')}>
        {(control) => (
          <input {...control} type="password" name="secret" autoComplete="off" spellcheck={false} value={secret.value} onInput={(event) => (secret.value = event.currentTarget.value)} />
        )}
      </Field>
      <div class="buttons">
        <button type="submit" class="button button-primary" disabled={sending.value} aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('pages.webhooks.create')}
        </button>
      </div>
    </form>
  );
}
