import { useSignal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { entityName } from '../components/EntityPicker.tsx';
import { factsOf } from '../components/Facts.tsx';
import { Link } from '../components/Link.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { Table } from '../components/Table.tsx';
import { formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { webhooksApi, type ChangedWebhookAnswer, type DeliveriesAnswer, type Delivery, type RecordedAction, type Webhook } from '../recordsApi.ts';
import { href } from '../router.ts';
import type { PageProps } from '../router.ts';
import { activationText, SwitchButton, switchWebhook, useWebhookSettings, WebhookSettingsFields, WebhookStatus } from './Webhooks.tsx';
import { mayDo } from '../roles.ts';

/**
 * One webhook: its settings (never its secret), a test message, a switch off (asked first) and on, its settings
 * changed (a new address makes it pending until its activation message gets a 2xx), its deletion (asked first; its
 * pending deliveries and its secret go with it), its latest deliveries with every attempt (time, HTTP status,
 * latency, error), each of which can be sent again (asked first: the receiver gets it once more), and what was done
 * to it through the dashboard.
 */

const STATE_BADGES: Readonly<Record<string, string>> = { delivered: 'approved', pending: 'pending', 'given up': 'declined' };

export function WebhookDetailPage(props: PageProps) {
  const id = props.params.id ?? '';
  const { loaded, reload } = useLoad((signal) => webhooksApi.deliveries(id, signal), [id]);
  const answers = useOutcome();
  const state = loaded.value;
  const title = state.state === 'done' ? t('pages.webhooks.detailTitle', { url: state.data.webhook.url }) : t('pages.webhooks.title');

  const test = async () => {
    const heading = t('pages.webhooks.testTitle');
    try {
      const answer = await webhooksApi.test(id);
      answers.done(`${heading} ${activationText(answer.activation)}`, answer.result);
    } catch (error) {
      answers.failed(heading, error);
    }
    reload();
  };
  const switchOver = async (webhook: Webhook, active: boolean) => {
    await switchWebhook(webhook, active, answers);
    reload();
  };
  const deleted = useSignal(false);
  const remove = async (webhook: Webhook) => {
    const heading = t('pages.webhooks.deleted', { url: webhook.url });
    try {
      const answer = await webhooksApi.remove(webhook.id);
      deleted.value = true;
      answers.done(heading, answer.result);
    } catch (error) {
      answers.failed(heading, error);
      reload();
    }
  };
  const resend = async (delivery: Delivery) => {
    const heading = t('pages.webhooks.resent', { id: delivery.id });
    try {
      const answer = await webhooksApi.resend(delivery.id);
      answers.done(heading, answer.result);
    } catch (error) {
      answers.failed(heading, error);
    }
    reload();
  };

  return (
    <Page
      title={title}
      actions={
        <Link href={href('/webhooks')} class="back">
          {t('pages.webhooks.back')}
        </Link>
      }
    >
      <OutcomeMessage outcome={answers.outcome} />
      {deleted.value ? (
        <p>
          <Link href={href('/webhooks')}>{t('pages.webhooks.back')}</Link>
        </p>
      ) : (
        <>
          <NotLoaded state={state} reload={reload} />
          {state.state === 'done' && (
            <WebhookView
              answer={state.data}
              test={test}
              resend={resend}
              switchOver={switchOver}
              remove={remove}
              changed={(title, answer) => {
                answers.done(title, answer.result);
                reload();
              }}
              failed={answers.failed}
            />
          )}
        </>
      )}
    </Page>
  );
}

function WebhookView(props: {
  readonly answer: DeliveriesAnswer;
  readonly test: () => Promise<void>;
  readonly resend: (delivery: Delivery) => Promise<void>;
  readonly switchOver: (webhook: Webhook, active: boolean) => Promise<void>;
  readonly remove: (webhook: Webhook) => Promise<void>;
  readonly changed: (title: string, answer: ChangedWebhookAnswer) => void;
  readonly failed: (title: string, error: unknown) => void;
}) {
  const { webhook, deliveries, actions } = props.answer;
  return (
    <>
      <Section title={t('payment.details')} id="webhook-details">
        <dl class="facts">
          {(
            [
              [t('pages.webhooks.column.url'), <span class="mono">{webhook.url}</span>],
              [t('payments.column.entity'), entityName(webhook.entityId)],
              [t('pages.webhooks.column.types'), webhook.types.join(', ')],
              [t('pages.webhooks.fields'), webhook.fields],
              [t('pages.webhooks.wrapper'), webhook.wrapper],
              [t('payments.column.status'), <WebhookStatus webhook={webhook} />],
              [t('pages.registrations.column.created'), formatDateTime(webhook.createdAt)],
              [t('pages.webhooks.secret'), t('pages.webhooks.secretNeverShown')],
            ] as const
          ).map(([name, value]) => (
            <div key={name} class="fact">
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        {mayDo('admin') && <div class="buttons">
          <button type="button" class="button" onClick={() => void props.test()}>
            {t('pages.webhooks.test')}
          </button>
          <SwitchButton webhook={webhook} onSwitch={(active) => props.switchOver(webhook, active)} />
          <ConfirmButton
            label={t('pages.webhooks.delete')}
            question={() => t('pages.webhooks.confirmDelete', { url: webhook.url })}
            onConfirm={() => props.remove(webhook)}
            focusAfter="none"
          />
        </div>}
      </Section>
      {mayDo('admin') && (
        <Section title={t('pages.webhooks.change')} id="webhook-change">
          <ChangeWebhookForm key={webhook.updatedAt} webhook={webhook} changed={props.changed} failed={props.failed} />
        </Section>
      )}
      <Section title={t('pages.webhooks.deliveries')} id="webhook-deliveries">
        <Table<Delivery>
          caption={t('pages.webhooks.deliveriesCaption')}
          rows={deliveries}
          rowKey={(delivery) => delivery.id}
          empty={t('pages.webhooks.noDeliveries')}
          columns={[
            { key: 'created', header: t('pages.registrations.column.created'), cell: (delivery) => formatDateTime(delivery.createdAt) },
            { key: 'event', header: t('payment.eventType'), cell: (delivery) => `${delivery.type} ${delivery.action}` },
            { key: 'resource', header: t('pages.webhooks.column.resource'), cell: (delivery) => <span class="mono">{delivery.resourceId}</span> },
            {
              key: 'state',
              header: t('payments.column.status'),
              cell: (delivery) => <span class={`badge badge-${STATE_BADGES[delivery.state] ?? 'other'}`}>{t(`pages.webhooks.state.${delivery.state.replace(' ', '_')}`, { defaultValue: delivery.state })}</span>,
            },
            { key: 'attempts', header: t('payment.attempts'), cell: (delivery) => <Attempts delivery={delivery} /> },
            {
              key: 'actions',
              header: t('pages.schedules.column.actions'),
              cell: (delivery) => mayDo('admin') && (
                <ConfirmButton
                  label={t('pages.webhooks.resend')}
                  question={() => t('pages.webhooks.confirmResend', { event: `${delivery.type} ${delivery.action}`, url: webhook.url })}
                  onConfirm={() => props.resend(delivery)}
                  focusAfter="none"
                />
              ),
            },
          ]}
        />
      </Section>
      <Section title={t('payment.operatorActions')} id="webhook-actions">
        <Table<RecordedAction>
          caption={t('payment.operatorActions')}
          captionHidden
          rows={actions}
          rowKey={(action) => `${action.at}-${action.who}-${action.action}`}
          empty={t('payment.noOperatorActions')}
          columns={[
            { key: 'at', header: t('payment.at'), cell: (action) => formatDateTime(action.at) },
            { key: 'who', header: t('payment.who'), cell: (action) => action.who },
            { key: 'action', header: t('payment.action'), cell: (action) => action.action },
            {
              key: 'detail',
              header: t('payment.detail'),
              cell: (action) =>
                factsOf(action.detail)
                  .map(([name, value]) => `${name}: ${value}`)
                  .join(', '),
            },
            { key: 'result', header: t('payment.actionResult'), cell: (action) => <span class="mono">{action.resultCode ?? ''}</span> },
          ]}
        />
      </Section>
    </>
  );
}

/** The webhook's address, types, data and wrapper, changed through PATCH (its secret cannot change). */
function ChangeWebhookForm(props: {
  readonly webhook: Webhook;
  readonly changed: (title: string, answer: ChangedWebhookAnswer) => void;
  readonly failed: (title: string, error: unknown) => void;
}) {
  const settings = useWebhookSettings(props.webhook);
  const sending = useSignal(false);
  const save = async (event: Event) => {
    event.preventDefault();
    if (sending.value) return;
    sending.value = true;
    const title = t('pages.webhooks.changed', { url: props.webhook.url });
    try {
      const answer = await webhooksApi.change(props.webhook.id, {
        url: settings.url.value.trim(),
        types: settings.types.value,
        fields: settings.fields.value,
        wrapper: settings.wrapper.value,
      });
      const status = t(`pages.webhooks.status.${answer.webhook.status}`, { defaultValue: answer.webhook.status });
      props.changed(`${title} ${status}.${answer.activation ? ` ${activationText(answer.activation)}` : ''}`, answer);
    } catch (error) {
      props.failed(title, error);
    } finally {
      sending.value = false;
    }
  };
  return (
    <form class="form" onSubmit={(event) => void save(event)} noValidate>
      <p class="hint">{t('pages.webhooks.changeHint')}</p>
      <WebhookSettingsFields settings={settings} />
      <div class="buttons">
        <button type="submit" class="button button-primary" disabled={sending.value} aria-disabled={sending.value}>
          {sending.value ? t('actions.sending') : t('pages.webhooks.save')}
        </button>
      </div>
    </form>
  );
}

function Attempts(props: { readonly delivery: Delivery }) {
  const { attempts } = props.delivery;
  if (attempts.length === 0) return <>{t('payment.noAttempt')}</>;
  return (
    <ul class="plain-list">
      {attempts.map((attempt, index) => (
        <li key={index}>
          {attempt.httpStatus !== null
            ? t('pages.webhooks.attemptShown', { at: formatDateTime(attempt.attemptedAt), status: attempt.httpStatus, ms: attempt.latencyMs })
            : t('payment.attemptFailed', { at: formatDateTime(attempt.attemptedAt), error: attempt.error ?? '' })}
        </li>
      ))}
    </ul>
  );
}
