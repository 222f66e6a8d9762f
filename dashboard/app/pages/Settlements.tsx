import { useSignal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { currentEntityId, entityName, EntityPicker } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page, Section } from '../components/Page.tsx';
import { Table } from '../components/Table.tsx';
import { formatAmount, formatDateTime, locale, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { href, navigate, place } from '../router.ts';
import { settlementsApi, type DayRange, type ReconciliationFile, type SettlementRow } from '../settingsApi.ts';
import { mayDo } from '../roles.ts';

/**
 * An entity's settlements: the settlement reports' summary of a span of days (one row per day, clearing institute and
 * currency, as GET /reports/v1/reconciliations/aggregations gives it), and its reconciliation files — each day's
 * CSV to download (a plain link: the browser sends the session cookie) and to send again to the entity's FTP server,
 * asked first, with the gateway's answer shown. The span lives in the address (?from=&to=); without it the API's
 * default, the last 31 days.
 */

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FILE_STATUSES = ['pending', 'retrying', 'uploaded', 'failed'];

function rangeOf(search: string): DayRange {
  const params = new URLSearchParams(search);
  const day = (name: string) => {
    const value = params.get(name)?.trim();
    return value && DAY.test(value) ? value : undefined;
  };
  return { from: day('from'), to: day('to') };
}

export function SettlementsPage() {
  const entityId = currentEntityId();
  const range = rangeOf(place.value.search);
  return (
    <Page title={t('pages.settlements.title')}>
      <p>{t('pages.settlements.intro')}</p>
      <EntityPicker />
      <RangeForm key={`${range.from ?? ''}-${range.to ?? ''}`} range={range} />
      {entityId ? (
        <>
          <SettlementsSection entityId={entityId} range={range} />
          <FilesSection entityId={entityId} range={range} />
        </>
      ) : (
        <p class="empty">{t('settings.noEntity')}</p>
      )}
    </Page>
  );
}

function RangeForm(props: { readonly range: DayRange }) {
  const from = useSignal(props.range.from ?? '');
  const to = useSignal(props.range.to ?? '');
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(href('/settlements', { from: from.value, to: to.value }));
  };
  return (
    <form class="filters" onSubmit={apply} noValidate aria-label={t('settlements.range')}>
      <div class="filter-grid">
        <Field label={t('settlements.from')}>{(control) => <input {...control} type="date" name="from" value={from.value} onInput={(event) => (from.value = event.currentTarget.value)} />}</Field>
        <Field label={t('settlements.to')}>{(control) => <input {...control} type="date" name="to" value={to.value} onInput={(event) => (to.value = event.currentTarget.value)} />}</Field>
      </div>
      <p class="hint">{t('settlements.rangeHint')}</p>
      <div class="buttons">
        <button type="submit" class="button button-primary">
          {t('settlements.show')}
        </button>
        <Link href={href('/settlements')} class="button">
          {t('settlements.reset')}
        </Link>
      </div>
    </form>
  );
}

function SettlementsSection(props: { readonly entityId: string; readonly range: DayRange }) {
  const { entityId, range } = props;
  const { loaded, reload } = useLoad((signal) => settlementsApi.settlements(entityId, range, signal), [entityId, range.from, range.to]);
  const state = loaded.value;
  return (
    <Section title={t('settlements.title')} id="settlements-summary">
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <p class="count">{t('settlements.span', { from: state.data.from, to: state.data.to })}</p>
          <Table<SettlementRow>
            caption={t('settlements.caption', { entity: entityName(entityId) })}
            rows={state.data.settlements}
            rowKey={(row) => row.id}
            empty={t('settlements.empty')}
            columns={[
              { key: 'date', header: t('settlements.column.date'), cell: (row) => <span class="mono">{row.date}</span> },
              { key: 'institute', header: t('settlements.column.institute'), cell: (row) => row.clearingInstituteName },
              { key: 'currency', header: t('settlements.column.currency'), cell: (row) => row.currency },
              { key: 'count', header: t('settlements.column.transactions'), numeric: true, cell: (row) => new Intl.NumberFormat(locale()).format(row.transactionCount) },
              { key: 'amount', header: t('settlements.column.amount'), numeric: true, cell: (row) => formatAmount(row.settlementAmount, row.currency) },
              {
                key: 'file',
                header: t('settlements.column.file'),
                cell: (row) => (
                  <a href={settlementsApi.fileHref(entityId, row.date)} download>
                    {t('settlements.downloadDay', { date: row.date })}
                  </a>
                ),
              },
            ]}
          />
        </>
      )}
    </Section>
  );
}

const fileStatusName = (status: string) => (FILE_STATUSES.includes(status) ? t(`files.status.${status}`) : status);

function FilesSection(props: { readonly entityId: string; readonly range: DayRange }) {
  const { entityId, range } = props;
  const { loaded, reload } = useLoad((signal) => settlementsApi.files(entityId, range, signal), [entityId, range.from, range.to]);
  const answers = useOutcome();
  const state = loaded.value;
  const resend = async (date: string) => {
    const title = `${t('actions.answer')}: ${t('files.resendDay', { date })}`;
    try {
      const answer = await settlementsApi.resend(entityId, date);
      answers.done(title, answer.result);
      reload();
    } catch (error) {
      answers.failed(title, error);
    }
  };
  const question = (date: string) => t('files.confirmResend', { date, entity: entityName(entityId) });
  return (
    <Section title={t('files.title')} id="settlements-files">
      <p class="hint">{t('files.intro')}</p>
      <OutcomeMessage outcome={answers.outcome} />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <Table<ReconciliationFile>
          caption={t('files.caption', { from: state.data.from, to: state.data.to })}
          rows={state.data.files}
          rowKey={(file) => file.date}
          empty={t('files.empty')}
          columns={[
            { key: 'date', header: t('files.column.date'), cell: (file) => <span class="mono">{file.date}</span> },
            {
              key: 'file',
              header: t('files.column.file'),
              cell: (file) => (
                <a href={settlementsApi.fileHref(entityId, file.date)} download={file.fileName} class="mono">
                  {file.fileName}
                </a>
              ),
            },
            { key: 'status', header: t('files.column.status'), cell: (file) => <span class={`badge badge-${file.status === 'uploaded' ? 'approved' : file.status === 'failed' ? 'declined' : 'pending'}`}>{fileStatusName(file.status)}</span> },
            {
              key: 'resend',
              header: t('files.column.actions'),
              cell: (file) => (mayDo('admin') ? <ConfirmButton label={t('files.resendDay', { date: file.date })} question={() => question(file.date)} onConfirm={() => resend(file.date)} focusAfter="none" /> : ''),
            },
            { key: 'attempts', header: t('files.column.attempts'), numeric: true, cell: (file) => String(file.attempts) },
            { key: 'records', header: t('files.column.records'), numeric: true, cell: (file) => (file.recordCount === null ? '' : String(file.recordCount)) },
            {
              key: 'when',
              header: t('files.column.when'),
              cell: (file) =>
                file.uploadedAt ? t('files.uploadedAt', { at: formatDateTime(file.uploadedAt) }) : file.nextAttemptAt ? t('files.nextAttemptAt', { at: formatDateTime(file.nextAttemptAt) }) : '',
            },
            { key: 'error', header: t('files.column.lastError'), cell: (file) => file.lastError ?? '' },
          ]}
        />
      )}
      {mayDo('admin') && <ResendForm onResend={resend} question={question} />}
    </Section>
  );
}

/** Any day's file sent again (a day not listed: the first send after the FTP server was set, an older day). */
function ResendForm(props: { readonly onResend: (date: string) => Promise<void>; readonly question: (date: string) => string }) {
  const date = useSignal('');
  const error = useSignal<string | undefined>(undefined);
  const check = () => {
    const ok = DAY.test(date.value);
    error.value = ok ? undefined : t('files.dayRequired');
    return ok;
  };
  return (
    <div class="action" role="group" aria-labelledby="files-resend-any">
      <h3 id="files-resend-any">{t('files.resendAny')}</h3>
      <Field label={t('files.day')} hint={t('files.dayHint')} error={error.value}>
        {(control) => (
          <input
            {...control}
            type="date"
            name="resendDate"
            value={date.value}
            onInput={(event) => {
              date.value = event.currentTarget.value;
              error.value = undefined;
            }}
          />
        )}
      </Field>
      <ConfirmButton label={t('files.resend')} check={check} question={() => props.question(date.value)} onConfirm={() => props.onResend(date.value)} focusAfter="none" />
    </div>
  );
}
