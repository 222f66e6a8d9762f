import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { parseAmount } from '../amounts.ts';
import { PAYMENT_FILTERS, paymentsApi, type PaymentFilter, type PaymentQuery } from '../api.ts';
import { EntityPicker, entityName } from '../components/EntityPicker.tsx';
import { Field } from '../components/Field.tsx';
import { Link } from '../components/Link.tsx';
import { NotLoaded, Page } from '../components/Page.tsx';
import { Table, type Column } from '../components/Table.tsx';
import { formatAmount, formatDateTime, paymentTypeName, statusName, t } from '../i18n.ts';
import { useLoad } from '../load.ts';
import { href, navigate, place } from '../router.ts';
import { classifySearch } from '../search.ts';
import { selectedEntity, session } from '../state.ts';
import type { PaymentPage, PaymentRow } from '../types.ts';

/**
 * The payments: the list the API pages (50 a page, newest first), with filters and a search box. The filters live in
 * the address (/dashboard/payments?status=declined&q=...), so a list can be shared, reloaded and gone back to; the
 * next page is the same address with the API's `cursor`. The entity picked applies to every page of the app.
 */

/** The lifecycle states (server/domain/backOffice.ts LIFECYCLE_STATES), in the order a payment goes through them. */
const STATES = ['pending', 'declined', 'approved', 'partiallyCaptured', 'captured', 'partiallyRefunded', 'refunded', 'reversed', 'chargedBack'] as const;
const PAYMENT_TYPES = ['PA', 'DB', 'CD', 'CP', 'RV', 'RF', 'CB', 'CR'] as const;

/** The filters the address holds, by the API's names. */
export function filtersOf(search: string): Partial<Record<PaymentFilter, string>> {
  const params = new URLSearchParams(search);
  const filters: Partial<Record<PaymentFilter, string>> = {};
  for (const name of PAYMENT_FILTERS) {
    const value = params.get(name)?.trim();
    if (value) filters[name] = value;
  }
  return filters;
}

export function PaymentsPage() {
  const search = place.value.search;
  const filters = filtersOf(search);
  const cursor = new URLSearchParams(search).get('cursor') ?? undefined;
  const entityId = selectedEntity.value;
  // What the list selects, every page of it: what the total counts and the export writes.
  const selected: PaymentQuery = { ...filters, ...(entityId ? { entityId } : {}) };
  const { loaded, reload } = useLoad((signal) => paymentsApi.list({ ...selected, ...(cursor ? { cursor } : {}) }, signal), [search, entityId]);
  const state = loaded.value;
  const several = (session.value?.entities.length ?? 0) > 1;

  return (
    <Page title={t('payments.title')}>
      <EntityPicker allowAll onChange={() => cursor && navigate(href('/payments', filters))} />
      <PaymentFilters applied={filters} />
      <NotLoaded state={state} reload={reload} />
      {state.state === 'done' && (
        <>
          <div class="list-head">
            {cursor ? <p class="count">{t('payments.shown', { count: state.data.payments.length })}</p> : <PaymentTotal query={selected} page={state.data} />}
            <a class="button" href={paymentsApi.exportHref(selected)} download>
              {t('payments.export')}
            </a>
          </div>
          <Table caption={t('payments.caption')} columns={paymentColumns(several)} rows={state.data.payments} rowKey={(row) => row.id} empty={t('payments.empty')} />
          <nav class="pager" aria-label={t('payments.pager')}>
            {cursor && <Link href={href('/payments', filters)}>{t('payments.firstPage')}</Link>}
            {state.data.nextCursor && <Link href={href('/payments', { ...filters, cursor: state.data.nextCursor })}>{t('payments.nextPage')}</Link>}
          </nav>
        </>
      )}
    </Page>
  );
}

/**
 * How many payments the filters select, asked once their first page is drawn (each new page asks again): a page on a
 * million payments is read in milliseconds, their count takes longer. Until the count of this page's filters comes,
 * the page's own count (never the total of the filters before).
 */
function PaymentTotal({ query, page }: { readonly query: PaymentQuery; readonly page: PaymentPage }) {
  const { loaded } = useLoad((signal) => paymentsApi.count(query, signal).then(({ total }) => ({ page, total })), [page]);
  const counted = loaded.value;
  return (
    <p class="count">
      {counted.state === 'done' && counted.data.page === page ? t('payments.total', { count: counted.data.total }) : t('payments.shown', { count: page.payments.length })}
    </p>
  );
}

/** The columns of a list of payments (this page's, and a payment's linked transactions). */
export function paymentColumns(withEntity: boolean): Column<PaymentRow>[] {
  const columns: (Column<PaymentRow> | false)[] = [
    { key: 'created', header: t('payments.column.created'), cell: (row) => formatDateTime(row.createdAt) },
    {
      key: 'shortId',
      header: t('payments.column.shortId'),
      cell: (row) => (
        <Link href={href(`/payments/${encodeURIComponent(row.id)}`)} class="mono">
          {row.shortId}
        </Link>
      ),
    },
    withEntity && { key: 'entity', header: t('payments.column.entity'), cell: (row) => entityName(row.entityId) },
    { key: 'type', header: t('payments.column.type'), cell: (row) => paymentTypeName(row.paymentType) },
    { key: 'brand', header: t('payments.column.brand'), cell: (row) => row.paymentBrand ?? '' },
    { key: 'amount', header: t('payments.column.amount'), numeric: true, cell: (row) => formatAmount(row.amount, row.currency) },
    { key: 'state', header: t('payments.column.state'), cell: (row) => <StatusBadge status={row.state ?? row.status} /> },
    {
      key: 'result',
      header: t('payments.column.result'),
      cell: (row) => (
        <>
          <span class="mono">{row.result.code}</span> {row.result.description}
        </>
      ),
    },
    { key: 'reference', header: t('payments.column.reference'), cell: (row) => row.merchantTransactionId ?? '' },
    { key: 'card', header: t('payments.column.card'), cell: (row) => (row.card ? t('payment.cardShown', { bin: row.card.bin, last4: row.card.last4Digits }) : '') },
  ];
  return columns.filter((column): column is Column<PaymentRow> => column !== false);
}

export function StatusBadge(props: { readonly status: string }) {
  return <span class={`badge badge-${/^(approved|pending|declined)$/.test(props.status) ? props.status : 'other'}`}>{statusName(props.status)}</span>;
}

type AmountErrors = Partial<Record<'amountFrom' | 'amountTo', string>>;

/**
 * The search box and the filters, as typed; applying them goes to the address of the list they select (its first
 * page). A payment id in the search box opens that payment.
 */
function PaymentFilters(props: { readonly applied: Partial<Record<PaymentFilter, string>> }) {
  const values = useSignal<Partial<Record<PaymentFilter, string>>>({ ...props.applied });
  const errors = useSignal<AmountErrors>({});
  const form = useRef<HTMLFormElement>(null);
  const value = (name: PaymentFilter) => values.value[name] ?? '';
  const set = (name: PaymentFilter) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) => {
    values.value = { ...values.value, [name]: event.currentTarget.value };
  };
  const term = classifySearch(value('q'));

  useEffect(() => {
    if (Object.keys(errors.value).length > 0) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [errors.value]);

  const apply = (event: Event) => {
    event.preventDefault();
    const found: AmountErrors = {};
    const query: Record<string, string> = {};
    for (const name of PAYMENT_FILTERS) {
      const text = value(name).trim();
      if (text === '') continue;
      if (name === 'amountFrom' || name === 'amountTo') {
        const parsed = parseAmount(text, { allowZero: true });
        if (parsed.ok) query[name] = parsed.amount;
        else found[name] = t(`amount.${parsed.problem}`);
      } else if (name === 'paymentBrand' || name === 'currency') {
        query[name] = text.toUpperCase();
      } else if (name === 'q') {
        query[name] = classifySearch(text)?.value ?? text;
      } else {
        query[name] = text;
      }
    }
    errors.value = found;
    if (Object.keys(found).length > 0) return;
    if (term?.kind === 'id') navigate(href(`/payments/${term.value}`));
    else navigate(href('/payments', query));
  };

  const text = (name: PaymentFilter, label: string, extra: { hint?: string; type?: 'text' | 'search' | 'date'; inputMode?: 'decimal'; error?: string } = {}) => (
    <Field label={label} hint={extra.hint} error={extra.error}>
      {(control) => {
        const common = { ...control, name, inputMode: extra.inputMode, value: value(name), onInput: set(name) };
        if (extra.type === 'date') return <input {...common} type="date" />;
        if (extra.type === 'search') return <input {...common} type="search" />;
        return <input {...common} type="text" />;
      }}
    </Field>
  );

  return (
    <form ref={form} class="filters" role="search" onSubmit={apply} noValidate>
      <div class="search-row">
        {text('q', t('payments.searchLabel'), { type: 'search', ...(term ? { hint: t(`payments.searchAs.${term.kind}`) } : {}) })}
      </div>
      <fieldset class="filter-grid">
        <legend>{t('payments.filters')}</legend>
        <Field label={t('payments.state')}>
          {(control) => (
            <select {...control} name="state" value={value('state')} onChange={set('state')}>
              <option value="">{t('payments.anyState')}</option>
              {STATES.map((state) => (
                <option key={state} value={state}>
                  {statusName(state)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('payments.type')}>
          {(control) => (
            <select {...control} name="paymentType" value={value('paymentType')} onChange={set('paymentType')}>
              <option value="">{t('payments.anyType')}</option>
              {PAYMENT_TYPES.map((type) => (
                <option key={type} value={type}>
                  {`${paymentTypeName(type)} (${type})`}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text('paymentBrand', t('payments.brand'), { hint: t('payments.brandHint') })}
        {text('currency', t('payments.currency'), { hint: t('payments.currencyHint') })}
        {text('amountFrom', t('payments.amountFrom'), { inputMode: 'decimal', ...(errors.value.amountFrom ? { error: errors.value.amountFrom } : {}) })}
        {text('amountTo', t('payments.amountTo'), { inputMode: 'decimal', ...(errors.value.amountTo ? { error: errors.value.amountTo } : {}) })}
        {text('dateFrom', t('payments.dateFrom'), { type: 'date' })}
        {text('dateTo', t('payments.dateTo'), { type: 'date' })}
        {text('merchantTransactionId', t('payments.reference'))}
        {text('shortId', t('payments.shortId'))}
      </fieldset>
      <div class="buttons">
        <button type="submit" class="button button-primary">
          {t('payments.search')}
        </button>
        <Link href={href('/payments')} class="button">
          {t('payments.reset')}
        </Link>
      </div>
    </form>
  );
}
