import { paymentsApi } from '../api.ts';
import { EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Link } from '../components/Link.tsx';
import { NotLoaded, Page } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatAmount, formatDateTime, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { href, navigate, place } from '../router.ts';
import { selectedEntity, session } from '../state.ts';
import type { ChargebackRow } from '../types.ts';

/**
 * The chargebacks of the entity picked (or all the session sees), newest first, 50 a page: when each came, the payment
 * it charged back (a link to it), its amount and reason, and whether it was reversed since.
 */

export function ChargebacksPage() {
  const search = place.value.search;
  const cursor = new URLSearchParams(search).get('cursor') ?? undefined;
  const entityId = selectedEntity.value;
  const { loaded, reload } = useLoad((signal) => paymentsApi.chargebacks({ ...(entityId ? { entityId } : {}), ...(cursor ? { cursor } : {}) }, signal), [search, entityId]);
  const state = loaded.value;
  const several = (session.value?.entities.length ?? 0) > 1;
  return (
    <Page title={t('chargebacks.title')}>
      <EntityPicker allowAll onChange={() => cursor && navigate(href('/chargebacks'))} />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <Table caption={t('chargebacks.caption')} columns={chargebackColumns(several)} rows={state.data.chargebacks} rowKey={(row) => row.id} empty={t('chargebacks.empty')} />
          <nav class="pager" aria-label={t('payments.pager')}>
            {cursor && <Link href={href('/chargebacks')}>{t('payments.firstPage')}</Link>}
            {state.data.nextCursor && <Link href={href('/chargebacks', { cursor: state.data.nextCursor })}>{t('payments.nextPage')}</Link>}
          </nav>
        </>
      )}
    </Page>
  );
}

function chargebackColumns(withEntity: boolean): Column<ChargebackRow>[] {
  const columns: (Column<ChargebackRow> | false)[] = [
    { key: 'created', header: t('chargebacks.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    withEntity && { key: 'entity', header: t('payments.column.entity'), cell: (row) => entityName(row.entityId) },
    {
      key: 'payment',
      header: t('chargebacks.column.payment'),
      cell: (row) => (
        <Link href={href(`/payments/${encodeURIComponent(row.payment.id)}`)} class="mono">
          {row.payment.shortId}
        </Link>
      ),
    },
    { key: 'reference', header: t('chargebacks.column.reference'), cell: (row) => row.payment.merchantTransactionId ?? '' },
    { key: 'amount', header: t('chargebacks.column.amount'), numeric: true, cell: (row) => formatAmount(row.amount, row.currency) },
    { key: 'reason', header: t('chargebacks.column.reason'), cell: (row) => <><span class="mono">{row.reason.code}</span> {row.reason.description}</> },
    { key: 'state', header: t('chargebacks.column.state'), cell: (row) => (row.reversed ? t('chargebacks.reversed') : t('chargebacks.open')) },
  ];
  return columns.filter((column): column is Column<ChargebackRow> => column !== false);
}
