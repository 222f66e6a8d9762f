import { useSignal } from '@preact/signals';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { OutcomeMessage, useOutcome } from '../components/Outcome.tsx';
import { NotLoaded, Page } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatAmount, formatDateTime, paymentTypeName, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { SCHEDULE_STATUSES, schedulesApi, type Schedule } from '../recordsApi.ts';
import { href, navigate, place } from '../router.ts';
import { selectedEntity, session } from '../state.ts';
import { mayDo } from '../roles.ts';

/**
 * Schedules: the entity's (or all the principal's) scheduled payments, newest first, 50 a page, filtered by status
 * (in the address): the payment each makes, its Quartz job, the registration it charges, its next run. An active
 * schedule can be cancelled — asked first, then done by the same use-case as DELETE /scheduling/v1/schedules/{id},
 * with the gateway's answer shown; the list is loaded again.
 */

const BADGES: Readonly<Record<string, string>> = { active: 'approved', cancelled: 'declined', ended: 'other' };

export function SchedulesPage() {
  const search = place.value.search;
  const params = new URLSearchParams(search);
  const cursor = params.get('cursor') ?? undefined;
  const status = params.get('status') ?? '';
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad(
    (signal) => schedulesApi.list({ ...(entityId ? { entityId } : {}), ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }, signal),
    [search, entityId],
  );
  const answers = useOutcome();
  const state = loaded.value;
  const several = (session.value?.entities.length ?? 0) > 1;

  const cancel = async (schedule: Schedule) => {
    const title = t('pages.schedules.cancelled', { id: schedule.id });
    try {
      const answer = await schedulesApi.cancel(schedule.id);
      answers.done(title, answer.result);
    } catch (error) {
      answers.failed(title, error);
    }
    reload();
  };

  return (
    <Page title={t('pages.schedules.title')}>
      <p>{t('pages.schedules.intro')}</p>
      <EntityPicker allowAll onChange={() => cursor && navigate(href('/schedules', { status }))} />
      <StatusFilter status={status} />
      <OutcomeMessage outcome={answers.outcome} />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <p class="count">{t('pages.schedules.shown', { count: state.data.schedules.length })}</p>
          <Table caption={t('pages.schedules.caption')} columns={scheduleColumns(several, cancel)} rows={state.data.schedules} rowKey={(row) => row.id} empty={t('pages.schedules.empty')} />
          <nav class="pager" aria-label={t('payments.pager')}>
            {cursor && <Link href={href('/schedules', { status })}>{t('payments.firstPage')}</Link>}
            {state.data.nextCursor && <Link href={href('/schedules', { status, cursor: state.data.nextCursor })}>{t('payments.nextPage')}</Link>}
          </nav>
        </>
      )}
    </Page>
  );
}

function StatusFilter(props: { readonly status: string }) {
  const chosen = useSignal(props.status);
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(href('/schedules', { status: chosen.value }));
  };
  return (
    <form class="filters" role="search" onSubmit={apply} noValidate>
      <Field label={t('payments.status')}>
        {(control) => (
          <select {...control} name="status" value={chosen.value} onChange={(event) => (chosen.value = event.currentTarget.value)}>
            <option value="">{t('payments.anyStatus')}</option>
            {SCHEDULE_STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`pages.schedules.status.${status}`)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div class="buttons">
        <button type="submit" class="button button-primary">
          {t('payments.search')}
        </button>
      </div>
    </form>
  );
}

function Charged(props: { readonly row: Schedule }) {
  const charged = props.row.registration;
  return (
    <>
      <span class="mono">{props.row.registrationId}</span>
      {charged && (
        <>
          <br />
          {charged.paymentBrand}{' '}
          {charged.card && t('payment.cardShown', { bin: charged.card.bin, last4: charged.card.last4Digits })}
          {charged.bankAccount && t('pages.registrations.iban', { iban: charged.bankAccount.iban })}
          {charged.deleted && ` (${t('pages.registrations.status.deleted')})`}
        </>
      )}
    </>
  );
}

function scheduleColumns(withEntity: boolean, cancel: (schedule: Schedule) => Promise<void>): Column<Schedule>[] {
  const columns: (Column<Schedule> | false)[] = [
    { key: 'created', header: t('pages.registrations.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    withEntity && { key: 'entity', header: t('payments.column.entity'), cell: (row) => entityName(row.entityId) },
    {
      key: 'status',
      header: t('payments.column.status'),
      cell: (row) => (
        <>
          <span class={`badge badge-${BADGES[row.status] ?? 'other'}`}>{t(`pages.schedules.status.${row.status}`, { defaultValue: row.status })}</span>
          {row.cancelReason && (
            <>
              <br />
              {t(`pages.schedules.reason.${row.cancelReason.replace(/ /g, '_')}`, { defaultValue: row.cancelReason })}
            </>
          )}
        </>
      ),
    },
    { key: 'amount', header: t('payments.column.amount'), numeric: true, cell: (row) => formatAmount(row.amount, row.currency) },
    { key: 'type', header: t('payments.column.type'), cell: (row) => paymentTypeName(row.paymentType) },
    {
      key: 'job',
      header: t('pages.schedules.column.job'),
      cell: (row) => (
        <>
          <span class="mono">{row.job.expression}</span>
          {row.job.name && (
            <>
              <br />
              {row.job.name}
            </>
          )}
        </>
      ),
    },
    { key: 'next', header: t('pages.schedules.column.next'), cell: (row) => (row.nextFireAt ? formatDateTime(row.nextFireAt) : t('pages.schedules.noNext')) },
    { key: 'registration', header: t('pages.schedules.column.registration'), cell: (row) => <Charged row={row} /> },
    { key: 'reference', header: t('payments.column.reference'), cell: (row) => row.merchantTransactionId ?? '' },
    {
      key: 'actions',
      header: t('pages.schedules.column.actions'),
      cell: (row) =>
        row.status === 'active' && mayDo('refunds') ? (
          <ConfirmButton
            label={t('pages.schedules.cancel')}
            question={() => t('pages.schedules.confirmCancel', { amount: formatAmount(row.amount, row.currency), expression: row.job.expression })}
            onConfirm={() => cancel(row)}
            focusAfter="none"
          />
        ) : (
          ''
        ),
    },
  ];
  return columns.filter((column): column is Column<Schedule> => column !== false);
}
