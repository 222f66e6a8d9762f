import { paymentsApi } from '../api.ts';
import { EntityPicker } from '../components/EntityPicker.tsx';
import { Link } from '../components/Link.tsx';
import { NotLoaded, Page } from '../components/Page.tsx';
import { Table } from '../components/Table.tsx';
import { formatAmount, formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { href } from '../router.ts';
import { selectedEntity } from '../state.ts';
import type { PeriodFigures, Volume } from '../types.ts';

/**
 * The overview: today's and the last 30 days' volume by currency, the approval rate and the declines by reason, the
 * payments still pending, the chargebacks not reversed — of the entity picked, or of every entity the session sees.
 * Each figure leads to the list it sums where there is one.
 */

export function OverviewPage() {
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => paymentsApi.overview(entityId, signal), [entityId]);
  const state = loaded.value;
  return (
    <Page title={t('overview.title')}>
      <EntityPicker allowAll />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <div class="overview">
            <Period title={t('overview.today')} figures={state.data.overview.today} />
            <Period title={t('overview.last30Days')} figures={state.data.overview.last30Days} />
            <section class="figure" aria-labelledby="overview-pending">
              <h2 id="overview-pending">{t('overview.pending')}</h2>
              <p>
                <Link href={href('/payments', { state: 'pending' })}>{t('overview.pendingCount', { count: state.data.overview.pending.count })}</Link>
              </p>
              {state.data.overview.pending.oldestAt && <p class="hint">{t('overview.oldest', { at: formatDateTime(state.data.overview.pending.oldestAt) })}</p>}
            </section>
            <section class="figure" aria-labelledby="overview-chargebacks">
              <h2 id="overview-chargebacks">{t('overview.openChargebacks')}</h2>
              <p>
                <Link href={href('/chargebacks')}>{t('overview.chargebackCount', { count: state.data.overview.openChargebacks.count })}</Link>
              </p>
              <Amounts volumes={state.data.overview.openChargebacks.byCurrency} />
            </section>
          </div>
          <p class="hint">{t('overview.utc')}</p>
        </>
      )}
    </Page>
  );
}

function Amounts(props: { readonly volumes: readonly Volume[] }) {
  if (props.volumes.length === 0) return null;
  return (
    <ul class="amounts">
      {props.volumes.map((volume) => (
        <li key={volume.currency}>{formatAmount(volume.amount, volume.currency)}</li>
      ))}
    </ul>
  );
}

function Period(props: { readonly title: string; readonly figures: PeriodFigures }) {
  const { figures } = props;
  const id = `overview-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section class="figure" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      <h3>{t('overview.volume')}</h3>
      {figures.volume.length === 0 ? <p class="empty">{t('overview.noPayments')}</p> : <Amounts volumes={figures.volume} />}
      {figures.refunds.length > 0 && (
        <>
          <h3>{t('overview.refunds')}</h3>
          <Amounts volumes={figures.refunds} />
        </>
      )}
      <h3>{t('overview.approvalRate')}</h3>
      <p>
        <strong>{figures.approvalRate === null ? '–' : `${(figures.approvalRate * 100).toFixed(1)} %`}</strong>{' '}
        {t('overview.approvedDeclined', { approved: figures.approved, declined: figures.declined })}
      </p>
      <Table
        caption={t('overview.declines')}
        columns={[
          { key: 'reason', header: t('overview.reason'), cell: (row) => <><span class="mono">{row.code}</span> {row.description}</> },
          { key: 'count', header: t('overview.count'), numeric: true, cell: (row) => String(row.count) },
        ]}
        rows={figures.declinesByReason}
        rowKey={(row) => row.code}
        empty={t('overview.noDeclines')}
      />
    </section>
  );
}
